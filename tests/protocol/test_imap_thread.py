"""THREAD and UID THREAD (RFC 5256 §3-§5, REFS of draft-ietf-morg-inthread) with Python's
imaplib against the real dariusd.

A mailbox is filled so that each rule of the algorithms shows in the answer: In-Reply-To and
References chains, a reply that only its subject ties to its thread (REFERENCES step 5, not
REFS), two messages whose common parent is missing (a dummy: "((7)(8))"), a quoted msg-id that
must match its unquoted twin, a message without Date (sorted by its INTERNALDATE), and dates
in several zones (sent dates compare in UTC). The three algorithms are checked for their exact
answers, with search keys narrowing the set, with UID THREAD (the UIDs differ from the sequence
numbers), on a reference loop and a long reply chain, and with bad input: unknown algorithm,
missing charset or keys (BAD), unknown charset (NO [BADCHARSET]), the wrong state. The tests
THREAD the same mailbox again and again, by sequence number and by UID, so they run on inputs
remembered by the sort key cache; they all run a second time with that cache off."""
import imaplib
import re
import unittest

from darius_harness import Instance, logout_quietly

CRLF = b"\r\n"


def msg(*lines):
    return CRLF.join(lines) + CRLF


def mail(subject, mid=None, date=None, irt=None, refs=None, body=b"text"):
    lines = [b"From: a@example.com", b"Subject: " + subject]
    if mid:
        lines.append(b"Message-ID: " + mid)
    if date:
        lines.append(b"Date: " + date)
    if irt:
        lines.append(b"In-Reply-To: " + irt)
    if refs:
        lines.append(b"References: " + refs)
    return msg(*lines, b"", body)


# Sequence numbers 1..11 in this order (UIDs are 2..12: UID 1 is expunged in setUpClass).
THREAD_MAIL = [
    mail(b"Plan", b"<p1@x>", b"Mon, 1 Jan 2024 10:00:00 +0000"),                          # 1
    mail(b"Re: Plan", b"<p2@x>", b"Mon, 1 Jan 2024 12:00:00 +0100", irt=b"<p1@x>"),       # 2
    mail(b"Other", b"<o1@x>", b"Mon, 1 Jan 2024 04:00:00 -0500"),                         # 3
    mail(b"Re: Plan", b"<p3@x>", b"Mon, 1 Jan 2024 12:00:00 +0000",
         refs=b"<p1@x>\r\n <p2@x>"),                                                      # 4
    mail(b"RE: [team] Plan", b"<p4@x>", b"Mon, 1 Jan 2024 10:30:00 +0000",
         refs=b"<p1@x>"),                                                                 # 5
    mail(b"Re: Other", b"<o2@x>", b"Tue, 2 Jan 2024 00:00:00 +0000"),                     # 6
    mail(b"Lost", b"<l1@x>", b"Wed, 3 Jan 2024 00:00:00 +0000", refs=b"<gone@x>"),        # 7
    mail(b"Lost", b"<l2@x>", b"Wed, 3 Jan 2024 01:00:00 +0000", refs=b"<gone@x>"),        # 8
    mail(b"Nodate", b"<n1@x>"),                                                           # 9
    mail(b"Quoted", b'<"q1"@x>', b"Thu, 4 Jan 2024 00:00:00 +0000"),                      # 10
    mail(b"Re: Quoted", b"<q2@x>", b"Thu, 4 Jan 2024 01:00:00 +0000",
         irt=b"Your message of \"Thu\" <q1@x> (Quoted)"),                                 # 11
]
NODATE_INTERNAL = '"05-Jan-2024 00:00:00 +0000"'
OTHER_INTERNAL = '"01-Jan-2023 00:00:00 +0000"'  # earlier than every Date: must not be used

# RFC 5256 REFERENCES: 6 joins 3 by subject (a reply); 5 (10:30) before 2 (11:00 UTC);
# the missing <gone@x> is a dummy with two children.
REFERENCES = "(3 6)(1 (5)(2 4))((7)(8))(10 11)(9)"
# ORDEREDSUBJECT: by base subject, then sent date; no grandchildren.
ORDEREDSUBJECT = "(3 6)(1 (5)(2)(4))(7 8)(10 11)(9)"
# REFS: no subject grouping; threads by their newest message (1's thread ends with 4 at 12:00).
REFS = "(3)(1 (5)(2 4))(6)((7)(8))(10 11)(9)"


def shift(threads, by):
    return re.sub(r"\d+", lambda m: str(int(m.group()) + by), threads)


