"""Admins (the `admins` option) against the real dariusd: proxy authentication with SASL
PLAIN's authorization identity over IMAP (imaplib) and POP3 (poplib), within each admin's
scope only, and the implicit lookup right that lets an admin see other users' mailboxes
without reading them. Users: cyrus (global admin), admin@example.com (admin of example.com),
alice, bob@example.com, carol@other.org."""
import imaplib
import poplib
import smtplib
import unittest

from darius_harness import Instance, darius, logout_quietly

USERS = {
    "cyrus": "cyrus-pw",
    "admin@example.com": "admin-pw",
    "bob@example.com": "bob-pw",
    "carol@other.org": "carol-pw",
}


class AdminsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.inst = Instance(options={"admins": "cyrus admin@example.com",
                                     "allow_plaintext_auth": "yes"})
        for user, password in USERS.items():
            darius("user", "add", "-C", cls.inst.conf, user, "--password", password)
        cls.inst.start()
        # One message for alice, two for bob: a proxied session shows whose INBOX it has.
        lmtp = smtplib.LMTP("127.0.0.1", cls.inst.port("lmtp"))
        for rcpt, n in (("alice@localhost", 1), ("bob@example.com", 2)):
            for i in range(n):
                lmtp.sendmail("s@example.org", [rcpt], f"Subject: {i}\r\n\r\nx\r\n")
        lmtp.quit()

    @classmethod
    def tearDownClass(cls):
        cls.inst.stop()
        cls.inst.close()

    def imap_plain(self, authzid, authcid, password):
        m = imaplib.IMAP4("127.0.0.1", self.inst.port("imap"), timeout=30)
        self.addCleanup(logout_quietly, m)
        msg = f"{authzid}\0{authcid}\0{password}".encode()
        try:
            typ, _ = m.authenticate("PLAIN", lambda _: msg)
        except imaplib.IMAP4.error:
            return None
        self.assertEqual(typ, "OK")
        return m

    def inbox_count(self, m):
        typ, data = m.select("INBOX", readonly=True)
        self.assertEqual(typ, "OK", data)
        return int(data[0])

    def test_global_admin_acts_as_any_user(self):
        m = self.imap_plain("alice", "cyrus", "cyrus-pw")
        self.assertIsNotNone(m)
        self.assertEqual(self.inbox_count(m), 1)
        m = self.imap_plain("bob@example.com", "cyrus", "cyrus-pw")
        self.assertIsNotNone(m)
        self.assertEqual(self.inbox_count(m), 2)

    def test_domain_admin_acts_only_inside_the_domain(self):
        m = self.imap_plain("bob@example.com", "admin@example.com", "admin-pw")
        self.assertIsNotNone(m)
        self.assertEqual(self.inbox_count(m), 2)
        self.assertIsNone(self.imap_plain("alice", "admin@example.com", "admin-pw"))
        self.assertIsNone(self.imap_plain("carol@other.org", "admin@example.com", "admin-pw"))

    def test_nobody_else_may_act_as_another(self):
        self.assertIsNone(self.imap_plain("bob@example.com", "alice", "alice-secret"))
        self.assertIsNone(self.imap_plain("cyrus", "bob@example.com", "bob-pw"))
        # The admin's own password is what is checked, and the target must exist.
        self.assertIsNone(self.imap_plain("alice", "cyrus", "alice-secret"))
        self.assertIsNone(self.imap_plain("nosuchuser", "cyrus", "cyrus-pw"))
        # Acting as oneself is a plain login.
        m = self.imap_plain("alice", "alice", "alice-secret")
        self.assertIsNotNone(m)

    def test_pop3_proxy(self):
        p = poplib.POP3("127.0.0.1", self.inst.port("pop3"), timeout=30)
        try:
            resp = p._shortcmd("AUTH PLAIN " + __import__("base64").b64encode(
                b"bob@example.com\0admin@example.com\0admin-pw").decode())
            self.assertTrue(resp.startswith(b"+OK"), resp)
            self.assertEqual(p.stat()[0], 2)
        finally:
            p.quit()
        p = poplib.POP3("127.0.0.1", self.inst.port("pop3"), timeout=30)
        try:
            with self.assertRaises(poplib.error_proto):
                p._shortcmd("AUTH PLAIN " + __import__("base64").b64encode(
                    b"alice\0admin@example.com\0admin-pw").decode())
        finally:
            p.close()

    def test_admin_sees_other_users_mailboxes_but_cannot_read_them(self):
        m = imaplib.IMAP4("127.0.0.1", self.inst.port("imap"), timeout=30)
        self.addCleanup(logout_quietly, m)
        m.login("cyrus", "cyrus-pw")
        typ, data = m.list('""', "*")
        self.assertEqual(typ, "OK")
        names = b"\n".join(d for d in data if d)
        self.assertIn(b"alice", names)
        # l and a, not r: the mailbox is there, its mail is not the admin's to read.
        typ, data = m.select('"Other Users/alice"', readonly=True)
        self.assertEqual(typ, "NO", data)
        # An ordinary user sees nothing of alice's.
        other = imaplib.IMAP4("127.0.0.1", self.inst.port("imap"), timeout=30)
        self.addCleanup(logout_quietly, other)
        other.login("bob@example.com", "bob-pw")
        typ, data = other.list('""', "*")
        self.assertNotIn(b"alice", b"\n".join(d for d in data if d))


if __name__ == "__main__":
    unittest.main()
