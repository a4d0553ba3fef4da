"""IMAP mailbox and message commands against the real dariusd, with Python's imaplib and a raw
client for what imaplib cannot do: SELECT/EXAMINE responses, CREATE/DELETE/RENAME (with the
INBOX rule), APPEND and MULTIAPPEND, STORE with UNCHANGEDSINCE, COPY/MOVE with COPYUID,
EXPUNGE, updates between two sessions (and none during STORE by sequence number), IDLE woken
by another session, QRESYNC's VANISHED (EARLIER), and ACLs: another user's mailbox answers
exactly like a missing one."""
import imaplib
import os
import re
import smtplib
import time
import unittest

from darius_harness import Instance, darius
from imap_raw import RawImap

MSG = (b"From: Alice <alice@example.com>\r\nTo: bob@example.com\r\nSubject: hello %d\r\n"
       b"Message-ID: <%d@example.com>\r\n\r\nbody %d\r\n")


def msg(i):
    return MSG % (i, i, i)


class ImapMailboxTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.inst = Instance(user="alice:alice-pw")
        darius("user", "add", "-C", cls.inst.conf, "bob", "--password", "bob-pw")
        cls.inst.start()

    @classmethod
    def tearDownClass(cls):
        cls.inst.stop()
        cls.inst.close()

    def imap(self, user="alice", password="alice-pw"):
        m = imaplib.IMAP4("127.0.0.1", self.inst.port("imap"))
        m.login(user, password)
        self.addCleanup(lambda: m.logout() if m.state != "LOGOUT" else None)
        return m

    def raw(self, user="alice", password="alice-pw"):
        r = RawImap(self.inst.port("imap"))
        r.login(user, password)
        self.addCleanup(r.close)
        return r

    def fresh(self, m, name):
        m.delete(name)
        typ, data = m.create(name)
        self.assertEqual(typ, "OK", data)

    def test_select_reports_everything_rfc9051_requires(self):
        m = self.imap()
        self.fresh(m, "sel")
        for i in range(3):
            m.append("sel", "(\\Seen)" if i == 0 else None, None, msg(i))
        r = self.raw()
        untagged, tagged = r.ok("SELECT sel")
        text = b"\n".join(untagged)
        self.assertIn(b"* 3 EXISTS", text)
        self.assertRegex(text, rb"\* FLAGS \(\\Answered \\Flagged \\Deleted \\Seen \\Draft\)")
        self.assertRegex(text, rb"\* OK \[PERMANENTFLAGS \(.*\\\*\)\]")
        self.assertRegex(text, rb"\* OK \[UIDVALIDITY \d+\]")
        self.assertIn(b"* OK [UIDNEXT 4]", text)
        self.assertRegex(text, rb"\* OK \[HIGHESTMODSEQ \d+\]")
        self.assertRegex(text, rb"\* OK \[MAILBOXID \([0-9a-f]{32}\)\]")
        self.assertIn(b"* OK [UNSEEN 2]", text)
        self.assertIn(b"* 3 RECENT", text)
        self.assertIn(b"[READ-WRITE]", tagged)
        # \Recent went to the first session only.
        r2 = self.raw()
        untagged, _ = r2.ok("SELECT sel")
        self.assertIn(b"* 0 RECENT", untagged)
        untagged, tagged = r2.ok("EXAMINE sel")
        self.assertIn(b"[READ-ONLY]", tagged)
        self.assertIn(b"* OK [CLOSED] Previous mailbox is now closed", untagged)
        # IMAP4rev2: a LIST response, no RECENT.
        r3 = self.raw()
        r3.ok("ENABLE IMAP4rev2")
        untagged, _ = r3.ok("SELECT sel")
        self.assertTrue(any(re.match(rb'\* LIST \(\) "/" "?sel"?$', u) for u in untagged), untagged)
        self.assertFalse(any(b"RECENT" in u for u in untagged), untagged)

    def test_create_delete_rename_and_hierarchy(self):
        m = self.imap()
        for name in ("Projects/Old/2025", "Projects/Old", "Projects", "Archive"):
            m.delete(name)
        self.assertEqual(m.create("Projects/")[0], "OK")  # trailing separator dropped
        self.assertEqual(m.create("Projects/Old")[0], "OK")
        self.assertEqual(m.create("Projects/Old/2025")[0], "OK")
        typ, data = m.create("Projects")
        self.assertEqual(typ, "NO")
        self.assertIn(b"ALREADYEXISTS", data[0])
        typ, data = m.create("INBOX")
        self.assertIn(b"ALREADYEXISTS", data[0])
        m.append("Projects/Old/2025", None, None, msg(1))
        self.assertEqual(m.rename("Projects", "Archive")[0], "OK")
        typ, data = m.status("Archive/Old/2025", "(MESSAGES)")
        self.assertEqual(typ, "OK")
        self.assertIn(b"MESSAGES 1", data[0])
        typ, data = m.status("Projects/Old", "(MESSAGES)")
        self.assertEqual(typ, "NO")
        self.assertIn(b"NONEXISTENT", data[0])
        # Deleting a parent keeps its children.
        self.assertEqual(m.delete("Archive/Old")[0], "OK")
        self.assertEqual(m.status("Archive/Old/2025", "(MESSAGES)")[0], "OK")
        self.assertEqual(m.delete("INBOX")[0], "NO")
        typ, data = m.delete("no-such-mailbox")
        self.assertIn(b"NONEXISTENT", data[0])

    def test_rename_inbox_moves_its_messages(self):
        m = self.imap("bob", "bob-pw")
        m.delete("Saved")
        for i in range(2):
            m.append("INBOX", None, None, msg(i))
        typ, data = m.status("INBOX", "(MESSAGES)")
        count = int(re.search(rb"MESSAGES (\d+)", data[0]).group(1))
        self.assertEqual(m.rename("INBOX", "Saved")[0], "OK")
        self.assertIn(b"MESSAGES 0", m.status("INBOX", "(MESSAGES)")[1][0])
        self.assertIn(b"MESSAGES %d" % count, m.status("Saved", "(MESSAGES)")[1][0])

    def test_append_flags_date_and_multiappend(self):
        m = self.imap()
        self.fresh(m, "app")
        typ, data = m.append("app", "(\\Flagged $Work)", '"05-Nov-2026 10:00:00 +0100"', msg(1))
        self.assertEqual(typ, "OK")
        uidvalidity, uid = re.search(rb"APPENDUID (\d+) (\d+)", data[0]).groups()
        self.assertEqual(uid, b"1")
        r = self.raw()
        a, b = msg(2), msg(3)
        tag = r.next_tag()
        r.send(b"%s APPEND app (\\Seen) {%d+}\r\n%s {%d+}\r\n%s\r\n" % (tag.encode(), len(a), a, len(b), b))
        _, tagged = r.collect(tag)
        self.assertIn(b"[APPENDUID " + uidvalidity + b" 2:3]", tagged)
        typ, data = m.status("app", "(MESSAGES UNSEEN SIZE)")
        self.assertIn(b"MESSAGES 3", data[0])
        self.assertIn(b"UNSEEN 2", data[0])
        self.assertIn(b"SIZE %d" % (len(msg(1)) + len(a) + len(b)), data[0])
        typ, data = m.append("no-such", None, None, msg(9))
        self.assertEqual(typ, "NO")
        self.assertIn(b"TRYCREATE", data[0])
        # Bare LF line ends are stored as CRLF.
        lf = b"Subject: lf\n\nbody\n"
        m.append("app", None, None, lf)
        self.assertIn(b"SIZE %d" % (len(msg(1)) + len(a) + len(b) + len(lf) + 3),
                      m.status("app", "(SIZE)")[1][0])

    def test_store_copy_move_expunge(self):
        m = self.imap()
        for n in ("src", "dst"):
            self.fresh(m, n)
        for i in range(4):
            m.append("src", None, None, msg(i))
        m.select("src")
        typ, data = m.store("1:2", "+FLAGS", "(\\Flagged $Label1)")
        self.assertEqual(typ, "OK")
        self.assertEqual(len(data), 2)
        typ, data = m.store("1", "FLAGS.SILENT", "(\\Seen)")
        self.assertEqual(typ, "OK")
        self.assertEqual(data, [None])
        typ, data = m.copy("1:2", "dst")
        self.assertEqual(typ, "OK")
        # imaplib files the tagged response's code under its name.
        _, copyuid = m.response("COPYUID")
        self.assertRegex(copyuid[0], rb"^\d+ 1:2 \d+:\d+$")
        typ, data = m.uid("MOVE", "3", "dst")
        self.assertEqual(typ, "OK")
        typ, data = m.status("dst", "(MESSAGES)")
        self.assertIn(b"MESSAGES 3", data[0])
        m.store("1", "+FLAGS", "(\\Deleted)")
        typ, data = m.expunge()
        self.assertEqual(typ, "OK")
        # imaplib hands back every EXPUNGE since the last read: the MOVE's, then this one's.
        self.assertEqual(data, [b"3", b"1"])
        typ, data = m.select("src")
        self.assertEqual(data, [b"2"])  # 4 - moved - expunged
        m.close()
        m.select("dst")
        typ, data = m.uid("SEARCH", "ALL") if hasattr(m, "uid") else (None, None)

    def test_unchangedsince_reports_modified(self):
        r = self.raw()
        r.command("DELETE cs")
        r.ok("CREATE cs")
        r.ok("APPEND cs {%d+}\r\n%s" % (len(msg(1)), msg(1).decode()))
        untagged, _ = r.ok("SELECT cs (CONDSTORE)")
        modseq = int(re.search(rb"HIGHESTMODSEQ (\d+)", b" ".join(untagged)).group(1))
        untagged, tagged = r.ok("STORE 1 (UNCHANGEDSINCE %d) +FLAGS (\\Flagged)" % modseq)
        self.assertTrue(any(b"MODSEQ" in u for u in untagged), untagged)
        # RFC 7162 §3.2.4: under CONDSTORE a plain STORE's FETCH carries UID and MODSEQ too.
        untagged, _ = r.ok("STORE 1 +FLAGS (\\Answered)")
        self.assertTrue(any(re.match(rb"\* 1 FETCH \(FLAGS \(.*\) UID 1 MODSEQ \(\d+\)\)$", u)
                            for u in untagged), untagged)
        untagged, tagged = r.ok("STORE 1 (UNCHANGEDSINCE %d) +FLAGS (\\Seen)" % modseq)
        self.assertIn(b"[MODIFIED 1]", tagged)

    def test_updates_between_sessions_and_no_expunge_during_store(self):
        m = self.imap()
        self.fresh(m, "upd")
        for i in range(3):
            m.append("upd", None, None, msg(i))
        a, b = self.raw(), self.raw()
        a.ok("SELECT upd")
        b.ok("SELECT upd")
        a.ok("STORE 2 +FLAGS.SILENT (\\Deleted)")
        a.ok("EXPUNGE")
        m.append("upd", None, None, msg(9))
        # b stores by sequence number: its view still has 3 messages, and no EXPUNGE is sent.
        during, tagged = b.ok("STORE 3 +FLAGS (\\Answered)")
        self.assertFalse(any(b"EXPUNGE" in u for u in during), during)
        after, _ = b.ok("NOOP")
        self.assertIn(b"* 2 EXPUNGE", after)
        # The new message's EXISTS may come during the STORE (4: the expunge not yet told) or
        # after the EXPUNGE (3); either way b ends with 3 messages.
        count, saw_exists = 3, False
        for u in during + after:
            if u.endswith(b" EXISTS"):
                count, saw_exists = int(u.split()[1]), True
            elif u.endswith(b" EXPUNGE"):
                count -= 1
        self.assertTrue(saw_exists, during + after)
        self.assertEqual(count, 3, during + after)
        # a learns of b's flag change.
        untagged, _ = a.ok("NOOP")
        self.assertTrue(any(re.match(rb"\* 2 FETCH \(UID 3 FLAGS \(\\Answered", u) for u in untagged),
                        untagged)

    def test_idle_is_woken_by_another_session(self):
        m = self.imap()
        self.fresh(m, "idle")
        a = self.raw()
        a.ok("SELECT idle")
        tag = a.next_tag()
        a.send(f"{tag} IDLE\r\n")
        self.assertTrue(a.read_response(5).startswith(b"+ "))
        t0 = time.time()
        m.append("idle", None, None, msg(1))
        line = a.read_response(10)
        latency = time.time() - t0
        self.assertEqual(line, b"* 1 EXISTS")
        print(f"\nIDLE saw another session's APPEND after {latency * 1000:.0f} ms")
        a.send("DONE\r\n")
        untagged, tagged = a.collect(tag)
        self.assertIn(b"OK", tagged)

    def idle_on(self, mailbox, user="alice", password="alice-pw"):
        """A raw session idling on `mailbox`; returns (client, tag)."""
        a = self.raw(user, password)
        a.ok("SELECT " + mailbox)
        tag = a.next_tag()
        a.send(f"{tag} IDLE\r\n")
        self.assertTrue(a.read_response(5).startswith(b"+ "))
        return a, tag

    def expect_woken(self, a, tag, change, what):
        """Runs change() while `a` idles; the next line must be the new message's EXISTS."""
        t0 = time.time()
        change()
        line = a.read_response(10)
        latency = time.time() - t0
        self.assertEqual(line, b"* 1 EXISTS")
        print(f"\nIDLE saw {what} {latency * 1000:.0f} ms after it began")
        a.send("DONE\r\n")
        self.assertIn(b"OK", a.collect(tag)[1])

    def test_idle_is_woken_by_an_lmtp_delivery(self):
        # INBOX of a user of its own, so other tests' appends do not interfere.
        darius("user", "add", "-C", self.inst.conf, "idler", "--password", "idler-pw")
        a, tag = self.idle_on("INBOX", "idler", "idler-pw")
        def deliver():
            s = smtplib.LMTP("127.0.0.1", self.inst.port("lmtp"), timeout=15)
            s.sendmail("sender@example.com", ["idler@localhost"], msg(7))
            s.quit()
        self.expect_woken(a, tag, deliver, "an LMTP delivery")

    def test_idle_is_woken_by_another_process(self):
        # `darius mailbox append` is a separate process: only the change log's inotify
        # watch can tell dariusd (no timer polls the disk).
        m = self.imap()
        self.fresh(m, "idleproc")
        a, tag = self.idle_on("idleproc")
        path = os.path.join(self.inst.dir, "idle-msg.eml")
        with open(path, "wb") as f:
            f.write(msg(8))
        self.expect_woken(a, tag, lambda: darius("mailbox", "append", "-C", self.inst.conf,
                                                 "user/alice/idleproc", path),
                          "another process's append")

    def test_qresync_vanished_earlier(self):
        r = self.raw()
        r.command("DELETE qr")
        r.ok("CREATE qr")
        for i in range(3):
            r.ok("APPEND qr {%d+}\r\n%s" % (len(msg(i)), msg(i).decode()))
        r.ok("ENABLE QRESYNC")
        untagged, _ = r.ok("SELECT qr")
        text = b" ".join(untagged)
        uidvalidity = int(re.search(rb"UIDVALIDITY (\d+)", text).group(1))
        modseq = int(re.search(rb"HIGHESTMODSEQ (\d+)", text).group(1))
        r.ok("STORE 2 +FLAGS.SILENT (\\Deleted)")
        untagged, _ = r.ok("EXPUNGE")
        self.assertIn(b"* VANISHED 2", untagged)
        r.ok("STORE 1 +FLAGS.SILENT (\\Flagged)")
        r.ok("UNSELECT")
        untagged, _ = r.ok("SELECT qr (QRESYNC (%d %d))" % (uidvalidity, modseq))
        self.assertIn(b"* VANISHED (EARLIER) 2", untagged)
        self.assertTrue(any(re.match(rb"\* 1 FETCH \(UID 1 FLAGS \(\\Flagged\) MODSEQ", u)
                            for u in untagged), untagged)

    def test_other_users_mailboxes_look_missing(self):
        m = self.imap()
        self.fresh(m, "private")
        b = self.raw("bob", "bob-pw")
        for cmd in ('SELECT "Other Users/alice/private"', 'STATUS "Other Users/alice/private" (MESSAGES)',
                    'DELETE "Other Users/alice/private"'):
            _, tagged = b.command(cmd)
            _, tagged_missing = b.command(cmd.replace("private", "nothere"))
            self.assertEqual(tagged.split(b" ", 1)[1], tagged_missing.split(b" ", 1)[1], cmd)
        _, tagged = b.command('APPEND "Other Users/alice/private" {3+}\r\nx\r\n')
        self.assertIn(b"TRYCREATE", tagged)
        # With "l" alone the mailbox is visible, so STATUS says NOPERM rather than that it
        # does not exist (RFC 4314 §4: STATUS needs "r").
        darius("mailbox", "delete", "-C", self.inst.conf, "user/alice/lookonly", check=False)
        darius("mailbox", "create", "-C", self.inst.conf, "user/alice/lookonly",
               "--acl", "alice lrswipkxtean bob l")
        _, tagged = b.command('STATUS "Other Users/alice/lookonly" (MESSAGES)')
        self.assertRegex(tagged, rb"^t\d+ NO \[NOPERM\] ")

    def test_bad_input_gets_bad_and_the_session_goes_on(self):
        r = self.raw()
        for cmd in ("SELECT", "STORE 1 +FLAGS (\\Seen)", "FETCH", "CREATE", "STATUS INBOX",
                    "STATUS INBOX (BOGUS)", "APPEND INBOX (\\Seen", "RENAME a",
                    "SELECT INBOX (QRESYNC (1 2))", "UID FROB 1", "EXPUNGE extra",
                    'CREATE "&Jjo"', "COPY 1:* INBOX"):
            _, tagged = r.command(cmd)
            self.assertRegex(tagged, rb"^t\d+ (BAD|NO) ", cmd)
            r.ok("NOOP")  # ten BADs in a row end the session (max_bad_commands)
        r.ok("SELECT INBOX")
        _, tagged = r.command("STORE 999999 +FLAGS (\\Seen)")
        self.assertRegex(tagged, rb"^t\d+ BAD ")
        _, tagged = r.command("STORE " + ",".join(str(i) for i in range(1, 200001, 2)) + " FLAGS ()")
        self.assertRegex(tagged, rb"^t\d+ (BAD|NO|OK) ")
        r.ok("NOOP")


if __name__ == "__main__":
    unittest.main()
