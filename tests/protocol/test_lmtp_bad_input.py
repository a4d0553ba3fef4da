"""Malformed LMTP input against the real dariusd (issue 5, "Bad input"): bare LF endings,
overlong lines, messages over the size limit, NUL octets, a missing final dot, a connection
dropped in the middle of DATA or BDAT, thousands of recipients and malformed addresses. Each
gets the RFC's reply; nothing is half delivered, no stage file is left behind, and the server
keeps serving other sessions meanwhile. Driven over a raw socket, since no real client sends
these on purpose."""
import os
import poplib
import socket
import time
import unittest

from darius_harness import Instance, darius

MAX_SIZE = 20000
MAX_RCPTS = 50


class Lmtp:
    """A raw LMTP connection: send bytes, read reply lines."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=15)
        self.buf = b""
        assert self.line().startswith("220 ")

    def send(self, data):
        self.sock.sendall(data if isinstance(data, bytes) else data.encode())

    def line(self):
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                return "<eof>"
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line.decode("utf-8", "replace")

    def reply(self):
        lines = [self.line()]
        while len(lines[-1]) > 3 and lines[-1][3] == "-":
            lines.append(self.line())
        return lines

    def command(self, cmd):
        self.send(cmd + "\r\n")
        return self.line()

    def envelope(self, rcpts, mail="MAIL FROM:<s@example.com>"):
        self.send("LHLO client.example\r\n")
        self.reply()
        assert self.command(mail).startswith("250"), mail
        for r in rcpts:
            reply = self.command(f"RCPT TO:<{r}>")
            assert reply.startswith("250"), reply

    def close(self):
        self.sock.close()


class LmtpBadInputTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.inst = Instance(user="alice:alice-secret", options={
            "max_literal_size": str(MAX_SIZE), "lmtp_max_recipients": str(MAX_RCPTS),
            "lmtp_max_line_length": "2000"})
        darius("user", "add", "-C", cls.inst.conf, "bob", "--password", "bob-secret")
        cls.inst.start()
        cls.stage = os.path.join(cls.inst.dir, "data", "spool", "darius.stage")

    @classmethod
    def tearDownClass(cls):
        cls.inst.close()

    def connect(self):
        c = Lmtp(self.inst.port("lmtp"))
        self.addCleanup(c.close)
        return c

    def inbox(self, user="alice", password="alice-secret"):
        """alice's messages over POP3, then emptied (DELE + QUIT)."""
        p = poplib.POP3("127.0.0.1", self.inst.port("pop3"), timeout=15)
        p.user(user)
        p.pass_(password)
        out = []
        for i in range(1, p.stat()[0] + 1):
            out.append(b"".join(line + b"\r\n" for line in p.retr(i)[1]))
            p.dele(i)
        p.quit()
        return out

    def body(self, message):
        """The message below the Return-Path and Received fields the server added."""
        received = message.index(b"\r\nReceived: ") + 2
        end = message.index(b"\r\n", received) + 2
        while message[end:end + 1] == b"\t":
            end = message.index(b"\r\n", end) + 2
        return message[end:]

    def setUp(self):
        self.inbox()
        self.inbox("bob", "bob-secret")

    def tearDown(self):
        self.assertEqual(os.listdir(self.stage), [], "a stage file was left behind")

    def test_bare_lf_and_bare_cr_become_crlf(self):
        c = self.connect()
        c.envelope(["alice@x.y"])
        self.assertEqual(c.command("DATA")[:3], "354")
        c.send(b"Subject: lf\n\nline one\nline\rtwo\r\n..dot\n.\n")
        self.assertEqual(c.line(), "250 2.0.0 <alice@x.y> Delivered")
        [m] = self.inbox()
        self.assertEqual(self.body(m), b"Subject: lf\r\n\r\nline one\r\nline\r\ntwo\r\n.dot\r\n")

    def test_overlong_line_fails_the_message(self):
        c = self.connect()
        c.envelope(["alice@x.y", "bob@x.y"])
        c.command("DATA")
        c.send(b"Subject: long\r\n\r\n" + b"y" * 5000 + b"\r\nmore\r\n.\r\n")
        for r in ("alice@x.y", "bob@x.y"):
            self.assertEqual(c.line(),
                             f"554 5.6.0 <{r}> Message has a line longer than 2000 octets")
        self.assertEqual(c.command("NOOP"), "250 2.0.0 OK")
        self.assertEqual(self.inbox(), [])

    def test_overlong_command_line(self):
        c = self.connect()
        c.send("LHLO x\r\n")
        c.reply()
        self.assertEqual(c.command("MAIL FROM:<" + "a" * 3000 + "@x.y>"),
                         "500 5.5.2 Line too long")
        self.assertEqual(c.command("NOOP"), "250 2.0.0 OK")

    def test_size_limits(self):
        c = self.connect()
        c.send("LHLO x\r\n")
        self.assertIn(f"250 SIZE {MAX_SIZE}", c.reply())
        # RFC 1870 §6: a declared size over the limit is refused at MAIL.
        self.assertEqual(c.command(f"MAIL FROM:<s@x.y> SIZE={MAX_SIZE + 1}"),
                         "552 5.3.4 Message size exceeds fixed maximum message size")
        # An undeclared one after the data, per recipient.
        self.assertEqual(c.command("MAIL FROM:<s@x.y>")[:3], "250")
        self.assertEqual(c.command("RCPT TO:<alice@x.y>")[:3], "250")
        c.command("DATA")
        c.send(b"Subject: big\r\n\r\n" + (b"z" * 99 + b"\r\n") * 300 + b".\r\n")
        self.assertEqual(c.line(),
                         "552 5.3.4 <alice@x.y> Message size exceeds fixed maximum message size")
        self.assertEqual(self.inbox(), [])

    def test_nul_octets(self):
        c = self.connect()
        c.envelope(["alice@x.y"])
        c.command("DATA")
        c.send(b"Subject: nul\r\n\r\nbefore\x00after\r\n.\r\n")
        self.assertEqual(c.line(),
                         "554 5.6.0 <alice@x.y> Message contains NUL octets (use BODY=BINARYMIME)")
        # With BINARYMIME over BDAT the octets are the message.
        c.envelope(["alice@x.y"], mail="MAIL FROM:<s@x.y> BODY=BINARYMIME")
        data = b"Subject: bin\r\nContent-Transfer-Encoding: binary\r\n\r\n\x00\x01\xff\n\r"
        c.send(b"BDAT %d LAST\r\n" % len(data) + data)
        self.assertEqual(c.line(), "250 2.0.0 <alice@x.y> Delivered")
        # Stored as sent; POP3 has only CRLF lines to show it with, so read the file.
        spool = os.path.join(self.inst.dir, "data", "spool", "user", "alice")
        newest = max((f for f in os.listdir(spool) if f[:-1].isdigit() and f.endswith(".")),
                     key=lambda f: int(f[:-1]))
        with open(os.path.join(spool, newest), "rb") as f:
            self.assertEqual(self.body(f.read()), data)
        self.assertEqual(len(self.inbox()), 1)

    def test_connection_dropped_in_data_delivers_nothing(self):
        for tail in (b"Subject: cut\r\n\r\nhalf", b"Subject: cut\r\n\r\nno final dot\r\n",
                     b"Subject: cut\r\n\r\nx\r\n.\r"):
            c = self.connect()
            c.envelope(["alice@x.y", "bob@x.y"])
            c.command("DATA")
            c.send(tail)
            c.close()
        c = self.connect()  # the server noticed and serves on
        c.envelope(["alice@x.y"])
        c.command("DATA")
        c.send(b"Subject: whole\r\n\r\nx\r\n.\r\n")
        self.assertEqual(c.line(), "250 2.0.0 <alice@x.y> Delivered")
        [m] = self.inbox()
        self.assertEqual(self.body(m), b"Subject: whole\r\n\r\nx\r\n")
        self.assertEqual(self.inbox("bob", "bob-secret"), [])

    def test_connection_dropped_in_bdat_delivers_nothing(self):
        c = self.connect()
        c.envelope(["alice@x.y"])
        c.send(b"BDAT 10\r\n0123456789")
        self.assertEqual(c.line(), "250 2.0.0 10 octets received")
        c.send(b"BDAT 100 LAST\r\nonly part of it")
        c.close()
        time.sleep(0.2)
        self.assertEqual(self.inbox(), [])

    def test_thousands_of_recipients(self):
        c = self.connect()
        c.send("LHLO x\r\nMAIL FROM:<s@x.y>\r\n" +
               "".join(f"RCPT TO:<{'alice' if i % 2 else 'bob'}@x.y>\r\n" for i in range(3000)))
        c.reply()
        self.assertEqual(c.line()[:3], "250")
        replies = [c.line() for _ in range(3000)]
        self.assertEqual([r[:3] for r in replies[:MAX_RCPTS]], ["250"] * MAX_RCPTS)
        self.assertEqual(set(replies[MAX_RCPTS:]), {"452 4.5.3 Too many recipients"})
        c.command("DATA")
        c.send(b"Subject: many\r\n\r\nx\r\n.\r\n")
        delivered = [c.line() for _ in range(MAX_RCPTS)]
        self.assertTrue(all(d.startswith("250 2.0.0 <") for d in delivered), delivered)
        self.assertEqual(len(self.inbox()), 1)  # one copy per mailbox
        self.assertEqual(len(self.inbox("bob", "bob-secret")), 1)

    def test_malformed_addresses(self):
        c = self.connect()
        c.send("LHLO x\r\n")
        c.reply()
        self.assertEqual(c.command("MAIL FROM:<@>"), "501 5.1.7 Bad source route")
        self.assertEqual(c.command("MAIL FROM:<a b@x.y>"), "501 5.1.7 Bad address syntax")
        self.assertEqual(c.command("MAIL FROM:s@x.y"), "501 5.5.4 Path must be in angle brackets")
        self.assertEqual(c.command("MAIL FROM:<s@x.y>")[:3], "250")
        for bad, reply in [("<alice smith>", "501 5.1.3 Bad address syntax"),
                           ("<al..ice>", "501 5.1.3 Bad address syntax"),
                           ("<alice@>", "501 5.1.3 Bad address syntax"),
                           ("<alice@x..y>", "501 5.1.3 Bad address syntax"),
                           ("<>", "501 5.1.3 Empty recipient address"),
                           ("<" + "a" * 65 + "@x.y>", "501 5.1.3 Bad address syntax"),
                           ("<a@" + "b" * 260 + ">", "501 5.1.3 Path too long"),
                           ("<\"unterminated@x.y>", "501 5.5.4 Path must be in angle brackets"),
                           ("<\xe5sa@x.y>", "553 5.6.7 Non-ASCII address requires SMTPUTF8")]:
            self.assertEqual(c.command("RCPT TO:" + bad), reply, bad)
        self.assertEqual(c.command("RCPT TO:<alice@x.y>")[:3], "250")
        self.assertEqual(c.command("DATA")[:3], "354")
        c.send(b".\r\n")
        self.assertEqual(c.line(), "250 2.0.0 <alice@x.y> Delivered")

    def test_other_sessions_are_served_while_one_is_stuck_in_data(self):
        stuck = self.connect()
        stuck.envelope(["bob@x.y"])
        stuck.command("DATA")
        stuck.send(b"Subject: slow\r\n\r\n" + b"w" * 1000)  # and then nothing
        started = time.monotonic()
        for i in range(5):
            c = self.connect()
            c.envelope(["alice@x.y"])
            c.command("DATA")
            c.send(b"Subject: meanwhile %d\r\n\r\nx\r\n.\r\n" % i)
            self.assertEqual(c.line(), "250 2.0.0 <alice@x.y> Delivered")
        self.assertLess(time.monotonic() - started, 10)
        self.assertEqual(len(self.inbox()), 5)
        stuck.send(b"\r\n.\r\n")
        self.assertEqual(stuck.line(), "250 2.0.0 <bob@x.y> Delivered")


if __name__ == "__main__":
    unittest.main()
