"""FETCH and UID FETCH end to end with Python's imaplib against the real dariusd: messages
are APPENDed (multipart with a binary attachment, an encapsulated message, 8-bit non-UTF-8
text, an unknown transfer encoding), then every FETCH item is checked byte for byte: BODY[]
against what was appended, sections, HEADER.FIELDS (cached and trace fields), partials,
BINARY and BINARY.SIZE, \\Seen by BODY[] but not BODY.PEEK[], MODSEQ, CHANGEDSINCE, VANISHED
with QRESYNC, EMAILID across COPY, PREVIEW, bad input, and the server's memory during a
FETCH of many large bodies (the response must stream)."""
import imaplib
import os
import re
import time
import unittest

from darius_harness import Instance, logout_quietly

CRLF = b"\r\n"

PDF = b"%PDF-1.4\n\x00\x01\x02\xff binary\r\n"

MULTIPART = CRLF.join([
    b"Received: from relay.example by mx.example; Mon, 1 Jan 2024 00:00:00 +0000",
    b"From: Alice <alice@example.com>",
    b"To: Bob <bob@example.com>",
    b"Subject: parts",
    b"Date: Mon, 1 Jan 2024 00:00:00 +0000",
    b"Message-ID: <parts@example.com>",
    b"MIME-Version: 1.0",
    b'Content-Type: multipart/mixed; boundary="outer"',
    b"",
    b"preamble",
    b"--outer",
    b"Content-Type: text/plain; charset=iso-8859-1",
    b"Content-Transfer-Encoding: quoted-printable",
    b"",
    b"caf=E9 cr=E8me=",
    b" br=FBl=E9e",
    b"--outer",
    b'Content-Type: application/pdf; name="a.pdf"',
    b"Content-Transfer-Encoding: base64",
    b"",
    b"JVBERi0xLjQKAAEC/yBiaW5hcnkNCg==",
    b"--outer",
    b"Content-Type: message/rfc822",
    b"",
    b"From: Carol <carol@example.com>",
    b"Subject: inner",
    b'Content-Type: multipart/alternative; boundary="inner"',
    b"",
    b"--inner",
    b"Content-Type: text/plain",
    b"",
    b"plain inner",
    b"--inner",
    b"Content-Type: text/html",
    b"",
    b"<p>html inner</p>",
    b"--inner--",
    b"--outer",
    b"Content-Type: application/octet-stream",
    b"Content-Transfer-Encoding: x-uuencode",
    b"",
    b"begin 644 x",
    b"--outer--",
    b"",
])

LATIN1 = CRLF.join([
    b"From: =?iso-8859-1?q?J=F6rg?= <jorg@example.com>",
    b"Subject: caf\xe9 \xfcber alles",
    b"Content-Type: text/plain; charset=iso-8859-1",
    b"Content-Transfer-Encoding: 8bit",
    b"",
    b"Gr\xfc\xdfe aus K\xf6ln, d\xe9j\xe0 vu.",
    b"",
])


def simple(subject, body=b"hello"):
    return CRLF.join([b"From: a@example.com", b"Subject: " + subject, b"", body, b""])


class Reader:
    """A small reader of the FETCH responses imaplib returns: the wire bytes are put back
    together (literals included) and parsed into {item name: value}."""

    def __init__(self, data):
        wire = b""
        for el in data:
            if el is None:
                continue
            if isinstance(el, tuple):
                wire += el[0] + CRLF + el[1]
            else:
                wire += el
        self.b = wire
        self.i = 0

    def responses(self):
        out = []
        while self.i < len(self.b):
            while self.b[self.i:self.i + 1] == b" ":
                self.i += 1
            m = re.compile(rb"(\d+) \(").match(self.b, self.i)
            if not m:
                raise AssertionError(f"not a FETCH response at {self.i}: {self.b[self.i:][:80]!r}")
            self.i = m.end()
            items = {}
            while self.b[self.i:self.i + 1] != b")":
                name = self.name()
                self.expect(b" ")
                items[name] = self.value()
                if self.b[self.i:self.i + 1] == b" ":
                    self.i += 1
            self.i += 1
            out.append((int(m.group(1)), items))
        return out

    def expect(self, s):
        if self.b[self.i:self.i + len(s)] != s:
            raise AssertionError(f"expected {s!r} at {self.i}: {self.b[self.i:][:80]!r}")
        self.i += len(s)

    def name(self):
        start, depth = self.i, 0
        while self.i < len(self.b):
            c = self.b[self.i:self.i + 1]
            if c == b"[":
                depth += 1
            elif c == b"]":
                depth -= 1
            elif c == b" " and depth == 0:
                break
            self.i += 1
        return self.b[start:self.i].decode()

    def value(self):
        c = self.b[self.i:self.i + 1]
        if c == b"(":
            start = self.i
            self.i += 1
            items = []
            while self.b[self.i:self.i + 1] != b")":
                items.append(self.value())
                if self.b[self.i:self.i + 1] == b" ":
                    self.i += 1
            self.i += 1
            return List(items, self.b[start:self.i])
        if c == b'"':
            self.i += 1
            out = b""
            while self.b[self.i:self.i + 1] != b'"':
                if self.b[self.i:self.i + 1] == b"\\":
                    self.i += 1
                out += self.b[self.i:self.i + 1]
                self.i += 1
            self.i += 1
            return out
        if c in (b"{", b"~"):
            m = re.compile(rb"~?\{(\d+)\}\r\n").match(self.b, self.i)
            n = int(m.group(1))
            self.i = m.end() + n
            data = self.b[m.end():self.i]
            return Literal8(data) if c == b"~" else data
        start = self.i
        while self.i < len(self.b) and self.b[self.i:self.i + 1] not in (b" ", b")"):
            self.i += 1
        atom = self.b[start:self.i]
        return None if atom == b"NIL" else atom.decode()


