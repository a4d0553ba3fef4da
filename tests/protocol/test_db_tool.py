"""`darius db` end to end: a database converted skiplist -> berkeley -> flat -> skiplist keeps
the same record checksum at every step; dump/load round-trips any bytes; check and repack.
DARIUS_DB_TOOL_KEYS sets the size (issue 3 asks for 1M; CI uses fewer to stay fast)."""
import os
import random
import re
import shutil
import tempfile
import unittest

from darius_harness import darius

KEYS = int(os.environ.get("DARIUS_DB_TOOL_KEYS", "20000"))


def escape(b):
    return "".join(chr(c) if 0x20 <= c <= 0x7E and c != 0x5C else "\\x%02x" % c for c in b)


def checksum_of(output):
    m = re.search(r"records (\d+) sha256 ([0-9a-f]{64})", output)
    assert m, output
    return int(m.group(1)), m.group(2)


class DbToolTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="darius-dbtool-")
        rng = random.Random(1)
        records = {}
        while len(records) < KEYS:
            k = bytes(rng.getrandbits(8) for _ in range(rng.randint(16, 64)))
            records[k] = bytes(rng.getrandbits(8) for _ in range(rng.randint(16, 512)))
        cls.count = len(records)
        cls.dump = os.path.join(cls.dir, "in.dump")
        with open(cls.dump, "w") as f:
            f.write("# darius-dump 1\n")
            for k in sorted(records):
                f.write(escape(k) + "\t" + escape(records[k]) + "\n")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.dir, name)

    def test_conversion_chain_keeps_the_checksum(self):
        first = darius("db", "load", "-b", "skiplist", self.path("a.skiplist"), "-i", self.dump)
        n, want = checksum_of(first.stdout)
        self.assertEqual(n, self.count)
        chain = [("a.skiplist", "skiplist", "b.berkeley", "berkeley"),
                 ("b.berkeley", "berkeley", "c.flat", "flat"),
                 ("c.flat", "flat", "d.skiplist", "skiplist")]
        for src, sb, dst, db in chain:
            r = darius("db", "convert", "-b", sb, self.path(src), self.path(dst), "--to", db)
            lines = r.stdout.strip().splitlines()
            self.assertEqual(len(lines), 2, r.stdout)
            for line in lines:
                self.assertEqual(checksum_of(line), (self.count, want), line)
        final = darius("db", "checksum", "-b", "skiplist", self.path("d.skiplist"))
        self.assertEqual(checksum_of(final.stdout), (self.count, want))
        for name, backend in (("a.skiplist", "skiplist"), ("b.berkeley", "berkeley"),
                              ("c.flat", "flat"), ("d.skiplist", "skiplist")):
            r = darius("db", "check", "-b", backend, self.path(name))
            self.assertIn("no problems", r.stdout)

    def test_dump_load_round_trip_and_repack(self):
        darius("db", "load", "-b", "skiplist", self.path("r.skiplist"), "-i", self.dump)
        out = self.path("out.dump")
        darius("db", "dump", "-b", "skiplist", self.path("r.skiplist"), "-o", out)
        with open(out) as a, open(self.dump) as b:
            self.assertEqual(a.read(), b.read())
        before = checksum_of(darius("db", "checksum", self.path("r.skiplist")).stdout)
        darius("db", "repack", "-b", "skiplist", self.path("r.skiplist"))
        self.assertEqual(checksum_of(darius("db", "checksum", self.path("r.skiplist")).stdout),
                         before)

    def test_load_refuses_bad_input_and_non_empty_targets(self):
        bad = self.path("bad.dump")
        with open(bad, "w") as f:
            f.write("# darius-dump 1\nb\t1\na\t2\n")
        r = darius("db", "load", "-b", "flat", self.path("bad.flat"), "-i", bad, check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("line 3", r.stderr)
        self.assertIn("out of order", r.stderr)
        with open(bad, "w") as f:
            f.write("not a dump\n")
        r = darius("db", "load", "-b", "flat", self.path("bad2.flat"), "-i", bad, check=False)
        self.assertIn("not a darius dump", r.stderr)
        darius("db", "load", "-b", "skiplist", self.path("full.skiplist"), "-i", self.dump)
        r = darius("db", "load", "-b", "skiplist", self.path("full.skiplist"), "-i", self.dump,
                   check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("not empty", r.stderr)

    def test_missing_database_and_unknown_backend(self):
        r = darius("db", "check", "-b", "skiplist", self.path("nope"), check=False)
        self.assertEqual(r.returncode, 1)
        r = darius("db", "check", "-b", "twoskip", self.path("nope"), check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("unknown database backend", r.stderr)


if __name__ == "__main__":
    unittest.main()
