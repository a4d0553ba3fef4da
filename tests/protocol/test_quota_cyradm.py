"""Cyrus's cyradm (Debian cyrus-admin) managing quotas on the real dariusd: setquota as an
admin, listquota, and lqr (GETQUOTAROOT) of an existing and a not-yet-created mailbox; a
non-admin's setquota is refused. (cyradm's multi-resource form, `setquota MBOX STORAGE n
MESSAGE m`, is broken in Cyrus::IMAP's Perl formatter itself: it leaves out the space between
the pairs. The single-limit form is what cyradm users type.)"""
import shutil
import subprocess
import unittest

from darius_harness import Instance, darius


@unittest.skipUnless(shutil.which("cyradm"), "cyradm (cyrus-admin) is not installed")
class QuotaCyradmTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.inst = Instance(options={"admins": "cyrus", "allow_plaintext_auth": "yes"})
        for user in ("cyrus", "bob"):
            darius("user", "add", "-C", cls.inst.conf, user, "--password", user + "-pw")
        cls.inst.start()

    @classmethod
    def tearDownClass(cls):
        cls.inst.stop()
        cls.inst.close()

    def cyradm(self, user, script):
        r = subprocess.run(["cyradm", "--norc", "--user", user, "-w", user + "-pw", "--auth",
                            "login", "--server", "127.0.0.1", "--port",
                            str(self.inst.port("imap"))],
                           input=script, capture_output=True, text=True, timeout=60)
        return r.stdout.replace("127.0.0.1> ", ""), r.stderr

    def test_setquota_listquota_lqr(self):
        out, err = self.cyradm("cyrus", 'setquota "Other Users/bob" 1000\n'
                                        'listquota "Other Users/bob"\n'
                                        'lqr "Other Users/bob"\n'
                                        'lqr "Other Users/bob/NotYet"\n')
        self.assertEqual(err, "")
        self.assertEqual(out.split("\n")[:4], ["quota:1000", " STORAGE 0/1000 (0%)",
                                               "Other Users/bob STORAGE 0/1000 (0%)",
                                               "Other Users/bob STORAGE 0/1000 (0%)"])

    def test_non_admin_may_not_setquota(self):
        out, err = self.cyradm("bob", "setquota INBOX 5\nlqr INBOX\n")
        self.assertEqual(err, "setquota: [NOPERM] SETQUOTA: only an administrator may set quotas\n")
        self.assertEqual(out.split("\n")[:2], ["quota:5", "INBOX"])  # still no limit


if __name__ == "__main__":
    unittest.main()
