"""LMTP delivery end to end against the real dariusd with real clients (issue 5): swaks and
Python's smtplib.LMTP deliver to several users with one reply per recipient; what each user
then retrieves over POP3 is exactly what was sent, under the Return-Path and Received fields
the server added. Also +detail folders and duplicate suppression, seen through the store with
`darius mailbox list`, and recipients written without a domain (issue 16), which are users of
the default domain unless lmtp_strict_rcpt."""
import os
import poplib
import re
import smtplib
import subprocess
import unittest

from darius_harness import Instance, darius

USERS = {"alice": "alice-secret", "bob": "bob-secret", "carol": "carol-secret"}

# The fields dariusd puts on top (RFC 5321 §4.4): Return-Path, then a folded Received.
TRACE = re.compile(
    rb"\AReturn-Path: <(?P<sender>[^>]*)>\r\n"
    rb"Received: from (?P<from>[^\r]+)\r\n"
    rb"\tby (?P<by>\S+) \(Darius\) with (?P<proto>LMTPS?|UTF8LMTPS?) id (?P<id>\S+)"
    rb"(?:\r\n\tfor <(?P<for>[^>]+)>)?;\r\n"
    rb"\t(?P<date>[A-Z][a-z]{2}, \d{1,2} [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d [+-]\d{4})\r\n")


def split_trace(message):
    """(trace match, the message as the client sent it)."""
    m = TRACE.match(message)
    if m is None:
        raise AssertionError(f"no trace fields on top of {message[:300]!r}")
    return m, message[m.end():]


def make_instance(**options):
    inst = Instance(user="alice:" + USERS["alice"], options=options)
    for user, password in USERS.items():
        if user != "alice":
            darius("user", "add", "-C", inst.conf, user, "--password", password)
    return inst.start()


def pop3_messages(inst, user):
    """Every message of `user`'s INBOX over POP3, as bytes with CRLF line ends."""
    p = poplib.POP3("127.0.0.1", inst.port("pop3"), timeout=15)
    try:
        p.user(user)
        p.pass_(USERS[user])
        count, _ = p.stat()
        out = []
        for i in range(1, count + 1):
            _, lines, _ = p.retr(i)
            out.append(b"".join(line + b"\r\n" for line in lines))
        return out
    finally:
        p.quit()


def mailbox_counts(inst):
    """{internal name: message count} from `darius mailbox list`."""
    out = darius("mailbox", "list", "-C", inst.conf).stdout
    counts = {}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[3].isdigit():
            counts[fields[0]] = int(fields[3])
    return counts


def lmtp_send(inst, sender, recipients, message):
    """The low-level smtplib.LMTP form of real-clients.md §2: {recipient: (code, text)} for
    every RCPT, with the per-recipient replies after DATA for the accepted ones."""
    s = smtplib.LMTP("127.0.0.1", inst.port("lmtp"), timeout=15)
    try:
        s.ehlo("client.example.com")
        code, _ = s.mail(sender)
        assert code == 250, code
        results, accepted = {}, []
        for r in recipients:
            reply = s.rcpt(r)
            if reply[0] == 250:
                accepted.append(r)
            else:
                results[r] = reply
        if accepted:
            results[accepted[0]] = s.data(message)
            for r in accepted[1:]:
                results[r] = s.getreply()  # smtplib reads only the first reply itself
        return results
    finally:
        s.quit()


def crlf(text):
    return text.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


class LmtpDeliveryTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.inst = make_instance()

    @classmethod
    def tearDownClass(cls):
        cls.inst.close()

    def drain(self, user):
        """Empties `user`'s INBOX (DELE everything, QUIT) so each test starts clean."""
        p = poplib.POP3("127.0.0.1", self.inst.port("pop3"), timeout=15)
        p.user(user)
        p.pass_(USERS[user])
        for i in range(1, p.stat()[0] + 1):
            p.dele(i)
        p.quit()

    def setUp(self):
        for user in USERS:
            self.drain(user)

    def test_delivery_threads_run_niced_and_session_threads_do_not(self):
        # Interactive work first (issue 23): lmtp_delivery_nice (10 by default) on the
        # lmtp_delivery_threads (16) threads of the delivery pool, nothing else touched.
        # Field 19 of /proc/PID/task/TID/stat is the thread's nice value.
        def nice_of(stat_path):
            with open(stat_path) as f:
                stat = f.read()
            return int(stat[stat.rindex(")") + 2:].split()[16])

        pid = self.inst.proc.pid
        base = nice_of(f"/proc/{pid}/stat")  # the main thread: what the process was started at
        if base >= 10:
            self.skipTest(f"dariusd was started at nice {base}")
        nices = []
        task_dir = f"/proc/{pid}/task"
        for tid in os.listdir(task_dir):
            try:
                nices.append(nice_of(os.path.join(task_dir, tid, "stat")))
            except FileNotFoundError:
                continue  # a thread that ended meanwhile
        self.assertGreaterEqual(nices.count(10), 16, nices)  # the pool, the search indexer
        self.assertGreaterEqual(nices.count(base), 2, nices)  # main and the I/O threads

    def test_swaks_delivers_to_several_users(self):
        path = os.path.join(self.inst.dir, "swaks.eml")
        with open(path, "w") as f:
            f.write("From: s@example.com\nTo: alice@example.com\nSubject: swaks test\n"
                    "Message-ID: <swaks-1@example.com>\n\nhello\n.leading dot\n")
        r = subprocess.run(
            ["swaks", "--protocol", "LMTP", "--server", f"127.0.0.1:{self.inst.port('lmtp')}",
             "--from", "s@example.com", "--to", "alice@localhost,bob@localhost,nosuch@localhost",
             "--data", "@" + path, "--timeout", "15"],
            capture_output=True, text=True, timeout=60)
        # With LMTP swaks exits 0 if any recipient succeeded: read the replies themselves.
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("<** 550 5.1.1 <nosuch@localhost> User unknown", r.stdout)
        self.assertIn("<-  250 2.0.0 <alice@localhost> Delivered", r.stdout)
        self.assertIn("<-  250 2.0.0 <bob@localhost> Delivered", r.stdout)
        self.assertEqual(len(re.findall(r"^<\*\*", r.stdout, re.M)), 1, r.stdout)
        # What swaks put on the wire between DATA's 354 and the final dot, unstuffed.
        sent = r.stdout.split("<-  354 ", 1)[1].split("\n", 1)[1].split("\n -> .\n", 1)[0]
        lines = [line[4:] for line in sent.split("\n")]
        sent_bytes = b"".join((l[1:] if l.startswith(".") else l).encode() + b"\r\n"
                              for l in lines)
        for user in ("alice", "bob"):
            msgs = pop3_messages(self.inst, user)
            self.assertEqual(len(msgs), 1, user)
            trace, body = split_trace(msgs[0])
            self.assertEqual(body, sent_bytes)
            self.assertEqual(trace["sender"], b"s@example.com")
            self.assertIsNone(trace["for"])  # two recipients share one stored file

    def test_smtplib_lmtp_replies_per_recipient(self):
        msg = crlf(b"From: s@example.com\nSubject: smtplib\nMessage-ID: <smtplib-1@example.com>\n"
                   b"\nline one\n.\n..two dots\nlast line\n")
        results = lmtp_send(self.inst, "s@example.com",
                            ["alice@localhost", "ghost@localhost", "bob@example.org",
                             "carol@localhost"], msg)
        self.assertEqual(results["ghost@localhost"][0], 550)
        for r in ("alice@localhost", "bob@example.org", "carol@localhost"):
            self.assertEqual(results[r], (250, f"2.0.0 <{r}> Delivered".encode()), r)
        for user in ("alice", "bob", "carol"):
            msgs = pop3_messages(self.inst, user)
            self.assertEqual(len(msgs), 1, user)
            self.assertEqual(split_trace(msgs[0])[1], msg)

    def test_trace_fields(self):
        msg = b"Subject: trace\r\n\r\nx\r\n"
        results = lmtp_send(self.inst, "", ["carol@localhost"], msg)
        self.assertEqual(results["carol@localhost"][0], 250)
        trace, body = split_trace(pop3_messages(self.inst, "carol")[0])
        self.assertEqual(body, msg)
        self.assertEqual(trace["sender"], b"")  # the null reverse-path
        self.assertEqual(trace["from"], b"client.example.com ([127.0.0.1])")
        self.assertEqual(trace["proto"], b"LMTP")
        self.assertEqual(trace["for"], b"carol@localhost")  # the only recipient

    def test_detail_goes_to_an_existing_folder(self):
        darius("mailbox", "create", "-C", self.inst.conf, "user/bob/lists")
        before = mailbox_counts(self.inst)
        results = lmtp_send(self.inst, "s@example.com",
                            ["bob+lists@localhost", "bob+nosuch@localhost"],
                            b"Subject: detail\r\n\r\nx\r\n")
        self.assertEqual([c for c, _ in results.values()], [250, 250])
        after = mailbox_counts(self.inst)
        self.assertEqual(after["user/bob/lists"], before.get("user/bob/lists", 0) + 1)
        self.assertEqual(len(pop3_messages(self.inst, "bob")), 1)  # +nosuch: INBOX

    def test_bare_local_part_is_a_user_of_the_default_domain(self):
        # Not RFC 5321, but Cyrus and Dovecot accept RCPT TO:<user> and delivery agents
        # written for them send it; before issue 16 this was 501 5.1.3.
        msg = b"Subject: bare\r\n\r\nno domain\r\n"
        results = lmtp_send(self.inst, "s@example.com", ["bob", "carol+x", "ghost"], msg)
        self.assertEqual(results["bob"], (250, b"2.0.0 <bob> Delivered"))
        self.assertEqual(results["carol+x"], (250, b"2.0.0 <carol+x> Delivered"))
        self.assertEqual(results["ghost"], (550, b"5.1.1 <ghost> User unknown"))
        for user in ("bob", "carol"):
            msgs = pop3_messages(self.inst, user)
            self.assertEqual(len(msgs), 1, user)
            trace, body = split_trace(msgs[0])
            self.assertEqual(body, msg)

    def test_duplicates_are_accepted_but_stored_once(self):
        msg = b"Message-ID: <dup-1@example.com>\r\nSubject: dup\r\n\r\nx\r\n"
        for _ in range(3):
            results = lmtp_send(self.inst, "s@example.com", ["alice@localhost"], msg)
            self.assertEqual(results["alice@localhost"][0], 250)
        self.assertEqual(len(pop3_messages(self.inst, "alice")), 1)


class StrictRcptTest(unittest.TestCase):
    """lmtp_strict_rcpt: yes keeps RFC 5321's refusal of a recipient without a domain."""

    @classmethod
    def setUpClass(cls):
        cls.inst = make_instance(lmtp_strict_rcpt="yes")

    @classmethod
    def tearDownClass(cls):
        cls.inst.close()

    def test_bare_local_part_is_refused(self):
        s = smtplib.LMTP("127.0.0.1", self.inst.port("lmtp"), timeout=15)
        try:
            s.ehlo("client.example.com")
            self.assertEqual(s.mail("s@example.com")[0], 250)
            self.assertEqual(s.rcpt("bob"), (501, b"5.1.3 Bad address syntax"))
            self.assertEqual(s.rcpt("bob@localhost")[0], 250)
        finally:
            s.quit()


if __name__ == "__main__":
    unittest.main()
