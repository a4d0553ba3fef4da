#!/usr/bin/env python3
"""bench/corpus/gen_corpus.py: the benchmark's mail corpus, reproducible from a seed.

    python3 bench/corpus/gen_corpus.py --out DIR --messages N [--seed S] [--check]

Writes into DIR (atomically: a temp dir renamed into place, so a half-written corpus is
never used):
  messages.bin   the messages back to back, CRLF line ends, no line starting with '.'
                 (so LMTP dot-stuffing never changes them; the load client still stuffs)
  index.tsv      one line per message: offset, size (bytes)
  manifest.txt   planted words: "word <w> body <i,...>" and "word <w> subject <i,...>"
                 (message indexes, 0-based); "messages N", "bytes B", "seed S"
  sizes.txt      the size histogram the corpus actually has, for the README

Sizes follow a university mail system (the bench issue): 76% under 4 KiB, 90% under 8 KiB,
93% under 16 KiB, 95% under 32 KiB, the rest log-uniform up to 1 MiB. Headers are realistic
(From, To, Cc, Subject from a vocabulary, Date, Message-ID, In-Reply-To/References threads);
about 20% are multipart/alternative, about 8% carry a base64 attachment, about 4% are in
iso-8859-1 or koi8-r with RFC 2047 encoded subjects.

Planted words are nonsense words that occur nowhere else, so SEARCH results are exact: a
body word is written into the text/plain part only (and into the html twin of a
multipart/alternative message), always as 7-bit ASCII; a subject word is written into the
Subject, sometimes inside an RFC 2047 B-encoded koi8-r or Q-encoded iso-8859-1 subject (the
server must decode it). Whether a message gets a word is decided by its own seeded draw,
so the manifest is a pure function of (seed, N).

--check re-reads the written files and verifies the manifest by scanning every message
(the harness's self-test of the generator). Single-threaded; no state outside DIR.
"""
import argparse
import base64
import email.header
import email.utils
import math
import os
import random
import shutil
import sys
import tempfile

GENERATOR_VERSION = 4

# word -> (probability in body, probability in subject)
PLANTED = {
    "zorblaxian": (0.005, 0.0),
    "quintaflor": (0.05, 0.0),
    "mervotrund": (0.0, 0.01),
    "plabbergast": (0.0, 0.03),
    "yendrowick": (0.02, 0.01),
}
# Words added after the corpus was first published, drawn from a random stream of their own per
# message (seeded by the corpus seed and the message index), so that adding one changes only
# the messages that get it (by one body line) and no draw of the main stream: the messages the
# other rows deliver stay what they were. vorpelgrist is the search rows' rare body word
# (runner.run_search: SEARCH TEXT/BODY with about 1% hits; their rare header word is
# mervotrund, in 1% of subjects).
PLANTED_LATE = {
    "vorpelgrist": 0.01,
}

FIRST = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy",
         "mallory", "niaj", "olivia", "peggy", "rupert", "sybil", "trent", "victor", "walter",
         "yusuf", "zoe", "anna", "boris", "chen", "dmitri", "elena", "fatima", "goran", "hana"]
LAST = ["smith", "jones", "muller", "garcia", "kowalski", "nguyen", "ivanova", "rossi",
        "dubois", "tanaka", "okafor", "larsen", "silva", "novak", "ahmed", "weber"]
DOMAINS = ["uni.example.edu", "cs.uni.example.edu", "example.org", "mail.example.com",
           "students.uni.example.edu", "lists.example.net"]
SUBJ = ["meeting", "agenda", "exam", "grades", "thesis", "draft", "review", "lecture",
        "seminar", "budget", "travel", "reimbursement", "lab", "server", "outage", "deadline",
        "proposal", "committee", "minutes", "schedule", "room", "booking", "paper", "submission",
        "library", "account", "password", "reminder", "invitation", "workshop", "notes",
        "slides", "homework", "project", "update", "question", "report", "funding", "visit"]
BODY = SUBJ + ["the", "and", "for", "with", "please", "find", "attached", "regarding", "next",
               "week", "thanks", "best", "regards", "could", "you", "send", "me", "by", "friday",
               "monday", "tomorrow", "office", "hours", "students", "course", "department",
               "we", "will", "discuss", "results", "data", "analysis", "version", "final",
               "comments", "change", "time", "also", "note", "that", "is", "are", "in", "on"]
