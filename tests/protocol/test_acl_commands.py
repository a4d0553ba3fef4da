"""The RFC 4314 commands (SETACL, DELETEACL, GETACL, LISTRIGHTS, MYRIGHTS), RFC 8440's LIST
RETURN (MYRIGHTS), POP3's rights and `darius acl` against the real dariusd, with imaplib and
poplib; and the bad input of issue 17: malformed rights, invalid and unknown identifiers,
SETACL by a user who may only look the mailbox up, `anyone` granted `a`. Each refusal gets its
RFC reply and leaves the ACL as it was (docs/design/acl.md)."""
import imaplib
import json
import poplib
import unittest

from darius_harness import Instance, darius, logout_quietly

imaplib.Commands.setdefault("LISTRIGHTS", ("AUTH", "SELECTED"))

PASSWORDS = {"alice": "alice-secret", "bob": "bob-pw", "carol": "carol-pw",
             "cyrus": "cyrus-pw", "dave@example.com": "dave-pw"}


class AclCommandsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.inst = Instance(options={"admins": "cyrus", "allow_plaintext_auth": "yes"})
        for user in ("bob", "carol", "cyrus", "dave@example.com"):
            darius("user", "add", "-C", cls.inst.conf, user, "--password", PASSWORDS[user])
        cls.inst.start()

    @classmethod
    def tearDownClass(cls):
        cls.inst.stop()
        cls.inst.close()

    def login(self, user):
        m = imaplib.IMAP4("127.0.0.1", self.inst.port("imap"), timeout=30)
        self.addCleanup(logout_quietly, m)
        m.login(user, PASSWORDS[user])
        return m

    def folder(self, alice, name):
        typ, data = alice.create(name)
        self.assertEqual(typ, "OK", data)
        return name

    def acl(self, m, name):
        """GETACL as a dict identifier -> wire rights."""
        typ, data = m.getacl(name)
        self.assertEqual(typ, "OK", data)
        words = data[0].decode().split(" ")[1:]
        return dict(zip(words[0::2], words[1::2]))

    def refused(self, res, code):
        self.assertEqual(res[0], "NO", res)
        self.assertTrue(res[1][0].decode().startswith(f"[{code}]"), res)

    def test_capabilities(self):
        m = self.login("alice")
        caps = m.capabilities
        for cap in ("ACL", "RIGHTS=TEXK", "LIST-MYRIGHTS"):
            self.assertIn(cap, caps)

    def test_setacl_forms_and_getacl(self):
        alice = self.login("alice")
        f = self.folder(alice, "forms")
        self.assertEqual(self.acl(alice, f), {"alice": "lrswipkxtecdan"})
        self.assertEqual(alice.setacl(f, "bob", "lr")[0], "OK")
        self.assertEqual(self.acl(alice, f)["bob"], "lr")
        self.assertEqual(alice.setacl(f, "bob", "+wi")[0], "OK")  # §3.1: '+' adds
        self.assertEqual(self.acl(alice, f)["bob"], "lrwi")
        self.assertEqual(alice.setacl(f, "bob", "-r")[0], "OK")   # '-' removes
        self.assertEqual(self.acl(alice, f)["bob"], "lwi")
        # The obsolete c and d (§2.1.1): c is k, d is x t e; both shown as virtual rights.
        self.assertEqual(alice.setacl(f, "bob", "cd")[0], "OK")
        self.assertEqual(self.acl(alice, f)["bob"], "kxtecd")
        self.assertEqual(alice.setacl(f, "-bob", "w")[0], "OK")
        self.assertEqual(self.acl(alice, f)["-bob"], "w")
        self.assertEqual(alice.deleteacl(f, "bob")[0], "OK")
        self.assertEqual(alice.setacl(f, "-bob", '""')[0], "OK")  # empty rights remove it too
        self.assertEqual(self.acl(alice, f), {"alice": "lrswipkxtecdan"})

    def test_owner_keeps_lookup_and_admin(self):
        alice = self.login("alice")
        f = self.folder(alice, "lockout")
        self.assertEqual(alice.deleteacl(f, "alice")[0], "OK")
        self.assertEqual(alice.setacl(f, "-alice", "lrswipkxtean")[0], "OK")
        typ, data = alice.myrights(f)
        self.assertEqual(typ, "OK")
        self.assertEqual(data[0].decode(), f'"{f}" lkxcda')
        self.assertEqual(alice.setacl(f, "alice", "lrswipkxtean")[0], "OK")  # she undoes it
        self.assertEqual(alice.deleteacl(f, "-alice")[0], "OK")
        self.assertEqual(alice.myrights(f)[1][0].decode(), f'"{f}" lrswipkxtecdan')

    def test_listrights(self):
        alice = self.login("alice")
        f = self.folder(alice, "offer")
        typ, data = alice._simple_command("LISTRIGHTS", f, "bob")
        self.assertEqual(typ, "OK")
        _, lines = alice._untagged_response(typ, data, "LISTRIGHTS")
        self.assertEqual(lines[0].decode(), '"offer" bob "" l r s w i p k x t e a n c d')
        _, lines = alice._untagged_response(*alice._simple_command("LISTRIGHTS", f, "alice"),
                                            "LISTRIGHTS")
        self.assertEqual(lines[0].decode(), '"offer" alice lkxcda r s w i p t e n')
        # anyone is never offered "a".
        _, lines = alice._untagged_response(*alice._simple_command("LISTRIGHTS", f, "anyone"),
                                            "LISTRIGHTS")
        self.assertEqual(lines[0].decode(), '"offer" anyone "" l r s w i p k x t e n c d')

    def test_bob_sees_what_he_was_given(self):
        alice = self.login("alice")
        f = self.folder(alice, "given")
        self.assertEqual(alice.setacl(f, "bob", "lrs")[0], "OK")
        bob = self.login("bob")
        self.assertEqual(bob.myrights('"Other Users/alice/given"')[1][0].decode(),
                         '"Other Users/alice/given" lrs')
        typ, data = bob._simple_command("LIST", '""', '"Other Users/alice/*"', "RETURN",
                                        "(MYRIGHTS)")
        self.assertEqual(typ, "OK")
        _, rights = bob._untagged_response(typ, data, "MYRIGHTS")
        self.assertIn(b'"Other Users/alice/given" lrs', rights)
        # Not "a": GETACL is refused, and says NOPERM because he may see the mailbox.
        self.refused(bob.getacl('"Other Users/alice/given"'), "NOPERM")

    def test_list_all_follows_every_acl_change_at_once(self):
        """LIST "" "*" answers from an in-memory copy of the mailbox list (mailbox/
        mailbox_list_cache.h): a change by another session or by the darius CLI in its own
        process must show in the very next LIST, and a revoked right must hide the mailbox."""
        alice = self.login("alice")
        carol = self.login("carol")
        f = self.folder(alice, "follow")
        name = b'"Other Users/alice/follow"'

        def listed():
            typ, data = carol.list('""', "*")
            self.assertEqual(typ, "OK", data)
            return any(line.endswith(name) for line in data if line)

        self.assertFalse(listed())  # this LIST fills the copy
        self.assertEqual(alice.setacl(f, "carol", "lr")[0], "OK")  # another session
        self.assertTrue(listed())
        self.assertEqual(alice.setacl(f, "carol", '""')[0], "OK")
        self.assertFalse(listed())
        conf = self.inst.conf
        darius("acl", "set", "-C", conf, "user/alice/follow", "anyone", "l")  # another process
        self.assertTrue(listed())
        darius("acl", "set", "-C", conf, "--", "user/alice/follow", "-carol", "l")  # negative right
        self.assertFalse(listed())
        darius("acl", "delete", "-C", conf, "--", "user/alice/follow", "-carol")
        self.assertTrue(listed())
        self.assertEqual(alice.delete(f)[0], "OK")
        self.assertFalse(listed())

    def test_malformed_rights_are_bad_and_change_nothing(self):
        alice = self.login("alice")
        f = self.folder(alice, "malformed")
        before = self.acl(alice, f)
        for rights in ("lrz", "LR", "1", "l r", "+-l"):
            with self.subTest(rights=rights):
                with self.assertRaisesRegex(imaplib.IMAP4.error, "BAD|unknown right"):
                    alice.setacl(f, "bob", '"' + rights + '"')
        # Checked before the mailbox is looked up: a missing mailbox is BAD too, not NONEXISTENT.
        with self.assertRaisesRegex(imaplib.IMAP4.error, "unknown right"):
            alice.setacl('"Other Users/bob/secret"', "carol", "z")
        self.assertEqual(self.acl(alice, f), before)

    def test_invalid_and_unknown_identifiers(self):
        alice = self.login("alice")
        f = self.folder(alice, "who")
        before = self.acl(alice, f)
        for ident in ('""', "-", '"a@b@c"'):
            with self.subTest(identifier=ident):
                with self.assertRaises(imaplib.IMAP4.error):
                    alice.setacl(f, ident, "lr")
        # A user of another domain can never reach the mailbox: NO [CANNOT].
        self.refused(alice.setacl(f, "dave@example.com", "lr"), "CANNOT")
        self.assertEqual(self.acl(alice, f), before)
        # An unknown user is refused, positive or negative, and nothing changes
        # (docs/design/acl.md); taking rights away from one always works.
        for ident, rights in (("nosuchuser", "lr"), ("-nosuchuser", "w"), ("nosuchuser", "+l")):
            with self.subTest(identifier=ident, rights=rights):
                self.refused(alice.setacl(f, ident, rights), "CANNOT")
        self.assertEqual(self.acl(alice, f), before)
        self.assertEqual(alice.setacl(f, "nosuchuser", "-lr")[0], "OK")
        self.assertEqual(alice.deleteacl(f, "nosuchuser")[0], "OK")
        self.assertEqual(self.acl(alice, f), before)
        # The reserved names are stored in one spelling.
        self.assertEqual(alice.setacl(f, "ANYONE", "l")[0], "OK")
        self.assertEqual(self.acl(alice, f)["anyone"], "l")

    def test_anyone_is_never_granted_admin(self):
        alice = self.login("alice")
        f = self.folder(alice, "everybody")
        self.assertEqual(alice.setacl(f, "anyone", "lr")[0], "OK")
        before = self.acl(alice, f)
        for ident, rights in (("anyone", "a"), ("anyone", "+a"), ("anyone", "lra"),
                              ("anonymous", "la")):
            with self.subTest(identifier=ident, rights=rights):
                self.refused(alice.setacl(f, ident, rights), "CANNOT")
        self.assertEqual(self.acl(alice, f), before)
        self.assertEqual(alice.setacl(f, "-anyone", "a")[0], "OK")  # taking it away is fine

    def test_setacl_with_lookup_only(self):
        alice = self.login("alice")
        f = self.folder(alice, "lookonly")
        self.folder(alice, "hidden")
        self.assertEqual(alice.setacl(f, "bob", "l")[0], "OK")
        before = self.acl(alice, f)
        bob = self.login("bob")
        self.refused(bob.setacl('"Other Users/alice/lookonly"', "bob", "lrswipkxtean"), "NOPERM")
        self.refused(bob.deleteacl('"Other Users/alice/lookonly"', "bob"), "NOPERM")
        self.refused(bob.setacl('"Other Users/alice/hidden"', "bob", "lr"), "NONEXISTENT")
        self.assertEqual(self.acl(alice, f), before)

    def test_admin_may_administer_but_not_read(self):
        alice = self.login("alice")
        self.folder(alice, "adm")
        cyrus = self.login("cyrus")
        name = '"Other Users/alice/adm"'
        self.assertEqual(cyrus.myrights(name)[1][0].decode(), name + " la")
        self.assertEqual(cyrus.setacl(name, "bob", "lr")[0], "OK")
        self.assertEqual(self.acl(alice, "adm")["bob"], "lr")
        self.refused(cyrus.status(name, "(MESSAGES)"), "NOPERM")

    def test_pop3_needs_read_and_delete_rights(self):
        carol = self.login("carol")
        self.assertEqual(carol.append("INBOX", None, None, b"Subject: x\r\n\r\nx\r\n")[0], "OK")
        self.assertEqual(carol.setacl("INBOX", "carol", "-r")[0], "OK")

        def pop():
            p = poplib.POP3("127.0.0.1", self.inst.port("pop3"), timeout=30)
            self.addCleanup(p.close)
            p.user("carol")
            return p

        p = pop()
        with self.assertRaisesRegex(poplib.error_proto, r"SYS/PERM"):
            p.pass_(PASSWORDS["carol"])
        p.quit()
        self.assertEqual(carol.setacl("INBOX", "carol", "lr")[0], "OK")  # read, not delete
        p = pop()
        p.pass_(PASSWORDS["carol"])
        self.assertEqual(p.stat()[0], 1)
        with self.assertRaisesRegex(poplib.error_proto, r"SYS/PERM"):
            p.dele(1)
        p.quit()
        self.assertEqual(carol.setacl("INBOX", "carol", "+te")[0], "OK")
        p = pop()
        p.pass_(PASSWORDS["carol"])
        self.assertTrue(p.dele(1).startswith(b"+OK"))
        p.quit()

    def test_darius_acl_beside_the_server(self):
        alice = self.login("alice")
        self.folder(alice, "cli")
        conf = self.inst.conf
        out = darius("acl", "set", "-C", conf, "user/alice/cli", "bob", "lrs").stdout
        self.assertIn("bob\tlrs", out)
        self.assertEqual(self.acl(alice, "cli")["bob"], "lrs")  # the server sees it at once
        out = darius("acl", "set", "-C", conf, "user/alice/cli", "bob", "--", "-s").stdout
        self.assertIn("bob\tlr", out)
        got = json.loads(darius("acl", "get", "-C", conf, "user/alice/cli", "--json").stdout)
        self.assertEqual(got, {"mailbox": "user/alice/cli",
                               "acl": [{"identifier": "alice", "rights": "lrswipkxtean"},
                                       {"identifier": "bob", "rights": "lr"}]})
        got = json.loads(darius("acl", "delete", "-C", conf, "user/alice/cli", "bob",
                                "--json").stdout)
        self.assertEqual([e["identifier"] for e in got["acl"]], ["alice"])
        # Usage errors exit 2, refusals 1, and change nothing.
        r = darius("acl", "set", "-C", conf, "user/alice/cli", "bob", "lrz", check=False)
        self.assertEqual(r.returncode, 2, r.stderr)
        r = darius("acl", "set", "-C", conf, "user/alice/cli", "anyone", "a", check=False)
        self.assertEqual(r.returncode, 1, r.stderr)
        r = darius("acl", "set", "-C", conf, "user/alice/cli", "nosuchuser", "lr", check=False)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("no such user", r.stderr)
        r = darius("acl", "get", "-C", conf, "user/alice/nothere", check=False)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(self.acl(alice, "cli"), {"alice": "lrswipkxtecdan"})


if __name__ == "__main__":
    unittest.main()
