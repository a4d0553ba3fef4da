"""Search contexts (RFC 5267 §4.3, CONTEXT=SEARCH), PARTIAL (RFC 9394) and WITHIN (RFC 5032)
against the real dariusd.

Two sessions: one keeps a SEARCH RETURN (UPDATE) context (a raw client, so that the order of
the untagged responses can be checked: ADDTO after EXISTS, REMOVEFROM before EXPUNGE), the
other (imaplib) APPENDs matching and non-matching messages, sets \\Seen and expunges. The
first checks the ADDTO / REMOVEFROM it gets at NOOP, in IDLE and after its own STORE; then
CANCELUPDATE, tag reuse, NOUPDATE (the limit), OLDER/YOUNGER contexts following the clock, contexts ending at UNSELECT,
CLOSE and SELECT, UPDATE with SAVE and PARTIAL; PARTIAL pages from either end, bad ranges,
the Table 1 rules for "$", UID FETCH's PARTIAL modifier; OLDER and YOUNGER."""
import imaplib
import re
import time
import unittest

import context_case

CRLF = b"\r\n"


def msg(subject, body=b"hello"):
    return CRLF.join([b"From: a@example.com", b"To: b@example.com",
                      b"Subject: " + subject.encode(), b"", body]) + CRLF


def esearch_lines(untagged, tag):
    prefix = f'* ESEARCH (TAG "{tag}")'.encode()
    return [u for u in untagged if u.startswith(prefix)]