RU_WORDS = ["привет", "встреча", "отчёт", "письмо", "завтра", "спасибо", "экзамен", "лекция"]
LATIN1_WORDS = ["réunion", "café", "über", "größe", "señor", "niño", "façade", "crème"]


def pick_size(rng):
    p = rng.random()
    if p < 0.76:
        return rng.randint(700, 4095)
    if p < 0.90:
        return rng.randint(4096, 8191)
    if p < 0.93:
        return rng.randint(8192, 16383)
    if p < 0.95:
        return rng.randint(16384, 32767)
    return int(math.exp(rng.uniform(math.log(32768), math.log(1 << 20))))


def address(rng):
    f, l = rng.choice(FIRST), rng.choice(LAST)
    return f"{f.capitalize()} {l.capitalize()}", f"{f}.{l}@{rng.choice(DOMAINS)}"


def fmt_addr(rng):
    name, addr = address(rng)
    return f'"{name}" <{addr}>' if rng.random() < 0.3 else f"{name} <{addr}>"


def text_lines(rng, nbytes, words=BODY):
    """Plain text of about nbytes, lines under 78 chars, never starting with '.'."""
    out, line, total = [], [], 0
    while total < nbytes:
        w = rng.choice(words)
        if sum(len(x) + 1 for x in line) + len(w) > 72:
            s = " ".join(line)
            out.append(s)
            total += len(s) + 2
            line = []
        line.append(w)
    if line:
        out.append(" ".join(line))
    return out


def encode_subject(text, charset, rng):
    raw = text.encode(charset)
    if charset == "koi8-r" or rng.random() < 0.5:
        return f"=?{charset}?B?{base64.b64encode(raw).decode()}?="
    q = "".join(chr(b) if (48 <= b <= 57 or 65 <= b <= 90 or 97 <= b <= 122) else
                ("_" if b == 32 else f"={b:02X}") for b in raw)
    return f"=?{charset}?Q?{q}?="


class Threads:
    """Remembers recent Message-IDs so that some messages reply to earlier ones."""

    def __init__(self):
        self.recent = []

    def headers(self, rng, mid):
        h = []
        if self.recent and rng.random() < 0.3:
            parent, refs = rng.choice(self.recent)
            h.append(f"In-Reply-To: {parent}")
            chain = (refs + [parent])[-8:]
            h.append("References: " + "\r\n ".join(chain))
            self.recent.append((mid, chain))
        else:
            self.recent.append((mid, []))
        self.recent = self.recent[-200:]
        return h


