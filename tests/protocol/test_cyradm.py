"""Cyrus's cyradm (Debian cyrus-admin, Perl Cyrus::IMAP) against the real dariusd, as
shared/notes/real-clients.md §9 drives it: cm, lm, renm, dm, sam, lam, dam, by a user in their
own tree and by an admin (`admins: cyrus`) in another user's. cyradm exits 0 even when a
command fails, so every scenario asserts on stderr being empty and on stdout, and checks the
result over imaplib. scripts/setup.sh installs cyrus-admin; a missing cyradm fails the test."""
import unittest

from darius_harness import Instance, darius
from real_clients import imap, require, run

PASSWORDS = {"alice": "alice-secret", "bob": "bob-pw", "cyrus": "cyrus-pw"}


class CyradmTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require("cyradm")
        cls.inst = Instance(options={"admins": "cyrus", "allow_plaintext_auth": "yes"})
        for user in ("bob", "cyrus"):
            darius("user", "add", "-C", cls.inst.conf, user, "--password", PASSWORDS[user])
        cls.inst.start()

    @classmethod
    def tearDownClass(cls):
        cls.inst.stop()
        cls.inst.close()

    def cyradm(self, user, script):
        """Runs `script` (one command a line); (stdout, stderr). Output lines follow the
        echoed prompt "127.0.0.1> " of the command that printed them."""
        r = run(["cyradm", "--norc", "--user", user, "-w", PASSWORDS[user], "--auth", "login",
                 "--server", "127.0.0.1", "--port", str(self.inst.port("imap"))],
                input=script.encode(), timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout.decode(), r.stderr.decode()

    def names(self, user):
        m = imap(self.inst, user, PASSWORDS[user])
        try:
            typ, data = m.list('""', "*")
            self.assertEqual(typ, "OK")
            return {d.decode().rsplit(' "/" ', 1)[1].strip('"') for d in data if d}
        finally:
            m.logout()

    def test_user_manages_own_mailboxes_and_acls(self):
        out, err = self.cyradm("alice", "cm Projects\ncm Projects/sub\nlm\n"
                                        "sam Projects bob lrs\nlam Projects\n")
        self.assertEqual(err, "")
        self.assertIn("Projects (\\HasChildren)", out)
        self.assertIn("Projects/sub (\\HasNoChildren)", out)
        self.assertRegex(out, r"(?m)(^|> )bob lrs$")
        self.assertRegex(out, r"(?m)(^|> )alice lrswipkxtecdan$")
        # bob now sees it, and may read it.
        self.assertIn("Other Users/alice/Projects", self.names("bob"))

        out, err = self.cyradm("alice", "dam Projects bob\nlam Projects\n"
                                        "renm Projects/sub Archive\ndm Projects\nlm\n")
        self.assertEqual(err, "")
        self.assertNotRegex(out, r"(?m)(^|> )bob ")
        names = self.names("alice")
        self.assertIn("Archive", names)
        self.assertNotIn("Projects", names)
        self.assertNotIn("Other Users/alice/Projects", self.names("bob"))

    def test_refusals_reach_stderr(self):
        # bob may not change alice's ACL, nor see a mailbox she did not share.
        self.cyradm("alice", "cm Private\n")
        out, err = self.cyradm("bob", "sam \"Other Users/alice/Private\" bob lrswipkxtea\n"
                                      "lam \"Other Users/alice/Private\"\n")
        self.assertIn("NONEXISTENT", err)
        self.assertNotIn("Other Users/alice/Private", self.names("bob"))
        # anyone is never given "a".
        out, err = self.cyradm("alice", "sam Private anyone a\n")
        self.assertIn("CANNOT", err)

    def test_admin_manages_another_users_tree(self):
        out, err = self.cyradm("cyrus", "cm \"Other Users/bob/FromAdmin\"\n"
                                        "lm \"Other Users/bob/*\"\n"
                                        "sam \"Other Users/bob/FromAdmin\" anyone lr\n"
                                        "lam \"Other Users/bob/FromAdmin\"\n")
        self.assertEqual(err, "")
        self.assertIn("Other Users/bob/FromAdmin", out)
        self.assertRegex(out, r"(?m)(^|> )anyone lr$")
        self.assertIn("FromAdmin", self.names("bob"))
        self.assertIn("Other Users/bob/FromAdmin", self.names("alice"))  # through anyone
        out, err = self.cyradm("cyrus", "dm \"Other Users/bob/FromAdmin\"\n")
        self.assertEqual(err, "")
        self.assertNotIn("FromAdmin", self.names("bob"))


if __name__ == "__main__":
    unittest.main()
