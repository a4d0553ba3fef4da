#!/usr/bin/env python3
"""Checks every #include "folder/..." in the tree against cmake/dependency_rules.txt.

The CMake helpers enforce the same rules for link edges at configure time; this catches a
source file that includes a header from a module it may not use (mailbox/ including imapd/),
which the linker would not notice. Exit status 1 and one line per violation when it fails.

usage: check_layout.py [--root DIR] [--rules FILE]
"""
import argparse
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCE_EXT = (".h", ".hh", ".hpp", ".c", ".cc", ".cpp", ".inc")


def load_rules(path):
    rules = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            mod, _, deps = line.partition(":")
            rules[mod.strip()] = deps.split()
    return rules


def module_of(path, modules):
    """The longest module folder that path (relative, with /) lies in, or None."""
    best = None
    for m in modules:
        if path == m or path.startswith(m + "/"):
            if best is None or len(m) > len(best):
                best = m
    return best


def allowed(src, dst, rules):
    if src == dst:
        return True
    deps = rules.get(src, [])
    if "*" in deps or dst in deps:
        return True
    return "lib" in deps and dst.startswith("lib/")


def check(root, rules):
    modules = list(rules)
    errors = []
    skip_dirs = {".git", "build", "var", "third_party"}
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        dirnames[:] = [d for d in dirnames if d not in skip_dirs and not d.startswith("build")]
        for name in filenames:
            if not name.endswith(SOURCE_EXT):
                continue
            rel = os.path.normpath(os.path.join(rel_dir, name)).replace(os.sep, "/")
            src = module_of(rel, modules)
            if src is None:
                continue
            with open(os.path.join(dirpath, name), encoding="utf-8", errors="replace") as f:
                for lineno, text in enumerate(f, 1):
                    m = INCLUDE.match(text)
                    if not m:
                        continue
                    dst = module_of(m.group(1), modules)
                    if dst is None or allowed(src, dst, rules):
                        continue
                    errors.append(f"{rel}:{lineno}: {src} may not include \"{m.group(1)}\" "
                                  f"({dst}); allowed: {' '.join(rules.get(src, [])) or 'nothing'}")
    return errors


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.dirname(here))
    ap.add_argument("--rules", default=os.path.join(os.path.dirname(here), "cmake",
                                                    "dependency_rules.txt"))
    args = ap.parse_args()
    errors = check(args.root, load_rules(args.rules))
    for e in errors:
        print(e)
    if errors:
        print(f"layout: {len(errors)} include(s) break the dependency rule")
        return 1
    print("layout: every include follows the dependency rule")
    return 0


if __name__ == "__main__":
    sys.exit(main())
