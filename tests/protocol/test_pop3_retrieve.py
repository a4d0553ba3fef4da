"""POP3 retrieval end to end against the real dariusd (issue 5): messages delivered over LMTP
come back byte for byte — compared with the message files in the store — through Python's
poplib, curl's pop3:// and fetchmail in keep and no-keep modes; UIDLs stay the same across a
restart and a `darius reconstruct`; one session per maildrop; and malformed POP3 input is
answered without harm."""
import glob
import os
import poplib
import shutil
import socket
import subprocess
import time
import unittest

from darius_harness import Instance, darius
from test_lmtp_delivery import USERS, lmtp_send, make_instance

# Messages that exercise the wire: dot-stuffing, a lone ".", 8-bit text, long lines, a big one.
MESSAGES = [
    b"From: a@example.com\r\nSubject: plain\r\nMessage-ID: <p1@example.com>\r\n\r\nhello\r\n",
    b"Subject: dots\r\nMessage-ID: <p2@example.com>\r\n\r\n.starts with a dot\r\n.\r\n"
    b"..two\r\nend\r\n",
    "Subject: =?UTF-8?Q?8bit?=\r\nMessage-ID: <p3@example.com>\r\nContent-Type: text/plain; "
    "charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\nGr\u00fc\u00dfe, \u00e5sa\r\n"
    .encode(),
    b"Subject: long lines\r\nMessage-ID: <p4@example.com>\r\n\r\n" + b"L" * 990 + b"\r\n",
    b"Subject: big\r\nMessage-ID: <p5@example.com>\r\n\r\n" +
    b"".join(b"%06d " % i + b"b" * 70 + b"\r\n" for i in range(30000)),
]


