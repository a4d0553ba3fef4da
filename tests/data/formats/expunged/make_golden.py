#!/usr/bin/env python3
"""Writes the golden files of the expunged index from docs/formats/expunged.md, index.md
(records) and cache.md (the expunged cache) alone.

An encoder independent of the C++ code under test (mailbox/expunged_file.cc,
index_format.cc, cache_format.cc): if both agree on these bytes, they agree on the
documents. The files are committed and never regenerated (a new format version gets a new
folder), so by default this script only checks that the committed files are what it would
write; `--write` creates the files that are missing and never overwrites one.

usage: make_golden.py [--write]
"""
import hashlib
import os
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))

SEEN, ANSWERED, FLAGGED, DELETED, DRAFT, EXPUNGED = 1, 2, 4, 8, 16, 1 << 31


def crc32(b):
    return zlib.crc32(b) & 0xFFFFFFFF


def message(uid):
    return b"From: a@example.com\r\nSubject: gone %d\r\n\r\nbody %d\r\n" % (uid, uid)


def guid(uid):
    return hashlib.sha1(message(uid)).digest()


def expunged_header(minor):
    """expunged.md, "darius.expunged": magic, major 1, minor, record size 128."""
    return b"DARIUSEX" + struct.pack("<HHI", 1, minor, 128)


def record(uid, flags, cache_offset, expunged_at):
    """index.md, "Records": one 128-byte record of an expunged message."""
    m = message(uid)
    b = bytearray(128)
    struct.pack_into("<II", b, 0, uid, flags | EXPUNGED)
    struct.pack_into("<q", b, 8, 1790000000 + uid)        # internal date
    struct.pack_into("<q", b, 16, 1790000100 + uid)       # save date
    struct.pack_into("<Q", b, 24, len(m))                 # size
    struct.pack_into("<Q", b, 32, 50 + uid)               # modseq of the expunge
    struct.pack_into("<Q", b, 40, cache_offset)
    struct.pack_into("<I", b, 48, m.index(b"\r\n\r\n") + 4)  # header size, blank line included
    struct.pack_into("<h", b, 52, 60)                     # zone: +0100
    struct.pack_into("<QQ", b, 56, 1 << uid, 0)           # user flag number `uid`
    b[72:92] = guid(uid)
    struct.pack_into("<Q", b, 96, 1000 + uid)             # thread id
    struct.pack_into("<q", b, 104, expunged_at)           # 0 in a 1.0 file (reserved then)
    struct.pack_into("<I", b, 124, crc32(bytes(b[:124])))
    return bytes(b)


def cache_header(generation):
    """cache.md, "Header"."""
    b = bytearray(32)
    b[0:8] = b"DARIUSCA"
    struct.pack_into("<HHIQ", b, 8, 1, 0, 32, generation)
    struct.pack_into("<I", b, 28, crc32(bytes(b[:28])))
    return bytes(b)


def cache_record(fields):
    """cache.md, "Records": u32 length, u32 CRC32 of the payload, payload of
    `u8 tag, u32 length, bytes` fields; field 7 (the GUID) first, as appends write it."""
    payload = b"".join(struct.pack("<BI", tag, len(v)) + v for tag, v in fields if v)
    return struct.pack("<II", len(payload), crc32(payload)) + payload


def cache_fields(uid):
    """The cache entry of message `uid` (tags of cache.md): UID 9's has every text field."""
    f = [(7, guid(uid)),
         (1, b'(NIL "gone %d" NIL NIL NIL NIL NIL NIL NIL NIL)' % uid)]
    if uid == 9:
        f += [(2, b'("TEXT" "PLAIN" ("CHARSET" "us-ascii") NIL NIL "7BIT" 8 1 NIL NIL NIL NIL)'),
              (3, b'("TEXT" "PLAIN" ("CHARSET" "us-ascii") NIL NIL "7BIT" 8 1)'),
              (4, b"From: a@example.com\r\nSubject: gone 9\r\n\r\n")]
    f += [(6, b"body %d" % uid)]
    return f


def v1_0():
    """A 1.0 file: its cache offsets pointed into the live darius.cache of the time."""
    return (expunged_header(0) +
            record(3, SEEN, 32, 0) +
            record(4, SEEN | FLAGGED | DELETED, 210, 0))


def v1_1():
    """A 1.1 file and its cache. The cache starts with the record of a message whose append
    to the file never finished (dead space, cache.md); UID 4 has no cache record."""
    cache = cache_header(1)
    dead = cache_record(cache_fields(8))
    cache += dead
    off3 = len(cache)
    cache += cache_record(cache_fields(3))
    off9 = len(cache)
    cache += cache_record(cache_fields(9))
    index = (expunged_header(1) +
             record(3, SEEN, off3, 1790086403) +
             record(4, SEEN | FLAGGED | DELETED, 0, 1790086404) +
             record(9, ANSWERED | DELETED, off9, 1790086409))
    return index, cache


def goldens():
    index, cache = v1_1()
    return {
        "v1.0/darius.expunged": v1_0(),
        "v1.1/darius.expunged": index,
        "v1.1/darius.expunged.cache": cache,
    }


def main():
    write = "--write" in sys.argv[1:]
    bad = False
    for name, want in goldens().items():
        path = os.path.join(HERE, name)
        if write and not os.path.exists(path):
            with open(path, "wb") as f:
                f.write(want)
            continue
        with open(path, "rb") as f:
            if f.read() != want:
                print(path + " differs from what this script writes", file=sys.stderr)
                bad = True
    if bad:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
