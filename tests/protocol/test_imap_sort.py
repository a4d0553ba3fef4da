"""SORT, UID SORT (RFC 5256), ESORT (RFC 5267 §3) and SORT=DISPLAY (RFC 5957) end to end with
Python's imaplib against the real dariusd.

Five messages are APPENDed to a mailbox whose first UID was expunged (so UIDs are sequence
numbers plus one), with subjects that exercise base subject extraction (Re:, Fwd:, blobs,
"(fwd)", "[fwd: ...]", RFC 2047 words, none), Date headers in several zones, missing and
broken (the internal date stands in), From/To/Cc with display names, encoded names, empty
names, a group and missing fields, and different sizes. Every key is checked for its exact
order, then REVERSE (which leaves the sequence-number tie-break alone), several keys, UID SORT,
ESORT's MIN/MAX/COUNT/ALL in sort order (ALL never with a descending range), SAVE and "$",
SORT with a search program, and bad input: unknown keys, missing parentheses, no criteria, a
missing or unknown charset (NO [BADCHARSET]), bad RETURN options, a 1 MB search string.
(CONTEXT=SORT and ESORT's PARTIAL: test_imap_context_sort.py.)
Last, SORT and UID SORT while another session's expunge is pending (RFC 5256 §3: EXPUNGE is
held back during SORT, not during UID SORT), and repeated SORTs of a folder that changes (the
sort key cache). Everything runs twice: with the cache (the default) and without it."""
import imaplib
import re
import unittest

from darius_harness import Instance, logout_quietly

CRLF = b"\r\n"


def msg(*lines):
    return CRLF.join(lines) + CRLF


def body(n):
    return [b"y" * 70] * n


# (INTERNALDATE, message); sequence numbers 1..5 in this order, UIDs 2..6.
MESSAGES = [
    ('"05-Jan-2024 10:00:00 +0000"', msg(
        b"Date: Mon, 1 Jan 2024 12:00:00 +0000",
        b"Subject: Re: Lunch plans",
        b"From: Zed Zebra <alice@example.com>",
        b"To: bob@example.com",
        b"Cc: Carol <carol@example.com>",
        b"",
        *body(20))),
    ('"03-Jan-2024 10:00:00 +0000"', msg(
        # 13:00 at +0200 is 11:00 UTC: before message 1 although later on the clock face.
        b"Date: Mon, 1 Jan 2024 13:00:00 +0200",
        b"Subject: =?UTF-8?B?w4lsw6luYQ==?=",
        b"From: =?ISO-8859-1?Q?=C9mile?= <emile@example.org>",
        b"To: Undisclosed recipients:;",
        b"",
        *body(2))),
    ('"02-Jan-2024 00:00:00 +0000"', msg(
        # No Date: the internal date, 2 Jan 00:00 UTC.
        b"Subject: [fwd: lunch PLANS]",
        b"From: bob@example.net",
        b'To: "Anna" <zoe@example.com>',
        b"Cc: dave@example.com",
        b"",
        *body(50))),
    ('"04-Jan-2024 10:00:00 +0100"', msg(
        # A broken Date: the internal date, 4 Jan 09:00 UTC.
        b"Date: the day after tomorrow",
        b"Subject: Fwd: [list] apples (fwd)",
        b"To: yann@example.com",
        b"Cc: Bea <bea@example.com>",
        b"",
        *body(10))),
    ('"01-Jan-2024 00:00:00 +0000"', msg(
        # 23:00 at -0500 is 04:00 UTC the next day.
        b"Date: Sun, 31 Dec 2023 23:00:00 -0500",
        b'From: "" <mallory@example.com>',
        b"To: Xavier <a@example.com>",
        b"",
        *body(35))),
]
SIZES = [len(m) for _, m in MESSAGES]
BY_SIZE = [i + 1 for i in sorted(range(5), key=lambda i: SIZES[i])]