class ThreadTest(unittest.TestCase):
    options = {}  # the default config: repeated THREADs take their inputs from sort_key_cache

    @classmethod
    def setUpClass(cls):
        cls.inst = Instance(user="alice:alice-secret", options=cls.options)
        cls.inst.start()
        m = cls.connect()
        try:
            for name in ("thread", "loops", "chain"):
                typ, _ = m.create(name)
                assert typ == "OK", name
            # UID 1 goes away, so that UIDs and sequence numbers differ.
            typ, dat = m.append("thread", None, None, mail(b"gone", b"<gone-msg@x>"))
            assert typ == "OK", dat
            m.select("thread")
            m.store("1", "+FLAGS", r"(\Deleted)")
            m.expunge()
            for i, body in enumerate(THREAD_MAIL, start=1):
                date = NODATE_INTERNAL if i == 9 else OTHER_INTERNAL
                typ, dat = m.append("thread", None, date, body)
                assert typ == "OK", dat
            for body in (
                    mail(b"loop a", b"<a@l>", b"1 Jan 2024 00:00:00 +0000", refs=b"<b@l>"),
                    mail(b"loop b", b"<b@l>", b"2 Jan 2024 00:00:00 +0000", refs=b"<a@l>"),
                    mail(b"self", b"<c@l>", b"3 Jan 2024 00:00:00 +0000", refs=b"<c@l> <c@l>"),
                    mail(b"dup", b"<a@l>", b"4 Jan 2024 00:00:00 +0000", irt=b"<a@l>")):
                typ, dat = m.append("loops", None, None, body)
                assert typ == "OK", dat
            refs = b""
            for i in range(1, cls.CHAIN + 1):
                mid = b"<c%d@chain>" % i
                typ, dat = m.append("chain", None, None, mail(
                    b"Re: chain", mid, b"1 Jan 2024 00:00:00 +0000", refs=refs or None))
                assert typ == "OK", dat
                refs = mid  # In a real chain References grows; the parent alone is enough here.
            m.logout()
        except Exception:
            cls.inst.close()
            raise

    CHAIN = 300

    @classmethod
    def tearDownClass(cls):
        cls.inst.close()

    @classmethod
    def connect(cls):
        m = imaplib.IMAP4("127.0.0.1", cls.inst.port("imap"), timeout=30)
        m.login("alice", "alice-secret")
        return m

    def imap(self, mailbox="thread"):
        m = self.connect()
        self.addCleanup(logout_quietly, m)
        typ, _ = m.select(mailbox, readonly=True)
        self.assertEqual(typ, "OK")
        return m

    def thread(self, m, *args, uid=False):
        """The THREAD response's data (without "THREAD") and the tagged status."""
        m.untagged_responses.pop("THREAD", None)
        if uid:  # imaplib's uid() would take the THREAD response away
            typ, dat = m._simple_command("UID", "THREAD", *args)
        else:
            typ, dat = m._simple_command("THREAD", *args)
        got = m.untagged_responses.pop("THREAD", [])
        text = [x.decode() if isinstance(x, bytes) else x for x in got if x is not None]
        return typ, dat, "".join(text)

    def test_capabilities_advertise_the_three_algorithms(self):
        m = self.connect()
        self.addCleanup(logout_quietly, m)
        caps = m.capabilities
        for alg in ("THREAD=ORDEREDSUBJECT", "THREAD=REFERENCES", "THREAD=REFS"):
            self.assertIn(alg, caps)

    def test_references(self):
        m = self.imap()
        typ, _, got = self.thread(m, "REFERENCES", "UTF-8", "ALL")
        self.assertEqual(typ, "OK")
        self.assertEqual(got, REFERENCES)

    def test_orderedsubject(self):
        m = self.imap()
        typ, _, got = self.thread(m, "ORDEREDSUBJECT", "US-ASCII", "ALL")
        self.assertEqual(typ, "OK")
        self.assertEqual(got, ORDEREDSUBJECT)

    def test_refs(self):
        m = self.imap()
        typ, _, got = self.thread(m, "refs", '"UTF-8"', "ALL")
        self.assertEqual(typ, "OK")
        self.assertEqual(got, REFS)

    def test_imaplib_thread_method(self):
        m = self.imap()
        typ, dat = m.thread("REFERENCES", "UTF-8", "ALL")
        self.assertEqual(typ, "OK")
        self.assertEqual(dat, [REFERENCES.encode()])

    def test_search_keys_narrow_the_set(self):
        m = self.imap()
        # 1, 2, 4, 5: the Plan thread alone.
        _, _, got = self.thread(m, "REFERENCES", "UTF-8", "SUBJECT", "plan")
        self.assertEqual(got, "(1 (5)(2 4))")
        # Without 1 its replies hang under a dummy: they still share the thread.
        _, _, got = self.thread(m, "REFERENCES", "UTF-8", "SUBJECT", "plan", "NOT", "1")
        self.assertEqual(got, "((5)(2 4))")
        _, _, got = self.thread(m, "ORDEREDSUBJECT", "UTF-8", "SUBJECT", "plan", "NOT", "1")
        self.assertEqual(got, "(5 (2)(4))")
        _, _, got = self.thread(m, "REFERENCES", "UTF-8", "2:4,9")
        self.assertEqual(got, "(3)(2 4)(9)")

    def test_no_match_is_an_empty_thread_response(self):
        m = self.imap()
        typ, _, got = self.thread(m, "REFERENCES", "UTF-8", "SUBJECT", "no-such-subject")
        self.assertEqual(typ, "OK")
        self.assertEqual(got, "")

    def test_uid_thread_answers_with_uids(self):
        m = self.imap()
        for alg, expected in (("REFERENCES", REFERENCES), ("ORDEREDSUBJECT", ORDEREDSUBJECT),
                              ("REFS", REFS)):
            typ, _, got = self.thread(m, alg, "UTF-8", "ALL", uid=True)
            self.assertEqual(typ, "OK")
            self.assertEqual(got, shift(expected, 1))
        # UID THREAD's keys take sequence numbers where SEARCH does, UIDs after UID.
        _, _, got = self.thread(m, "REFERENCES", "UTF-8", "UID", "2:3", uid=True)
        self.assertEqual(got, "(2 3)")
        _, _, got = self.thread(m, "REFERENCES", "UTF-8", "1:2", uid=True)
        self.assertEqual(got, "(2 3)")

    def test_loops_self_references_and_duplicate_ids(self):
        m = self.imap("loops")
        # 1 names 2 as parent, 2 names 1: the second link would close a loop and is not made.
        # 3 refers to itself; 4 repeats 1's Message-ID (it gets a unique one) and answers 1.
        _, _, got = self.thread(m, "REFS", "UTF-8", "ALL")
        self.assertEqual(got, "(3)(2 1 4)")
        _, _, got = self.thread(m, "REFERENCES", "UTF-8", "ALL")
        self.assertEqual(got, "(2 1 4)(3)")

    def test_long_chain(self):
        m = self.imap("chain")
        _, _, got = self.thread(m, "REFERENCES", "UTF-8", "ALL")
        self.assertEqual(got, "(" + " ".join(str(i) for i in range(1, self.CHAIN + 1)) + ")")
        # Every message has the same sent date: mailbox order breaks the ties.
        _, _, got = self.thread(m, "ORDEREDSUBJECT", "UTF-8", "ALL")
        self.assertEqual(got, "(1 " + "".join(f"({i})" for i in range(2, self.CHAIN + 1)) + ")")

    def test_bad_input(self):
        m = self.imap()
        for args in (("FOO", "UTF-8", "ALL"),              # unknown algorithm
                     ("REFERENCES",),                       # no charset
                     ("REFERENCES", "UTF-8"),               # no search keys
                     ("REFERENCES", "ALL"),                 # charset missing: ALL is not a key
                     ("REFERENCES", "UTF-8", "BOGUSKEY"),
                     ("REFERENCES", "UTF-8", "RETURN", "(ALL)", "ALL"),
                     ("REFERENCES", "UTF-8", "CHARSET", "UTF-8", "ALL"),
                     ("(REFERENCES)", "UTF-8", "ALL")):
            with self.subTest(args=args):
                with self.assertRaises(imaplib.IMAP4.error) as e:
                    m._simple_command("THREAD", *args)
                self.assertIn("BAD", str(e.exception).upper())
        with self.assertRaises(imaplib.IMAP4.error):
            m.uid("THREAD", "FOO", "UTF-8", "ALL")
        # The session is still usable.
        typ, _, got = self.thread(m, "REFERENCES", "UTF-8", "ALL")
        self.assertEqual(got, REFERENCES)

    def test_unknown_charset_is_badcharset(self):
        m = self.imap()
        typ, dat, _ = self.thread(m, "REFERENCES", "X-NO-SUCH-CHARSET", "ALL")
        self.assertEqual(typ, "NO")
        self.assertRegex(dat[0].decode(), r"^\[BADCHARSET \(.*UTF-8.*\)\]")

    def test_thread_needs_a_selected_mailbox(self):
        m = self.connect()
        self.addCleanup(logout_quietly, m)
        try:
            typ, _ = m._simple_command("THREAD", "REFERENCES", "UTF-8", "ALL")
        except imaplib.IMAP4.error:
            typ = "BAD"
        self.assertNotEqual(typ, "OK")


class ThreadWithoutKeyCacheTest(ThreadTest):
    """The same with `sort_key_cache: 0`: every THREAD reads its inputs."""
    options = {"sort_key_cache": "0"}


if __name__ == "__main__":
    unittest.main()
