"""SEARCH and UID SEARCH end to end with Python's imaplib against the real dariusd.

Six messages are APPENDed (RFC 2047 KOI8-R headers, ISO-8859-1 quoted-printable and 8-bit
bodies, a base64 UTF-8 body, an image attachment, a trace field, dates in several zones,
flags and keywords), then every search key of RFC 3501/9051 and of the extensions is checked
for its exact result set; ESEARCH (RFC 4731) MIN/MAX/COUNT/ALL and the UID marker; SEARCHRES
(RFC 5182): SAVE with MIN/MAX, "$" in SEARCH, UID FETCH, UID STORE and COPY, the effect of NO
and BAD on "$"; CHARSET ISO-8859-1 and KOI8-R with literals and BADCHARSET; MODSEQ (RFC 7162);
IMAP4rev2's ESEARCH-only answers; \\Recent, NEW and OLD; expunges held back during SEARCH by
sequence number; and hostile input (deep nesting, key floods, unknown keys)."""
import imaplib
import re
import unittest

from darius_harness import Instance, logout_quietly

CRLF = b"\r\n"


def msg(*lines):
    return CRLF.join(lines) + CRLF


# (flags, INTERNALDATE, message); sequence numbers 1..6 in this order.
MESSAGES = [
    (r"(\Seen $Work)", '"01-Jan-2024 10:00:00 +0000"', msg(
        b"From: Alice Smith <alice@example.com>",
        b"To: bob@example.com",
        b"Cc: Carol <carol@example.com>",
        b"Subject: Lunch plans",
        b"Date: Mon, 1 Jan 2024 12:00:00 +0000",
        b"Message-ID: <lunch@example.com>",
        b"",
        b"Let's meet at noon.")),
    (r"(\Flagged \Answered)", '"15-Feb-2024 23:30:00 -0500"', msg(
        b"From: =?koi8-r?B?8NLJ18XU?= <ivan@example.ru>",
        b"To: bob@example.com",
        b"Subject: =?koi8-r?B?8NLJ18XU?= from Moscow",
        b"Date: Thu, 15 Feb 2024 23:30:00 -0500",
        b"MIME-Version: 1.0",
        b"Content-Type: text/plain; charset=iso-8859-1",
        b"Content-Transfer-Encoding: quoted-printable",
        b"",
        b"Un caf=E9 cr=E8me, s'il vous pla=EEt.")),
    (r"(\Deleted \Draft)", '"10-Mar-2024 12:00:00 +0000"', msg(
        b"From: dmitri@example.org",
        b"To: team@example.org",
        b"Bcc: secret-list@example.org",
        b"Subject: report",
        b"Content-Type: text/plain; charset=utf-8",
        b"Content-Transfer-Encoding: base64",
        b"",
        b"0J/RgNC40LLQtdGCLCDQvNC40YAh")),
    (None, '"01-Apr-2024 08:00:00 +0200"', msg(
        b"Received: from mx.example.net by darius; Mon, 1 Apr 2024 08:00:00 +0000",
        b"From: eve@example.com",
        b"To: bob@example.com",
        b"Subject: photo",
        b"X-Spam: yes",
        b"Date: 1 Apr 2024 08:00:00 +0200",
        b'Content-Type: multipart/mixed; boundary="XX"',
        b"",
        b"--XX",
        b"Content-Type: text/html; charset=utf-8",
        b"",
        b"<p>See the <b>attached</b> picture</p>",
        b"--XX",
        b"Content-Type: image/png",
        b"Content-Transfer-Encoding: base64",
        b"",
        b"c2VjcmV0IHdvcmRz",
        b"--XX--")),
    ("($Junk)", '"20-Apr-2024 00:30:00 +0100"', msg(
        b"From: =?iso-8859-1?q?J=F6rg?= <jorg@example.com>",
        b"To: anna@example.com",
        b"Subject: caf\xe9 \xfcber alles",
        b"Date: Sat, 20 Apr 2024 00:30:00 +0100",
        b"Content-Type: text/plain; charset=iso-8859-1",
        b"Content-Transfer-Encoding: 8bit",
        b"",
        b"Gr\xfc\xdfe aus K\xf6ln, d\xe9j\xe0 vu.")),
    (r"(\Seen \Flagged)", '"01-May-2024 09:00:00 +0000"', msg(
        b"From: big@example.com",
        b"To: bob@example.com",
        b"Subject: big",
        b"Date: Wed, 1 May 2024 09:00:00 +0000",
        b"",
        *([b"x" * 998] * 30))),
]
ALL = [1, 2, 3, 4, 5, 6]


