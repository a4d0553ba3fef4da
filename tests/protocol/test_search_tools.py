"""`darius search index` and `darius search check` (issue 19) against a real dariusd.

dariusd runs with SEARCH using the index but never building it (`search_index_catch_up: 0`, and
`search_index_delay: 1h` keeps the background indexer off for the test's length; with
`search_index: no` SEARCH would not read the index at all): ~200 messages are APPENDed over
IMAP into INBOX and a second folder, SEARCH answers are recorded before any index exists (a
full scan), then `darius search index --all` builds the indexes beside the running server
(its summary line is parsed, the files must exist), `darius search check --all` agrees (exit
0), a byte-flipped darius.search makes check exit 1 naming the mailbox, and `search index
--all` repairs it. Every SEARCH answer stays what it was before indexing throughout."""
import glob
import imaplib
import os
import re
import unittest

from darius_harness import Instance, darius, logout_quietly

CRLF = b"\r\n"
WORDS = ["apple", "banana", "cherry", "delta", "echo", "foxtrot", "golf", "hotel"]
SUMMARY = re.compile(r"^indexed (\d+) messages \((\d+\.\d) MB\) in (\d+\.\d\d) s: (\d+) msg/s; "
                     r"index (\d+\.\d) MB$")
QUERIES = [
    b"TEXT apple", b"BODY banana", b"SUBJECT cherry", b"TEXT zzzz-none", b"BODY \"echo golf\"",
    b"TEXT hotel NOT BODY delta", b"OR BODY foxtrot TEXT number-17", b"TEXT ec",
    b"HEADER X-Tag tag-3", b"BODY caf\xc3\xa9",
]


def message(i):
    a, b = WORDS[i % len(WORDS)], WORDS[(i * 3 + 1) % len(WORDS)]
    body = f"Body of {a} and {b}, number-{i}.".encode()
    if i % 10 == 0:
        body += " un caf\xe9 cr\xe8me".encode("utf-8")
    return CRLF.join([
        b"From: sender%d@example.com" % i,
        b"To: alice@example.com",
        f"Subject: {WORDS[(i * 5) % len(WORDS)]} note {i}".encode(),
        b"X-Tag: tag-%d" % (i % 7),
        b"Content-Type: text/plain; charset=utf-8",
        b"",
        body,
    ]) + CRLF


class SearchToolsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.inst = Instance(options={"search_index": "yes", "search_index_catch_up": "0",
                                     "search_index_delay": "1h"}).start()
        m = cls.connect()
        m.create("Archive")
        for i in range(200):
            box = "INBOX" if i % 4 else "Archive"
            typ, _ = m.append(box, None, None, message(i))
            assert typ == "OK"
        logout_quietly(m)
        cls.before = cls.answers()

    @classmethod
    def tearDownClass(cls):
        cls.inst.stop()
        cls.inst.close()

    @classmethod
    def connect(cls):
        m = imaplib.IMAP4("127.0.0.1", cls.inst.port("imap"))
        m.login("alice", "alice-secret")
        return m

    @classmethod
    def answers(cls):
        m = cls.connect()
        out = {}
        try:
            for box in ("INBOX", "Archive"):
                m.select(box, readonly=True)
                for q in QUERIES:
                    if q.isascii():
                        typ, data = m.uid("SEARCH", "CHARSET", "UTF-8", q)
                    else:  # the 8-bit needle goes as a literal (RFC 9051 §4.3)
                        key, needle = q.split(b" ", 1)
                        m.literal = needle
                        typ, data = m.uid("SEARCH", "CHARSET", "UTF-8", key)
                    assert typ == "OK", (box, q, data)
                    out[(box, q)] = sorted(int(x) for x in data[0].split())
        finally:
            logout_quietly(m)
        return out

    def search(self, *args):
        return darius("-C", self.inst.conf, "search", *args, check=False)

    def index_files(self):
        return sorted(glob.glob(os.path.join(self.inst.dir, "data", "**", "darius.search"),
                                recursive=True))

    def test_index_check_damage_repair(self):
        self.assertEqual(self.index_files(), [])  # nothing indexed in the background
        self.assertTrue(any(self.before.values()))
        # The queries really narrow something: at least one answer is neither empty nor all.
        apple = [i for i in range(200) if i % 4 and b"apple" in message(i).lower()]
        self.assertEqual(len(self.before[("INBOX", b"TEXT apple")]), len(apple))
        self.assertLess(len(apple), 150)

        r = self.search("index", "--all")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(len(lines), 1, r.stdout)
        match = SUMMARY.match(lines[0])
        self.assertIsNotNone(match, lines[0])
        self.assertEqual(int(match.group(1)), 200)
        files = self.index_files()
        self.assertEqual(len(files), 2, files)
        self.assertTrue(all(os.path.getsize(f) > 32 for f in files))
        self.assertEqual(self.answers(), self.before)

        # Nothing left to index: a second run indexes 0 messages and keeps the files.
        r = self.search("index", "--all")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("indexed 0 messages "), r.stdout)

        r = self.search("check", "--all")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(r.stdout, "")
        r = self.search("check", "-u", "alice", "--json")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn('"documents": 150', r.stdout)

        # Damage the Archive's index in the middle of its first segment.
        archive = [f for f in files if "Archive" in f][0]
        with open(archive, "r+b") as f:
            data = bytearray(f.read())
            for at in (40, 41, len(data) // 2):
                data[at] ^= 0x5A
            f.seek(0)
            f.write(data)
        r = self.search("check", "--all")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"(?m)^user/alice/Archive: .*damaged")
        self.assertNotRegex(r.stdout, r"(?m)^user/alice: ")
        self.assertEqual(self.answers(), self.before)

        r = self.search("index", "--all")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("indexed 50 messages "), r.stdout)
        self.assertIn("user/alice/Archive: ", r.stderr)
        r = self.search("check", "--all")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(self.answers(), self.before)

        # --rebuild indexes everything again.
        r = self.search("index", "-u", "alice", "--rebuild")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("indexed 200 messages "), r.stdout)
        self.assertEqual(self.answers(), self.before)

        # reconstruct removes the index of a mailbox it repairs, then builds it again.
        archive_dir = os.path.dirname(archive)
        os.unlink(os.path.join(archive_dir, "darius.cache"))
        r = darius("-C", self.inst.conf, "reconstruct", "--all", check=False)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("user/alice/Archive: ", r.stdout)
        self.assertIn("search index rebuilt for repaired mailboxes: 50 messages", r.stderr)
        self.assertTrue(os.path.getsize(archive) > 32)
        r = self.search("check", "--all")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(self.answers(), self.before)

    def test_usage_and_config_errors(self):
        self.assertEqual(self.search("index").returncode, 2)
        self.assertEqual(self.search("check", "--all", "-u", "alice").returncode, 2)
        r = darius("-C", os.path.join(self.inst.dir, "missing.conf"), "search", "index", "--all",
                   check=False)
        self.assertEqual(r.returncode, 78, r.stderr)


if __name__ == "__main__":
    unittest.main()
