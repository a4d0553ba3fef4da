#!/usr/bin/env python3
"""Writes the index format 1.2 golden file `darius.index` from docs/formats/index.md alone.

An encoder independent of the C++ code under test (mailbox/index_format.cc): if both agree on
these bytes, they agree on the document. The file is committed and never regenerated (a new
format version gets a new folder), so by default this script only checks that the committed
file is what it would write; `--write` creates the file when it is missing and refuses to
overwrite it.

usage: make_golden.py [--write]
"""
import os
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))

SEEN, ANSWERED, FLAGGED, DELETED, DRAFT, EXPUNGED = 1, 2, 4, 8, 16, 1 << 31


def crc32(b):
    return zlib.crc32(b) & 0xFFFFFFFF


def header(minor, num_records, num_expunged, purged_modseq):
    """The 128-byte header ("Header" table): sample values shared with ../v1 and ../v1.1."""
    b = bytearray(128)
    b[0:8] = b"DARIUSIX"
    struct.pack_into("<HHII", b, 8, 1, minor, 128, 128)  # major, minor, header/record size
    struct.pack_into("<I", b, 20, num_records)
    struct.pack_into("<Q", b, 24, 3)                     # generation
    struct.pack_into("<I", b, 32, num_expunged)
    struct.pack_into("<I", b, 36, 1700000000)            # uidvalidity
    struct.pack_into("<I", b, 40, 8)                     # uidnext
    struct.pack_into("<I", b, 44, 1)                     # num_deleted
    struct.pack_into("<Q", b, 48, 42)                    # highest_modseq
    struct.pack_into("<Q", b, 56, 12345)                 # quota_used
    struct.pack_into("<III", b, 64, 1, 0, 1)             # num_seen, num_answered, num_flagged
    struct.pack_into("<I", b, 76, 1)                     # prev_num_records
    struct.pack_into("<q", b, 80, 1790000000)            # last_append_date
    struct.pack_into("<Q", b, 88, 1)                     # cache_generation
    struct.pack_into("<I", b, 96, 0xDEADBEEF)            # tail_crc
    struct.pack_into("<I", b, 100, 17)                   # recent_uid (1.1)
    struct.pack_into("<Q", b, 104, purged_modseq)        # purged_modseq (1.2)
    struct.pack_into("<I", b, 124, crc32(bytes(b[:124])))
    return bytes(b)


def record(uid, flags, expunged_at):
    """One 128-byte record ("Records" table)."""
    b = bytearray(128)
    struct.pack_into("<II", b, 0, uid, flags)
    struct.pack_into("<q", b, 8, 1790000000 + uid)       # internal date
    struct.pack_into("<q", b, 16, 1790000100)            # save date
    struct.pack_into("<Q", b, 24, 4096 + uid)            # size
    struct.pack_into("<Q", b, 32, 40 + uid)              # modseq
    struct.pack_into("<Q", b, 40, 32 + 100 * uid)        # cache offset
    struct.pack_into("<I", b, 48, 700)                   # header size
    struct.pack_into("<h", b, 52, -300)                  # zone, minutes east of UTC
    # user flags 0 and 127: bit i is word i/64, bit i%64
    struct.pack_into("<QQ", b, 56, 1 << 0, 1 << 63)
    b[72:92] = bytes((i * 7 + uid) & 0xFF for i in range(20))  # GUID
    struct.pack_into("<Q", b, 96, 99)                    # thread id
    struct.pack_into("<q", b, 104, expunged_at)          # expunged_at (1.2)
    struct.pack_into("<I", b, 124, crc32(bytes(b[:124])))
    return bytes(b)


def golden():
    return (header(minor=2, num_records=2, num_expunged=1, purged_modseq=38) +
            record(5, SEEN | FLAGGED, 0) +
            record(7, SEEN | FLAGGED | EXPUNGED, 1790086400))


def main():
    path = os.path.join(HERE, "darius.index")
    want = golden()
    if "--write" in sys.argv[1:]:
        if os.path.exists(path):
            sys.exit(path + " exists: golden files are never regenerated")
        with open(path, "wb") as f:
            f.write(want)
        return
    with open(path, "rb") as f:
        if f.read() != want:
            sys.exit(path + " differs from what this script writes")
    print("ok")


if __name__ == "__main__":
    main()
