"""Issue 6's done-when: mbsync copies a 10,000-message mailbox out of dariusd into a Maildir
and back into a new server mailbox, and the copy matches the source byte for byte and flag
for flag (and INTERNALDATE for INTERNALDATE, with CopyArrivalDate). The source is filled with
MULTIAPPEND (RFC 3502) in batches of 500 with LITERAL+: one staged-and-committed batch per
command, the fastest way in. Each phase's time goes to stderr; speed itself is measured in
bench/, so the only bound here is ctest's timeout."""
import imaplib
import os
import shutil
import sys
import tempfile
import time
import unittest

from darius_harness import Instance
from imap_raw import RawImap
from real_clients import fetch_all, imap, mbsync, mbsync_config, read_maildir, require, strip_tuid

USER, PASSWORD = "mass", "mass-pw"
COUNT = 10_000
BATCH = 500
SYSTEM_FLAGS = ["\\Seen", "\\Answered", "\\Flagged", "\\Draft", "\\Deleted"]


def flags_of(i):
    """Every combination of the five flags mbsync carries (all 32 of them, \\Deleted too)."""
    return [f for bit, f in enumerate(SYSTEM_FLAGS) if (i >> bit) & 1]


def message_of(i):
    """Unique Message-ID, sizes from 200 bytes to ~60 KB, plain and multipart, 8-bit text,
    long lines and trailing blanks: whatever a byte-for-byte check could trip over."""
    head = (f"From: Sender {i} <s{i}@example.com>\r\nTo: mass@example.com\r\n"
            f"Subject: bulk message {i} \u00fcber alles\r\n"
            f"Date: Mon, 1 Jan 2024 00:{i % 60:02d}:00 +0000\r\n"
            f"Message-ID: <bulk-{i}@example.com>\r\nMIME-Version: 1.0\r\n")
    lines = "".join(f"line {j} of {i}: {'x' * ((i * 7 + j) % 90)} \r\n" for j in range(i % 50))
    if i % 997 == 0:
        lines += ("y" * 998 + "\r\n") * 60                   # a big one with 998-octet lines
    if i % 5 == 0:
        body = (f'Content-Type: multipart/mixed; boundary="b{i}"\r\n\r\npreamble\r\n'
                f"--b{i}\r\nContent-Type: text/plain; charset=utf-8\r\n"
                f"Content-Transfer-Encoding: 8bit\r\n\r\nh\u00e9llo {i}\r\n{lines}"
                f"--b{i}\r\nContent-Type: application/octet-stream\r\n"
                f"Content-Transfer-Encoding: base64\r\n\r\nAAECAwQFBgcICQ==\r\n--b{i}--\r\n")
    else:
        body = f"Content-Type: text/plain; charset=utf-8\r\n\r\nbody {i}\r\n{lines}"
    return (head + body).encode()


def log(what, seconds):
    print(f"[10k] {what}: {seconds:.1f} s", file=sys.stderr, flush=True)


class MbsyncTenThousandTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require("mbsync")
        t = time.monotonic()
        cls.inst = Instance(user=f"{USER}:{PASSWORD}")
        cls.inst.start()
        # The Maildir is the client's side and a throwaway: on tmpfs when there is one, so
        # neither mbsync's fsyncs nor unlinking 10,000 files at the end load the disk the
        # server under test writes to.
        shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
        cls.tmp = tempfile.mkdtemp(prefix="darius-10k-", dir=shm)
        log("darius init and start", time.monotonic() - t)

    @classmethod
    def tearDownClass(cls):
        t = time.monotonic()
        cls.inst.stop()
        log("dariusd stop", time.monotonic() - t)
        cls.inst.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)
        log("stop and clean up", time.monotonic() - t)

    def fill(self, mailbox):
        r = RawImap(self.inst.port("imap"), timeout=300)
        self.addCleanup(r.close)
        r.login(USER, PASSWORD)
        r.ok(f"CREATE {mailbox}")
        for start in range(0, COUNT, BATCH):
            parts = [f"APPEND {mailbox}".encode()]
            for i in range(start, min(COUNT, start + BATCH)):
                body = message_of(i)
                date = time.strftime("%d-%b-%Y %H:%M:%S +0000",
                                     time.gmtime(1_600_000_000 + i * 3671))
                parts.append(f' ({" ".join(flags_of(i))}) "{date}" {{{len(body)}+}}\r\n'
                             .encode() + body)
            tag = r.next_tag()
            r.send(tag.encode() + b" " + b"".join(parts) + b"\r\n")
            _, tagged = r.collect(tag, timeout=300)
            self.assertIn(b" OK ", tagged)

    def by_message_id(self, mailbox_contents):
        out = {}
        for uid, (flags, date, body) in mailbox_contents.items():
            mid = body.split(b"Message-ID: <", 1)[1].split(b">", 1)[0]
            self.assertNotIn(mid, out)
            out[mid] = (flags, imaplib.Internaldate2tuple(b'INTERNALDATE "' + date.encode()
                                                          + b'"'), body)
        return out

    def test_out_and_back_byte_for_byte(self):
        t0 = time.monotonic()
        self.fill("Src")
        log(f"fill {COUNT} messages with MULTIAPPEND", time.monotonic() - t0)

        m = imap(self.inst, USER, PASSWORD)
        self.addCleanup(m.logout)
        src = fetch_all(m, "Src")
        self.assertEqual(len(src), COUNT)
        for uid, (flags, _, body) in src.items():   # the server kept what was appended
            self.assertEqual(body, message_of(uid - 1), uid)
            self.assertEqual(flags, tuple(sorted(flags_of(uid - 1))), uid)

        maildir = os.path.join(self.tmp, "Mail")
        os.makedirs(maildir)
        config = os.path.join(self.tmp, "mbsyncrc")
        common = ["Expunge None", "Remove None", "CopyArrivalDate yes"]
        # FSync no: mbsync fsyncs each Maildir file twice (measured: 60 s for 10,000 on this
        # machine's disk, more than the whole IMAP side); the Maildir is a throwaway.
        mbsync_config(config, self.inst, USER, PASSWORD, maildir, fsync=False, channels=[
            {"name": "out", "far": "Src", "near": "Box", "state": os.path.join(self.tmp, "so"),
             "options": ["Sync Pull", "Create Near"] + common},
            {"name": "back", "far": "Dst", "near": "Box", "state": os.path.join(self.tmp, "sb"),
             "options": ["Sync Push", "Create Far"] + common}])

        t1 = time.monotonic()
        mbsync(config, "out", timeout=600)
        out_s = time.monotonic() - t1
        log("mbsync server -> Maildir", out_s)

        local = read_maildir(os.path.join(maildir, "Box"))
        self.assertEqual(len(local), COUNT)
        for name, (flags, body) in local.items():
            uid = int(name.split(",U=", 1)[1].split(":", 1)[0])
            self.assertEqual(flags, src[uid][0], name)
            self.assertEqual(strip_tuid(body), src[uid][2].replace(b"\r\n", b"\n"), name)

        t2 = time.monotonic()
        mbsync(config, "back", timeout=600)
        back_s = time.monotonic() - t2
        log("mbsync Maildir -> new server mailbox", back_s)
        log("round trip (out + back)", out_s + back_s)

        dst = fetch_all(m, "Dst")
        self.assertEqual(len(dst), COUNT)
        want = self.by_message_id(src)
        got = self.by_message_id(dst)
        self.assertEqual(set(got), set(want))
        for mid, (flags, date, body) in want.items():
            gflags, gdate, gbody = got[mid]
            self.assertEqual(gflags, flags, mid)
            self.assertEqual(strip_tuid(gbody), body, mid)
            self.assertEqual(time.mktime(gdate), time.mktime(date), mid)
        log("whole test", time.monotonic() - t0)


if __name__ == "__main__":
    unittest.main()
