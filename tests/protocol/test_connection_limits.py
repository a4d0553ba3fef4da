"""Connection limits against the real dariusd (issue 16): when a client address reaches
max_connections_per_host (or the server max_connections), the oldest of its connections
that has not logged in is closed with a goodbye (IMAP `* BYE`, POP3 `-ERR`) to make room for
the newcomer, so idle unauthenticated connections can no longer lock a host's users out;
authenticated sessions and LMTP connections are never closed for it, and when nothing can be
closed the newcomer is refused as before. Real sockets, imaplib and poplib; every connection
comes from 127.0.0.1, so all of them count against one host."""
import imaplib
import poplib
import socket
import unittest

from darius_harness import Instance, darius, logout_quietly

LIMIT = 5


class Raw:
    """A raw connection that reads the greeting and then lines."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=15)
        self.buf = b""
        self.greeting = self.line()

    def line(self):
        while b"\r\n" not in self.buf:
            try:
                chunk = self.sock.recv(65536)
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                return "<eof>"
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line.decode("utf-8", "replace")

    def command(self, text):
        self.sock.sendall(text.encode() + b"\r\n")
        return self.line()

    def close(self):
        self.sock.close()


class ConnectionLimitTest(unittest.TestCase):
    def start(self, **options):
        inst = Instance(user="alice:alice-secret", options=options)
        darius("user", "add", "-C", inst.conf, "bob", "--password", "bob-secret")
        self.addCleanup(inst.close)
        self.inst = inst.start()
        return inst

    def raw(self, service):
        c = Raw(self.inst.port(service))
        self.addCleanup(c.close)
        return c

    def imap_login(self):
        m = imaplib.IMAP4("127.0.0.1", self.inst.port("imap"), timeout=15)
        self.addCleanup(logout_quietly, m)
        self.assertEqual(m.login("alice", "alice-secret")[0], "OK")
        return m

    def assert_alive(self, conns):
        for i, c in enumerate(conns):
            self.assertEqual(c.command(f"n{i} NOOP"), f"n{i} OK NOOP completed", i)

    def test_oldest_unauthenticated_imap_connection_makes_room(self):
        self.start(max_connections_per_host=LIMIT)
        idle = [self.raw("imap") for _ in range(LIMIT)]
        for c in idle:
            self.assertTrue(c.greeting.startswith("* OK "), c.greeting)
        # Before issue 16 this login was refused with "* BYE [UNAVAILABLE]".
        m = self.imap_login()
        self.assertEqual(m.noop()[0], "OK")
        bye = idle[0].line()
        self.assertTrue(bye.startswith("* BYE [UNAVAILABLE] "), bye)
        self.assertEqual(idle[0].line(), "<eof>")
        self.assert_alive(idle[1:])
        # The next newcomer closes the next oldest.
        self.imap_login()
        self.assertTrue(idle[1].line().startswith("* BYE "))
        self.assertEqual(idle[1].line(), "<eof>")
        self.assert_alive(idle[2:])

    def test_authenticated_sessions_are_kept_even_when_older(self):
        self.start(max_connections_per_host=LIMIT)
        sessions = [self.imap_login() for _ in range(LIMIT - 1)]
        idle = self.raw("imap")
        self.imap_login()
        self.assertTrue(idle.line().startswith("* BYE [UNAVAILABLE] "))
        self.assertEqual(idle.line(), "<eof>")
        for m in sessions:
            self.assertEqual(m.noop()[0], "OK")

    def test_a_newcomer_is_refused_when_every_session_is_authenticated(self):
        self.start(max_connections_per_host=LIMIT)
        sessions = [self.imap_login() for _ in range(LIMIT)]
        refused = self.raw("imap")
        self.assertEqual(refused.greeting, "* BYE [UNAVAILABLE] Too many connections")
        self.assertEqual(refused.line(), "<eof>")
        for m in sessions:
            self.assertEqual(m.noop()[0], "OK")

    def test_pop3_idle_connection_makes_room_with_err(self):
        self.start(max_connections_per_host=LIMIT)
        idle = [self.raw("pop3") for _ in range(LIMIT)]
        p = poplib.POP3("127.0.0.1", self.inst.port("pop3"), timeout=15)
        self.addCleanup(p.close)
        p.user("bob")
        self.assertTrue(p.pass_("bob-secret").startswith(b"+OK"))
        goodbye = idle[0].line()
        self.assertTrue(goodbye.startswith("-ERR [SYS/TEMP] "), goodbye)
        self.assertEqual(idle[0].line(), "<eof>")
        for c in idle[1:]:
            self.assertEqual(c.command("NOOP"), "+OK")
        p.quit()

    def test_lmtp_connections_are_never_closed_for_a_newcomer(self):
        # RFC 5321 §3.8: an SMTP/LMTP server closes only after QUIT, a 421 for shutdown, or a
        # timeout; and the MTA never logs in, so its connections count but are not evictable.
        self.start(max_connections_per_host=LIMIT)
        lmtp = [self.raw("lmtp") for _ in range(LIMIT)]
        for c in lmtp:
            self.assertTrue(c.greeting.startswith("220 "), c.greeting)
        refused = self.raw("imap")
        self.assertEqual(refused.greeting, "* BYE [UNAVAILABLE] Too many connections")
        for c in lmtp:
            self.assertEqual(c.command("NOOP"), "250 2.0.0 OK")

    def test_max_connections_applies_the_same_policy(self):
        self.start(max_connections=LIMIT)
        idle = [self.raw("imap") for _ in range(LIMIT)]
        self.imap_login()
        self.assertTrue(idle[0].line().startswith("* BYE [UNAVAILABLE] "))
        self.assertEqual(idle[0].line(), "<eof>")
        self.assert_alive(idle[1:])


if __name__ == "__main__":
    unittest.main()
