"""SEARCH with the search index (issue 19, docs/formats/search-index.md) end to end: imaplib
against the real dariusd.

A few hundred messages are APPENDed; SEARCH TEXT and BODY give exactly the sets computed here
from what was sent; a darius.search file appears in the mailbox directory; when it is
corrupted while dariusd runs (bytes flipped, then cut to 10 bytes) SEARCH still answers exactly
and the background indexer makes the file valid again; a 1 MB search string gets a clean answer
and the connection survives; BODY of an HTML message finds its text, not its tag names; UID
SEARCH CHARSET UTF-8 folds case (STRASSE finds straße)."""
import imaplib
import os
import random
import struct
import sys
import time
import unittest
import zlib

from darius_harness import Instance, logout_quietly

CRLF = b"\r\n"
WORDS = ["apple", "banana", "cherry", "damson", "elder", "figgy", "grape", "hazel", "indigo",
         "juniper", "kumquat", "lemon"]
COUNT = 300
SEED = 1919


def make_messages():
    rng = random.Random(SEED)
    out = []  # (raw bytes, header text, body text) with the texts as SEARCH sees them
    for i in range(COUNT):
        words = [rng.choice(WORDS) for _ in range(rng.randint(3, 30))]
        body = " ".join(words) + " tok%dz" % i
        subject = "note %d" % i
        head = "From: user%d@example.com\r\nTo: team@example.org\r\nSubject: %s\r\n" % (
            i, subject)
        if i % 10 == 0:
            raw = (head + "MIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"
                   "<html><body><blockquote class=\"quux\">%s</blockquote>"
                   "<table><tr><td>cell%d</td></tr></table></body></html>\r\n" % (body, i))
            text = body + " cell%d" % i
        else:
            raw = head + "\r\n" + body + "\r\n"
            text = body
        out.append((raw.encode(), head.lower(), text.lower()))
    straße = ("From: hans@example.de\r\nSubject: =?UTF-8?Q?Stra=C3=9Fenbahn?=\r\n"
              "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n"
              "Content-Transfer-Encoding: 8bit\r\n\r\nDie Hauptstraße ist lang.\r\n")
    out.append((straße.encode(), "from: hans@example.de\r\nsubject: straßenbahn\r\n",
                "die hauptstraße ist lang."))
    return out


def read(path):
    with open(path, "rb") as f:
        return f.read()


def valid_index(data):
    """The framing docs/formats/search-index.md gives: header CRC, then segments back to back
    with their magics and sizes, up to the end of the file."""
    if len(data) < 32 or data[:8] != b"DSRCHIDX":
        return False
    if zlib.crc32(data[:28]) != struct.unpack_from("<I", data, 28)[0]:
        return False
    at = 32
    segments = 0
    while at < len(data):
        if data[at:at + 4] != b"DSEG" or at + 32 > len(data):
            return False
        size = struct.unpack_from("<Q", data, at + 24)[0]
        if size < 40 or at + size > len(data) or data[at + size - 4:at + size] != b"DEND":
            return False
        at += size
        segments += 1
    return segments > 0


class SearchIndexTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.inst = Instance(user="alice:alice-secret", options={"search_index_delay": "1s"})
        cls.inst.start()
        cls.messages = make_messages()
        m = cls.connect()
        try:
            assert m.create("idx")[0] == "OK"
            for raw, _, _ in cls.messages:
                typ, dat = m.append("idx", None, None, raw)
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
        m = imaplib.IMAP4("127.0.0.1", cls.inst.port("imap"))
        m.login("alice", "alice-secret")
        return m

    def imap(self):
        m = self.connect()
        self.addCleanup(logout_quietly, m)
        typ, dat = m.select("idx")
        self.assertEqual(typ, "OK", dat)
        return m

    def index_path(self):
        for root, _, files in os.walk(self.inst.dir):
            if "darius.search" in files and "darius.index" in files:
                return os.path.join(root, "darius.search")
        return None

    def wait_for(self, pred, what, timeout=20):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if pred():
                return
            time.sleep(0.1)
        self.fail(what + "\n" + self.inst.log()[-3000:])

    def search(self, m, key, needle):
        typ, dat = m.uid("SEARCH", key, '"%s"' % needle)
        self.assertEqual(typ, "OK", (key, needle, dat))
        return sorted(int(x) for x in (dat[0] or b"").split())

    def expected(self, key, needle):
        n = needle.lower()
        return sorted(uid for uid, (_, head, text) in enumerate(self.messages, 1)
                      if n in text or (key == "TEXT" and n in head))

    def check_all(self, m, rng, count):
        for _ in range(count):
            i = rng.randrange(COUNT)
            needle = rng.choice([rng.choice(WORDS), rng.choice(WORDS).upper()[:4],
                                 "tok%dz" % i, "TOK%d" % i, "note %d" % i, "cell%d" % i,
                                 "user%d@" % i, "grape tok", "zzzq%d" % i, "an"])
            for key in ("TEXT", "BODY"):
                self.assertEqual(self.search(m, key, needle), self.expected(key, needle),
                                 (SEED, key, needle))

    def test_1_exact_answers_and_the_file_appears(self):
        m = self.imap()
        self.check_all(m, random.Random(SEED), 60)
        self.wait_for(lambda: self.index_path() is not None, "no darius.search appeared")
        self.wait_for(lambda: valid_index(read(self.index_path())),
                      "darius.search is not valid")
        self.check_all(m, random.Random(SEED + 1), 60)

    def test_2_corrupted_index_still_exact_then_rebuilt(self):
        m = self.imap()
        self.search(m, "TEXT", "apple")
        self.wait_for(lambda: self.index_path() is not None, "no darius.search appeared")
        path = self.index_path()
        self.wait_for(lambda: valid_index(read(path)), "darius.search not valid")
        data = bytearray(read(path))
        # Flip bytes in the middle, and in the first segment's document table (which its CRC
        # covers), so that the damage is certain to be found.
        mid = len(data) // 2
        for k in list(range(mid, mid + 32)) + list(range(70, 78)):
            data[k] ^= 0xA5
        with open(path, "r+b") as f:
            f.write(data)
        corrupted = bytes(data)
        self.check_all(m, random.Random(SEED + 2), 40)
        self.wait_for(lambda: read(path) != corrupted
                      and valid_index(read(path)),
                      "darius.search was not rebuilt after bytes were flipped")
        self.check_all(m, random.Random(SEED + 3), 20)
        # Cut to 10 bytes: not even a header.
        with open(path, "r+b") as f:
            f.truncate(10)
        self.check_all(m, random.Random(SEED + 4), 40)
        self.wait_for(lambda: valid_index(read(path)),
                      "darius.search was not rebuilt after it was cut to 10 bytes")
        self.check_all(m, random.Random(SEED + 5), 20)

    def test_3_megabyte_needle_gets_a_clean_answer(self):
        m = self.imap()
        m.literal = b"x" * (1 << 20)
        try:
            typ, dat = m.uid("SEARCH", "CHARSET", "UTF-8", "TEXT")
        except imaplib.IMAP4.error as e:  # a tagged NO or BAD
            typ, dat = "NO/BAD", [str(e).encode()]
        # dariusd answers OK with no hits (the literal is under max_literal_size); a tagged NO
        # or BAD would do too, but never a dropped connection.
        self.assertIn(typ, ("OK", "NO/BAD"), dat)
        if typ == "OK":
            self.assertFalse((dat[0] or b"").strip(), dat)
        print("1 MB needle:", typ, (dat[0] or b"")[:80], file=sys.stderr)
        self.assertEqual(m.noop()[0], "OK")
        self.assertEqual(self.search(m, "BODY", "tok7z"), [8])

    def test_4_html_text_not_tags(self):
        m = self.imap()
        html = [uid for uid in range(1, COUNT + 1) if (uid - 1) % 10 == 0]
        self.assertEqual(self.search(m, "BODY", "cell10"), [11, 101])  # and cell100
        self.assertEqual(self.search(m, "BODY", "blockquote"), [])
        self.assertEqual(self.search(m, "BODY", "quux"), [])
        self.assertEqual(self.search(m, "TEXT", "table"), [])
        self.assertEqual(self.search(m, "BODY", "tok20z"), [21])
        self.assertTrue(set(self.search(m, "BODY", "cell")) == set(html))

    def test_5_utf8_and_case_folding(self):
        m = self.imap()
        uid = len(self.messages)
        for needle in ("STRASSE", "hauptstrasse", "STRASSENBAHN"):
            typ, dat = m.uid("SEARCH", "CHARSET", "UTF-8", "TEXT", needle)
            self.assertEqual(typ, "OK", dat)
            self.assertEqual(dat[0].split(), [str(uid).encode()], needle)
        m.literal = "straße".encode()
        typ, dat = m.uid("SEARCH", "CHARSET", "UTF-8", "BODY")
        self.assertEqual((typ, dat[0].split()), ("OK", [str(uid).encode()]))
        m.literal = "STRAẞENBAHN".encode()  # capital sharp s
        typ, dat = m.uid("SEARCH", "CHARSET", "UTF-8", "TEXT")
        self.assertEqual((typ, dat[0].split()), ("OK", [str(uid).encode()]))
        m.literal = "straßenbahn".encode()
        typ, dat = m.uid("SEARCH", "CHARSET", "UTF-8", "BODY")
        self.assertEqual((typ, dat[0].split()), ("OK", []))  # the Subject is not BODY


if __name__ == "__main__":
    unittest.main()
