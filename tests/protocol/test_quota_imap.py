"""Quotas over IMAP (RFC 9208) against the real dariusd with imaplib: the capabilities,
GETQUOTAROOT, GETQUOTA, SETQUOTA (admins only), NO [OVERQUOTA] on APPEND, COPY and CREATE,
STATUS DELETED and DELETED-STORAGE, the SELECT alert at quota_warn_percent, and bad input
(SETQUOTA by a non-admin, limits over 2^63-1, an unknown resource), each of which changes
nothing. cyrus is the admin; every test uses its own user so that the limits do not meet."""
import imaplib
import re
import unittest

from darius_harness import Instance, darius, logout_quietly

USERS = ["cyrus", "bob", "carol", "dave", "erin", "frank"]
MESSAGE = b"From: a@example.com\r\nSubject: q\r\n\r\n" + b"x" * 300 + b"\r\n"


class QuotaImapTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.inst = Instance(options={"admins": "cyrus", "allow_plaintext_auth": "yes"})
        for user in USERS:
            darius("user", "add", "-C", cls.inst.conf, user, "--password", user + "-pw")
        cls.inst.start()

    @classmethod
    def tearDownClass(cls):
        cls.inst.stop()
        cls.inst.close()

    def login(self, user):
        m = imaplib.IMAP4("127.0.0.1", self.inst.port("imap"), timeout=30)
        self.addCleanup(logout_quietly, m)
        pw = "alice-secret" if user == "alice" else user + "-pw"
        self.assertEqual(m.login(user, pw)[0], "OK")
        m.select("INBOX")  # makes sure the INBOX exists (created at first login)
        m.close()
        return m

    def cmd(self, m, *args):
        """Runs a command by name and returns (tagged type, tagged text, untagged lines)."""
        tag = m._new_tag()
        m.send(tag + b" " + " ".join(args).encode() + b"\r\n")
        untagged = []
        while True:
            line = m._get_line()
            if line.startswith(tag + b" "):
                typ, _, text = line[len(tag) + 1:].partition(b" ")
                return typ.decode(), text.decode(), untagged
            untagged.append(line.decode())

    def admin_set(self, user, limits):
        a = self.login("cyrus")
        typ, text, untagged = self.cmd(a, "SETQUOTA", f'"Other Users/{user}"', f"({limits})")
        self.assertEqual(typ, "OK", text)
        return untagged

    def append(self, m, mailbox="INBOX"):
        return m.append(mailbox, None, None, MESSAGE)

    def test_capabilities(self):
        m = imaplib.IMAP4("127.0.0.1", self.inst.port("imap"), timeout=30)
        self.addCleanup(logout_quietly, m)
        for cap in ("QUOTA", "QUOTA=RES-STORAGE", "QUOTA=RES-MESSAGE", "QUOTA=RES-MAILBOX",
                    "QUOTASET"):
            self.assertIn(cap, m.capabilities)

    def test_getquotaroot_and_getquota_of_an_unlimited_user(self):
        m = self.login("alice")
        typ, text, untagged = self.cmd(m, "GETQUOTAROOT", "INBOX")
        self.assertEqual(typ, "OK", text)
        self.assertEqual(untagged, ['* QUOTAROOT "INBOX" "INBOX"', '* QUOTA "INBOX" ()'])
        typ, text, untagged = self.cmd(m, "GETQUOTA", "INBOX")
        self.assertEqual(typ, "OK", text)
        self.assertEqual(untagged, ['* QUOTA "INBOX" ()'])
        # A mailbox not created yet: the root it would get (RFC 9208 §4.1.2).
        typ, text, untagged = self.cmd(m, "GETQUOTAROOT", "NotYet")
        self.assertEqual(typ, "OK", text)
        self.assertEqual(untagged[0], '* QUOTAROOT "NotYet" "INBOX"')

    def test_setquota_by_admin_and_usage(self):
        untagged = self.admin_set("bob", "STORAGE 100 MESSAGE 10")
        self.assertEqual(untagged, ['* QUOTA "Other Users/bob" (STORAGE 0 100 MESSAGE 0 10)'])
        m = self.login("bob")
        self.assertEqual(self.append(m)[0], "OK")
        typ, text, untagged = self.cmd(m, "GETQUOTA", "INBOX")
        self.assertEqual(typ, "OK", text)
        # 337 bytes are 1 KiB when shown (rounded up).
        self.assertEqual(untagged, ['* QUOTA "INBOX" (STORAGE 1 100 MESSAGE 1 10)'])
        # SETQUOTA replaces every limit: MESSAGE goes (RFC 9208 §4.1.3).
        self.admin_set("bob", "STORAGE 200")
        typ, text, untagged = self.cmd(m, "GETQUOTA", "INBOX")
        self.assertEqual(untagged, ['* QUOTA "INBOX" (STORAGE 1 200)'])

    def test_over_quota_append_copy_create(self):
        self.admin_set("carol", "MESSAGE 2 MAILBOX 2")
        m = self.login("carol")
        self.assertEqual(self.append(m)[0], "OK")
        self.assertEqual(self.append(m)[0], "OK")
        typ, text, _ = self.cmd(m, "APPEND", "INBOX", "{%d+}\r\n" % len(MESSAGE) + MESSAGE.decode())
        self.assertEqual(typ, "NO")
        self.assertTrue(text.startswith("[OVERQUOTA]"), text)
        self.assertEqual(m.create("Box")[0], "OK")  # the second mailbox
        typ, text, _ = self.cmd(m, "CREATE", "Third")
        self.assertEqual(typ, "NO")
        self.assertTrue(text.startswith("[OVERQUOTA]"), text)
        self.assertEqual(m.list('""', "Third")[1], [None])
        m.select("INBOX")
        typ, text, _ = self.cmd(m, "COPY", "1", "Box")
        self.assertEqual(typ, "NO")
        self.assertTrue(text.startswith("[OVERQUOTA]"), text)
        self.assertEqual(m.status("Box", "(MESSAGES)")[1][0], b'"Box" (MESSAGES 0)')
        # MOVE within the root changes nothing in the usage, so it is allowed.
        typ, text, _ = self.cmd(m, "MOVE", "1", "Box")
        self.assertEqual(typ, "OK", text)
        # Deleting makes room again.
        m.store("1", "+FLAGS", "\\Deleted")
        m.expunge()
        self.assertEqual(self.append(m)[0], "OK")

    def test_status_deleted_and_deleted_storage(self):
        m = self.login("dave")
        for _ in range(3):
            self.assertEqual(self.append(m)[0], "OK")
        m.select("INBOX")
        m.store("1:2", "+FLAGS", "\\Deleted")
        typ, data = m.status("INBOX", "(MESSAGES DELETED DELETED-STORAGE)")
        self.assertEqual(typ, "OK")
        self.assertEqual(data[0].decode(),
                         f'"INBOX" (MESSAGES 3 DELETED 2 DELETED-STORAGE {2 * len(MESSAGE)})')

    def test_select_warns_near_the_limit(self):
        self.admin_set("erin", "MESSAGE 10")
        m = self.login("erin")
        for _ in range(8):
            self.assertEqual(self.append(m)[0], "OK")
        def alerts():
            return [r for r in m.untagged_responses.get("OK", []) if r.startswith(b"[ALERT]")]

        m.select("INBOX")
        self.assertEqual(alerts(), [])  # 80%: under quota_warn_percent (90)
        m.close()
        self.assertEqual(self.append(m)[0], "OK")
        m.select("INBOX")
        self.assertEqual(alerts(), [b"[ALERT] Quota warning: MESSAGE at 90% of the limit"])

    def test_bad_input_changes_nothing(self):
        self.admin_set("frank", "STORAGE 50")
        a = self.login("cyrus")
        f = self.login("frank")
        before = self.cmd(a, "GETQUOTA", '"Other Users/frank"')
        self.assertEqual(before[2], ['* QUOTA "Other Users/frank" (STORAGE 0 50)'])
        # Not an admin: NOPERM, for their own root as for anyone's.
        for who, root in ((f, "INBOX"), (f, '"Other Users/bob"'), (f, '"Other Users/nosuch"')):
            typ, text, untagged = self.cmd(who, "SETQUOTA", root, "(STORAGE 1)")
            self.assertEqual((typ, untagged), ("NO", []))
            self.assertTrue(text.startswith("[NOPERM]"), text)
        # Over number64, and over 2^64: BAD.
        for limit in ("9223372036854775808", "18446744073709551616", "-1", "x"):
            typ, text, _ = self.cmd(a, "SETQUOTA", '"Other Users/frank"', f"(STORAGE {limit})")
            self.assertEqual(typ, "BAD", (limit, text))
        # The largest number64 is a limit.
        typ, text, _ = self.cmd(a, "SETQUOTA", '"Other Users/frank"',
                                "(MESSAGE 9223372036854775807 STORAGE 50)")
        self.assertEqual(typ, "OK", text)
        # A resource we do not have: NO, and the other limits in the list are not set either.
        typ, text, _ = self.cmd(a, "SETQUOTA", '"Other Users/frank"', "(STORAGE 1 FOO 5)")
        self.assertEqual(typ, "NO", text)
        after = self.cmd(a, "GETQUOTA", '"Other Users/frank"')
        self.assertEqual(after[2], ['* QUOTA "Other Users/frank" '
                                    '(STORAGE 0 50 MESSAGE 0 9223372036854775807)'])
        # Another user's root is not there for frank, exactly like a missing one.
        missing = self.cmd(f, "GETQUOTA", '"Other Users/nosuch"')
        hidden = self.cmd(f, "GETQUOTA", '"Other Users/bob"')
        self.assertEqual(missing[0], "NO")
        self.assertEqual(re.sub(r"^\S+ ", "", missing[1]), re.sub(r"^\S+ ", "", hidden[1]))
        self.assertEqual(hidden[1], missing[1])
        hidden = self.cmd(f, "GETQUOTAROOT", '"Other Users/bob"')
        missing = self.cmd(f, "GETQUOTAROOT", '"Other Users/nosuch"')
        self.assertEqual((hidden[0], hidden[1], hidden[2]), (missing[0], missing[1], missing[2]))
        self.assertEqual(hidden[0], "NO")


if __name__ == "__main__":
    unittest.main()
