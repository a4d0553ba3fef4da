"""Sorted contexts (RFC 5267 §4.3, CONTEXT=SORT) and ESORT with PARTIAL (RFC 9394) against
the real dariusd.

A raw client keeps a SORT RETURN (UPDATE) context while imaplib, in a second session, APPENDs
matching and non-matching messages, changes \\Seen and expunges. Every ADDTO and REMOVEFROM
carries positions in the sort order; the test applies them, pair by pair and in order, to
the list it got from the SORT (as RFC 5267 §4.3.2 tells a client to) and checks the list
equals what a fresh SORT answers, for UID and sequence-number contexts, several keys and
REVERSE. Also: ADDTO after EXISTS and REMOVEFROM before EXPUNGE, CANCELUPDATE, tag reuse
across SEARCH and SORT, contexts ending with the selection, and ESORT's PARTIAL counting
positions in sort order from either end."""
import imaplib
import re
import unittest

import context_case

CRLF = b"\r\n"


def msg(subject, size=1):
    return CRLF.join([b"From: a@example.com", b"To: b@example.com",
                      b"Subject: " + subject.encode(), b"", b"x" * size]) + CRLF


def expand(seqset):
    """A sequence-set in its written order: "5,1:3" -> [5, 1, 2, 3]."""
    out = []
    for part in seqset.split(","):
        if ":" in part:
            a, b = (int(x) for x in part.split(":"))
            out.extend(range(a, b + 1) if a <= b else range(a, b - 1, -1))
        else:
            out.append(int(part))
    return out


def apply_updates(result, line):
    """Applies one ESEARCH line's REMOVEFROM / ADDTO items to `result` (a list) in order."""
    for kind, payload in re.findall(rb"(ADDTO|REMOVEFROM) \(([^)]*)\)", line):
        words = payload.decode().split()
        for pos, seqset in zip(words[0::2], words[1::2]):
            pos = int(pos)
            numbers = expand(seqset)
            if kind == b"ADDTO":
                assert pos >= 1, line  # a SORT context never uses position 0
                result[pos - 1:pos - 1] = numbers
            else:
                assert pos >= 1 and result[pos - 1:pos - 1 + len(numbers)] == numbers, \
                    (line, result)
                del result[pos - 1:pos - 1 + len(numbers)]
    return result


