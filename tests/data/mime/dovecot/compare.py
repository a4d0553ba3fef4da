#!/usr/bin/env python3
"""Compares lib/mime's reviewed outputs with Dovecot's, message by message.

usage: compare.py CORPUS_DIR EXPECTED_DIR
  CORPUS_DIR    the .eml files (e.g. ../shared/corpus/mime or tests/data/mime/cases)
  EXPECTED_DIR  lib/mime's *.expected files for them (tests/data/mime/corpus or .../cases)
Each message is fed to Dovecot (dovecot_fetch.sh) in the form lib/mime parsed: canonical CRLF
with a final line end for the shared corpus (as delivery stores it), as is for the cases.
Levels: exact; "case" (equal ignoring ASCII case: we send types in upper case, Dovecot as
written); "case+2231" (also equal after percent-decoding RFC 2231 "name*" values); "ws" (also
equal after collapsing white space runs: RFC 5322 unfolding only removes CRLF, Dovecot
collapses more); DIFF otherwise, with the first difference.
"""
import os, re, subprocess, sys, tempfile, urllib.parse
from collections import Counter
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from imapparse import fetch_items

HERE = os.path.dirname(os.path.abspath(__file__))


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


def norm(v, level):
    if isinstance(v, list): return [norm(x, level) for x in v]
    if isinstance(v, tuple): v = v[1]
    if isinstance(v, bytes):
        if level >= 1: v = v.lower()
        if level >= 2: v = re.sub(rb"[ \t]+", b" ", v).strip()
    return v


def pct(t):
    if not isinstance(t, list): return t
    out = [pct(x) for x in t]
    for i in range(len(out) - 1):
        if isinstance(out[i], bytes) and out[i].endswith(b"*") and isinstance(out[i + 1], bytes):
            out[i + 1] = urllib.parse.unquote_to_bytes(out[i + 1])
    return out


def main():
    corpus, expected = sys.argv[1], sys.argv[2]
    is_cases = os.path.basename(os.path.normpath(expected)) == "cases"
    counts = {"ENVELOPE": Counter(), "BODYSTRUCTURE": Counter()}
    diffs, both = [], 0
    for name in sorted(f for f in os.listdir(corpus) if f.endswith(".eml")):
        stem = name[:-4]
        data = open(os.path.join(corpus, name), "rb").read()
        if not is_cases: data = canonical(data)
        with tempfile.NamedTemporaryFile(suffix=".eml") as tmp:
            tmp.write(data); tmp.flush()
            dv = fetch_items(subprocess.run([os.path.join(HERE, "dovecot_fetch.sh"), tmp.name],
                                            capture_output=True).stdout)
        mine = {}
        for line in open(os.path.join(expected, stem + ".expected"), encoding="ascii"):
            key, _, val = line.rstrip("\n").partition(" ")
            if key in ("ENVELOPE", "BODYSTRUCTURE"):
                mine[key] = fetch_items(b"* 1 FETCH (" + key.encode() + b" " + unescape(val) + b")")[key]
        ok = True
        for item in ("ENVELOPE", "BODYSTRUCTURE"):
            a, b = mine[item], dv[item]
            if norm(a, 0) == norm(b, 0): lvl = "exact"
            elif norm(a, 1) == norm(b, 1): lvl = "case"
            elif pct(norm(a, 1)) == pct(norm(b, 1)): lvl = "case+2231"
            elif pct(norm(a, 2)) == pct(norm(b, 2)): lvl = "ws"
            else: lvl = "DIFF"; ok = False; diffs.append((stem, item))
            counts[item][lvl] += 1
        both += ok
    for item, c in counts.items(): print(item, dict(c))
    print("agree on both (up to case, RFC 2231 form, white space):", both)
    for stem, item in diffs: print("DIFF", stem, item)


if __name__ == "__main__":
    main()
