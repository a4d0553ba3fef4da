#!/usr/bin/env python3
"""Compares lib/mime's reviewed outputs with Dovecot's and Cyrus's, message by message.

usage: compare.py CORPUS_DIR EXPECTED_DIR [ANCHOR_DIR] [-v]
  CORPUS_DIR    the .eml files (tests/data/mime/shared-corpus or tests/data/mime/cases)
  EXPECTED_DIR  lib/mime's *.expected files for them (tests/data/mime/corpus or .../cases)
  ANCHOR_DIR    where the two servers' answers are kept (default: $TMPDIR/darius-mime-anchors/
                <corpus folder name>): dovecot.json and cyrus.json, {file: raw FETCH response}.
                Fetched when missing (as root, with Dovecot and Cyrus installed by
                bench/anchors/install.sh), read from there otherwise, so re-running after a
                change of lib/mime needs neither server. They are not committed: the corpus
                keeps the reference answers out of the repository (shared-corpus/README.md).
  -v            print the three values for every difference

Each message is given to both servers in the form lib/mime parsed: canonical CRLF with a
final line end for the shared corpus (as delivery stores it), as is for the cases. Dovecot
(dovecot_fetch.sh) runs offline on a throwaway maildir, Cyrus (cyrus_fetch.py) as a private
instance on a Unix socket (messages it refuses at APPEND reach it through reconstruct).

Values compare up to ASCII case (media types, parameter names, encodings: we and Cyrus send
them in upper case, Dovecot as written), and BODYSTRUCTUREs without their ("CHARSET"
"US-ASCII") parameters (drop_default_charset: Cyrus leaves that default out). The three
structures are walked together while they
have the same shape, so a difference is located at the smallest value where they part (a
size, a parameter, an address list); Cyrus's habit of sending NIL parameters where the others
add CHARSET us-ascii then does not hide what the three say about the rest. Per message and
item the classes are: all three agree; "Dovecot = Cyrus somewhere, we differ there" (the
differences to look at: the two established servers agree and we do not); "we agree with
one server wherever they differ"; "all three differ somewhere"; a server had no answer.
No test depends on this script.
"""
import json, os, re, subprocess, sys, tempfile
from collections import Counter
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from imapparse import fetch_items

HERE = os.path.dirname(os.path.abspath(__file__))
ITEMS = ("ENVELOPE", "BODYSTRUCTURE")


def canonical(b):
    if not b.endswith(b"\n"):
        b += b"\r\n"
    return b.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def unescape(line):
    out, i = bytearray(), 0
    while i < len(line):
        c = line[i]
        if c == "\\":
            n = line[i + 1]
            if n == "r": out += b"\r"; i += 2
            elif n == "n": out += b"\n"; i += 2
            elif n == "\\": out += b"\\"; i += 2
            elif n == "x": out.append(int(line[i + 2:i + 4], 16)); i += 4
        else:
            out += c.encode(); i += 1
    return bytes(out)


def fold_case(v):
    if isinstance(v, list): return [fold_case(x) for x in v]
    if isinstance(v, tuple): v = v[1]
    if isinstance(v, bytes): v = v.lower()
    return v


def drop_default_charset(v):
    """A BODYSTRUCTURE with every ("charset" "us-ascii") parameter removed (NIL when no other
    is left). Cyrus sends NIL where a text part has no charset parameter, we and Dovecot send
    the RFC 2046 §4.1.2 default; compared as is, that one difference would hide everything
    else in a third of the corpus."""
    if not isinstance(v, list): return v
    if v and len(v) % 2 == 0 and all(isinstance(x, bytes) for x in v):  # a parameter list
        out = []
        for i in range(0, len(v), 2):
            if (v[i], v[i + 1]) != (b"charset", b"us-ascii"): out += v[i:i + 2]
        return out or None
    return [drop_default_charset(x) for x in v]


