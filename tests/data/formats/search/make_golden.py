#!/usr/bin/env python3
"""Writes the golden files of the search index from docs/formats/search-index.md alone.

An encoder independent of the C++ code under test (mailbox/search_index_format.cc): if both
agree on these bytes, they agree on the document. The files are committed and never
regenerated (a new format version gets a new folder), so by default this script only checks
that the committed files are what it would write; `--write` creates the files that are
missing and never overwrites one.

usage: make_golden.py [--write]
"""
import os
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
UIDVALIDITY = 1790000001
BLOCK = 256  # gram entries per fence


def crc32(b):
    return zlib.crc32(b) & 0xFFFFFFFF


def trigrams(word):
    """The grams of a word: each three bytes big-endian in 24 bits."""
    b = word.encode()
    return {(b[i] << 16) | (b[i + 1] << 8) | b[i + 2] for i in range(len(b) - 2)}


def document(body_words, header_words, extra=()):
    """A document's tagged grams {gram: body}: a gram is "body" when any body word has it."""
    grams = {}
    for w in header_words:
        for g in trigrams(w):
            grams.setdefault(g, False)
    for w in body_words:
        for g in trigrams(w):
            grams[g] = True
    for g in extra:
        grams.setdefault(g, False)
    return grams


# Segment 1 covers UIDs 1..10: UID 4 was unreadable when indexed (no document), UID 7 has
# 300 synthetic grams 0x100000.. so that the gram table spans two fences.
SEGMENTS = [
    (1, 10, [
        (1, document(["hello", "world"], ["subject"])),
        (3, document(["yellow"], ["hello"])),
        (5, document([], ["help"])),
        (7, document(["zebra"], [], extra=range(0x100000, 0x100000 + 300))),
    ]),
    (11, 20, [
        (12, document(["shell"], [])),
        (20, document(["hello"], ["zebra"])),
    ]),
]


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def segment(first, last, docs):
    """search-index.md, "Segment"."""
    uids = [u for u, _ in docs]
    allgrams = sorted({g for _, d in docs for g in d})
    table, postings = bytearray(), bytearray()
    for g in allgrams:
        lst, prev = bytearray(), -1
        for i, (_, d) in enumerate(docs):
            if g in d:
                lst += varint(((i - prev) << 1) | (1 if d[g] else 0))
                prev = i
        table += struct.pack("<III", g, len(postings), crc32(bytes(lst)))
        postings += lst
    fences = bytearray()
    for b in range(0, len(allgrams), BLOCK):
        block = table[12 * b:12 * (b + BLOCK)]
        fences += struct.pack("<II", allgrams[b], crc32(bytes(block)))
    size = 32 + 4 * len(uids) + len(table) + len(fences) + len(postings) + 8
    head = struct.pack("<4sIIIIIQ", b"DSEG", first, last, len(uids), len(allgrams),
                       len(postings), size)
    head += b"".join(struct.pack("<I", u) for u in uids)
    footer = struct.pack("<I4s", crc32(head + fences), b"DEND")
    out = head + table + fences + postings + footer
    assert len(out) == size
    return out


def file_header():
    """search-index.md, "File header"."""
    h = b"DSRCHIDX" + struct.pack("<HHII8s", 1, 0, 32, UIDVALIDITY, b"\0" * 8)
    return h + struct.pack("<I", crc32(h))


def golden():
    whole = file_header() + b"".join(segment(*s) for s in SEGMENTS)
    # A third segment (UIDs 21..30) torn by a crash: its first 40 bytes only.
    torn = segment(21, 30, [(25, document(["torn"], []))])[:40]
    return {
        "v1.0/darius.search": whole,
        "v1.0/damaged-tail.search": whole + torn,
    }


def main():
    write = "--write" in sys.argv[1:]
    bad = 0
    for name, data in golden().items():
        path = os.path.join(HERE, name)
        if os.path.exists(path):
            with open(path, "rb") as f:
                if f.read() != data:
                    print(f"{name}: differs from what the format document gives")
                    bad += 1
        elif write:
            with open(path, "wb") as f:
                f.write(data)
            print(f"{name}: written ({len(data)} bytes)")
        else:
            print(f"{name}: missing (run with --write)")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