def parse_esearch(line):
    """b'(TAG "a1") UID MIN 2 COUNT 3' -> {'TAG': 'a1', 'UID': True, 'MIN': '2', 'COUNT': '3'}"""
    out = {}
    text = line.decode()
    m = re.match(r'\(TAG "([^"]*)"\)\s*', text)
    if m:
        out["TAG"] = m.group(1)
        text = text[m.end():]
    words = text.split()
    i = 0
    while i < len(words):
        if words[i].upper() == "UID":
            out["UID"] = True
            i += 1
        else:
            out[words[i].upper()] = words[i + 1]
            i += 2
    return out


def expand(seqset):
    out = []
    for part in seqset.split(","):
        a, _, b = part.partition(":")
        lo, hi = int(a), int(b or a)
        out.extend(range(min(lo, hi), max(lo, hi) + 1))
    return out


class SearchTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.inst = Instance(user="alice:alice-secret")
        cls.inst.start()
        m = cls.connect()
        try:
            for name in ("search", "save", "target", "recent", "expunge"):
                typ, _ = m.create(name)
                assert typ == "OK", name
            for flags, date, body in MESSAGES:
                typ, dat = m.append("search", flags, date, body)
                assert typ == "OK", dat
            for i in range(1, 6):
                typ, dat = m.append("save", None, None,
                                    msg(b"From: s%d@example.com" % i, b"Subject: save %d" % i,
                                        b"", b"body %d" % i))
                assert typ == "OK", dat
            m.logout()
        except Exception:
            cls.inst.close()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.inst.close()

    @classmethod
    def connect(cls):
        m = imaplib.IMAP4("127.0.0.1", cls.inst.port("imap"), timeout=30)
        m.login("alice", "alice-secret")
        return m

    def imap(self, mailbox="search", readonly=True, rev2=False):
        m = self.connect()
        self.addCleanup(logout_quietly, m)
        if rev2:
            typ, _ = m.enable("IMAP4rev2")
            self.assertEqual(typ, "OK")
        if mailbox:
            typ, dat = m.select(mailbox, readonly=readonly)
            self.assertEqual(typ, "OK", dat)
        return m

    def search(self, m, *criteria, charset=None, literal=None):
        if literal is not None:
            m.literal = literal
        typ, dat = m.search(charset, *criteria)
        self.assertEqual(typ, "OK", (criteria, dat))
        # "(MODSEQ n)" after the numbers when the search had a MODSEQ key (RFC 7162 §3.1.6).
        return [int(x) for x in (dat[0] or b"").split(b" (MODSEQ ")[0].split()]

    def uid_search(self, m, *criteria):
        typ, dat = m.uid("SEARCH", *criteria)
        self.assertEqual(typ, "OK", (criteria, dat))
        return [int(x) for x in (dat[0] or b"").split(b" (MODSEQ ")[0].split()]

    def esearch(self, m, *args, uid=False):
        """Sends [UID] SEARCH args; returns the parsed ESEARCH responses and the command's tag."""
        m.untagged_responses.pop("ESEARCH", None)
        m.untagged_responses.pop("SEARCH", None)
        cmd = ("UID", "SEARCH") if uid else ("SEARCH",)
        typ, dat = m._simple_command(*cmd, *args)
        self.assertEqual(typ, "OK", (args, dat))
        tag = m.tagpre.decode() + str(m.tagnum - 1)
        self.assertNotIn("SEARCH", m.untagged_responses)  # never both kinds
        return [parse_esearch(x) for x in m.untagged_responses.pop("ESEARCH", [])], tag

    # --- every key ---

    def test_every_key_has_its_exact_result_set(self):
        m = self.imap()
        cases = [
            ("ALL", ALL),
            ("ANSWERED", [2]), ("UNANSWERED", [1, 3, 4, 5, 6]),
            ("DELETED", [3]), ("UNDELETED", [1, 2, 4, 5, 6]),
            ("DRAFT", [3]), ("UNDRAFT", [1, 2, 4, 5, 6]),
            ("FLAGGED", [2, 6]), ("UNFLAGGED", [1, 3, 4, 5]),
            ("SEEN", [1, 6]), ("UNSEEN", [2, 3, 4, 5]),
            ("KEYWORD $Work", [1]), ("KEYWORD $junk", [5]), ("UNKEYWORD $Work", [2, 3, 4, 5, 6]),
            ("KEYWORD $Nowhere", []), ("UNKEYWORD $Nowhere", ALL),
            # Only EXAMINEd, never SELECTed: every message is still unclaimed, and EXAMINE
            # shows those as recent without claiming them (RFC 3501 §6.3.2, §2.3.2).
            ("RECENT", ALL), ("NEW", [2, 3, 4, 5]), ("OLD", []),
            ("FROM smith", [1]), ("FROM example.com", [1, 4, 5, 6]), ("FROM jorg", [5]),
            ("TO bob", [1, 2, 4, 6]), ("TO team", [3]),
            ("CC carol", [1]), ("CC bob", []),
            ("BCC secret-list", [3]), ("BCC bob", []),
            ('SUBJECT "lunch PLANS"', [1]), ("SUBJECT big", [6]), ("SUBJECT moscow", [2]),
            ('SUBJECT ""', ALL),
            ('HEADER X-Spam ""', [4]), ("HEADER x-spam YES", [4]), ('HEADER X-Nowhere ""', []),
            ("HEADER Message-ID <lunch@", [1]), ("HEADER Received mx.example.net", [4]),
            ("HEADER Content-Transfer-Encoding base64", [3]),
            ("BODY noon", [1]), ("BODY attached", [4]), ("BODY secret", []), ("BODY lunch", []),
            ("TEXT lunch", [1]), ("TEXT noon", [1]), ("TEXT mx.example.net", [4]),
            ("TEXT image/png", [4]), ('BODY ""', ALL),
            ("LARGER 20000", [6]), ("SMALLER 20000", [1, 2, 3, 4, 5]), ("LARGER 0", ALL),
            ("SMALLER 1", []),
            ("BEFORE 15-Feb-2024", [1]), ("ON 15-Feb-2024", [2]), ("ON 16-Feb-2024", []),
            ("SINCE 1-Apr-2024", [4, 5, 6]), ("ON 20-Apr-2024", [5]), ("ON 19-Apr-2024", []),
            ("SENTBEFORE 15-Feb-2024", [1]), ("SENTON 15-Feb-2024", [2]),
            ("SENTON 10-Mar-2024", [3]),  # no Date header: the internal date stands in
            ("SENTSINCE 1-Apr-2024", [4, 5, 6]), ("SENTON 20-Apr-2024", [5]),
            ("SAVEDATESUPPORTED", ALL), ("SAVEDBEFORE 1-Jan-2000", []),
            ("SAVEDSINCE 1-Jan-2000", ALL),
            ("1,3", [1, 3]), ("2:*", [2, 3, 4, 5, 6]), ("*", [6]), ("5:3", [3, 4, 5]),
            ("100", []), ("UID 2:3", [2, 3]), ("UID *", [6]), ("UID 4000000000", []),
            ("MODSEQ 1", ALL),
            ("OR SEEN FLAGGED", [1, 2, 6]), ("NOT (OR SEEN FLAGGED)", [3, 4, 5]),
            ("NOT OR SEEN FLAGGED", [3, 4, 5]), ("OR SEEN FLAGGED TO bob", [1, 2, 6]),
            ("OR (SEEN TO nobody) (FROM eve UNSEEN)", [4]), ("OR OR SEEN DRAFT FROM eve", [1, 3, 4, 6]),
            ("NOT NOT SEEN", [1, 6]), ("(((SEEN)))", [1, 6]), ("SEEN UNSEEN", []),
            ("CHARSET UTF-8 SEEN", [1, 6]), ("CHARSET US-ASCII FROM alice", [1]),
        ]
        for criteria, want in cases:
            with self.subTest(criteria=criteria):
                self.assertEqual(self.search(m, criteria), want)
                # UID SEARCH gives UIDs, which here are the sequence numbers.
                self.assertEqual(self.uid_search(m, criteria), want)

    def test_charsets_with_literals(self):
        m = self.imap()
        self.assertEqual(self.search(m, "BODY", charset="ISO-8859-1", literal="déjà".encode("latin-1")), [5])
        self.assertEqual(self.search(m, "BODY", charset="ISO-8859-1", literal="CAFÉ".encode("latin-1")), [2])
        self.assertEqual(self.search(m, "SUBJECT", charset="ISO-8859-1", literal="über".encode("latin-1")), [5])
        self.assertEqual(self.search(m, "SUBJECT", charset="KOI8-R", literal="ПРИВЕТ".encode("koi8-r")), [2])
        self.assertEqual(self.search(m, "FROM", charset="KOI8-R", literal="привет".encode("koi8-r")), [2])
        self.assertEqual(self.search(m, "TEXT", charset="UTF-8", literal="привет".encode()), [2, 3])
        self.assertEqual(self.search(m, "BODY", charset="UTF-8", literal="МИР!".encode()), [3])
        self.assertEqual(self.search(m, "BODY", charset="UTF-8", literal="grüsse".encode()), [5])
        self.assertEqual(self.search(m, "FROM", literal="jörg".encode()), [5])  # no CHARSET: UTF-8
        # A literal among other keys.
        m.literal = "crème".encode()
        typ, dat = m.search("UTF-8", "FLAGGED", "BODY")
        self.assertEqual((typ, dat), ("OK", [b"2"]))

    def test_unknown_charset_is_badcharset(self):
        m = self.imap()
        typ, dat = m.search("X-MARTIAN", "TEXT", "x")
        self.assertEqual(typ, "NO")
        match = re.match(rb"\[BADCHARSET \(([^)]*)\)\]", dat[0])
        self.assertIsNotNone(match, dat)
        listed = match.group(1).split()
        self.assertEqual(listed[:2], [b"UTF-8", b"US-ASCII"])
        self.assertIn(b"ISO-8859-1", listed)

    # --- ESEARCH ---

    def test_esearch_result_options(self):
        m = self.imap()
        r, tag = self.esearch(m, "RETURN", "(MIN MAX COUNT ALL)", "FLAGGED")
        self.assertEqual(r, [{"TAG": tag, "MIN": "2", "MAX": "6", "COUNT": "2", "ALL": "2,6"}])
        r, tag = self.esearch(m, "RETURN", "()", "UNSEEN")
        self.assertEqual(r, [{"TAG": tag, "ALL": "2:5"}])
        r, tag = self.esearch(m, "RETURN", "(COUNT)", "DELETED")
        self.assertEqual(r, [{"TAG": tag, "COUNT": "1"}])
        r, tag = self.esearch(m, "RETURN", "(MIN MAX ALL COUNT)", "SUBJECT", "nothing-like-it")
        self.assertEqual(r, [{"TAG": tag, "COUNT": "0"}])  # MIN/MAX/ALL left out, COUNT not
        r, tag = self.esearch(m, "RETURN", "(MIN)", "UNSEEN")
        self.assertEqual(r, [{"TAG": tag, "MIN": "2"}])
        r, tag = self.esearch(m, "RETURN", "(MAX)", "ALL", uid=True)
        self.assertEqual(r, [{"TAG": tag, "UID": True, "MAX": "6"}])
        r, tag = self.esearch(m, "RETURN", "(ALL)", "OR", "SEEN", "DRAFT", uid=True)
        self.assertEqual(r, [{"TAG": tag, "UID": True, "ALL": "1,3,6"}])

    def test_esearch_bad_return_options(self):
        m = self.imap()
        for args in (("RETURN", "(FUZZY)", "ALL"), ("RETURN", "(MIN", "ALL"),
                     ("RETURN", "MIN", "ALL")):
            with self.subTest(args=args):
                with self.assertRaises(imaplib.IMAP4.error):
                    m._simple_command("SEARCH", *args)
        self.assertEqual(self.search(m, "SEEN"), [1, 6])  # the session goes on

    def test_imap4rev2_gets_esearch_only(self):
        m = self.imap(rev2=True)
        r, tag = self.esearch(m, "SEEN")
        self.assertEqual(r, [{"TAG": tag, "ALL": "1,6"}])
        r, tag = self.esearch(m, "SUBJECT", "nothing-like-it")
        self.assertEqual(r, [{"TAG": tag}])
        r, tag = self.esearch(m, "FLAGGED", uid=True)
        self.assertEqual(r, [{"TAG": tag, "UID": True, "ALL": "2,6"}])

    # --- MODSEQ ---

    def test_modseq(self):
        m = self.imap("save", readonly=False)
        self.assertEqual(m.store("2", "+FLAGS", r"(\Seen)")[0], "OK")
        m.untagged_responses.clear()
        typ, _ = m.select("save")  # refresh HIGHESTMODSEQ
        highest = int(m.response("HIGHESTMODSEQ")[1][0])
        self.assertEqual(m.store("4", "+FLAGS", "($Mod)")[0], "OK")
        typ, dat = m.search(None, "MODSEQ", str(highest + 1))
        self.assertEqual(typ, "OK")
        got = re.fullmatch(rb"(\d+(?: \d+)*) \(MODSEQ (\d+)\)", dat[0])
        self.assertIsNotNone(got, dat)
        self.assertEqual(got.group(1), b"4")
        self.assertGreater(int(got.group(2)), highest)
        # Nothing found: no MODSEQ appended.
        typ, dat = m.search(None, "MODSEQ", "9223372036854775807")
        self.assertEqual((typ, dat[0] or b""), ("OK", b""))
        # RFC 7162 §3.1.5's form with an entry name and type.
        typ, dat = m.search(None, "MODSEQ", '"/flags/\\\\seen"', "all", str(highest + 1))
        self.assertEqual(dat[0].split(b" (")[0], b"4")
        # ESEARCH with MODSEQ (RFC 4731 §3.2).
        r, tag = self.esearch(m, "RETURN", "(COUNT)", "MODSEQ", "1")
        self.assertEqual(r[0]["COUNT"], "5")
        self.assertGreater(int(r[0]["MODSEQ"]), highest)
        # After a SEARCH MODSEQ, CONDSTORE is on: STORE reports MODSEQ (RFC 7162 §3.1).
        typ, dat = m.store("5", "+FLAGS", "($Later)")
        self.assertIn(b"MODSEQ", dat[0])
        m.store("2", "-FLAGS", r"(\Seen)")
        m.store("4", "-FLAGS", "($Mod)")
        m.store("5", "-FLAGS", "($Later)")

    # --- SEARCHRES ---

    def test_save_and_dollar(self):
        m = self.imap("save", readonly=False)
        # SAVE alone: no ESEARCH, no SEARCH; "$" holds the result.
        r, _ = self.esearch(m, "RETURN", "(SAVE)", "OR", "SUBJECT", '"save 2"', "SUBJECT", '"save 4"')
        self.assertEqual(r, [])
        self.assertEqual(self.search(m, "$"), [2, 4])
        self.assertEqual(self.search(m, "NOT", "$"), [1, 3, 5])
        self.assertEqual(self.uid_search(m, "UID", "$"), [2, 4])
        self.assertEqual(self.search(m, "OR", "$", "1"), [1, 2, 4])
        # "$" in other commands: UID STORE, COPY, UID FETCH.
        self.assertEqual(m.uid("STORE", "$", "+FLAGS", r"(\Flagged)")[0], "OK")
        self.assertEqual(self.search(m, "FLAGGED"), [2, 4])
        self.assertEqual(m.copy("$", "target")[0], "OK")
        typ, dat = m.status("target", "(MESSAGES)")
        self.assertIn(b"MESSAGES 2", dat[0])
        typ, dat = m.uid("FETCH", "$", "(FLAGS)")
        if typ == "OK" and dat != [None]:
            uids = sorted(int(re.search(rb"UID (\d+)", x).group(1)) for x in dat if isinstance(x, bytes))
            self.assertEqual(uids, [2, 4])
        self.assertEqual(m.uid("STORE", "$", "-FLAGS", r"(\Flagged)")[0], "OK")
        # SAVE with MIN / MAX keeps only those (RFC 5182 §2.4).
        r, tag = self.esearch(m, "RETURN", "(SAVE MIN)", "ALL")
        self.assertEqual(r, [{"TAG": tag, "MIN": "1"}])
        self.assertEqual(self.search(m, "$"), [1])
        self.esearch(m, "RETURN", "(MAX SAVE MIN)", "ALL")
        self.assertEqual(self.search(m, "$"), [1, 5])
        self.esearch(m, "RETURN", "(MAX SAVE MIN COUNT)", "ALL")
        self.assertEqual(self.search(m, "$"), [1, 2, 3, 4, 5])
        # A NO of a SEARCH with SAVE empties "$"; a BAD leaves it alone.
        self.esearch(m, "RETURN", "(SAVE)", "SUBJECT", '"save 3"')
        self.assertEqual(self.search(m, "$"), [3])
        with self.assertRaises(imaplib.IMAP4.error):
            m._simple_command("SEARCH", "RETURN", "(SAVE)", "NOSUCHKEY")
        self.assertEqual(self.search(m, "$"), [3])
        typ, dat = m._simple_command("SEARCH", "RETURN", "(SAVE)", "CHARSET", "X-MARTIAN", "ALL")
        self.assertEqual(typ, "NO")
        self.assertEqual(self.search(m, "$"), [])
        # A SEARCH without SAVE leaves "$" alone.
        self.esearch(m, "RETURN", "(SAVE)", "SUBJECT", '"save 1"')
        self.search(m, "ALL")
        self.assertEqual(self.search(m, "$"), [1])
        # SELECT resets it.
        m.select("save")
        self.assertEqual(self.search(m, "$"), [])

    def test_dollar_holds_uids_whichever_search_saved_it(self):
        m = self.imap("expunge", readonly=False)
        for i in range(1, 5):
            self.assertEqual(m.append("expunge", None, None,
                                      msg(b"Subject: e%d" % i, b"", b"x"))[0], "OK")
        m.noop()
        # Expunge the first two: UIDs 3 and 4 are now messages 1 and 2.
        m.store("1:2", "+FLAGS", r"(\Deleted)")
        m.expunge()
        r, tag = self.esearch(m, "RETURN", "(SAVE ALL)", "SUBJECT", "e4", uid=True)
        self.assertEqual(r, [{"TAG": tag, "UID": True, "ALL": "4"}])
        self.assertEqual(self.search(m, "$"), [2])       # message 2 is UID 4
        self.assertEqual(self.uid_search(m, "$"), [4])
        self.esearch(m, "RETURN", "(SAVE)", "SUBJECT", "e3")  # by sequence number
        self.assertEqual(self.uid_search(m, "UID", "$"), [3])
        self.assertEqual(self.search(m, "$"), [1])

    # --- \Recent ---

    def test_recent_new_old(self):
        a = self.connect()
        self.addCleanup(logout_quietly, a)
        for i in range(1, 4):
            flags = r"(\Seen)" if i == 2 else None
            self.assertEqual(a.append("recent", flags, None, msg(b"Subject: r%d" % i, b"", b"x"))[0], "OK")
        a.select("recent")  # takes \Recent for all three
        self.assertEqual(self.search(a, "RECENT"), [1, 2, 3])
        self.assertEqual(self.search(a, "NEW"), [1, 3])
        self.assertEqual(self.search(a, "OLD"), [])
        b = self.imap("recent", readonly=False)
        self.assertEqual(self.search(b, "RECENT"), [])
        self.assertEqual(self.search(b, "OLD"), [1, 2, 3])

    # --- expunges during SEARCH ---

    def test_expunges_are_held_back_during_search_by_sequence_number(self):
        a = self.connect()
        self.addCleanup(logout_quietly, a)
        a.create("held")
        for i in range(1, 4):
            a.append("held", None, None, msg(b"Subject: h%d" % i, b"", b"x"))
        a.select("held")
        b = self.imap("held", readonly=False)
        b.store("1", "+FLAGS", r"(\Deleted)")
        b.expunge()
        a.untagged_responses.clear()
        self.assertEqual(self.search(a, "ALL"), [1, 2, 3])
        self.assertNotIn("EXPUNGE", a.untagged_responses)
        self.uid_search(a, "ALL")
        self.assertEqual(a.untagged_responses.get("EXPUNGE"), [b"1"])
        self.assertEqual(self.search(a, "ALL"), [1, 2])

    # --- bad and hostile input ---

    def test_bad_input(self):
        m = self.imap()
        bad = [
            ("FOO",), ("FROM",), ("BEFORE", "32-Jan-2024"), ("ON", "29-Feb-2023"),
            ("LARGER", "-1"), ("LARGER", "99999999999999999999"), ("0",), ("UID", "0"),
            ("(SEEN",), ("SEEN)",), ("()",), ("OR", "SEEN"), ("NOT",), ("KEYWORD", r"\Seen"),
            ("MODSEQ", '"/nope"', "all", "1"), ("EMAILID", "bad!id"),
            ("(" * 65 + "ALL" + ")" * 65,), ("NOT " * 100 + "SEEN",),
        ]
        for criteria in bad:
            with self.subTest(criteria=criteria[0][:20]):
                with self.assertRaises(imaplib.IMAP4.error):
                    m.search(None, *criteria)
                self.assertEqual(self.search(m, "SEEN"), [1, 6])
        self.assertEqual(self.search(m, "(" * 63 + "SEEN" + ")" * 63), [1, 6])
        with self.assertRaises(imaplib.IMAP4.error) as e:
            m.search(None, " ".join(["ALL"] * 10000))
        self.assertIn("TOOBIG", str(e.exception))
        self.assertEqual(self.search(m, " ".join(["SEEN"] * 9999)), [1, 6])
        # SEARCH needs a selected mailbox.
        n = self.imap(mailbox=None)
        with self.assertRaises(imaplib.IMAP4.error):
            n._simple_command("SEARCH", "ALL")


if __name__ == "__main__":
    unittest.main()