def make_message(i, rng, threads, base_time, seed=0):
    """Returns (bytes, body_words, subject_words)."""
    size = pick_size(rng)
    body_words = [w for w, (pb, _) in PLANTED.items() if pb and rng.random() < pb]
    late = random.Random(seed * 1_000_003 + i)
    late_words = [w for w, pb in PLANTED_LATE.items() if late.random() < pb]
    subj_words = [w for w, (_, ps) in PLANTED.items() if ps and rng.random() < ps]
    kind = rng.random()
    charset = "utf-8"
    if kind < 0.02:
        charset = "koi8-r"
    elif kind < 0.04:
        charset = "iso-8859-1"
    multipart_alt = rng.random() < 0.20
    attachment = size > 6000 and rng.random() < 0.35 or size > 100000 and rng.random() < 0.8

    subject_plain = " ".join(rng.choice(SUBJ) for _ in range(rng.randint(2, 6)))
    if charset == "koi8-r":
        subject_plain = rng.choice(RU_WORDS) + " " + subject_plain
    elif charset == "iso-8859-1":
        subject_plain = rng.choice(LATIN1_WORDS) + " " + subject_plain
    for w in subj_words:
        subject_plain += " " + w
    if charset != "utf-8":
        subject = encode_subject(subject_plain, charset, rng)
    else:
        subject = subject_plain
    if rng.random() < 0.25:
        subject = "Re: " + subject

    mid = f"<{i}.{rng.getrandbits(48):012x}@{rng.choice(DOMAINS)}>"
    date = email.utils.formatdate(base_time + i * 37 + rng.randint(0, 30), localtime=False)
    hdr = [
        f"Return-Path: <{address(rng)[1]}>",
        f"Received: from mx{rng.randint(1, 9)}.{rng.choice(DOMAINS)} (mx [192.0.2.{rng.randint(1, 250)}])"
        f"\r\n\tby store.uni.example.edu with ESMTPS id {rng.getrandbits(40):010x}; {date}",
        f"From: {fmt_addr(rng)}",
        "To: " + ", ".join(fmt_addr(rng) for _ in range(rng.randint(1, 3))),
    ]
    if rng.random() < 0.3:
        hdr.append("Cc: " + ", ".join(fmt_addr(rng) for _ in range(rng.randint(1, 4))))
    hdr += [f"Subject: {subject}", f"Date: {date}", f"Message-ID: {mid}"]
    hdr += threads.headers(rng, mid)
    hdr.append("MIME-Version: 1.0")
    if rng.random() < 0.5:
        hdr.append(f"User-Agent: Mozilla/5.0 Thunderbird/{rng.randint(60, 115)}.0")

    head_len = sum(len(h) + 2 for h in hdr) + 300
    text_budget = max(200, (size - head_len) if not attachment else min(size - head_len, rng.randint(300, 3000)))
    if multipart_alt:
        text_budget //= 2
    words = BODY
    if charset == "koi8-r":
        words = BODY + RU_WORDS
    elif charset == "iso-8859-1":
        words = BODY + LATIN1_WORDS
    lines = text_lines(rng, text_budget, words)
    for w in body_words:
        lines.insert(rng.randint(0, len(lines)), f"see also {w} for details")
    for w in late_words:
        lines.insert(late.randint(0, len(lines)), f"ask about {w} first")
    body_words = body_words + late_words
    text = "\r\n".join(lines) + "\r\n"
    text_bytes = text.encode(charset)
    cte = "8bit" if charset != "utf-8" or any(ord(c) > 127 for c in text) else "7bit"

    def text_part():
        return (f"Content-Type: text/plain; charset={charset}\r\n"
                f"Content-Transfer-Encoding: {cte}\r\n\r\n").encode() + text_bytes

    def html_part():
        html = "<html><body>\r\n" + "".join(f"<p>{l}</p>\r\n" for l in lines) + "</body></html>\r\n"
        return (f"Content-Type: text/html; charset={charset}\r\n"
                f"Content-Transfer-Encoding: {cte}\r\n\r\n").encode() + html.encode(charset)

    b1 = f"=_alt_{i}_{rng.getrandbits(32):08x}"
    b2 = f"=_mix_{i}_{rng.getrandbits(32):08x}"
    if multipart_alt:
        body_part = (f"Content-Type: multipart/alternative; boundary=\"{b1}\"\r\n\r\n").encode() + \
            f"--{b1}\r\n".encode() + text_part() + f"\r\n--{b1}\r\n".encode() + html_part() + \
            f"\r\n--{b1}--\r\n".encode()
    else:
        body_part = text_part()

    if attachment:
        head = "\r\n".join(hdr).encode() + b"\r\n"
        have = len(head) + len(body_part) + 200
        raw_len = max(100, int((size - have) * 3 / 4))
        data = rng.randbytes(raw_len)
        b64 = base64.b64encode(data).decode()
        b64 = "\r\n".join(b64[k:k + 76] for k in range(0, len(b64), 76))
        name = rng.choice(["report", "slides", "scan", "photo", "data", "thesis"]) + \
            rng.choice([".pdf", ".png", ".jpg", ".zip", ".docx"])
        att = (f"Content-Type: application/octet-stream; name=\"{name}\"\r\n"
               f"Content-Disposition: attachment; filename=\"{name}\"\r\n"
               f"Content-Transfer-Encoding: base64\r\n\r\n{b64}\r\n").encode()
        msg = head + f"Content-Type: multipart/mixed; boundary=\"{b2}\"\r\n\r\n".encode() + \
            b"This is a multi-part message in MIME format.\r\n" + \
            f"--{b2}\r\n".encode() + body_part + f"\r\n--{b2}\r\n".encode() + att + \
            f"--{b2}--\r\n".encode()
    else:
        if multipart_alt:
            msg = "\r\n".join(hdr).encode() + b"\r\n" + body_part
        else:
            msg = "\r\n".join(hdr).encode() + b"\r\n" + text_part()
    return msg, body_words, subj_words