EXPECTED = {
    "ARRIVAL": [5, 3, 2, 4, 1],
    "DATE": [5, 2, 1, 3, 4],
    # "" < "apples" < "lunch plans" (1, 3: sequence order) < "éléna" (U+00E9 after ASCII).
    "SUBJECT": [5, 4, 1, 3, 2],
    # addr-mailbox: "" (no From) < alice < bob < emile < mallory.
    "FROM": [4, 1, 3, 2, 5],
    # a < bob < "undisclosed recipients" (the group's name) < yann < zoe.
    "TO": [5, 1, 2, 4, 3],
    # "" (2, 5) < bea < carol < dave.
    "CC": [2, 5, 4, 1, 3],
    "SIZE": BY_SIZE,
    # "" < bob@example.net < mallory@example.com (empty name) < zed zebra < émile.
    "DISPLAYFROM": [4, 3, 5, 1, 2],
    # anna < bob@example.com < undisclosed recipients < xavier < yann@example.com.
    "DISPLAYTO": [3, 1, 2, 5, 4],
}


def parse_esearch(line):
    """b'(TAG "a1") UID MIN 2 ALL 3,1' -> {'TAG': 'a1', 'UID': True, 'MIN': '2', 'ALL': '3,1'}"""
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


def expand_ordered(seqset):
    """A sequence-set in its written order; a range must ascend (RFC 5267 §3.2)."""
    out = []
    for part in seqset.split(","):
        a, _, b = part.partition(":")
        lo, hi = int(a), int(b or a)
        assert lo <= hi, "descending range %s" % part
        out.extend(range(lo, hi + 1))
    return out


