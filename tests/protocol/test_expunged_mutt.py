"""Undelete with a real client (issue 18, docs/design/expunge.md): mutt 2.2 in a private tmux
deletes and expunges a message in INBOX, then opens the read-only view `.EXPUNGED/INBOX` and
copies (`C`) the message back to INBOX, which the server turns into an undelete. imaplib
checks the result: the message is in INBOX again under a new UID with the same header, body
and internal date and without \\Deleted; the view is read-only for mutt and for SELECT; LIST
shows the view to ".EXPUNGED/*" and never to "*". Recipes: shared/notes/real-clients.md §8."""
import glob
import imaplib
import os
import re
import shutil
import smtplib
import tempfile
import unittest

from darius_harness import Instance, logout_quietly
from real_clients import Tmux

USER, PASSWORD = "alice", "alice-secret"
VIEW = ".EXPUNGED/INBOX"


def message(subject, body):
    return (f"From: Bob <bob@example.com>\r\nTo: alice@example.org\r\nSubject: {subject}\r\n"
            f"Message-ID: <{subject.replace(' ', '.')}@example.com>\r\n"
            f"\r\n{body}\r\n").encode()


KEEP = [message("keep one", "first body"), message("keep two", "third body")]
LOST = message("undelete-me", "the body that comes back\r\nsecond line")


def wire(log):
    """The IMAP lines of a mutt debug log ("[time] 4> a0005 SELECT ..." and "4< ..."), with
    the commands mutt pipelined after another on lines of their own."""
    lines = [ln for ln in log.splitlines()
             if re.search(r"^\[[^]]+\] \d+[<>] ", ln) or re.match(r"a\d{4} ", ln)]
    return "\n".join(ln[:200] for ln in lines[-60:])


class ExpungedViewWithMuttTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # scripts/setup.sh installs mutt and tmux (shared/notes/real-clients.md).
        missing = [p for p in ("mutt", "tmux") if shutil.which(p) is None]
        if missing:
            raise unittest.SkipTest(f"{' and '.join(missing)} not installed: run scripts/setup.sh")

    def setUp(self):
        self.inst = Instance(user=f"{USER}:{PASSWORD}", options={"allow_plaintext_auth": "yes"})
        self.addCleanup(self.inst.close)
        self.inst.start()
        self.addCleanup(self.inst.stop)
        self.tmp = tempfile.mkdtemp(prefix="darius-expunged-mutt-")
        if not self.inst.keep:
            self.addCleanup(shutil.rmtree, self.tmp, True)
        lmtp = smtplib.LMTP("127.0.0.1", self.inst.port("lmtp"), timeout=30)
        for body in (KEEP[0], LOST, KEEP[1]):
            lmtp.sendmail("bob@example.com", [USER], body)
        lmtp.quit()

    # -- imaplib side ------------------------------------------------------------------

    def imap(self):
        m = imaplib.IMAP4("127.0.0.1", self.inst.port("imap"), timeout=30)
        self.addCleanup(logout_quietly, m)
        self.assertEqual(m.login(USER, PASSWORD)[0], "OK")
        return m

    def contents(self, m, mailbox):
        """{uid: (flags without \\Recent, internaldate, whole message)} read with EXAMINE."""
        typ, data = m.select(f'"{mailbox}"', readonly=True)
        self.assertEqual(typ, "OK", data)
        out = {}
        if int(data[0]) == 0:
            return out
        typ, data = m.uid("FETCH", "1:*", "(UID FLAGS INTERNALDATE BODY.PEEK[])")
        self.assertEqual(typ, "OK", data)
        for item in data:
            if isinstance(item, tuple):
                head, body = item
                uid = int(re.search(rb"UID (\d+)", head).group(1))
                flags = tuple(sorted(f for f in re.search(rb"FLAGS \(([^)]*)\)", head).group(1)
                                     .decode().split() if f != "\\Recent"))
                date = re.search(rb'INTERNALDATE "([^"]+)"', head).group(1).decode()
                out[uid] = (flags, date, body)
        return out

    def listed(self, m, pattern):
        typ, data = m.list('""', pattern)
        self.assertEqual(typ, "OK", data)
        names = []
        for line in data:
            if line is None:
                continue
            if isinstance(line, tuple):  # a literal name
                names.append(line[1].decode())
                continue
            mo = re.match(rb'\(([^)]*)\) (?:"."|NIL) (.*)$', line)
            self.assertIsNotNone(mo, line)
            name = mo.group(2).decode()
            names.append(name[1:-1] if name.startswith('"') else name)
        return names

    # -- mutt side ---------------------------------------------------------------------

    def muttrc(self):
        path = os.path.join(self.tmp, "muttrc")
        lines = [f'set imap_user = "{USER}"', f'set imap_pass = "{PASSWORD}"',
                 # mutt 2.2 sets ssl_force_tls by default: plaintext needs both off, or it
                 # stops at the certificate prompt.
                 "set ssl_starttls = no", "set ssl_force_tls = no",
                 f'set folder = "imap://127.0.0.1:{self.inst.port("imap")}/"',
                 'set spoolfile = "+INBOX"',  # after `folder`: "+" is expanded when read
                 "set confirmcreate = no", "set confirmappend = no",
                 "set delete = yes",          # `$` purges without "Purge 1 deleted message?"
                 'set header_cache = ""', 'set message_cachedir = ""',
                 "set mail_check = 60", "set timeout = 60",
                 "set mark_old = no",         # else mutt flags what it saw as Old on exit
                 "set imap_check_subscribed = no",
                 # mutt treats every character of imap_delim_chars (default "/.") as a
                 # separator and rewrites it to the server's: ".EXPUNGED/INBOX" would go out
                 # as SELECT "/EXPUNGED/INBOX".
                 'set imap_delim_chars = "/"']
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        return path

    def mutt(self, folder, run):
        """Runs mutt on `folder` in a private tmux with an IMAP debug log; `run(tmux)` drives
        it, and mutt must exit 0. Returns the debug log (the IMAP exchange, passwords hidden)."""
        home = tempfile.mkdtemp(prefix="home-", dir=self.tmp)  # mutt writes ~/.muttdebug0
        t = Tmux(f"env HOME={home} TERM=xterm-256color mutt -n -d 2 -F {self.muttrc()} "
                 f"-f '{folder}'; echo MUTT-EXIT=$?; sleep 60")
        self.addCleanup(t.close)

        def log():
            text = ""
            for path in sorted(glob.glob(os.path.join(home, ".muttdebug*"))):
                with open(path, errors="replace") as f:
                    text += f.read()
            return text
        try:
            run(t)
            t.keys("q")
            t.wait_for("MUTT-EXIT=0")
        except AssertionError as e:
            raise AssertionError(f"{e}\nmutt's IMAP exchange:\n{wire(log())}") from e
        return log()

    def assertSaid(self, log, pattern, present=True):
        """Checks mutt's debug log for an IMAP line; on failure shows the exchange only."""
        found = re.search(pattern, log, re.M) is not None
        self.assertEqual(found, present,
                         f"/{pattern}/ {'not ' if present else ''}in mutt's IMAP exchange:\n"
                         f"{wire(log)}")

    def test_mutt_undeletes_from_the_expunged_view(self):
        m = self.imap()
        before = self.contents(m, "INBOX")
        self.assertEqual(len(before), 3)
        # LMTP adds Return-Path and Received in front: the stored message ends with LOST.
        lost_uid = next(u for u, (_, _, body) in before.items() if body.endswith(LOST))
        lost = before[lost_uid][2]

        # 1. mutt deletes the message and syncs: \Deleted, then EXPUNGE.
        def delete(t):
            t.wait_for("undelete-me")                   # the index is loaded
            t.keys("l")
            t.wait_for("^Limit to messages matching:")
            t.keys("~s undelete-me", "Enter")
            t.wait_for(r"Msgs:1/")
            t.keys("d")
            t.wait_for(r"Del:1")
            t.keys("$")                                 # sync: expunge it
            t.wait_for("1 deleted")
        log = self.mutt("=INBOX", delete)
        # mutt pipelines: a command may start a debug-log line of its own, without "> ".
        self.assertSaid(log, r"\ba\d{4} UID STORE \d+ \+FLAGS\.SILENT \(\\Deleted\)")
        self.assertSaid(log, r"\ba\d{4} (EXPUNGE|CLOSE)\b")

        after_delete = self.contents(m, "INBOX")
        self.assertEqual(set(after_delete), set(before) - {lost_uid})
        self.assertEqual({u: v for u, v in before.items() if u != lost_uid}, after_delete)

        # LIST: "*" never shows the area; a pattern that names it does.
        names = self.listed(m, '"*"')
        self.assertIn("INBOX", names)
        self.assertFalse([n for n in names if "EXPUNGED" in n.upper()], names)
        names = self.listed(m, '".EXPUNGED/*"')
        self.assertIn(VIEW, names)

        # The view holds the message; SELECT (not EXAMINE) of it is READ-ONLY.
        held = self.contents(m, VIEW)
        self.assertEqual([body for _, _, body in held.values()], [lost], held)
        m.close()
        m.untagged_responses.clear()
        typ, data = m._simple_command("SELECT", f'"{VIEW}"')
        self.assertEqual(typ, "OK", data)
        self.assertIn("READ-ONLY", m.untagged_responses, m.untagged_responses)
        self.assertTrue([x for x in m.untagged_responses["OK"]
                         if x.startswith(b"[PERMANENTFLAGS ()]")], m.untagged_responses)
        m.state = "SELECTED"  # a raw SELECT: imaplib does not track it
        m.close()

        # 2. mutt opens the view (read-only) and copies the message back to INBOX.
        def undelete(t):
            screen = t.wait_for("undelete-me")
            # status_chars "-*%A": '%' in the status line marks a read-only mailbox.
            self.assertRegex(screen, r"(?m)^-%-Mutt: ")
            t.keys("C")                                 # copy-message
            t.wait_for("^Copy to mailbox")
            t.keys("C-u", "=INBOX", "Enter")            # C-u clears the suggested folder
        log = self.mutt(f"imap://127.0.0.1:{self.inst.port('imap')}/{VIEW}", undelete)
        self.assertSaid(log, r"^\[[^]]+\] \d+< a\d{4} OK \[READ-ONLY\] SELECT")
        # mutt undeleted it with the server's COPY, not by downloading and APPENDing it.
        self.assertSaid(log, r'\ba\d{4} UID COPY \d+ "?INBOX"?')
        self.assertSaid(log, r"\ba\d{4} OK \[COPYUID ")
        self.assertSaid(log, r"\ba\d{4} APPEND\b", present=False)

        # 3. INBOX has it again: new UID, same message and internal date, no \Deleted.
        after = self.contents(m, "INBOX")
        new = set(after) - set(after_delete)
        self.assertEqual(len(new), 1, after)
        (new_uid,) = new
        self.assertGreater(new_uid, max(before))
        flags, date, body = after[new_uid]
        self.assertEqual(body, lost)                   # byte for byte, header and body
        self.assertEqual(date, before[lost_uid][1])
        self.assertNotIn("\\Deleted", flags)
        self.assertEqual(flags, before[lost_uid][0])   # the rest of its flags come back
        self.assertEqual({u: v for u, v in after.items() if u != new_uid}, after_delete)
        typ, data = m.uid("FETCH", str(new_uid), "(BODY.PEEK[HEADER.FIELDS (SUBJECT)])")
        self.assertEqual(typ, "OK", data)
        self.assertEqual(data[0][1].strip(), b"Subject: undelete-me")


if __name__ == "__main__":
    unittest.main()