class List(list):
    def __init__(self, items, raw):
        super().__init__(items)
        self.raw = raw


class Literal8(bytes):
    pass


class FetchTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.inst = Instance(user="alice:alice-secret")
        cls.inst.start()

    @classmethod
    def tearDownClass(cls):
        cls.inst.close()

    def connect(self, mailbox="INBOX", readonly=False, enable=None):
        m = imaplib.IMAP4("127.0.0.1", self.inst.port("imap"), timeout=60)
        self.addCleanup(logout_quietly, m)
        m.login("alice", "alice-secret")
        if enable:
            typ, _ = m._simple_command("ENABLE", enable)
            self.assertEqual(typ, "OK")
            enabled = m.untagged_responses.pop("ENABLED", [b""])[-1].split()
            if enable.encode() not in enabled:
                self.skipTest(f"this server does not ENABLE {enable} yet")
        if mailbox:
            typ, data = m.select(mailbox, readonly=readonly)
            self.assertEqual(typ, "OK", data)
        return m

    def append(self, m, message, mailbox="INBOX", flags=None, date=None):
        typ, data = m.append(mailbox, flags, date, message)
        self.assertEqual(typ, "OK", data)
        uid = int(re.search(rb"APPENDUID \d+ (\d+)", data[0]).group(1))
        m.noop()  # learn of it (EXISTS)
        return uid

    def fetch(self, m, uid, items, expect="OK"):
        typ, data = m.uid("FETCH", str(uid), items)
        self.assertEqual(typ, expect, data)
        if expect != "OK":
            return data
        responses = Reader(data).responses()
        self.assertEqual(len(responses), 1, data)
        items = responses[0][1]
        self.assertEqual(items["UID"], str(uid))
        return items

    def flags(self, m, uid):
        return self.fetch(m, uid, "(FLAGS)")["FLAGS"]

    # --- whole messages and sections ---

    def test_body_equals_what_was_appended(self):
        m = self.connect()
        for message in (MULTIPART, LATIN1, simple(b"tiny", b"")):
            uid = self.append(m, message)
            got = self.fetch(m, uid, "(RFC822.SIZE BODY.PEEK[])")
            self.assertEqual(got["BODY[]"], message)
            self.assertEqual(int(got["RFC822.SIZE"]), len(message))
            self.assertEqual(self.fetch(m, uid, "RFC822.HEADER")["RFC822.HEADER"],
                             message[:message.index(CRLF + CRLF) + 4])

    def test_partials(self):
        m = self.connect()
        uid = self.append(m, MULTIPART)
        got = self.fetch(m, uid, "(BODY.PEEK[]<0.10> BODY.PEEK[TEXT]<5.7> BODY.PEEK[1]<4.1000>)")
        self.assertEqual(got["BODY[]<0>"], MULTIPART[:10])
        text = MULTIPART[MULTIPART.index(CRLF + CRLF) + 4:]
        self.assertEqual(got["BODY[TEXT]<5>"], text[5:12])
        self.assertEqual(got["BODY[1]<4>"], b"caf=E9 cr=E8me=\r\n br=FBl=E9e"[4:])
        got = self.fetch(m, uid, f"BODY.PEEK[]<{len(MULTIPART)}.10>")
        self.assertEqual(got[f"BODY[]<{len(MULTIPART)}>"], b"")
        got = self.fetch(m, uid, "BODY.PEEK[HEADER.FIELDS (Subject)]<2.5>")
        self.assertEqual(got["BODY[HEADER.FIELDS (Subject)]<2>"], b"bject")

    def test_part_sections(self):
        m = self.connect()
        uid = self.append(m, MULTIPART)
        got = self.fetch(m, uid, "(BODY.PEEK[1] BODY.PEEK[1.MIME] BODY.PEEK[2] BODY.PEEK[3.1] "
                                 "BODY.PEEK[3.2] BODY.PEEK[3.2.MIME] BODY.PEEK[3.HEADER] "
                                 "BODY.PEEK[3.TEXT] BODY.PEEK[5] BODY.PEEK[1.HEADER] "
                                 "BODY.PEEK[3.3])")
        self.assertEqual(got["BODY[1]"], b"caf=E9 cr=E8me=\r\n br=FBl=E9e")
        self.assertEqual(got["BODY[1.MIME]"],
                         b"Content-Type: text/plain; charset=iso-8859-1\r\n"
                         b"Content-Transfer-Encoding: quoted-printable\r\n\r\n")
        self.assertEqual(got["BODY[2]"], b"JVBERi0xLjQKAAEC/yBiaW5hcnkNCg==")
        self.assertEqual(got["BODY[3.1]"], b"plain inner")
        self.assertEqual(got["BODY[3.2]"], b"<p>html inner</p>")
        self.assertEqual(got["BODY[3.2.MIME]"], b"Content-Type: text/html\r\n\r\n")
        self.assertEqual(got["BODY[3.HEADER]"],
                         b"From: Carol <carol@example.com>\r\nSubject: inner\r\n"
                         b'Content-Type: multipart/alternative; boundary="inner"\r\n\r\n')
        self.assertTrue(got["BODY[3.TEXT]"].startswith(b"--inner\r\n"))
        self.assertTrue(got["BODY[3.TEXT]"].endswith(b"--inner--"))
        # Sections that name no part are empty strings.
        self.assertEqual(got["BODY[5]"], b"")
        self.assertEqual(got["BODY[1.HEADER]"], b"")
        self.assertEqual(got["BODY[3.3]"], b"")
        self.assertNotIn("\\Seen", self.flags(m, uid))

    def test_header_fields(self):
        m = self.connect()
        uid = self.append(m, MULTIPART)
        got = self.fetch(m, uid, "(BODY.PEEK[HEADER.FIELDS (From subject X-None)] "
                                 "BODY.PEEK[HEADER.FIELDS (Received)] "
                                 "BODY.PEEK[HEADER.FIELDS.NOT (Received To From Date "
                                 "Message-ID MIME-Version)] "
                                 "BODY.PEEK[3.HEADER.FIELDS (SUBJECT)])")
        self.assertEqual(got["BODY[HEADER.FIELDS (From subject X-None)]"],
                         b"From: Alice <alice@example.com>\r\nSubject: parts\r\n\r\n")
        self.assertEqual(got["BODY[HEADER.FIELDS (Received)]"],
                         b"Received: from relay.example by mx.example; "
                         b"Mon, 1 Jan 2024 00:00:00 +0000\r\n\r\n")
        self.assertEqual(got["BODY[HEADER.FIELDS.NOT (Received To From Date Message-ID "
                             "MIME-Version)]"],
                         b'Subject: parts\r\nContent-Type: multipart/mixed; boundary="outer"'
                         b"\r\n\r\n")
        self.assertEqual(got["BODY[3.HEADER.FIELDS (SUBJECT)]"], b"Subject: inner\r\n\r\n")

    def test_non_utf8_message(self):
        m = self.connect()
        uid = self.append(m, LATIN1)
        got = self.fetch(m, uid, "(BODY.PEEK[1] BODY.PEEK[HEADER.FIELDS (Subject)] "
                                 "BINARY.PEEK[1] ENVELOPE)")
        self.assertEqual(got["BODY[1]"], b"Gr\xfc\xdfe aus K\xf6ln, d\xe9j\xe0 vu.\r\n")
        self.assertEqual(got["BINARY[1]"], b"Gr\xfc\xdfe aus K\xf6ln, d\xe9j\xe0 vu.\r\n")
        self.assertEqual(got["BODY[HEADER.FIELDS (Subject)]"],
                         b"Subject: caf\xe9 \xfcber alles\r\n\r\n")
        self.assertEqual(got["ENVELOPE"][1], b"caf\xe9 \xfcber alles")

    # --- BINARY ---

    def test_binary(self):
        m = self.connect()
        uid = self.append(m, MULTIPART)
        got = self.fetch(m, uid, "(BINARY.PEEK[2] BINARY.SIZE[2] BINARY.PEEK[1] BINARY.SIZE[1] "
                                 "BINARY.PEEK[2]<9.4> BINARY.PEEK[3] BINARY.SIZE[3.1] "
                                 "BINARY.PEEK[9] BINARY.SIZE[9])")
        self.assertEqual(got["BINARY[2]"], PDF)
        self.assertIsInstance(got["BINARY[2]"], Literal8)  # it holds a NUL
        self.assertEqual(int(got["BINARY.SIZE[2]"]), len(PDF))
        latin1 = "café crème brûlée".encode("iso-8859-1")
        self.assertEqual(got["BINARY[1]"], latin1)
        self.assertNotIsInstance(got["BINARY[1]"], Literal8)
        self.assertEqual(int(got["BINARY.SIZE[1]"]), len(latin1))
        self.assertEqual(got["BINARY[2]<9>"], b"\x00\x01\x02\xff")
        self.assertTrue(got["BINARY[3]"].startswith(b"From: Carol"))  # identity: as stored
        self.assertEqual(int(got["BINARY.SIZE[3.1]"]), len(b"plain inner"))
        self.assertEqual(got["BINARY[9]"], b"")
        self.assertEqual(int(got["BINARY.SIZE[9]"]), 0)
        self.assertNotIn("\\Seen", self.flags(m, uid))

    def test_binary_unknown_encoding_is_no_unknown_cte(self):
        m = self.connect()
        uid = self.append(m, MULTIPART)
        data = self.fetch(m, uid, "BINARY.PEEK[4]", expect="NO")
        self.assertIn(b"[UNKNOWN-CTE]", data[-1])
        data = self.fetch(m, uid, "BINARY.SIZE[4]", expect="NO")
        self.assertIn(b"[UNKNOWN-CTE]", data[-1])
        # The raw part is still there through BODY.
        self.assertEqual(self.fetch(m, uid, "BODY.PEEK[4]")["BODY[4]"], b"begin 644 x")
        m.noop()

    # --- \Seen ---

    def test_seen_set_by_body_not_by_peek(self):
        m = self.connect()
        uid = self.append(m, MULTIPART)
        self.fetch(m, uid, "(BODY.PEEK[] BINARY.PEEK[1] RFC822.HEADER)")
        self.assertNotIn("\\Seen", self.flags(m, uid))
        got = self.fetch(m, uid, "BODY[1]")
        self.assertIn("\\Seen", got["FLAGS"])  # the new flags come with the response
        self.assertIn("\\Seen", self.flags(m, uid))
        # Already seen: nothing changes, so no FLAGS unasked.
        self.assertNotIn("FLAGS", self.fetch(m, uid, "BODY[1]"))
        for item in ("RFC822", "RFC822.TEXT", "BINARY[1]", "BODY[]"):
            uid = self.append(m, simple(item.encode()))
            got = self.fetch(m, uid, item)
            self.assertIn("\\Seen", got["FLAGS"], item)

    def test_examine_does_not_set_seen(self):
        m = self.connect()
        uid = self.append(m, simple(b"read-only"))
        r = self.connect(readonly=True)
        got = self.fetch(r, uid, "BODY[]")
        self.assertNotIn("FLAGS", got)
        self.assertNotIn("\\Seen", self.flags(m, uid))

    # --- metadata items ---

    def test_metadata_items(self):
        m = self.connect()
        date = imaplib.Time2Internaldate(time.mktime((2024, 1, 2, 3, 4, 5, 0, 0, -1)))
        uid = self.append(m, MULTIPART, flags="(\\Flagged $Work)", date=date)
        got = self.fetch(m, uid, "(FLAGS INTERNALDATE ENVELOPE BODY BODYSTRUCTURE SAVEDATE "
                                 "EMAILID THREADID PREVIEW)")
        self.assertIn("\\Flagged", got["FLAGS"])
        # A keyword new to the mailbox, seen from a session that selects after the APPEND.
        self.assertIn("$Work", self.flags(self.connect(), uid))
        self.assertRegex(got["INTERNALDATE"].decode(), r"^[ 0-3]\d-[A-Z][a-z]{2}-\d{4} "
                                                       r"\d\d:\d\d:\d\d [+-]\d{4}$")
        self.assertEqual(imaplib.Internaldate2tuple(b'INTERNALDATE "' + got["INTERNALDATE"] +
                                                    b'"')[:6],
                         time.localtime(time.mktime((2024, 1, 2, 3, 4, 5, 0, 0, -1)))[:6])
        env = got["ENVELOPE"]
        self.assertEqual(env[0], b"Mon, 1 Jan 2024 00:00:00 +0000")
        self.assertEqual(env[1], b"parts")
        self.assertEqual(env[9], b"<parts@example.com>")
        self.assertIn(b'"APPLICATION" "PDF"', got["BODYSTRUCTURE"].raw)
        self.assertIn(b'"MESSAGE" "RFC822"', got["BODYSTRUCTURE"].raw)
        self.assertIn(b'"MIXED"', got["BODY"].raw)
        self.assertNotIn(b'"BOUNDARY"', got["BODY"].raw)  # non-extensible
        self.assertIn(b'"BOUNDARY" "outer"', got["BODYSTRUCTURE"].raw)
        self.assertRegex(got["SAVEDATE"].decode(), r"\d{4} \d\d:\d\d:\d\d")
        self.assertRegex(got["EMAILID"][0], r"^M[0-9a-f]{24}$")
        self.assertIsNone(got["THREADID"])
        self.assertTrue(got["PREVIEW"].decode().startswith("café crème brûlée"))
        lazy = self.fetch(m, uid, "(PREVIEW (LAZY))")
        self.assertEqual(lazy["PREVIEW"], got["PREVIEW"])

    def test_macros(self):
        m = self.connect()
        uid = self.append(m, MULTIPART)
        self.assertEqual(set(self.fetch(m, uid, "FAST")),
                         {"UID", "FLAGS", "INTERNALDATE", "RFC822.SIZE"})
        self.assertEqual(set(self.fetch(m, uid, "ALL")),
                         {"UID", "FLAGS", "INTERNALDATE", "RFC822.SIZE", "ENVELOPE"})
        self.assertEqual(set(self.fetch(m, uid, "FULL")),
                         {"UID", "FLAGS", "INTERNALDATE", "RFC822.SIZE", "ENVELOPE", "BODY"})

    def test_emailid_stable_across_copy(self):
        m = self.connect()
        m.create("CopyTarget")
        uid = self.append(m, simple(b"copy me"))
        before = self.fetch(m, uid, "EMAILID")["EMAILID"]
        typ, data = m.uid("COPY", str(uid), "CopyTarget")
        self.assertEqual(typ, "OK", data)
        other = self.append(m, simple(b"another"))
        self.assertNotEqual(self.fetch(m, other, "EMAILID")["EMAILID"], before)
        t = self.connect("CopyTarget")
        typ, data = t.fetch("1:*", "(UID EMAILID)")
        self.assertEqual(typ, "OK")
        ids = [items["EMAILID"] for _, items in Reader(data).responses()]
        self.assertIn(before, ids)

    # --- sequence numbers and order ---

    def test_sequence_numbers(self):
        m = self.connect()
        m.create("Seq")
        m.select("Seq")
        with self.assertRaises(imaplib.IMAP4.error):
            m.fetch("*", "FLAGS")  # "*" in an empty mailbox is BAD
        uids = [self.append(m, simple(f"seq {i}".encode()), "Seq") for i in range(5)]
        typ, data = m.fetch("4,1:2", "(UID BODY.PEEK[HEADER.FIELDS (Subject)])")
        self.assertEqual(typ, "OK")
        responses = Reader(data).responses()
        self.assertEqual([r[0] for r in responses], [1, 2, 4])  # in sequence order
        self.assertEqual([r[1]["UID"] for r in responses], [str(uids[i]) for i in (0, 1, 3)])
        self.assertEqual(responses[2][1]["BODY[HEADER.FIELDS (Subject)]"],
                         b"Subject: seq 3\r\n\r\n")
        with self.assertRaises(imaplib.IMAP4.error):
            m.fetch("6", "FLAGS")
        with self.assertRaises(imaplib.IMAP4.error):
            m.fetch("1:9", "FLAGS")
        # UIDs that do not exist are simply not there.
        typ, data = m.uid("FETCH", "999999", "FLAGS")
        self.assertEqual(typ, "OK")
        self.assertEqual([d for d in data if d], [])
        typ, data = m.fetch("1:*", "FLAGS")
        self.assertEqual(len(Reader(data).responses()), 5)

    def test_expunged_meanwhile_is_still_served(self):
        m = self.connect(mailbox=None)
        m.create("Gone")
        m.select("Gone")
        uids = [self.append(m, simple(f"g{i}".encode()), "Gone") for i in range(3)]
        other = self.connect("Gone")
        other.uid("STORE", str(uids[1]), "+FLAGS.SILENT", "(\\Deleted)")
        self.assertEqual(other.expunge()[0], "OK")
        # The first session has not been told: message 2 is still message 2, and readable.
        typ, data = m.fetch("1:3", "(UID BODY.PEEK[])")
        self.assertEqual(typ, "OK")
        responses = Reader(data).responses()
        self.assertEqual([r[1]["UID"] for r in responses], [str(u) for u in uids])
        self.assertEqual(responses[1][1]["BODY[]"], simple(b"g1"))
        self.assertNotIn("EXPUNGE", m.untagged_responses)  # not during FETCH (§7.5.1)
        m.noop()
        self.assertEqual(m.untagged_responses.pop("EXPUNGE", None), [b"2"])

    def test_cached_items_never_open_the_message_file(self):
        m = self.connect(mailbox=None)
        m.create("NoFile")
        m.select("NoFile")
        uid = self.append(m, MULTIPART, "NoFile")
        files = [os.path.join(d, f"{uid}.") for d, _, names in os.walk(self.inst.dir)
                 if f"{uid}." in names and "darius.index" in names and "NoFile" in d]
        self.assertEqual(len(files), 1, files)
        os.unlink(files[0])
        got = self.fetch(m, uid, "(FLAGS INTERNALDATE RFC822.SIZE ENVELOPE BODY BODYSTRUCTURE "
                                 "PREVIEW EMAILID BODY.PEEK[HEADER.FIELDS (From Subject)])")
        self.assertEqual(got["ENVELOPE"][1], b"parts")
        self.assertEqual(int(got["RFC822.SIZE"]), len(MULTIPART))
        self.assertEqual(got["BODY[HEADER.FIELDS (From Subject)]"],
                         b"From: Alice <alice@example.com>\r\nSubject: parts\r\n\r\n")
        # What needs the file fails, and says so.
        for items in ("BODY.PEEK[]", "BODY.PEEK[1]", "BINARY.SIZE[2]",
                      "BODY.PEEK[HEADER.FIELDS (Received)]"):
            data = self.fetch(m, uid, items, expect="NO")
            self.assertIn(b"[SERVERBUG]", data[-1], items)
        self.assertEqual(m.noop()[0], "OK")

    # --- CONDSTORE and QRESYNC ---

    def test_modseq_and_changedsince(self):
        m = self.connect()
        m.create("Cond")
        m.select("Cond")
        uids = [self.append(m, simple(f"c{i}".encode()), "Cond") for i in range(3)]
        mods = {u: int(self.fetch(m, u, "MODSEQ")["MODSEQ"][0]) for u in uids}
        high = max(mods.values())
        typ, _ = m.uid("STORE", str(uids[1]), "+FLAGS", "(\\Flagged)")
        self.assertEqual(typ, "OK")
        typ, data = m.uid("FETCH", "1:*", "(FLAGS) (CHANGEDSINCE %d)" % high)
        self.assertEqual(typ, "OK")
        responses = Reader(data).responses()
        self.assertEqual(len(responses), 1, data)
        got = responses[0][1]
        self.assertEqual(got["UID"], str(uids[1]))
        self.assertIn("\\Flagged", got["FLAGS"])
        self.assertGreater(int(got["MODSEQ"][0]), high)
        # VANISHED needs QRESYNC.
        with self.assertRaises(imaplib.IMAP4.error):
            m.uid("FETCH", "1:*", "(FLAGS) (CHANGEDSINCE 1 VANISHED)")

    def test_condstore_responses_carry_the_uid(self):
        """RFC 7162 §3.2.4: once CONDSTORE is on, a FETCH by sequence number that returns
        MODSEQ, or that sets \\Seen, includes the UID as well."""
        m = self.connect(mailbox=None, enable="CONDSTORE")
        m.create("CondUid")
        m.select("CondUid")
        self.append(m, simple(b"u1"), "CondUid")
        uid = self.append(m, simple(b"u2"), "CondUid")
        for items in ("(MODSEQ)", "(FLAGS) (CHANGEDSINCE 1)", "(BODY[TEXT])"):
            typ, data = m.fetch("2", items)
            self.assertEqual(typ, "OK", data)
            got = Reader(data).responses()[0][1]
            self.assertEqual(got.get("UID"), str(uid), (items, data))
            self.assertIn("MODSEQ", got, (items, data))
        self.assertIn("\\Seen", got["FLAGS"])

    def test_vanished_with_qresync(self):
        m = self.connect(mailbox=None, enable="QRESYNC")
        m.create("Qr")
        typ, _ = m.select("Qr")
        self.assertEqual(typ, "OK")
        uids = [self.append(m, simple(f"q{i}".encode()), "Qr") for i in range(4)]
        base = max(int(self.fetch(m, u, "MODSEQ")["MODSEQ"][0]) for u in uids)
        m.uid("STORE", f"{uids[0]},{uids[2]}", "+FLAGS.SILENT", "(\\Deleted)")
        typ, _ = m.expunge()
        self.assertEqual(typ, "OK")
        m.uid("STORE", str(uids[3]), "+FLAGS.SILENT", "(\\Answered)")
        typ, data = m.uid("FETCH", "1:*", "(FLAGS) (CHANGEDSINCE %d VANISHED)" % base)
        self.assertEqual(typ, "OK")
        vanished = m.untagged_responses.pop("VANISHED", [])
        self.assertIn(f"(EARLIER) {uids[0]},{uids[2]}".encode(), vanished)
        responses = Reader(data).responses()
        self.assertEqual([r[1]["UID"] for r in responses], [str(uids[3])])
        # Under QRESYNC a FETCH by sequence number carries the UID too.
        typ, data = m.fetch("1", "FLAGS")
        self.assertIn("UID", Reader(data).responses()[0][1])

    # --- bad input ---

    def test_bad_input_gets_bad_and_the_session_goes_on(self):
        m = self.connect()
        self.append(m, simple(b"bad"))
        deep = "BODY[" + ".".join(["1"] * 500) + "]"
        many = "(" + " ".join(["FLAGS"] * 500) + ")"
        fields = "BODY[HEADER.FIELDS (" + " ".join(f"X-{i}" for i in range(2000)) + ")]"
        for items in ("FOO", "(FLAGS", "BODY[", "BODY[HEADER.FIELDS (From]", "BODY[]<1>",
                      "BODY[]<99999999999999999999999.1>", "BODY[0]", "BINARY[TEXT]",
                      "(ALL)", "()", deep, many, fields, "FLAGS (FOO 1)",
                      "FLAGS (CHANGEDSINCE 1 VANISHED)"):
            with self.assertRaises(imaplib.IMAP4.error, msg=items):
                m.fetch("1", items)
            # Ten BADs in a row end the session (by design); a good command resets that.
            self.assertEqual(m.noop()[0], "OK")
        typ, data = m.fetch("1", "UID")
        self.assertEqual(typ, "OK")

    # --- streaming ---

    def test_large_fetch_streams(self):
        """40 messages of 1 MiB each: the server's peak memory during FETCH 1:* BODY.PEEK[]
        must not grow by anything like the 40 MiB response."""
        m = self.connect()
        m.create("Big")
        m.select("Big")
        body = (b"x" * 998 + CRLF) * 1048
        messages = [simple(f"big {i}".encode(), body) for i in range(40)]
        for msg in messages:
            self.append(m, msg, "Big")
        before = peak_rss_kib(self.inst.proc.pid)
        typ, data = m.fetch("1:*", "(BODY.PEEK[])")
        self.assertEqual(typ, "OK")
        after = peak_rss_kib(self.inst.proc.pid)
        responses = Reader(data).responses()
        self.assertEqual(len(responses), 40)
        for (msn, items), msg in zip(responses, messages):
            self.assertEqual(items["BODY[]"], msg, msn)
        self.assertLess(after - before, 20 * 1024, f"peak RSS grew from {before} to {after} KiB")

    def test_many_windows_of_one_part_do_not_multiply_memory(self):
        """40 BINARY windows of one 3 MiB base64 part, and 40 of the identity-encoded whole
        message: each item used to hold its own copy of the bytes (120 MiB and more for one
        message). Now a decoded part is held once and identity ranges stream from the file."""
        m = self.connect()
        m.create("Windows")
        m.select("Windows")
        data = bytes(range(256)) * (3 * 4096)  # 3 MiB with NULs: literal8
        import base64
        b64 = base64.encodebytes(data).replace(b"\n", CRLF)
        msg = CRLF.join([b"From: a@example.com", b"Subject: windows",
                         b'Content-Type: multipart/mixed; boundary="b"', b"", b"--b",
                         b"Content-Type: application/octet-stream",
                         b"Content-Transfer-Encoding: base64", b"", b64, b"--b--", b""])
        uid = self.append(m, msg, "Windows")
        before = peak_rss_kib(self.inst.proc.pid)
        items = " ".join(f"BINARY.PEEK[1]<{i}.100000000>" for i in range(40))
        got = self.fetch(m, uid, f"({items})")
        for i in range(40):
            self.assertIsInstance(got[f"BINARY[1]<{i}>"], Literal8)
            self.assertEqual(got[f"BINARY[1]<{i}>"], data[i:], i)
        del got
        items = " ".join(f"BINARY.PEEK[]<{i}.100000000>" for i in range(40))
        got = self.fetch(m, uid, f"({items})")
        for i in range(40):
            self.assertNotIsInstance(got[f"BINARY[]<{i}>"], Literal8)
            self.assertEqual(got[f"BINARY[]<{i}>"], msg[i:], i)
        del got
        after = peak_rss_kib(self.inst.proc.pid)
        # Copies per item would be 40 × 3 MiB and more; one shared copy stays far below (the
        # margin is for ASan's quarantine of freed chunks).
        self.assertLess(after - before, 90 * 1024, f"peak RSS grew from {before} to {after} KiB")