class Pop3RetrieveTest(unittest.TestCase):
    def setUp(self):
        self.inst = make_instance()
        self.addCleanup(self.inst.close)
        for m in MESSAGES:
            r = lmtp_send(self.inst, "s@example.com", ["alice@localhost"], m)
            self.assertEqual(r["alice@localhost"][0], 250)
        self.files = self.stored("alice")

    def stored(self, user):
        """The message files of `user`'s INBOX in UID order: what every client must get."""
        d = os.path.join(self.inst.dir, "data", "spool", "user", user)
        names = sorted((f for f in os.listdir(d) if f.endswith(".") and f[:-1].isdigit()),
                       key=lambda f: int(f[:-1]))
        out = []
        for n in names:
            with open(os.path.join(d, n), "rb") as f:
                out.append(f.read())
        return out

    def pop(self, user="alice"):
        p = poplib.POP3("127.0.0.1", self.inst.port("pop3"), timeout=15)
        p.user(user)
        p.pass_(USERS[user])
        return p

    def pop_when_free(self, user="alice"):
        """pop(), waiting while a session that just disconnected still holds the maildrop
        (the server releases the lock when it sees the connection close)."""
        deadline = time.monotonic() + 10
        while True:
            try:
                return self.pop(user)
            except poplib.error_proto as e:
                if b"[IN-USE]" not in e.args[0] or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def stat(self, when_free=False):
        p = self.pop_when_free() if when_free else self.pop()
        try:
            return p.stat()
        finally:
            p.quit()

    def uidls(self):
        p = self.pop()
        try:
            return [line.split()[1] for line in p.uidl()[1]]
        finally:
            p.quit()

    def test_poplib_retrieves_exactly_what_was_stored(self):
        self.assertEqual(len(self.files), len(MESSAGES))
        for stored, sent in zip(self.files, MESSAGES):
            self.assertTrue(stored.endswith(sent))  # under the trace fields
        p = self.pop()
        self.assertEqual(p.stat(), (len(MESSAGES), sum(len(f) for f in self.files)))
        _, listing, _ = p.list()
        self.assertEqual(listing, [b"%d %d" % (i + 1, len(f)) for i, f in enumerate(self.files)])
        for i, f in enumerate(self.files):
            resp, lines, octets = p.retr(i + 1)
            self.assertEqual(resp, b"+OK %d octets" % len(f))
            self.assertEqual(b"".join(line + b"\r\n" for line in lines), f, i)
        _, top, _ = p.top(2, 1)
        header = self.files[1].split(b"\r\n\r\n", 1)[0]
        self.assertEqual(top, header.split(b"\r\n") + [b"", b".starts with a dot"])
        p.quit()

    def test_dele_is_committed_at_quit_only(self):
        p = self.pop()
        p.dele(1)
        p.dele(3)
        self.assertEqual(p.stat()[0], 3)
        with self.assertRaises(poplib.error_proto):
            p.retr(1)
        p.rset()
        p.dele(2)
        p.quit()
        p = self.pop()
        self.assertEqual(p.stat()[0], 4)
        _, lines, _ = p.retr(2)
        self.assertEqual(b"".join(line + b"\r\n" for line in lines), self.files[2])
        p.file.close()
        p.sock.close()  # dropped without QUIT: nothing changes
        self.assertEqual(self.stat(when_free=True)[0], 4)

    def test_second_session_is_refused_while_the_first_holds_the_maildrop(self):
        first = self.pop()
        second = poplib.POP3("127.0.0.1", self.inst.port("pop3"), timeout=15)
        second.user("alice")
        with self.assertRaises(poplib.error_proto) as cm:
            second.pass_(USERS["alice"])
        self.assertIn(b"[IN-USE]", cm.exception.args[0])
        first.quit()
        second.user("alice")
        self.assertTrue(second.pass_(USERS["alice"]).startswith(b"+OK"))
        second.quit()

    def test_uidl_survives_restart_and_reconstruct(self):
        before = self.uidls()
        self.assertEqual(len(set(before)), len(MESSAGES))
        self.inst.stop()
        self.inst.start()
        self.assertEqual(self.uidls(), before)
        # Reconstruct after losing the index keeps UIDVALIDITY and UIDs, so UIDL too.
        spool = os.path.join(self.inst.dir, "data", "spool", "user", "alice")
        self.inst.stop()
        os.unlink(os.path.join(spool, "darius.index"))
        os.unlink(os.path.join(spool, "darius.cache"))
        r = darius("reconstruct", "-C", self.inst.conf, "--all", check=False)
        self.assertIn(r.returncode, (0, 1), r.stdout + r.stderr)
        self.inst.start()
        self.assertEqual(self.uidls(), before)
        self.assertEqual(self.stored("alice"), self.files)

    def test_curl(self):
        base = f"pop3://127.0.0.1:{self.inst.port('pop3')}/"
        curl = ["curl", "-sS", "--max-time", "15", "-u", "alice:" + USERS["alice"]]
        r = subprocess.run(curl + [base], capture_output=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.split(b"\r\n")[:len(MESSAGES)],
                         [b"%d %d" % (i + 1, len(f)) for i, f in enumerate(self.files)])
        for i, f in enumerate(self.files):
            r = subprocess.run(curl + [base + str(i + 1)], capture_output=True, timeout=30)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout, f, i)
        r = subprocess.run(curl + [base, "-X", "UIDL"], capture_output=True, timeout=30)
        self.assertEqual([l.split()[1] for l in r.stdout.split(b"\r\n") if l], self.uidls())
        # A single-line command needs -I (real-clients.md §5); curl QUITs, so DELE commits.
        r = subprocess.run(curl + ["-v", base, "-X", "DELE 1", "-I"], capture_output=True,
                           timeout=30)
        self.assertIn(b"< +OK Message 1 deleted", r.stderr)
        r = subprocess.run(curl + [base + "99"], capture_output=True, timeout=30)
        self.assertEqual(r.returncode, 8)  # bad POP3 reply: no such message
        self.assertEqual(self.stat()[0], len(MESSAGES) - 1)

    def fetchmail(self, keep):
        home = os.path.join(self.inst.dir, "fetchmail-" + ("keep" if keep else "flush"))
        out = os.path.join(home, "out")
        os.makedirs(out)
        rc = os.path.join(home, "fetchmailrc")
        with open(rc, "w") as f:
            f.write(f"""set no bouncemail
set no syslog
set invisible
poll 127.0.0.1 service {self.inst.port('pop3')} protocol POP3 auth password timeout 15
    user "alice" there with password "{USERS['alice']}" is "root" here
    sslproto ''
    {'keep' if keep else 'no keep'}
    mda "/bin/sh -c 'cat > {out}/msg.$$'"
""")
        os.chmod(rc, 0o600)
        r = subprocess.run(["fetchmail", "-f", rc, "-d0", "--nodetach"], capture_output=True,
                           text=True, timeout=120, env=dict(os.environ, FETCHMAILHOME=home))
        got = []
        for path in glob.glob(os.path.join(out, "msg.*")):
            with open(path, "rb") as f:
                got.append(f.read())
        return r, got

    def test_fetchmail_keep_and_no_keep(self):
        # fetchmail hands the MDA LF line ends; "invisible" keeps it from adding a Received.
        want = sorted(f.replace(b"\r\n", b"\n") for f in self.files)
        r, got = self.fetchmail(keep=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(sorted(got), want)
        self.assertEqual(self.stat()[0], len(MESSAGES))  # left on the server
        r, got = self.fetchmail(keep=False)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(sorted(got), want)
        self.assertEqual(self.stat(), (0, 0))  # flushed


class Pop3BadInputTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.inst = make_instance()
        lmtp_send(cls.inst, "s@example.com", ["bob@localhost"], b"Subject: x\r\n\r\nx\r\n")

    @classmethod
    def tearDownClass(cls):
        cls.inst.close()

    def test_malformed_commands_in_transaction(self):
        s = socket.create_connection(("127.0.0.1", self.inst.port("pop3")), timeout=15)
        f = s.makefile("rb")
        f.readline()
        s.sendall(b"USER bob\r\nPASS " + USERS["bob"].encode() + b"\r\n")
        self.assertEqual(f.readline()[:3], b"+OK")
        self.assertEqual(f.readline()[:3], b"+OK")
        for cmd, reply in [(b"RETR", b"-ERR Message number expected"),
                           (b"RETR x", b"-ERR Invalid message number"),
                           (b"RETR 0", b"-ERR Invalid message number"),
                           (b"RETR 4294967296", b"-ERR Invalid message number"),
                           (b"RETR 2", b"-ERR No such message"),
                           (b"TOP 1 -1", b"-ERR Invalid line count"),
                           (b"LIST 1 2", b"-ERR Too many arguments"),
                           (b"DELE 1\x00", b"-ERR Invalid character in command"),
                           (b"STAT " + b"x" * 5000, b"-ERR Line too long"),
                           (b"UIDL 1", b"+OK 1 ")]:
            s.sendall(cmd + b"\r\n")
            self.assertTrue(f.readline().startswith(reply), cmd)
        # Pipelined: answered in order, RETR's body included.
        s.sendall(b"NOOP\r\nRETR 1\r\nSTAT\r\nQUIT\r\n")
        self.assertEqual(f.readline(), b"+OK\r\n")
        self.assertTrue(f.readline().startswith(b"+OK"))
        while f.readline() != b".\r\n":
            pass
        self.assertTrue(f.readline().startswith(b"+OK 1 "))
        self.assertTrue(f.readline().startswith(b"+OK"))
        s.close()


if __name__ == "__main__":
    unittest.main()
