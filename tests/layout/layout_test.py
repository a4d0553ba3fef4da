"""The dependency-rule checker: the real tree passes, and a fixture tree with forbidden
includes fails, naming each file, line and edge (without breaking the real build)."""
import os
import subprocess
import sys
import unittest

SRC = os.environ.get("DARIUS_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
CHECK = os.path.join(SRC, "scripts", "check_layout.py")
FIX = os.path.join(SRC, "tests", "layout", "fixtures")


def run(root):
    return subprocess.run([sys.executable, CHECK, "--root", root], capture_output=True, text=True)


class LayoutTest(unittest.TestCase):
    def test_real_tree_follows_the_rule(self):
        r = run(SRC)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_good_fixture_passes(self):
        r = run(os.path.join(FIX, "good"))
        self.assertEqual(r.returncode, 0, r.stdout)

    def test_forbidden_includes_fail(self):
        r = run(os.path.join(FIX, "bad"))
        self.assertEqual(r.returncode, 1, r.stdout)
        out = r.stdout
        self.assertIn('mailbox/store.cc:3: mailbox may not include "imapd/session.h"', out)
        self.assertIn('lib/base/status.cc:2: lib/base may not include "lib/io/env.h"', out)
        self.assertIn('imapd/session.cc:2: imapd may not include "pop3d/session.h"', out)
        self.assertIn('db/db.cc:2: db may not include "mailbox/index.h"', out)
        self.assertNotIn("db/db.cc:1", out)  # db -> lib is allowed
        self.assertIn("4 include(s) break the dependency rule", out)


if __name__ == "__main__":
    unittest.main()