def fetch_anchors(corpus, names, is_cases, anchor_dir):
    os.makedirs(anchor_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for n in names:
            data = open(os.path.join(corpus, n), "rb").read()
            if not is_cases: data = canonical(data)
            p = os.path.join(tmp, n)
            open(p, "wb").write(data)
            paths.append(p)
        dv_path = os.path.join(anchor_dir, "dovecot.json")
        if not os.path.exists(dv_path):
            dv = {}
            for p in paths:
                raw = subprocess.run([os.path.join(HERE, "dovecot_fetch.sh"), p],
                                     capture_output=True).stdout
                # The FETCH response may hold literals: everything up to the tagged reply.
                k, end = raw.find(b"* 1 FETCH ("), raw.find(b"\r\nb OK")
                dv[os.path.basename(p)] = raw[k:end + 2].decode("latin-1") if 0 <= k < end else None
            json.dump(dv, open(dv_path, "w"), indent=0, sort_keys=True)
        cy_path = os.path.join(anchor_dir, "cyrus.json")
        if not os.path.exists(cy_path):
            subprocess.run([os.path.join(HERE, "cyrus_fetch.py"), cy_path] + paths, check=True)


def parse_answer(raw):
    if raw is None or "FETCH (" not in raw: return None
    return fetch_items(re.sub(r"^\* \d+ FETCH", "* 1 FETCH", raw).encode("latin-1"))


def leaf_diffs(d, v, c, path=()):
    """The places where the three (case-folded) structures differ, walked together while
    they have the same shape: [(path, d, v, c)], path a tuple of list indices."""
    if isinstance(d, list) and isinstance(v, list) and isinstance(c, list) and \
            len(d) == len(v) == len(c):
        out = []
        for k in range(len(d)): out += leaf_diffs(d[k], v[k], c[k], path + (k,))
        return out
    return [] if d == v == c else [(path, d, v, c)]


def classify(d, v, c):
    if v is None or c is None:
        other, who = (v, "Dovecot") if c is None else (c, "Cyrus")
        if other is None: return "no server answered"
        return f"only {who} answered, " + ("we agree" if d == other else "we differ")
    diffs = leaf_diffs(d, v, c)
    if not diffs: return "all three agree"
    if any(x[2] == x[3] for x in diffs): return "Dovecot = Cyrus somewhere, we differ there"
    if all(x[1] == x[2] or x[1] == x[3] for x in diffs): return "we agree with one server wherever they differ"
    return "all three differ somewhere"


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    verbose = "-v" in sys.argv
    corpus, expected = args[0], args[1]
    is_cases = os.path.basename(os.path.normpath(expected)) == "cases"
    anchor_dir = args[2] if len(args) > 2 else os.path.join(
        tempfile.gettempdir(), "darius-mime-anchors", os.path.basename(os.path.normpath(corpus)))
    names = sorted(f for f in os.listdir(corpus) if f.endswith(".eml"))
    fetch_anchors(corpus, names, is_cases, anchor_dir)
    dv_all = json.load(open(os.path.join(anchor_dir, "dovecot.json")))
    cy_all = json.load(open(os.path.join(anchor_dir, "cyrus.json")))
    counts = {i: Counter() for i in ITEMS}
    pairs = {i: Counter() for i in ITEMS}  # whole items equal, pair by pair
    rows = []
    both = Counter()
    for name in names:
        stem = name[:-4]
        mine = {}
        for line in open(os.path.join(expected, stem + ".expected"), encoding="ascii"):
            key, _, val = line.rstrip("\n").partition(" ")
            if key in ITEMS:
                mine[key] = fetch_items(b"* 1 FETCH (" + key.encode() + b" " + unescape(val) + b")")[key]
        dv, cy = parse_answer(dv_all.get(name)), parse_answer(cy_all.get(name))
        target, agree = False, True
        for item in ITEMS:
            norm = (lambda x: drop_default_charset(fold_case(x))) if item == "BODYSTRUCTURE" \
                else fold_case
            d = norm(mine[item])
            v = norm(dv[item]) if dv else None
            c = norm(cy[item]) if cy else None
            cls = classify(d, v, c)
            counts[item][cls] += 1
            pairs[item]["we = Dovecot"] += d == v
            pairs[item]["we = Cyrus"] += d == c
            pairs[item]["Dovecot = Cyrus"] += v is not None and v == c
            if cls != "all three agree":
                diffs = leaf_diffs(d, v, c) if v is not None and c is not None else [((), d, v, c)]
                rows.append((item, cls, stem, diffs))
            target |= cls.startswith("Dovecot = Cyrus")
            agree &= cls == "all three agree"
        both["messages where all three agree on both items"] += agree
        both["messages where Dovecot = Cyrus somewhere and we differ there"] += target
    print(f"{len(names)} messages")
    for item in ITEMS:
        print(item)
        for cls, n in sorted(counts[item].items(), key=lambda kv: -kv[1]): print(f"  {n:4d}  {cls}")
        print("  whole item equal: " + ", ".join(f"{k} {n}" for k, n in pairs[item].items()))
    for k, n in both.items(): print(f"{k}: {n}")
    for item, cls, stem, diffs in sorted(rows, key=lambda r: (r[1], r[0], r[2])):
        print(f"{item} [{cls}] {stem}")
        if verbose:
            for path, d, v, c in diffs:
                mark = "*" if v == c and v is not None else " "
                print(f"  {mark} at {list(path)}: we {d!r:.300}")
                print(f"      dovecot {v!r:.300}")
                print(f"      cyrus   {c!r:.300}")


if __name__ == "__main__":
    main()