class SortTest(unittest.TestCase):
    options = {}  # the default config: sort_key_cache on, so repeated SORTs use it

    @classmethod
    def setUpClass(cls):
        cls.inst = Instance(user="alice:alice-secret", options=cls.options)
        cls.inst.start()
        m = cls.connect()
        try:
            typ, _ = m.create("sort")
            assert typ == "OK"
            # UID 1 comes and goes, so that UIDs differ from sequence numbers.
            typ, dat = m.append("sort", r"(\Deleted)", None, msg(b"Subject: gone", b"", b"x"))
            assert typ == "OK", dat
            m.select("sort")
            m.expunge()
            for date, message in MESSAGES:
                typ, dat = m.append("sort", None, date, message)
                assert typ == "OK", dat
            m.store("2,4", "+FLAGS", r"(\Seen)")
            m.logout()
        except Exception:
            cls.inst.close()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.inst.close()

    @classmethod
    def connect(cls):
        m = imaplib.IMAP4("127.0.0.1", cls.inst.port("imap"), timeout=60)
        m.login("alice", "alice-secret")
        return m

    def imap(self, mailbox="sort", readonly=True):
        m = self.connect()
        self.addCleanup(logout_quietly, m)
        if mailbox:
            typ, dat = m.select(mailbox, readonly=readonly)
            self.assertEqual(typ, "OK", dat)
        return m

    def sort(self, m, criteria, *search, charset="UTF-8"):
        typ, dat = m.sort(criteria, charset, *(search or ("ALL",)))
        self.assertEqual(typ, "OK", (criteria, dat))
        return [int(x) for x in (dat[0] or b"").split()]

    def uid_sort(self, m, criteria, *search, charset="UTF-8"):
        typ, dat = m.uid("SORT", "(%s)" % criteria, charset, *(search or ("ALL",)))
        self.assertEqual(typ, "OK", (criteria, dat))
        return [int(x) for x in (dat[0] or b"").split()]

    def esort(self, m, *args, uid=False):
        """Sends [UID] SORT args; returns the parsed ESEARCH responses and the command's tag."""
        m.untagged_responses.pop("ESEARCH", None)
        m.untagged_responses.pop("SORT", None)
        cmd = ("UID", "SORT") if uid else ("SORT",)
        typ, dat = m._simple_command(*cmd, *args)
        self.assertEqual(typ, "OK", (args, dat))
        tag = m.tagpre.decode() + str(m.tagnum - 1)
        self.assertNotIn("SORT", m.untagged_responses)  # never both kinds
        return [parse_esearch(x) for x in m.untagged_responses.pop("ESEARCH", [])], tag

    def test_capabilities(self):
        m = self.imap(mailbox=None)
        typ, dat = m.capability()
        caps = dat[0].split()
        for cap in (b"SORT", b"SORT=DISPLAY", b"ESORT"):
            self.assertIn(cap, caps)

    def test_every_key(self):
        m = self.imap()
        for key, want in EXPECTED.items():
            with self.subTest(key=key):
                self.assertEqual(self.sort(m, key), want)
                self.assertEqual(self.sort(m, key.lower(), charset="US-ASCII"), want)
                self.assertEqual(self.uid_sort(m, key), [n + 1 for n in want])

    def test_reverse_keeps_the_sequence_tie_break(self):
        m = self.imap()
        for key, want in EXPECTED.items():
            if key == "SUBJECT":
                continue
            with self.subTest(key=key):
                # Every other key has no ties among these messages except CC's and DISPLAY's
                # empty strings, which stay in sequence order.
                got = self.sort(m, "REVERSE " + key)
                if key == "CC":
                    self.assertEqual(got, [3, 1, 4, 2, 5])
                else:
                    self.assertEqual(got, list(reversed(want)))
        # Messages 1 and 3 share a base subject: REVERSE SUBJECT keeps them 1, 3 (RFC 5256 §3:
        # REVERSE does not affect the implicit sequence number key).
        self.assertEqual(self.sort(m, "REVERSE SUBJECT"), [2, 1, 3, 4, 5])

    def test_several_keys(self):
        m = self.imap()
        self.assertEqual(self.sort(m, "SUBJECT REVERSE DATE"), [5, 4, 3, 1, 2])
        self.assertEqual(self.sort(m, "SUBJECT ARRIVAL"), [5, 4, 3, 1, 2])
        self.assertEqual(self.sort(m, "SUBJECT DATE"), [5, 4, 1, 3, 2])
        self.assertEqual(self.sort(m, "CC REVERSE SIZE"),
                         sorted([2, 5], key=lambda n: -SIZES[n - 1]) + [4, 1, 3])
        self.assertEqual(self.sort(m, "ARRIVAL ARRIVAL DATE"), EXPECTED["ARRIVAL"])

    def test_sort_with_a_search_program(self):
        m = self.imap()
        self.assertEqual(self.sort(m, "DATE", "UNSEEN"), [5, 1, 3])
        self.assertEqual(self.sort(m, "REVERSE ARRIVAL", "SEEN"), [4, 2])
        self.assertEqual(self.sort(m, "SUBJECT", "SUBJECT", "lunch"), [1, 3])
        self.assertEqual(self.sort(m, "SUBJECT", "SUBJECT", "nothing-like-it"), [])
        self.assertEqual(self.sort(m, "DATE", "2:4"), [2, 3, 4])
        self.assertEqual(self.uid_sort(m, "DATE", "UID", "2:4"), [3, 2, 4])
        # A search string in another charset, as a literal.
        m.literal = "émile".encode("latin-1")
        typ, dat = m.sort("(DATE)", "ISO-8859-1", "FROM")
        self.assertEqual((typ, dat), ("OK", [b"2"]))

    def test_esort(self):
        m = self.imap()
        r, tag = self.esort(m, "RETURN", "(MIN MAX COUNT ALL)", "(DATE)", "UTF-8", "ALL")
        # DATE order is 5 2 1 3 4: MIN and MAX are the first and last in that order, ALL keeps
        # it and writes only the ascending run 3:4 as a range.
        self.assertEqual(r, [{"TAG": tag, "MIN": "5", "MAX": "4", "COUNT": "5",
                              "ALL": "5,2,1,3:4"}])
        r, tag = self.esort(m, "RETURN", "(ALL)", "(DATE)", "UTF-8", "ALL", uid=True)
        self.assertEqual(r, [{"TAG": tag, "UID": True, "ALL": "6,3,2,4:5"}])
        self.assertEqual(expand_ordered(r[0]["ALL"]), [n + 1 for n in EXPECTED["DATE"]])
        r, tag = self.esort(m, "RETURN", "()", "(REVERSE SUBJECT)", "UTF-8", "ALL")
        self.assertEqual(r, [{"TAG": tag, "ALL": "2,1,3:5"}])
        r, tag = self.esort(m, "RETURN", "(COUNT)", "(DATE)", "UTF-8", "SEEN")
        self.assertEqual(r, [{"TAG": tag, "COUNT": "2"}])
        r, tag = self.esort(m, "RETURN", "(MIN MAX ALL COUNT)", "(DATE)", "UTF-8", "SUBJECT",
                            "nothing-like-it")
        self.assertEqual(r, [{"TAG": tag, "COUNT": "0"}])
        for key, want in EXPECTED.items():
            with self.subTest(key=key):
                r, tag = self.esort(m, "RETURN", "(MIN MAX ALL)", "(%s)" % key, "UTF-8", "ALL",
                                    uid=True)
                self.assertEqual(r[0]["MIN"], str(want[0] + 1))
                self.assertEqual(r[0]["MAX"], str(want[-1] + 1))
                self.assertEqual(expand_ordered(r[0]["ALL"]), [n + 1 for n in want])

    def test_save_and_dollar(self):
        m = self.imap()
        # SAVE with MIN: "$" is the first message in sort order.
        r, tag = self.esort(m, "RETURN", "(SAVE MIN)", "(DATE)", "UTF-8", "ALL")
        self.assertEqual(r, [{"TAG": tag, "MIN": "5"}])
        typ, dat = m.search(None, "$")
        self.assertEqual((typ, dat), ("OK", [b"5"]))
        # SAVE alone: no ESEARCH, and "$" is every match.
        r, tag = self.esort(m, "RETURN", "(SAVE)", "(SUBJECT)", "UTF-8", "UNSEEN")
        self.assertEqual(r, [])
        typ, dat = m.search(None, "$")
        self.assertEqual((typ, dat), ("OK", [b"1 3 5"]))
        self.assertEqual(self.sort(m, "REVERSE DATE", "$"), [3, 1, 5])
        # A NO of a SORT with SAVE empties "$" (RFC 9051 §6.4.4.1).
        typ, _ = m._simple_command("SORT", "RETURN", "(SAVE)", "(DATE)", "X-MARTIAN", "ALL")
        self.assertEqual(typ, "NO")
        typ, dat = m.search(None, "$")
        self.assertEqual((typ, dat), ("OK", [b""]))  # "* SEARCH": "$" is empty

    def test_modseq_and_imap4rev2(self):
        m = self.imap()
        # RFC 7162 §3.1.6: a MODSEQ search key adds the highest mod-sequence to SORT.
        typ, dat = m.sort("(DATE)", "UTF-8", "MODSEQ", "1")
        self.assertEqual(typ, "OK")
        match = re.fullmatch(rb"5 2 1 3 4 \(MODSEQ (\d+)\)", dat[0])
        self.assertIsNotNone(match, dat)
        r, tag = self.esort(m, "RETURN", "(MIN)", "(DATE)", "UTF-8", "MODSEQ", "1")
        self.assertEqual(r[0]["MIN"], "5")
        self.assertIn("MODSEQ", r[0])
        # After ENABLE IMAP4rev2 a SORT without RETURN still answers SORT (RFC 5267 §3).
        n = self.connect()
        self.addCleanup(logout_quietly, n)
        self.assertEqual(n.enable("IMAP4rev2")[0], "OK")
        n.select("sort", readonly=True)
        self.assertEqual(self.sort(n, "DATE"), EXPECTED["DATE"])
        r, tag = self.esort(n, "RETURN", "(COUNT)", "(DATE)", "UTF-8", "ALL")
        self.assertEqual(r, [{"TAG": tag, "COUNT": "5"}])

    def test_unknown_charset_is_badcharset(self):
        m = self.imap()
        typ, dat = m.sort("(DATE)", "X-MARTIAN", "ALL")
        self.assertEqual(typ, "NO")
        match = re.match(rb"\[BADCHARSET \(([^)]*)\)\]", dat[0])
        self.assertIsNotNone(match, dat)
        self.assertEqual(match.group(1).split()[:2], [b"UTF-8", b"US-ASCII"])
        self.assertEqual(self.sort(m, "DATE"), EXPECTED["DATE"])

    def test_bad_input(self):
        m = self.imap()
        bad = [
            ("(BOGUS)", "UTF-8", "ALL"),
            ("DATE", "UTF-8", "ALL"),        # no parentheses
            ("(DATE", "UTF-8", "ALL"),
            ("()", "UTF-8", "ALL"),          # no criteria
            ("(REVERSE)", "UTF-8", "ALL"),
            ("(DATE REVERSE)", "UTF-8", "ALL"),
            ("(DATE)", "ALL"),               # no charset: ALL is taken for it, no key follows
            ("(DATE)",),
            ("(DATE)", "UTF-8"),
            ("(DATE)", "UTF-8", "BOGUS"),
            ("(DATE)", "UTF-8", "CHARSET", "UTF-8", "ALL"),
            ("RETURN", "(PARTIAL 1:10 ALL)", "(DATE)", "UTF-8", "ALL"),
            ("RETURN", "(PARTIAL 0:10)", "(DATE)", "UTF-8", "ALL"),
            ("RETURN", "(BOGUS)", "(DATE)", "UTF-8", "ALL"),
            ("RETURN", "(MIN", "(DATE)", "UTF-8", "ALL"),
            (),
        ]
        for args in bad:
            with self.subTest(args=args):
                with self.assertRaises(imaplib.IMAP4.error) as e:
                    m._simple_command("SORT", *args)
                self.assertIn("BAD", str(e.exception))
                self.assertEqual(self.sort(m, "DATE"), EXPECTED["DATE"])  # the session goes on
        with self.assertRaises(imaplib.IMAP4.error):
            m._simple_command("UID", "SORT", "(BOGUS)", "UTF-8", "ALL")
        # SORT needs a selected mailbox.
        n = self.imap(mailbox=None)
        with self.assertRaises(imaplib.IMAP4.error):
            n._simple_command("SORT", "(DATE)", "UTF-8", "ALL")

    def test_huge_search_string(self):
        m = self.imap()
        m.literal = b"x" * (1 << 20)
        typ, dat = m._simple_command("SORT", "(SUBJECT)", "UTF-8", "SUBJECT")
        self.assertEqual(typ, "OK", dat)
        self.assertEqual(m.untagged_responses.pop("SORT", None), [b""])  # "* SORT": no match
        self.assertEqual(self.sort(m, "DATE"), EXPECTED["DATE"])

    def test_expunges_are_held_back_during_sort_not_uid_sort(self):
        a = self.connect()
        self.addCleanup(logout_quietly, a)
        a.create("held")
        for subject in (b"c", b"a", b"b"):
            a.append("held", None, None, msg(b"Subject: " + subject, b"", b"x"))
        a.select("held")
        b = self.imap("held", readonly=False)
        b.store("2", "+FLAGS", r"(\Deleted)")
        b.expunge()
        a.untagged_responses.clear()
        # The expunged message 2 is still in a's view: SORT sees it and sends no EXPUNGE.
        self.assertEqual(self.sort(a, "SUBJECT"), [2, 3, 1])
        self.assertNotIn("EXPUNGE", a.untagged_responses)
        # UID SORT runs over the same view (UID 2 may be in it or not), then EXPUNGE follows.
        self.assertIn(self.uid_sort(a, "SUBJECT"), ([2, 3, 1], [3, 1]))
        self.assertEqual(a.untagged_responses.get("EXPUNGE"), [b"2"])
        self.assertEqual(self.sort(a, "SUBJECT"), [2, 1])

    def test_remembered_keys_follow_appends_expunges_and_new_keys(self):
        # The second and later SORTs of a folder take their keys from the sort key cache:
        # new messages are read and added, expunged ones leave, a key not sorted by before
        # is read then.
        a = self.connect()
        self.addCleanup(logout_quietly, a)
        a.create("again")
        for subject, sender in ((b"c", b"z@x"), (b"a", b"y@x"), (b"b", b"x@x")):
            a.append("again", None, None, msg(b"Subject: " + subject, b"From: " + sender, b"", b"x"))
        a.select("again")
        self.assertEqual(self.sort(a, "SUBJECT"), [2, 3, 1])
        self.assertEqual(self.sort(a, "SUBJECT"), [2, 3, 1])
        a.append("again", None, None, msg(b"Subject: aa", b"From: a@x", b"", b"x"))
        self.assertEqual(self.sort(a, "SUBJECT"), [2, 4, 3, 1])
        self.assertEqual(self.sort(a, "FROM"), [4, 3, 2, 1])
        a.store("2", "+FLAGS", r"(\Deleted)")
        a.expunge()
        self.assertEqual(self.sort(a, "SUBJECT"), [3, 2, 1])
        self.assertEqual(self.sort(a, "REVERSE FROM"), [1, 2, 3])
        self.assertEqual(self.uid_sort(a, "SUBJECT"), [4, 3, 1])


class SortWithoutKeyCacheTest(SortTest):
    """The same with `sort_key_cache: 0`: every SORT reads its keys."""
    options = {"sort_key_cache": "0"}


if __name__ == "__main__":
    unittest.main()