class ContextTest(context_case.ContextCase):
    box_prefix = "ctx"

    def append(self, m, box, subject, date=None):
        flags = r"(\Seen)" if subject.startswith("!") else None
        typ, dat = m.append(box, flags, date, msg(subject.lstrip("!")))
        self.assertEqual(typ, "OK", dat)

    def context(self, a, box, command):
        """SELECTs `box` on the raw client and runs `command`; returns (tag, untagged)."""
        a.ok("SELECT " + box)
        tag = a.next_tag()
        a.send(f"{tag} {command}\r\n")
        untagged, tagged = a.collect(tag)
        self.assertTrue(tagged.startswith(f"{tag} OK".encode()), tagged)
        return tag, untagged

    def next_line(self, a):
        """The next untagged line but RECENT (this IMAP4rev1 session has \\Recent)."""
        while True:
            line = a.read_response(10)
            if not line.endswith(b" RECENT"):
                return line

    def index_of(self, lines, pattern):
        for i, line in enumerate(lines):
            if re.fullmatch(pattern, line):
                return i
        self.fail(f"{pattern!r} not in {lines!r}")

    # --- CONTEXT=SEARCH ---

    def test_uid_context_follows_appends_flags_and_expunges(self):
        m = self.imap()
        box = self.fresh(m, ["want 1", "!other 2"])
        a = self.raw()
        tag, untagged = self.context(a, box, "UID SEARCH RETURN (UPDATE) UNSEEN")
        self.assertEqual(esearch_lines(untagged, tag), [f'* ESEARCH (TAG "{tag}") UID ALL 1'.encode()])

        # A matching message: ADDTO after its EXISTS.
        self.append(m, box, "want 3")
        untagged, _ = a.ok("NOOP")
        exists = self.index_of(untagged, rb"\* 3 EXISTS")
        addto = self.index_of(untagged, rf'\* ESEARCH \(TAG "{tag}"\) UID ADDTO \(0 3\)'.encode())
        self.assertLess(exists, addto)

        # A non-matching one: EXISTS, no ESEARCH.
        self.append(m, box, "!other 4")
        untagged, _ = a.ok("NOOP")
        self.assertIn(b"* 4 EXISTS", untagged)
        self.assertEqual(esearch_lines(untagged, tag), [])

        # \Seen set by the other session: REMOVEFROM after the FETCH; cleared: ADDTO.
        m.select(box)
        m.uid("STORE", "1", "+FLAGS", r"(\Seen)")
        m.uid("STORE", "4", "-FLAGS", r"(\Seen)")
        untagged, _ = a.ok("NOOP")
        fetch = self.index_of(untagged, rb"\* 1 FETCH \(UID 1 FLAGS \(\\Seen.*")
        update = self.index_of(
            untagged, rf'\* ESEARCH \(TAG "{tag}"\) UID REMOVEFROM \(0 1\) ADDTO \(0 4\)'.encode())
        self.assertLess(fetch, update)

        # Expunged: REMOVEFROM before the EXPUNGE.
        m.uid("STORE", "3", "+FLAGS", r"(\Deleted)")
        self.assertEqual(m.expunge()[0], "OK")
        untagged, _ = a.ok("NOOP")
        remove = self.index_of(untagged, rf'\* ESEARCH \(TAG "{tag}"\) UID REMOVEFROM \(0 3\)'.encode())
        expunge = self.index_of(untagged, rb"\* 3 EXPUNGE")
        self.assertLess(remove, expunge)

        # The result as the client has kept it equals a fresh search.
        untagged, _ = a.ok("UID SEARCH UNSEEN")
        self.assertIn(b"* SEARCH 4", untagged)

        # CANCELUPDATE: no more updates for that tag.
        a.ok(f'CANCELUPDATE "{tag}"')
        self.append(m, box, "want 5")
        untagged, _ = a.ok("NOOP")
        self.assertIn(b"* 4 EXISTS", untagged)
        self.assertEqual(esearch_lines(untagged, tag), [])

    def test_sequence_number_context_uses_numbers_valid_at_each_point(self):
        m = self.imap()
        box = self.fresh(m, ["x 1", "report 2", "x 3", "report 4"])
        a = self.raw()
        tag, untagged = self.context(a, box, 'SEARCH RETURN (UPDATE COUNT) SUBJECT "report"')
        self.assertEqual(esearch_lines(untagged, tag), [f'* ESEARCH (TAG "{tag}") COUNT 2'.encode()])
        # Expunge message 1 (no match) and 2 (a match): REMOVEFROM names 2, before any EXPUNGE.
        m.select(box)
        m.store("1:2", "+FLAGS", r"(\Deleted)")
        m.expunge()
        untagged, _ = a.ok("NOOP")
        remove = self.index_of(untagged, rf'\* ESEARCH \(TAG "{tag}"\) REMOVEFROM \(0 2\)'.encode())
        first_expunge = min(i for i, u in enumerate(untagged) if u.endswith(b" EXPUNGE"))
        self.assertLess(remove, first_expunge)
        # A new match is number 3 now (x 3, report 4, the new one).
        self.append(m, box, "report 5")
        untagged, _ = a.ok("NOOP")
        exists = self.index_of(untagged, rb"\* 3 EXISTS")
        addto = self.index_of(untagged, rf'\* ESEARCH \(TAG "{tag}"\) ADDTO \(0 3\)'.encode())
        self.assertLess(exists, addto)

    def test_updates_while_expunges_are_held_back(self):
        # RFC 9051 §7.5.1: no EXPUNGE during a FETCH, so the numbers the client holds still
        # count the expunged messages. A context's REMOVEFROM for an expunged result waits with
        # its EXPUNGE; an ADDTO sent meanwhile numbers the new message in that view.
        m = self.imap()
        box = self.fresh(m, ["x 1", "report 2", "x 3", "report 4"])
        a = self.raw()
        tag, untagged = self.context(a, box, 'SEARCH RETURN (UPDATE COUNT) SUBJECT "report"')
        m.select(box)
        m.store("1:2", "+FLAGS", r"(\Deleted)")
        m.expunge()
        self.append(m, box, "report 5")
        untagged, _ = a.ok("FETCH 1 (FLAGS)")
        self.assertFalse([u for u in untagged if u.endswith(b" EXPUNGE")], untagged)
        self.assertEqual(esearch_lines(untagged, tag), [f'* ESEARCH (TAG "{tag}") ADDTO (0 5)'.encode()])
        self.index_of(untagged, rb"\* 5 EXISTS")
        untagged, _ = a.ok("NOOP")
        remove = self.index_of(untagged, rf'\* ESEARCH \(TAG "{tag}"\) REMOVEFROM \(0 2\)'.encode())
        expunges = [i for i, u in enumerate(untagged) if u.endswith(b" EXPUNGE")]
        self.assertEqual(len(expunges), 2, untagged)
        self.assertLess(remove, expunges[0])
        self.assertEqual(len(esearch_lines(untagged, tag)), 1, untagged)

    def test_own_store_and_idle(self):
        m = self.imap()
        box = self.fresh(m, ["a", "b"])
        a = self.raw()
        tag, _ = self.context(a, box, "UID SEARCH RETURN (UPDATE MIN) UNSEEN")
        # The session's own STORE changes its result too.
        untagged, _ = a.ok(r"UID STORE 2 +FLAGS (\Seen)")
        self.assertIn(f'* ESEARCH (TAG "{tag}") UID REMOVEFROM (0 2)'.encode(), untagged)
        untagged, _ = a.ok(r"UID STORE 2 +FLAGS.SILENT (\Flagged)")  # still no match
        self.assertEqual(esearch_lines(untagged, tag), [])
        # In IDLE: EXISTS, then the ADDTO, as the other session appends.
        itag = a.next_tag()
        a.send(f"{itag} IDLE\r\n")
        self.assertTrue(a.read_response(5).startswith(b"+ "))
        self.append(m, box, "c")
        self.assertEqual(self.next_line(a), b"* 3 EXISTS")
        self.assertEqual(self.next_line(a), f'* ESEARCH (TAG "{tag}") UID ADDTO (0 3)'.encode())
        m.select(box)
        m.uid("STORE", "1", "+FLAGS", r"(\Seen)")
        self.assertTrue(self.next_line(a).startswith(rb"* 1 FETCH (UID 1 FLAGS (\Seen"))
        self.assertEqual(self.next_line(a), f'* ESEARCH (TAG "{tag}") UID REMOVEFROM (0 1)'.encode())
        a.send("DONE\r\n")
        self.assertIn(b"OK", a.collect(itag)[1])

    def test_tag_reuse_limit_and_time_relative_keys(self):
        m = self.imap()
        box = self.fresh(m, ["a"])
        a = self.raw()
        a.ok("SELECT " + box)
        a.send("ctx UID SEARCH RETURN (UPDATE) ALL\r\n")
        untagged, tagged = a.collect("ctx")
        self.assertTrue(tagged.startswith(b"ctx OK"), tagged)
        # RFC 5267 §4.3: UPDATE under a live context's tag is BAD.
        a.send("ctx UID SEARCH RETURN (UPDATE) UNSEEN\r\n")
        untagged, tagged = a.collect("ctx")
        self.assertTrue(tagged.startswith(b"ctx BAD"), tagged)
        self.assertEqual(esearch_lines(untagged, "ctx"), [])
        # Without UPDATE the tag may be used again.
        a.send("ctx UID SEARCH RETURN (COUNT) ALL\r\n")
        self.assertTrue(a.collect("ctx")[1].startswith(b"ctx OK"))
        # OLDER / YOUNGER are kept live too (test_context_follows_the_clock).
        tag = a.next_tag()
        a.send(f"{tag} UID SEARCH RETURN (UPDATE COUNT) YOUNGER 3600\r\n")
        untagged, tagged = a.collect(tag)
        self.assertTrue(tagged.startswith(f"{tag} OK".encode()), tagged)
        self.assertEqual(untagged, [f'* ESEARCH (TAG "{tag}") UID COUNT 1'.encode()])
        a.ok(f'CANCELUPDATE "{tag}"')
        # At most 8 live contexts: the 9th is refused, its result still given.
        tags = []
        for _ in range(7):
            tag, untagged = self.context_here(a, "UID SEARCH RETURN (UPDATE) ALL")
            self.assertFalse(any(b"NOUPDATE" in u for u in untagged), untagged)
            tags.append(tag)
        tag, untagged = self.context_here(a, "UID SEARCH RETURN (UPDATE) ALL")
        self.assertEqual(untagged[0], f'* ESEARCH (TAG "{tag}") UID ALL 1'.encode())
        self.assertTrue(untagged[1].startswith(f'* NO [NOUPDATE "{tag}"]'.encode()), untagged)
        # Cancelling one (several tags at once, unknown ones too) makes room again.
        a.ok(f'CANCELUPDATE "{tags[0]}" "{tags[1]}" "nosuch"')
        tag, untagged = self.context_here(a, "UID SEARCH RETURN (UPDATE) ALL")
        self.assertFalse(any(b"NOUPDATE" in u for u in untagged), untagged)
        # SORT contexts count against the same limit (RFC 5267 §4.2): the 8th is kept, the
        # 9th answered with its result and NOUPDATE.
        tag, untagged = self.context_here(a, "UID SORT RETURN (UPDATE) (DATE) UTF-8 ALL")
        self.assertFalse(any(b"NOUPDATE" in u for u in untagged), untagged)
        tag, untagged = self.context_here(a, "UID SORT RETURN (UPDATE) (DATE) UTF-8 ALL")
        self.assertEqual(untagged[0], f'* ESEARCH (TAG "{tag}") UID ALL 1'.encode())
        self.assertTrue(untagged[1].startswith(f'* NO [NOUPDATE "{tag}"]'.encode()), untagged)
        # Bad CANCELUPDATE syntax.
        _, tagged = a.command("CANCELUPDATE")
        self.assertIn(b" BAD ", tagged)
        _, tagged = a.command("CANCELUPDATE ctx")
        self.assertIn(b" BAD ", tagged)

    def test_context_follows_the_clock(self):
        # RFC 5032 §2: a context with YOUNGER is re-evaluated as time passes; the update comes
        # with the next command, here a NOOP, though nothing in the mailbox changed.
        m = self.imap()
        box = self.fresh(m, [])
        self.append(m, box, "old", date='"01-Jan-2020 00:00:00 +0000"')
        self.append(m, box, "new")  # INTERNALDATE: now
        a = self.raw()
        tag, untagged = self.context(a, box, "UID SEARCH RETURN (UPDATE) YOUNGER 2")
        self.assertEqual(esearch_lines(untagged, tag), [f'* ESEARCH (TAG "{tag}") UID ALL 2'.encode()])
        otag, ountagged = self.context_here(a, "UID SEARCH RETURN (UPDATE) OLDER 2")
        self.assertEqual(esearch_lines(ountagged, otag), [f'* ESEARCH (TAG "{otag}") UID ALL 1'.encode()])
        time.sleep(3.5)
        untagged, tagged = a.command("NOOP")
        self.assertIn(b" OK", tagged)
        self.assertEqual(esearch_lines(untagged, tag), [f'* ESEARCH (TAG "{tag}") UID REMOVEFROM (0 2)'.encode()])
        self.assertEqual(esearch_lines(untagged, otag), [f'* ESEARCH (TAG "{otag}") UID ADDTO (0 2)'.encode()])
        # Nothing more once the boundary has passed.
        time.sleep(1.1)
        untagged, _ = a.command("NOOP")
        self.assertEqual(esearch_lines(untagged, tag) + esearch_lines(untagged, otag), [])

    def context_here(self, a, command):
        tag = a.next_tag()
        a.send(f"{tag} {command}\r\n")
        untagged, tagged = a.collect(tag)
        self.assertTrue(tagged.startswith(f"{tag} OK".encode()), tagged)
        return tag, untagged

    def test_contexts_end_with_the_selection(self):
        m = self.imap()
        box = self.fresh(m, ["a"])
        other = self.fresh(m, [])
        a = self.raw()
        for leave in ("UNSELECT", "CLOSE", "SELECT " + other):
            tag, _ = self.context(a, box, "UID SEARCH RETURN (UPDATE) ALL")
            a.ok(leave)
            a.ok("SELECT " + box)
            self.append(m, box, "more")
            untagged, _ = a.ok("NOOP")
            self.assertEqual(esearch_lines(untagged, tag), [], leave)
        # CANCELUPDATE needs the selected state.
        a.ok("UNSELECT")
        _, tagged = a.command(f'CANCELUPDATE "{tag}"')
        self.assertIn(b" BAD ", tagged)

    def test_update_with_save_and_partial(self):
        m = self.imap()
        box = self.fresh(m, ["a", "b", "!c", "d"])
        a = self.raw()
        # SAVE and UPDATE: no result data (SAVE alone answers nothing), "$" is the result
        # now, and the updates do not change "$" (RFC 5267 §4.3: no interaction).
        tag, untagged = self.context(a, box, "UID SEARCH RETURN (SAVE UPDATE) UNSEEN")
        self.assertEqual(esearch_lines(untagged, tag), [])
        self.append(m, box, "e")
        untagged, _ = a.ok("NOOP")
        self.assertIn(f'* ESEARCH (TAG "{tag}") UID ADDTO (0 5)'.encode(), untagged)
        untagged, _ = a.ok("UID FETCH $ (UID)")
        self.assertEqual(sorted(re.findall(rb"UID (\d+)", b" ".join(untagged))),
                         [b"1", b"2", b"4"])
        # PARTIAL and UPDATE: the page, then updates for every match, in or out of the page.
        tag2 = a.next_tag()
        a.send(f"{tag2} UID SEARCH RETURN (UPDATE PARTIAL 1:2) UNSEEN\r\n")
        untagged, tagged = a.collect(tag2)
        self.assertIn(b"OK", tagged)
        self.assertEqual(esearch_lines(untagged, tag2),
                         [f'* ESEARCH (TAG "{tag2}") UID PARTIAL (1:2 1:2)'.encode()])
        self.append(m, box, "f")
        untagged, _ = a.ok("NOOP")
        self.assertIn(f'* ESEARCH (TAG "{tag}") UID ADDTO (0 6)'.encode(), untagged)
        self.assertIn(f'* ESEARCH (TAG "{tag2}") UID ADDTO (0 6)'.encode(), untagged)
        # A program with "$" keeps the UIDs "$" named when it ran.
        tag3, untagged = self.context_here(a, "UID SEARCH RETURN (UPDATE) $")
        self.assertEqual(esearch_lines(untagged, tag3),
                         [f'* ESEARCH (TAG "{tag3}") UID ALL 1:2,4'.encode()])
        a.ok(r"UID STORE 5:6 +FLAGS (\Flagged)")
        self.append(m, box, "g")
        untagged, _ = a.ok("NOOP")
        self.assertEqual(esearch_lines(untagged, tag3), [])

    # --- PARTIAL ---

    def esearch(self, m, *args):
        typ, dat = m._simple_command("UID", "SEARCH", *args)
        self.assertEqual(typ, "OK", (args, dat))
        return [x.decode() for x in m.untagged_responses.pop("ESEARCH", [])]

    def test_partial_pages_and_bad_ranges(self):
        m = self.imap()
        box = self.fresh(m, [f"m{i}" for i in range(1, 11)])
        m.select(box)
        tag = lambda: m.tagpre.decode() + str(m.tagnum)  # noqa: E731 (the next command's)
        cases = [
            ("PARTIAL 1:3", "PARTIAL (1:3 1:3)"),
            ("PARTIAL -1:-3", "PARTIAL (-1:-3 8:10)"),
            ("PARTIAL -3:-1", "PARTIAL (-3:-1 8:10)"),
            ("PARTIAL 4:6", "PARTIAL (4:6 4:6)"),
            ("PARTIAL 9:20", "PARTIAL (9:20 9:10)"),
            ("PARTIAL 11:20", "PARTIAL (11:20 NIL)"),
            ("PARTIAL -11:-20", "PARTIAL (-11:-20 NIL)"),
            ("MIN MAX COUNT PARTIAL 2:3", "MIN 1 MAX 10 COUNT 10 PARTIAL (2:3 2:3)"),
        ]
        for opts, want in cases:
            t = tag()
            self.assertEqual(self.esearch(m, "RETURN", f"({opts})", "ALL"),
                             [f'(TAG "{t}") UID {want}'], opts)
        t = tag()
        self.assertEqual(self.esearch(m, "RETURN", "(PARTIAL 2:3)", "UID", "4:*"),
                         [f'(TAG "{t}") UID PARTIAL (2:3 5:6)'])
        for bad in ("(PARTIAL 0:5)", "(PARTIAL 1:*)", "(PARTIAL -1:5)", "(PARTIAL 5)",
                    "(PARTIAL 1:5 ALL)", "(PARTIAL 1:2 PARTIAL 3:4)", "(PARTIAL 1:4294967296)"):
            with self.assertRaises(imaplib.IMAP4.error, msg=bad):
                m._simple_command("UID", "SEARCH", "RETURN", bad, "ALL")
        # SAVE with PARTIAL (RFC 9394 Table 1): "$" is the page (and MIN/MAX), or all with COUNT.
        for opts, want in (("SAVE PARTIAL -1:-2", "9:10"), ("SAVE MIN PARTIAL 5:6", "1,5:6"),
                           ("SAVE COUNT PARTIAL 5:6", "1:10")):
            m._simple_command("UID", "SEARCH", "RETURN", f"({opts})", "ALL")
            m.untagged_responses.pop("ESEARCH", None)
            typ, dat = m.uid("SEARCH", "$")
            got = [int(x) for x in dat[0].split()]
            self.assertEqual(got, [int(x) for x in _expand(want)], opts)

    def test_uid_fetch_partial(self):
        m = self.imap()
        box = self.fresh(m, [f"m{i}" for i in range(1, 8)])
        m.select(box)
        m.store("2", "+FLAGS", r"(\Deleted)")
        m.expunge()  # UIDs 1,3:7
        typ, dat = m.uid("FETCH", "1:*", "(UID)", "(PARTIAL -1:-2)")
        self.assertEqual(typ, "OK")
        self.assertEqual(re.findall(rb"UID (\d+)", b" ".join(d for d in dat if d)), [b"6", b"7"])
        typ, dat = m.uid("FETCH", "1:*", "(UID)", "(PARTIAL 1:2)")
        self.assertEqual(re.findall(rb"UID (\d+)", b" ".join(d for d in dat if d)), [b"1", b"3"])
        typ, dat = m.uid("FETCH", "1:*", "(UID)", "(PARTIAL 10:20)")
        self.assertEqual(typ, "OK")
        self.assertEqual([d for d in dat if d], [])
        with self.assertRaises(imaplib.IMAP4.error):
            m._simple_command("FETCH", "1:*", "(UID)", "(PARTIAL 1:2)")  # UID FETCH only
        with self.assertRaises(imaplib.IMAP4.error):
            m._simple_command("UID", "FETCH", "1:*", "(UID)", "(PARTIAL 0:2)")

    # --- WITHIN ---

    def test_older_and_younger(self):
        m = self.imap()
        box = self.fresh(m, [])
        self.append(m, box, "old", date='"01-Jan-2020 00:00:00 +0000"')
        self.append(m, box, "new")  # INTERNALDATE: now
        m.select(box, readonly=True)
        for criteria, want in (("YOUNGER 3600", [2]), ("OLDER 3600", [1]),
                               ("YOUNGER 4294967295", [1, 2]), ("OLDER 4294967295", []),
                               ("NOT YOUNGER 3600", [1]), ("OR OLDER 3600 YOUNGER 60", [1, 2])):
            typ, dat = m.search(None, criteria)
            self.assertEqual(typ, "OK", criteria)
            self.assertEqual([int(x) for x in dat[0].split()], want, criteria)
        for bad in ("YOUNGER 0", "OLDER -1", "OLDER x", "YOUNGER"):
            with self.assertRaises(imaplib.IMAP4.error, msg=bad):
                m.search(None, bad)

    def test_capabilities(self):
        m = self.imap()
        caps = m.capabilities
        for c in ("WITHIN", "PARTIAL", "CONTEXT=SEARCH", "ESEARCH"):
            self.assertIn(c, caps)


def _expand(seqset):
    out = []
    for part in seqset.split(","):
        a, _, b = part.partition(":")
        out.extend(range(int(a), int(b or a) + 1))
    return out


if __name__ == "__main__":
    unittest.main()