class CorpusFetchTest(unittest.TestCase):
    """The shared corpus of real-world and broken messages (tests/data/mime/shared-corpus):
    each is APPENDed, then every kind of item is fetched for all of them. Nothing may crash,
    BODY[] must give back what was stored, and HEADER and TEXT must add up to it."""

    CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "mime",
                          "shared-corpus")

    @classmethod
    def setUpClass(cls):
        cls.inst = Instance(user="alice:alice-secret")
        cls.inst.start()

    @classmethod
    def tearDownClass(cls):
        cls.inst.close()

    def test_every_item_of_every_corpus_message(self):
        m = imaplib.IMAP4("127.0.0.1", self.inst.port("imap"), timeout=120)
        self.addCleanup(logout_quietly, m)
        m.login("alice", "alice-secret")
        m.create("Corpus")
        stored = []
        refused = 0
        for name in sorted(os.listdir(self.CORPUS)):
            if not name.endswith(".eml"):
                continue
            with open(os.path.join(self.CORPUS, name), "rb") as f:
                raw = f.read()
            try:
                typ, data = m.append("Corpus", None, None, raw)
            except imaplib.IMAP4.error:
                self.assertIn(b"\0", raw, name)  # only a NUL may make APPEND refuse it
                refused += 1
                continue
            self.assertEqual(typ, "OK", name)
            # imaplib sends every line end as CRLF.
            stored.append((name, re.sub(rb"\r\n|\r(?!\n)|\n", CRLF, raw)))
        self.assertGreaterEqual(len(stored), 320)
        self.assertLessEqual(refused, 1)
        typ, _ = m.select("Corpus")
        self.assertEqual(typ, "OK")

        typ, data = m.fetch("1:*", "(UID RFC822.SIZE BODY.PEEK[] BODY.PEEK[HEADER] "
                                   "BODY.PEEK[TEXT])")
        self.assertEqual(typ, "OK")
        responses = Reader(data).responses()
        self.assertEqual(len(responses), len(stored))
        for (msn, items), (name, message) in zip(responses, stored):
            self.assertEqual(items["BODY[]"], message, name)
            self.assertEqual(int(items["RFC822.SIZE"]), len(message), name)
            self.assertEqual(items["BODY[HEADER]"] + items["BODY[TEXT]"], message, name)

        structure = ("(ENVELOPE BODY BODYSTRUCTURE PREVIEW EMAILID "
                     "BODY.PEEK[HEADER.FIELDS (From To Subject Received)] "
                     "BODY.PEEK[HEADER.FIELDS.NOT (Received)] BODY.PEEK[1] BODY.PEEK[1.MIME] "
                     "BODY.PEEK[2] BODY.PEEK[2.MIME] BODY.PEEK[1.1] BODY.PEEK[1.2.MIME] "
                     "BODY.PEEK[2.HEADER] BODY.PEEK[2.TEXT] BODY.PEEK[3.1.2]<10.100>)")
        typ, data = m.fetch("1:*", structure)
        self.assertEqual(typ, "OK")
        self.assertEqual(len(Reader(data).responses()), len(stored))
        # BINARY may meet encodings nobody can decode: NO [UNKNOWN-CTE], the rest answered.
        typ, data = m.fetch("1:*", "(BINARY.PEEK[1] BINARY.SIZE[1] BINARY.PEEK[2] "
                                   "BINARY.SIZE[2] BINARY.PEEK[1.1] BINARY.PEEK[] "
                                   "BINARY.SIZE[])")
        if typ != "OK":
            self.assertIn(b"UNKNOWN-CTE", data[-1])
            data = m.untagged_responses.pop("FETCH")  # imaplib keeps them there after a NO
        answered = Reader(data).responses()
        self.assertGreater(len(answered), len(stored) * 9 // 10)
        for msn, items in answered:
            if "BINARY[1]" in items and "BINARY.SIZE[1]" in items:
                self.assertEqual(len(items["BINARY[1]"]), int(items["BINARY.SIZE[1]"]), msn)
            self.assertEqual(len(items["BINARY[]"]), int(items["BINARY.SIZE[]"]), msn)
        self.assertEqual(m.noop()[0], "OK")


def peak_rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise AssertionError("no VmHWM")


if __name__ == "__main__":
    unittest.main()