def generate(out, n, seed):
    rng = random.Random(seed)
    threads = Threads()
    base_time = 1700000000
    tmp = tempfile.mkdtemp(prefix=".corpus-", dir=os.path.dirname(os.path.abspath(out)) or ".")
    body_hits = {w: [] for w in list(PLANTED) + list(PLANTED_LATE)}
    subj_hits = {w: [] for w in body_hits}
    total = 0
    buckets = [4096, 8192, 16384, 32768, 1 << 20]
    counts = [0] * len(buckets)
    with open(os.path.join(tmp, "messages.bin"), "wb") as mb, \
            open(os.path.join(tmp, "index.tsv"), "w") as ix:
        for i in range(n):
            msg, bw, sw = make_message(i, rng, threads, base_time, seed)
            assert b"\r\n." not in msg and not msg.startswith(b".")
            assert b"\n" not in msg.replace(b"\r\n", b"")
            ix.write(f"{total}\t{len(msg)}\n")
            mb.write(msg)
            total += len(msg)
            for w in bw:
                body_hits[w].append(i)
            for w in sw:
                subj_hits[w].append(i)
            for k, b in enumerate(buckets):
                if len(msg) < b or k == len(buckets) - 1:
                    counts[k] += 1
                    break
    with open(os.path.join(tmp, "manifest.txt"), "w") as mf:
        mf.write(f"version {GENERATOR_VERSION}\nseed {seed}\nmessages {n}\nbytes {total}\n")
        for w in body_hits:
            mf.write(f"word {w} body {','.join(map(str, body_hits[w])) or '-'}\n")
            mf.write(f"word {w} subject {','.join(map(str, subj_hits[w])) or '-'}\n")
    with open(os.path.join(tmp, "sizes.txt"), "w") as sf:
        cum = 0
        for b, c in zip(buckets, counts):
            cum += c
            sf.write(f"< {b // 1024} KiB\t{100.0 * cum / max(1, n):.1f}%\n")
        sf.write(f"average\t{total / max(1, n):.0f} bytes\n")
    if os.path.exists(out):
        shutil.rmtree(out)
    os.rename(tmp, out)


def read_manifest(d):
    words = {}
    meta = {}
    with open(os.path.join(d, "manifest.txt")) as mf:
        for line in mf:
            parts = line.split()
            if parts[0] == "word":
                ids = [] if parts[3] == "-" else [int(x) for x in parts[3].split(",")]
                words.setdefault(parts[1], {})[parts[2]] = ids
            else:
                meta[parts[0]] = int(parts[1])
    return meta, words


def check(d):
    """Re-derive the manifest by scanning the files; raise on any difference."""
    meta, words = read_manifest(d)
    data = open(os.path.join(d, "messages.bin"), "rb").read()
    index = [tuple(map(int, l.split())) for l in open(os.path.join(d, "index.tsv"))]
    assert len(index) == meta["messages"], "index length"
    assert len(data) == meta["bytes"], "byte count"
    found_body = {w: [] for w in words}
    found_subj = {w: [] for w in words}
    for i, (off, size) in enumerate(index):
        m = data[off:off + size]
        head, _, body = m.partition(b"\r\n\r\n")
        subj = b""
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"subject:"):
                subj = line
        dec = str(email.header.make_header(email.header.decode_header(subj[8:].decode()))).lower()
        for w in words:
            if w.encode() in body:
                found_body[w].append(i)
            if w in dec:
                found_subj[w].append(i)
            assert w.encode() not in head.replace(subj, b""), f"{w} in other header of {i}"
    for w in words:
        assert found_body[w] == words[w]["body"], f"body hits of {w}"
        assert found_subj[w] == words[w]["subject"], f"subject hits of {w}"
    return meta


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--messages", type=int, required=True)
    ap.add_argument("--seed", type=int, default=20240611)
    ap.add_argument("--check", action="store_true", help="verify the manifest after writing")
    a = ap.parse_args()
    stamp = os.path.join(a.out, "manifest.txt")
    want = f"version {GENERATOR_VERSION}\nseed {a.seed}\nmessages {a.messages}\n"
    if not (os.path.exists(stamp) and open(stamp).read().startswith(want)):
        generate(a.out, a.messages, a.seed)
    if a.check:
        meta = check(a.out)
        print(f"gen_corpus: {meta['messages']} messages, {meta['bytes']} bytes, manifest verified")
    return 0


if __name__ == "__main__":
    sys.exit(main())
