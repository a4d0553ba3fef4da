"""What an outside compliance run found (issue 16), each against the real dariusd over raw
IMAP, so the bytes on the wire are what is checked:

- APPEND with a literal8 holding NULs is stored as sent, BINARY[] gives it back exactly in a
  literal8, and BODY[] (which may not carry a NUL, RFC 9051 §4.3) sends each NUL as 0x80;
- the first CONDSTORE enabling command in a selected mailbox brings OK [HIGHESTMODSEQ]
  (RFC 7162 §3.1);
- BINARY of a base64 part that decodes to bare CR and LF is those bytes, not line-normalised;
- EXAMINE and STATUS show as recent the messages no session has claimed, without claiming
  them; the next SELECT claims them, and only it (RFC 3501 §2.3.2, §6.3.2);
- a keyword another session created is announced with FLAGS and PERMANENTFLAGS before a
  FETCH shows it, and so is one the session's own STORE creates (RFC 9051 §7.3.5).
"""
import re
import unittest

from darius_harness import Instance
from imap_raw import RawImap

CRLF = b"\r\n"
BINARY_MESSAGE = CRLF.join([
    b"From: bin@example.org",
    b"Subject: binary",
    b"MIME-Version: 1.0",
    b'Content-Type: multipart/mixed; boundary="b"',
    b"",
    b"--b",
    b"Content-Type: text/plain",
    b"",
    b"text part",
    b"--b",
    b"Content-Type: application/octet-stream",
    b"Content-Transfer-Encoding: binary",
    b"",
    b"\x00\x01\x02 nul\x00 and a bare\nLF",
    b"--b--",
    b"",
])
BASE64_CR = CRLF.join([
    b"From: b64@example.org",
    b"Subject: base64 with bare CR and LF",
    b"MIME-Version: 1.0",
    b"Content-Type: text/plain; charset=us-ascii",
    b"Content-Transfer-Encoding: base64",
    b"",
    b"YWJjZGVmZw1oaWprbA0KbW5vCnBxcnN0dXZxeHl6",
    b"",
])


def simple(subject):
    return CRLF.join([b"From: a@example.org", b"Subject: " + subject, b"", b"body", b""])


class ConformanceTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.inst = Instance()
        cls.inst.start()

    @classmethod
    def tearDownClass(cls):
        cls.inst.stop()
        cls.inst.close()

    def client(self):
        c = RawImap(self.inst.port("imap"))
        c.login("alice", "alice-secret")
        self.addCleanup(c.close)
        return c

    def create(self, c, name):
        c.ok(f"CREATE {name}")

    def append(self, c, box, message, binary=False, flags=""):
        tag = c.next_tag()
        prefix = "~" if binary else ""
        flags = f" ({flags})" if flags else ""
        c.send(f"{tag} APPEND {box}{flags} {prefix}{{{len(message)}+}}\r\n".encode() + message + CRLF)
        untagged, tagged = c.collect(tag)
        self.assertTrue(tagged.startswith(f"{tag} OK".encode()), tagged)
        return int(re.search(rb"APPENDUID \d+ (\d+)", tagged).group(1))

    # --- 1. literal8 ---

    def test_append_literal8_with_nul_is_stored_as_sent(self):
        c = self.client()
        self.create(c, "Bin")
        uid = self.append(c, "Bin", BINARY_MESSAGE, binary=True)
        c.ok("SELECT Bin")
        untagged, _ = c.ok(f"UID FETCH {uid} (RFC822.SIZE BINARY.PEEK[] BINARY.SIZE[2] BINARY.PEEK[2])")
        raw = b"\r\n".join(untagged)
        self.assertIn(f"RFC822.SIZE {len(BINARY_MESSAGE)}".encode(), raw)
        # The whole message and the binary part, exact, in literal8s.
        self.assertIn(b"BINARY[] ~{%d}\r\n" % len(BINARY_MESSAGE) + BINARY_MESSAGE, raw)
        part = b"\x00\x01\x02 nul\x00 and a bare\nLF"
        self.assertIn(b"BINARY.SIZE[2] %d" % len(part), raw)
        self.assertIn(b"BINARY[2] ~{%d}\r\n" % len(part) + part, raw)
        # BODY[] keeps the size and every other byte; NUL travels as 0x80.
        untagged, _ = c.ok(f"UID FETCH {uid} (BODY.PEEK[])")
        body = b"\r\n".join(untagged)
        self.assertIn(b"BODY[] {%d}\r\n" % len(BINARY_MESSAGE) + BINARY_MESSAGE.replace(b"\x00", b"\x80"), body)
        self.assertNotIn(b"\x00", body)

    def test_a_nul_in_a_plain_literal_is_still_refused(self):
        c = self.client()
        untagged, tagged = c.command(b"APPEND INBOX {3+}\r\na\x00b")
        self.assertIn(b"BAD", tagged)
        c.ok("NOOP")  # the session goes on

    # --- 2. CONDSTORE enabled inside a selected mailbox ---

    def test_first_condstore_command_sends_highestmodseq(self):
        c = self.client()
        self.create(c, "Cond")
        self.append(c, "Cond", simple(b"one"))
        self.append(c, "Cond", simple(b"two"))
        untagged, _ = c.ok("SELECT Cond")
        modseq = int(re.search(rb"HIGHESTMODSEQ (\d+)", b" ".join(untagged)).group(1))
        untagged, _ = c.ok("FETCH 1 (MODSEQ)")
        self.assertEqual(untagged[0], b"* OK [HIGHESTMODSEQ %d] Highest" % modseq, untagged)
        self.assertTrue(untagged[1].startswith(b"* 1 FETCH ("), untagged)
        # Only the first enabling command does.
        untagged, _ = c.ok("FETCH 2 (MODSEQ)")
        self.assertFalse(any(b"HIGHESTMODSEQ" in u for u in untagged), untagged)
        # SEARCH MODSEQ is one too, in a session of its own.
        d = self.client()
        d.ok("SELECT Cond")
        untagged, _ = d.ok("SEARCH MODSEQ 1")
        self.assertIn(b"* OK [HIGHESTMODSEQ %d] Highest" % modseq, untagged)

    def test_highestmodseq_never_runs_ahead_of_what_the_session_was_told(self):
        c = self.client()
        self.create(c, "Ahead")
        self.append(c, "Ahead", simple(b"one"))
        c.ok("SELECT Ahead")
        other = self.client()
        other.ok("SELECT Ahead")
        other.ok("STORE 1 +FLAGS (\\Deleted)")
        other.ok("EXPUNGE")
        # A FETCH by number learns of the expunge (the session refreshes after it) but must
        # hold it back; the next one is the first CONDSTORE enabling command.
        untagged, _ = c.ok("FETCH 1 (FLAGS)")
        self.assertFalse(any(b"EXPUNGE" in u for u in untagged))
        untagged, _ = c.ok("FETCH 1 (MODSEQ)")
        told = int(re.search(rb"HIGHESTMODSEQ (\d+)", b" ".join(untagged)).group(1))
        self.assertFalse(any(b"EXPUNGE" in u for u in untagged))
        untagged, _ = c.ok("NOOP")
        self.assertIn(b"* 1 EXPUNGE", untagged)
        status, _ = other.ok("STATUS Ahead (HIGHESTMODSEQ)")
        latest = int(re.search(rb"HIGHESTMODSEQ (\d+)", status[0]).group(1))
        self.assertLess(told, latest, "the expunge's modseq was not yet the client's")

    # --- 3. BINARY of base64 with bare CR and LF ---

    def test_binary_of_base64_keeps_bare_cr_and_lf(self):
        c = self.client()
        self.create(c, "B64")
        uid = self.append(c, "B64", BASE64_CR)
        c.ok("SELECT B64")
        untagged, _ = c.ok(f"UID FETCH {uid} (BINARY.SIZE[1] BINARY.PEEK[1] BINARY.PEEK[1]<10.10>)")
        raw = b"\r\n".join(untagged)
        want = b"abcdefg\rhijkl\r\nmno\npqrstuvqxyz"
        self.assertEqual(len(want), 30)
        self.assertIn(b"BINARY.SIZE[1] 30", raw)
        self.assertIn(b"BINARY[1] {30}\r\n" + want, raw)
        self.assertIn(b"BINARY[1]<10> {10}\r\n" + want[10:20], raw)

    # --- 5. \Recent for EXAMINE and STATUS ---

    def test_examine_and_status_show_unclaimed_messages_as_recent(self):
        appender = self.client()
        self.create(appender, "Rec")
        self.append(appender, "Rec", simple(b"one"))
        self.append(appender, "Rec", simple(b"two"))
        looker = self.client()
        untagged, _ = looker.ok("STATUS Rec (RECENT MESSAGES)")
        self.assertIn(b"(RECENT 2 MESSAGES 2)", untagged[0])
        untagged, _ = looker.ok("EXAMINE Rec")
        self.assertIn(b"* 2 RECENT", untagged)
        untagged, _ = looker.ok("FETCH 1:2 (FLAGS)")
        self.assertTrue(all(b"\\Recent" in u for u in untagged), untagged)
        looker.ok("CLOSE")
        # EXAMINE claimed nothing: the first SELECT gets both, the next none.
        first = self.client()
        untagged, _ = first.ok("SELECT Rec")
        self.assertIn(b"* 2 RECENT", untagged)
        second = self.client()
        untagged, _ = second.ok("SELECT Rec")
        self.assertIn(b"* 0 RECENT", untagged)
        untagged, _ = looker.ok("STATUS Rec (RECENT)")
        self.assertIn(b"(RECENT 0)", untagged[0])

    # --- 6. keywords are announced before a FETCH shows them ---

    def test_keywords_are_announced_before_they_are_shown(self):
        a = self.client()
        self.create(a, "Kw")
        self.append(a, "Kw", simple(b"one"))
        a.ok("SELECT Kw")
        b = self.client()
        b.ok("SELECT Kw")
        # The session's own STORE creates the keyword: FLAGS first, then the FETCH.
        untagged, _ = a.ok("STORE 1 +FLAGS ($Label4)")
        flags = [i for i, u in enumerate(untagged) if u.startswith(b"* FLAGS (") and b"$Label4" in u]
        perm = [i for i, u in enumerate(untagged) if b"PERMANENTFLAGS (" in u and b"$Label4" in u]
        fetch = [i for i, u in enumerate(untagged) if b"FETCH" in u and b"$Label4" in u]
        self.assertTrue(flags and perm and fetch, untagged)
        self.assertLess(max(flags[0], perm[0]), fetch[0], untagged)
        # The other session learns of it before its first FETCH that shows it.
        for command in ("FETCH 1 (FLAGS)", "NOOP"):
            untagged, _ = b.ok(command)
            seen = [i for i, u in enumerate(untagged) if b"FETCH" in u and b"$Label4" in u]
            if seen:
                announced = [i for i, u in enumerate(untagged) if u.startswith(b"* FLAGS (") and b"$Label4" in u]
                self.assertTrue(announced and announced[0] < seen[0], untagged)
                break
        else:
            self.fail("the other session never saw $Label4")


if __name__ == "__main__":
    unittest.main()