class ContextSortTest(context_case.ContextCase):
    box_prefix = "sctx"

    def append(self, m, box, subject, size=1):
        flags = r"(\Seen)" if subject.startswith("!") else None
        typ, dat = m.append(box, flags, None, msg(subject.lstrip("!"), size))
        self.assertEqual(typ, "OK", dat)

    def start(self, a, box, command):
        """SELECTs `box` and runs `command` (a SORT with UPDATE); (tag, the ALL list)."""
        a.ok("SELECT " + box)
        tag = a.next_tag()
        a.send(f"{tag} {command}\r\n")
        untagged, tagged = a.collect(tag)
        self.assertTrue(tagged.startswith(f"{tag} OK".encode()), tagged)
        lines = self.lines_for(untagged, tag)
        self.assertEqual(len(lines), 1, untagged)
        found = re.search(rb" ALL (\S+)$", lines[0])
        return tag, (expand(found.group(1).decode()) if found else [])

    @staticmethod
    def lines_for(untagged, tag):
        prefix = f'* ESEARCH (TAG "{tag}")'.encode()
        return [u for u in untagged if u.startswith(prefix)]

    def follow(self, a, tag, result, by_uid=True):
        """NOOP; applies this context's updates to `result` in the order they come, and for
        a sequence-number context renumbers it at each EXPUNGE; returns the untagged lines."""
        untagged, _ = a.ok("NOOP")
        prefix = f'* ESEARCH (TAG "{tag}")'.encode()
        for line in untagged:
            if line.startswith(prefix):
                apply_updates(result, line)
            elif not by_uid and line.endswith(b" EXPUNGE"):
                gone = int(line.split()[1])
                self.assertNotIn(gone, result, "REMOVEFROM must come before the EXPUNGE")
                result[:] = [n - 1 if n > gone else n for n in result]
        return untagged

    def sorted_now(self, a, command):
        untagged, _ = a.ok(command)
        line = [u for u in untagged if u.startswith(b"* SORT")][0]
        return [int(x) for x in line.split()[2:]]

    def test_uid_context_keeps_the_sort_order(self):
        m = self.imap()
        box = self.fresh(m, ["bravo", "delta", "foxtrot"])
        m.select(box)
        a = self.raw()
        tag, result = self.start(a, box, "UID SORT RETURN (UPDATE) (SUBJECT) UTF-8 UNSEEN")
        self.assertEqual(result, [1, 2, 3])
        fresh = "UID SORT (SUBJECT) UTF-8 UNSEEN"

        # "charlie" goes between bravo and delta: ADDTO (2 4), after its EXISTS.
        self.append(m, box, "charlie")
        untagged = self.follow(a, tag, result)
        self.assertIn(f'* ESEARCH (TAG "{tag}") UID ADDTO (2 4)'.encode(), untagged)
        self.assertLess(untagged.index(b"* 4 EXISTS"),
                        untagged.index(f'* ESEARCH (TAG "{tag}") UID ADDTO (2 4)'.encode()))
        self.assertEqual(result, self.sorted_now(a, fresh))

        # "alpha" first; a \Seen "zulu" not at all.
        self.append(m, box, "alpha")
        self.append(m, box, "!zulu")
        untagged = self.follow(a, tag, result)
        self.assertIn(f'* ESEARCH (TAG "{tag}") UID ADDTO (1 5)'.encode(), untagged)
        self.assertEqual(result, [5, 1, 4, 2, 3])

        # delta (UID 2, 4th) seen: REMOVEFROM (4 2); zulu unseen: last.
        m.uid("STORE", "2", "+FLAGS", r"(\Seen)")
        m.uid("STORE", "6", "-FLAGS", r"(\Seen)")
        untagged = self.follow(a, tag, result)
        self.assertIn(f'* ESEARCH (TAG "{tag}") UID REMOVEFROM (4 2) ADDTO (5 6)'.encode(),
                      untagged)
        self.assertEqual(result, self.sorted_now(a, fresh))

        # bravo (UID 1, 2nd) expunged: REMOVEFROM (2 1) before the EXPUNGE.
        m.uid("STORE", "1", "+FLAGS", r"(\Deleted)")
        self.assertEqual(m.expunge()[0], "OK")
        untagged = self.follow(a, tag, result)
        remove = untagged.index(f'* ESEARCH (TAG "{tag}") UID REMOVEFROM (2 1)'.encode())
        self.assertLess(remove, untagged.index(b"* 1 EXPUNGE"))
        self.assertEqual(result, self.sorted_now(a, fresh))

        # CANCELUPDATE: silence.
        a.ok(f'CANCELUPDATE "{tag}"')
        self.append(m, box, "aardvark")
        self.assertEqual(self.lines_for(self.follow(a, tag, []), tag), [])

    def test_sequence_context_with_several_keys_follows_many_changes(self):
        m = self.imap()
        subjects = ["m", "c", "x", "c", "a", "m"]
        box = self.fresh(m, subjects)
        m.select(box)
        a = self.raw()
        command = "SORT (REVERSE SUBJECT SIZE) UTF-8 UNSEEN"
        tag, result = self.start(a, box, "SORT RETURN (UPDATE) (REVERSE SUBJECT SIZE) UTF-8 "
                                         "UNSEEN")
        self.assertEqual(result, self.sorted_now(a, command))
        # Rounds of appends (some seen), flag flips and expunges, checked after each.
        steps = [
            lambda: [self.append(m, box, s, n) for s, n in (("c", 9), ("!q", 1), ("z", 3))],
            lambda: m.store("1:2", "+FLAGS", r"(\Seen)"),
            lambda: m.store("2", "-FLAGS", r"(\Seen)"),
            lambda: (m.store("3,5", "+FLAGS", r"(\Deleted)"), m.expunge()),
            lambda: [self.append(m, box, s, n) for s, n in (("m", 5), ("a", 2), ("m", 1))],
            lambda: (m.store("1:*", "-FLAGS", r"(\Seen)"), m.store("4", "+FLAGS", r"(\Seen)")),
            lambda: (m.store("1:2", "+FLAGS", r"(\Deleted)"), m.expunge()),
        ]
        for i, step in enumerate(steps):
            with self.subTest(step=i):
                step()
                self.follow(a, tag, result, by_uid=False)
                self.assertEqual(result, self.sorted_now(a, command))

    def test_tag_reuse_and_selection_end(self):
        m = self.imap()
        box = self.fresh(m, ["a", "b"])
        a = self.raw()
        tag, _ = self.start(a, box, "UID SEARCH RETURN (UPDATE) ALL")
        # RFC 5267 §4.3: a SORT with UPDATE under a live context's tag is BAD.
        a.send(f"{tag} UID SORT RETURN (UPDATE) (SUBJECT) UTF-8 ALL\r\n")
        _, tagged = a.collect(tag)
        self.assertTrue(tagged.startswith(f"{tag} BAD".encode()), tagged)
        tag2, _ = self.start(a, box, "UID SORT RETURN (UPDATE) (SUBJECT) UTF-8 ALL")
        a.ok("UNSELECT")
        a.ok("SELECT " + box)
        self.append(m, box, "c")
        untagged, _ = a.ok("NOOP")
        self.assertEqual(self.lines_for(untagged, tag2), [])

    def test_esort_partial(self):
        m = self.imap()
        box = self.fresh(m, ["e", "b", "d", "a", "c"])
        m.select(box)

        def esort(*args):
            typ, dat = m._simple_command("UID", "SORT", *args)
            self.assertEqual(typ, "OK", (args, dat))
            return [d.decode() for d in m.untagged_responses.pop("ESEARCH", [])]

        # REVERSE SUBJECT: e(1) d(3) c(5) b(2) a(4).
        cases = [
            ("(PARTIAL 1:2)", "PARTIAL (1:2 1,3)"),
            ("(PARTIAL 2:4)", "PARTIAL (2:4 3,5,2)"),
            ("(PARTIAL -1:-2)", "PARTIAL (-1:-2 2,4)"),
            ("(PARTIAL 4:9)", "PARTIAL (4:9 2,4)"),
            ("(PARTIAL 6:9)", "PARTIAL (6:9 NIL)"),
            ("(COUNT PARTIAL 1:1)", "COUNT 5 PARTIAL (1:1 1)"),
        ]
        for opts, want in cases:
            with self.subTest(opts=opts):
                got = esort("RETURN", opts, "(REVERSE SUBJECT)", "UTF-8", "ALL")
                self.assertEqual(len(got), 1, got)
                self.assertTrue(got[0].endswith("UID " + want), got)
        # SAVE with PARTIAL: "$" is the page.
        esort("RETURN", "(SAVE PARTIAL 2:3)", "(SUBJECT)", "UTF-8", "ALL")
        typ, dat = m.uid("SEARCH", "$")
        self.assertEqual(dat[0].split(), [b"2", b"5"])  # a(4) b(2) c(5): positions 2 and 3

    def test_capability(self):
        m = self.imap()
        caps = m.capabilities
        for c in ("CONTEXT=SORT", "CONTEXT=SEARCH", "ESORT", "PARTIAL"):
            self.assertIn(c, caps)


if __name__ == "__main__":
    unittest.main()
