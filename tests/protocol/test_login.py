"""Authentication end to end with real clients: imaplib (LOGIN, AUTHENTICATE PLAIN and
SCRAM-SHA-256, STARTTLS), poplib (USER/PASS, AUTH, STLS), smtplib.LMTP (LHLO, RCPT user
checks), openssl s_client on the implicit-TLS ports, and users added by `darius user add`
while the server runs."""
import imaplib
import poplib
import smtplib
import ssl
import subprocess
import unittest

from darius_harness import Instance, darius
from scram_client import ScramSha256


def verified_context(inst):
    ctx = ssl.create_default_context(cafile=inst.cert)
    ctx.check_hostname = True
    return ctx


class LoopbackInstanceTest(unittest.TestCase):
    """The instance `darius init` writes: loopback, plaintext login allowed."""

    @classmethod
    def setUpClass(cls):
        cls.inst = Instance(user="alice:alice-secret")
        cls.inst.start()

    @classmethod
    def tearDownClass(cls):
        cls.inst.close()

    def imap(self):
        m = imaplib.IMAP4("127.0.0.1", self.inst.port("imap"), timeout=15)
        self.addCleanup(self._close, m)
        return m

    @staticmethod
    def _close(m):
        try:
            m.shutdown()
        except OSError:
            pass  # already logged out

    def test_imap_login(self):
        m = self.imap()
        caps = m.capabilities
        self.assertIn("IMAP4REV2", caps)
        self.assertIn("IMAP4REV1", caps)
        self.assertIn("STARTTLS", caps)
        self.assertIn("AUTH=SCRAM-SHA-256", caps)
        self.assertNotIn("LOGINDISABLED", caps)
        typ, _ = m.login("alice", "alice-secret")
        self.assertEqual(typ, "OK")
        typ, data = m.capability()
        self.assertNotIn(b"AUTH=", data[0])
        self.assertEqual(m.logout()[0], "BYE")

    def test_imap_wrong_password_and_unknown_user_look_the_same(self):
        errors = []
        for user, pw in (("alice", "wrong"), ("nobody", "wrong")):
            m = self.imap()
            with self.assertRaises(imaplib.IMAP4.error) as cm:
                m.login(user, pw)
            errors.append(str(cm.exception))
        self.assertIn("AUTHENTICATIONFAILED", errors[0])
        self.assertEqual(errors[0], errors[1])

    def test_imap_authenticate_plain(self):
        m = self.imap()
        typ, _ = m.authenticate("PLAIN", lambda _: b"\0alice\0alice-secret")
        self.assertEqual(typ, "OK")

    def test_imap_authenticate_scram_sha256(self):
        m = self.imap()
        client = ScramSha256("alice", "alice-secret")
        replies = []

        def respond(challenge):
            replies.append(challenge)
            if len(replies) == 1:
                return client.client_first()
            if len(replies) == 2:
                return client.client_final(challenge)
            # IMAP has no success-with-data: the server-final comes as a continuation, the
            # client checks the server's signature and answers with an empty response.
            self.assertTrue(client.verify_server_final(challenge), challenge)
            return b""

        typ, data = m.authenticate("SCRAM-SHA-256", respond)
        self.assertEqual(typ, "OK")
        self.assertEqual(len(replies), 3)

    def test_imap_scram_wrong_password(self):
        m = self.imap()
        client = ScramSha256("alice", "not-it")
        first = [True]

        def respond(challenge):
            if first[0]:
                first[0] = False
                return client.client_first()
            return client.client_final(challenge)

        with self.assertRaises(imaplib.IMAP4.error) as cm:
            m.authenticate("SCRAM-SHA-256", respond)
        self.assertIn("AUTHENTICATIONFAILED", str(cm.exception))

    def test_imap_starttls_then_login(self):
        m = self.imap()
        m.starttls(ssl_context=verified_context(self.inst))
        typ, data = m.capability()
        self.assertNotIn(b"STARTTLS", data[0])
        self.assertIn(b"AUTH=SCRAM-SHA-256-PLUS", data[0])
        self.assertEqual(m.login("alice", "alice-secret")[0], "OK")

    def test_imaps_with_verified_certificate(self):
        m = imaplib.IMAP4_SSL("localhost", self.inst.port("imaps"),
                              ssl_context=verified_context(self.inst), timeout=15)
        self.assertEqual(m.login("alice", "alice-secret")[0], "OK")
        m.logout()

    def s_client(self, port, data, extra=()):
        return subprocess.run(
            ["timeout", "20", "openssl", "s_client", "-connect", f"127.0.0.1:{port}",
             "-CAfile", self.inst.cert, "-verify_hostname", "localhost",
             "-verify_return_error", "-quiet", *extra],
            input=data, capture_output=True, timeout=30)

    def test_openssl_handshake_on_tls_ports(self):
        r = self.s_client(self.inst.port("imaps"), b"a LOGOUT\r\n")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(b"* OK", r.stdout)
        self.assertIn(b"a OK", r.stdout)
        r = self.s_client(self.inst.port("pop3s"), b"QUIT\r\n")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith(b"+OK"), r.stdout)

    def test_openssl_starttls_on_plain_ports(self):
        r = self.s_client(self.inst.port("imap"), b"a LOGIN alice alice-secret\r\nb LOGOUT\r\n",
                          ("-starttls", "imap"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(b"a OK", r.stdout)
        r = self.s_client(self.inst.port("pop3"), b"CAPA\r\nQUIT\r\n", ("-starttls", "pop3"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(b"SASL", r.stdout)
        r = self.s_client(self.inst.port("lmtp"), b"LHLO x\r\nQUIT\r\n", ("-starttls", "lmtp"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(b"250", r.stdout)

    def test_user_added_while_running_can_log_in(self):
        darius("user", "add", "-C", self.inst.conf, "dave", "--password", "dave-pw")
        m = self.imap()
        self.assertEqual(m.login("dave", "dave-pw")[0], "OK")
        darius("user", "passwd", "-C", self.inst.conf, "dave", "--password", "dave-pw2")
        with self.assertRaises(imaplib.IMAP4.error):
            self.imap().login("dave", "dave-pw")
        self.assertEqual(self.imap().login("dave", "dave-pw2")[0], "OK")

    def test_pop3(self):
        p = poplib.POP3("127.0.0.1", self.inst.port("pop3"), timeout=15)
        caps = p.capa()
        for c in ("USER", "UIDL", "TOP", "SASL", "RESP-CODES", "PIPELINING", "STLS"):
            self.assertIn(c, caps)
        p.user("alice")
        with self.assertRaises(poplib.error_proto) as cm:
            p.pass_("wrong")
        self.assertIn(b"[AUTH]", cm.exception.args[0])
        p.quit()

    def test_pop3_stls(self):
        p = poplib.POP3("127.0.0.1", self.inst.port("pop3"), timeout=15)
        p.stls(context=verified_context(self.inst))
        self.assertNotIn("STLS", p.capa())
        p.quit()

    def test_lmtp_checks_recipients(self):
        s = smtplib.LMTP("127.0.0.1", self.inst.port("lmtp"), timeout=15)
        code, msg = s.ehlo("client.example")
        self.assertEqual(code, 250)
        for ext in ("pipelining", "enhancedstatuscodes", "8bitmime", "size", "starttls"):
            self.assertTrue(s.has_extn(ext), ext)
        self.assertEqual(s.mail("sender@example.com")[0], 250)
        self.assertEqual(s.rcpt("alice@localhost")[0], 250)
        self.assertEqual(s.rcpt("alice+folder@localhost")[0], 250)
        code, msg = s.rcpt("nobody@localhost")
        self.assertEqual(code, 550)
        self.assertIn(b"5.1.1", msg)
        self.assertEqual(s.rset()[0], 250)
        s.quit()


class TlsRequiredInstanceTest(unittest.TestCase):
    """allow_plaintext_auth: no — the default for anything not on loopback."""

    @classmethod
    def setUpClass(cls):
        cls.inst = Instance(user="alice:alice-secret", options={"allow_plaintext_auth": "no"})
        cls.inst.start()

    @classmethod
    def tearDownClass(cls):
        cls.inst.close()

    def test_imap_login_refused_without_tls(self):
        m = imaplib.IMAP4("127.0.0.1", self.inst.port("imap"), timeout=15)
        self.assertIn("LOGINDISABLED", m.capabilities)
        self.assertNotIn("AUTH=PLAIN", m.capabilities)
        with self.assertRaises(imaplib.IMAP4.error):
            m.login("alice", "alice-secret")
        m.starttls(ssl_context=verified_context(self.inst))
        self.assertEqual(m.login("alice", "alice-secret")[0], "OK")

    def test_pop3_user_refused_without_tls(self):
        p = poplib.POP3("127.0.0.1", self.inst.port("pop3"), timeout=15)
        self.assertNotIn("USER", p.capa())
        with self.assertRaises(poplib.error_proto):
            p.user("alice")
            p.pass_("alice-secret")
        p.quit()


if __name__ == "__main__":
    unittest.main()
