"""Real IMAP clients against the real dariusd (issue 6, "Real clients in CI"; recipes in
shared/notes/real-clients.md): curl over imap:// and imaps:// (LIST, UID fetch, SEARCH, APPEND,
a refused login), mutt in tmux reading a message and saving it to another folder, mbsync
syncing a mailbox both ways with a Maildir over IMAPS, and cyradm listing and creating
mailboxes. Every result is checked over imaplib, byte for byte and flag for flag. The
10,000-message mbsync round trip is in test_imap_clients_10k.py."""
import os
import re
import shutil
import smtplib
import tempfile
import time
import unittest

from darius_harness import Instance
from real_clients import (IMAP_TO_MAILDIR, Tmux, fetch_all, imap, mbsync, mbsync_config,
                          read_maildir, require, run, strip_tuid)

USER, PASSWORD = "carol", "carol-pw"


def message(subject, body, sender="Bob <bob@example.com>"):
    return (f"From: {sender}\r\nTo: carol@example.com\r\nSubject: {subject}\r\n"
            f"Message-ID: <{subject.replace(' ', '.')}@example.com>\r\n"
            "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n"
            f"\r\n{body}\r\n").encode()


class ClientTestBase(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.inst = Instance(user=f"{USER}:{PASSWORD}")
        cls.inst.start()
        cls.tmp = tempfile.mkdtemp(prefix="darius-clients-")

    @classmethod
    def tearDownClass(cls):
        cls.inst.stop()
        cls.inst.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def imap(self):
        m = imap(self.inst, USER, PASSWORD)
        self.addCleanup(lambda: m.logout() if m.state != "LOGOUT" else None)
        return m

    def fresh(self, m, name):
        m.delete(f'"{name}"')
        typ, data = m.create(f'"{name}"')
        self.assertEqual(typ, "OK", data)

    def append(self, m, mailbox, body, flags=None):
        """APPENDs; returns the new UID from APPENDUID."""
        typ, data = m.append(f'"{mailbox}"', flags, None, body)
        self.assertEqual(typ, "OK", data)
        return int(re.search(rb"APPENDUID \d+ (\d+)", data[0]).group(1))


class CurlTest(ClientTestBase):
    """curl 7.88: the URL forms of RFC 5092 (;UID=, ;SECTION=, ?search) and -X commands."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        require("curl")

    def curl(self, url, *args, user=f"{USER}:{PASSWORD}", tls=False):
        base = ["curl", "-sS", "--max-time", "20", "-u", user]
        if tls:
            base += ["--cacert", self.inst.cert]
        return run(base + list(args) + [url], timeout=30)

    def url(self, path="", tls=False):
        if tls:
            # The instance certificate names localhost (a DNS SAN), which curl checks.
            return f"imaps://localhost:{self.inst.port('imaps')}/{path}"
        return f"imap://127.0.0.1:{self.inst.port('imap')}/{path}"

    def ok(self, r):
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, b"")
        return r.stdout

    def setUp(self):
        m = self.imap()
        for name in ("curl/Sub", "curl", "curl-other"):
            m.delete(f'"{name}"')
        for name in ("curl", "curl/Sub", "curl-other"):
            self.assertEqual(m.create(f'"{name}"')[0], "OK")
        self.first = message("curl first", "first body\r\nwith 8bit: h\u00e9llo \u2713")
        self.second = message("curl second", "second body", sender="Dave <dave@example.com>")
        self.uid1 = self.append(m, "curl", self.first, r"(\Flagged)")
        self.uid2 = self.append(m, "curl", self.second)

    def listed(self, out):
        names = set()
        for line in out.decode().splitlines():
            mt = re.fullmatch(r'\* LIST \(([^)]*)\) "/" "?([^"]*)"?', line)
            self.assertIsNotNone(mt, line)
            names.add(mt.group(2))
        return names

    def check_list_and_fetch(self, tls):
        names = self.listed(self.ok(self.curl(self.url(tls=tls), tls=tls)))
        self.assertEqual(names, {"INBOX", "curl", "curl/Sub", "curl-other"})
        # SELECT + UID FETCH n BODY[]: the bytes that were appended, nothing more.
        got = self.ok(self.curl(self.url(f"curl;UID={self.uid1}", tls=tls), tls=tls))
        self.assertEqual(got, self.first)
        got = self.ok(self.curl(self.url(f"curl;UID={self.uid2}", tls=tls), tls=tls))
        self.assertEqual(got, self.second)

    def test_imap_list_and_fetch_by_uid(self):
        self.check_list_and_fetch(tls=False)

    def test_imaps_list_and_fetch_by_uid_with_the_instance_ca(self):
        self.check_list_and_fetch(tls=True)

    def test_imaps_without_the_ca_is_refused_by_curl(self):
        # The certificate check is real: without --cacert curl does not trust the instance.
        r = run(["curl", "-sS", "--max-time", "20", "-u", f"{USER}:{PASSWORD}",
                 self.url(tls=True)], timeout=30)
        self.assertEqual(r.returncode, 60, r.stderr)

    def test_starttls_required(self):
        r = self.curl(f"imap://localhost:{self.inst.port('imap')}/curl;UID={self.uid2}",
                      "--ssl-reqd", tls=True)
        self.assertEqual(self.ok(r), self.second)

    def test_section_and_mailindex(self):
        got = self.ok(self.curl(
            self.url(f"curl;UID={self.uid2}/;SECTION=HEADER.FIELDS%20(SUBJECT%20FROM)")))
        self.assertEqual(got, b"From: Dave <dave@example.com>\r\nSubject: curl second\r\n\r\n")
        got = self.ok(self.curl(self.url("curl;MAILINDEX=2")))
        self.assertEqual(got, self.second)
        got = self.ok(self.curl(self.url(f"curl;UID={self.uid1}/;SECTION=TEXT")))
        self.assertEqual(got, self.first.split(b"\r\n\r\n", 1)[1])

    def test_search(self):
        self.assertEqual(self.ok(self.curl(self.url("curl?ALL"))), b"* SEARCH 1 2\r\n")
        self.assertEqual(self.ok(self.curl(self.url("curl?FROM%20dave"))), b"* SEARCH 2\r\n")
        self.assertEqual(self.ok(self.curl(self.url("curl?FLAGGED"))), b"* SEARCH 1\r\n")
        self.assertEqual(self.ok(self.curl(self.url("curl?SUBJECT%20nowhere"))),
                         b"* SEARCH\r\n")
        out = self.ok(self.curl(self.url("curl"), "-X", "UID SEARCH BODY second"))
        self.assertEqual(out, f"* SEARCH {self.uid2}\r\n".encode())
        # CHARSET UTF-8 with a non-ASCII key in the body (RFC 9051 §6.4.4): UTF-8 is allowed
        # in a quoted string (RFC 9051 §9, QUOTED-CHAR), never in an atom, so the bare form
        # is a BAD, which curl reports as rc 21.
        out = self.ok(self.curl(self.url("curl"), "-X",
                                'UID SEARCH CHARSET UTF-8 BODY "\u2713"'))
        self.assertEqual(out, f"* SEARCH {self.uid1}\r\n".encode())
        r = self.curl(self.url("curl"), "-X", "UID SEARCH CHARSET UTF-8 BODY \u2713")
        self.assertEqual(r.returncode, 21, r.stderr)

    def test_append_with_curl(self):
        path = os.path.join(self.tmp, "upload.eml")
        body = message("uploaded by curl", "line 1\r\nline 2")
        with open(path, "wb") as f:
            f.write(body)
        self.ok(self.curl(self.url("curl-other"), "-T", path))
        got = fetch_all(self.imap(), "curl-other")
        self.assertEqual([(f, b) for f, _, b in got.values()], [(("\\Seen",), body)])

    def test_status_and_store_commands(self):
        out = self.ok(self.curl(self.url(), "-X", "STATUS curl (MESSAGES UIDNEXT)"))
        self.assertEqual(out, f'* STATUS "curl" (MESSAGES 2 UIDNEXT {self.uid2 + 1})\r\n'
                         .encode())
        self.ok(self.curl(self.url("curl"), "-X", f"UID STORE {self.uid2} +FLAGS (\\Answered)"))
        got = fetch_all(self.imap(), "curl")
        self.assertEqual(got[self.uid2][0], ("\\Answered",))
        self.assertEqual(got[self.uid1][0], ("\\Flagged",))

    def test_failed_login_is_a_clear_failure(self):
        r = self.curl(self.url("curl"), user=f"{USER}:wrong-password")
        self.assertEqual(r.returncode, 67, r.stderr)  # CURLE_LOGIN_DENIED
        self.assertIn(b"Login denied", r.stderr)
        self.assertEqual(r.stdout, b"")
        r = self.curl(self.url("curl"), user="nosuchuser:whatever", tls=True)
        self.assertEqual(r.returncode, 67, r.stderr)

    def test_missing_uid_and_mailbox(self):
        r = self.curl(self.url("curl;UID=999"))
        self.assertEqual(r.returncode, 78, r.stderr)  # CURLE_REMOTE_FILE_NOT_FOUND
        r = self.curl(self.url("no-such-box;UID=1"))
        self.assertNotEqual(r.returncode, 0)
        self.assertEqual(r.stdout, b"")


class MuttTest(ClientTestBase):
    """mutt 2.2 in a private tmux: open INBOX, read a message, save it to another folder."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        require("mutt", "tmux")

    def muttrc(self, tls):
        path = os.path.join(self.tmp, f"muttrc-{int(tls)}")
        lines = [f'set imap_user = "{USER}"', f'set imap_pass = "{PASSWORD}"',
                 "set confirmcreate = no", "set confirmappend = no",
                 "set delete = yes", 'set header_cache = ""', 'set message_cachedir = ""',
                 "set mail_check = 60", "set timeout = 60",
                 # Else mutt marks the unread messages it saw with an "Old" keyword on exit.
                 "set mark_old = no"]
        if tls:
            lines += [f'set folder = "imaps://localhost:{self.inst.port("imaps")}/"',
                      f'set certificate_file = "{os.path.join(self.tmp, "mutt-certs")}"']
            shutil.copyfile(self.inst.cert, os.path.join(self.tmp, "mutt-certs"))
        else:
            # mutt 2.2 sets ssl_force_tls by default: plaintext needs both off, or it stops
            # at the certificate prompt.
            lines += [f'set folder = "imap://127.0.0.1:{self.inst.port("imap")}/"',
                      "set ssl_starttls = no", "set ssl_force_tls = no"]
        # After `folder`: mutt expands "+" when the line is read.
        lines.append('set spoolfile = "+INBOX"')
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        return path

    def move_with_mutt(self, tls):
        target = f"mutt-saved-{int(tls)}"
        m = self.imap()
        self.fresh(m, target)
        keep = message(f"mutt keeps {int(tls)}", "stays in INBOX")
        moved = message(f"move-me {int(tls)}", "the body mutt shows\r\nsecond line")
        keep_uid = self.append(m, "INBOX", keep)
        moved_uid = self.append(m, "INBOX", moved)
        before = fetch_all(m, "INBOX")

        t = Tmux(f"env TERM=xterm-256color mutt -n -F {self.muttrc(tls)}; "
                 "echo MUTT-EXIT=$?; sleep 60")
        self.addCleanup(t.close)
        t.wait_for(f"move-me {int(tls)}")              # the index is loaded
        t.keys("l")
        t.wait_for("^Limit to messages matching:")
        t.keys(f"~s 'move-me {int(tls)}'", "Enter")
        t.wait_for(r"Msgs:1/")
        t.keys("Enter")                                # read it in the pager
        t.wait_for("the body mutt shows")
        screen = t.wait_for("second line")
        self.assertIn(f"Subject: move-me {int(tls)}", screen)
        t.keys("i")                                    # back to the index
        t.wait_for(r"Msgs:1/")
        t.keys("s")
        t.wait_for("^Save to mailbox")
        t.keys("C-u", f"={target}", "Enter")           # C-u clears the suggested folder
        t.wait_for(r"Del:1")
        t.keys("$")                                    # sync: expunge the original
        t.wait_for("1 deleted")
        t.keys("q")
        t.wait_for("MUTT-EXIT=0")

        after = fetch_all(m, "INBOX")
        self.assertNotIn(moved_uid, after)
        self.assertEqual(after[keep_uid], before[keep_uid])
        self.assertEqual(set(after), set(before) - {moved_uid})
        saved = fetch_all(m, target)
        self.assertEqual(len(saved), 1, saved)
        flags, date, body = next(iter(saved.values()))
        self.assertEqual(body, moved)
        self.assertEqual(date, before[moved_uid][1])   # COPY keeps the internal date
        self.assertEqual(flags, ("\\Seen",))           # mutt read it

    def test_read_and_save_to_folder(self):
        self.move_with_mutt(tls=False)

    def test_threaded_view(self):
        """mutt's threaded view (sort = threads) of a folder with a three-deep thread, a
        reply whose parent is missing, and an unrelated message. mutt 2.2 never sends THREAD
        (it threads on the client from the References and In-Reply-To it FETCHes), so this
        checks what the server gives it for that, through what the user sees."""
        box = "mutt-threads"
        m = self.imap()
        self.fresh(m, box)

        def threaded(subject, msgid, day, parents=()):
            refs = "".join(f"References: {' '.join(parents)}\r\n" if parents else "")
            irt = f"In-Reply-To: {parents[-1]}\r\n" if parents else ""
            return (f"From: Bob <bob@example.com>\r\nTo: carol@example.com\r\n"
                    f"Subject: {subject}\r\nMessage-ID: {msgid}\r\n{irt}{refs}"
                    f"Date: {day} Jan 2025 10:00:00 +0000\r\n\r\nbody of {subject}\r\n"
                    ).encode()

        # Appended out of order, so that only the headers can give the tree.
        for body in (threaded("Catering list", "<c@t>", 4, ("<p@t>", "<v@t>")),
                     threaded("Unrelated note", "<u@t>", 1),
                     threaded("Venue idea", "<v@t>", 3, ("<p@t>",)),
                     threaded("Orphan reply", "<o@t>", 5, ("<gone@t>",)),
                     threaded("Party plan", "<p@t>", 2)):
            self.append(m, box, body)
        rc = self.muttrc(tls=False)
        with open(rc, "a") as f:
            f.write(f'set spoolfile = "+{box}"\nset sort = threads\nset sort_aux = date\n'
                    "set ascii_chars = yes\nset hide_thread_subject = no\n"
                    "set strict_threads = yes\n")
        t = Tmux(f"env TERM=xterm-256color mutt -n -F {rc}; echo MUTT-EXIT=$?; sleep 60")
        self.addCleanup(t.close)
        screen = t.wait_for("Orphan reply")
        rows = [ln for ln in screen.splitlines()
                if re.search(r"(Catering|Unrelated|Venue|Orphan|Party)", ln)]
        subjects = [re.search(r"(Catering|Unrelated|Venue|Orphan|Party)", ln).group(1)
                    for ln in rows]
        # Roots by date; Venue under Party, Catering under Venue; the orphan is a root.
        self.assertEqual(subjects, ["Unrelated", "Party", "Venue", "Catering", "Orphan"], screen)
        depth = {s: ln.index(s) for s, ln in zip(subjects, rows)}
        self.assertEqual(depth["Unrelated"], depth["Party"], screen)
        self.assertEqual(depth["Orphan"], depth["Party"], screen)
        self.assertGreater(depth["Venue"], depth["Party"], screen)
        self.assertGreater(depth["Catering"], depth["Venue"], screen)
        self.assertRegex(rows[2], r"`->\s*Venue idea")
        t.keys("q")
        t.wait_for("MUTT-EXIT=0")

    def test_read_and_save_to_folder_over_imaps(self):
        self.move_with_mutt(tls=True)


class MbsyncTest(ClientTestBase):
    """mbsync 1.4 both ways with a Maildir, over IMAPS with the instance certificate and
    SASL PLAIN: server -> Maildir, local flag changes, a new and a deleted local message,
    then Maildir -> server."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        require("mbsync")

    def test_two_way_sync_with_a_maildir(self):
        m = self.imap()
        self.fresh(m, "Sync")
        msgs = {
            "plain": (message("sync plain", "no flags"), None),
            "seen": (message("sync seen", "seen once"), r"(\Seen)"),
            "flagged": (message("sync flagged", "important"), r"(\Flagged \Answered)"),
            "doomed": (message("sync doomed", "deleted locally"), r"(\Seen)"),
        }
        uids = {k: self.append(m, "Sync", body, flags) for k, (body, flags) in msgs.items()}
        maildir = os.path.join(self.tmp, "Mail")
        os.makedirs(maildir)
        config = os.path.join(self.tmp, "mbsyncrc")
        mbsync_config(config, self.inst, USER, PASSWORD, maildir, tls=True, channels=[{
            "name": "sync", "far": "Sync", "near": "Sync",
            "state": os.path.join(self.tmp, "state"),
            "options": ["Create Both", "Expunge Both", "Remove None", "Sync All"]}])
        mbsync(config, "sync")

        # Server -> Maildir: every message, its flags in the file name, its bytes with LF
        # line ends plus mbsync's X-TUID.
        server = fetch_all(m, "Sync")
        local = read_maildir(os.path.join(maildir, "Sync"))
        self.assertEqual(len(local), 4, local.keys())
        by_uid = {int(re.search(r",U=(\d+)", n).group(1)): n for n in local}
        self.assertEqual(set(by_uid), set(server))
        for uid, (flags, _, body) in server.items():
            lflags, lbody = local[by_uid[uid]]
            self.assertEqual(lflags, flags, uid)
            self.assertEqual(strip_tuid(lbody), body.replace(b"\r\n", b"\n"), uid)

        # Local changes: flags on two messages, one new message, one deleted file.
        def rename(uid, letters):
            old = os.path.join(maildir, "Sync", by_uid[uid])
            base = os.path.basename(old).split(":2,")[0]
            os.rename(old, os.path.join(maildir, "Sync", "cur", f"{base}:2,{letters}"))
        rename(uids["plain"], "DS")          # \Draft \Seen
        rename(uids["seen"], "F")            # \Seen off, \Flagged on
        os.unlink(os.path.join(maildir, "Sync", by_uid[uids["doomed"]]))
        new_body = message("written locally", "a local draft\r\nwith two lines")
        new_body = new_body.replace(b"\r\n", b"\n")
        with open(os.path.join(maildir, "Sync", "cur", "1700000000.local.host:2,RS"),
                  "wb") as f:
            f.write(new_body)
        mbsync(config, "sync")

        server = fetch_all(m, "Sync")
        self.assertNotIn(uids["doomed"], server)          # expunged on the server
        self.assertEqual(server[uids["plain"]][0], ("\\Draft", "\\Seen"))
        self.assertEqual(server[uids["seen"]][0], ("\\Flagged",))
        self.assertEqual(server[uids["flagged"]][0], ("\\Answered", "\\Flagged"))
        for k in ("plain", "seen", "flagged"):
            self.assertEqual(server[uids[k]][2], msgs[k][0], k)
        new = [u for u in server if u not in uids.values()]
        self.assertEqual(len(new), 1, server.keys())
        flags, _, body = server[new[0]]
        self.assertEqual(flags, ("\\Answered", "\\Seen"))
        self.assertEqual(strip_tuid(body), new_body.replace(b"\n", b"\r\n"))

        # A third run changes nothing: no duplicates either way.
        mbsync(config, "sync")
        self.assertEqual(fetch_all(m, "Sync"), server)
        self.assertEqual(len(read_maildir(os.path.join(maildir, "Sync"))), 4)


class CyradmTest(ClientTestBase):
    """Cyrus's cyradm (Perl Cyrus::IMAP): lm (LIST) and cm (CREATE), with SASL PLAIN and with
    the LOGIN command. Its exit code is 0 even when a command fails, so stderr is checked."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        require("cyradm")

    def cyradm(self, script, auth=None):
        args = ["cyradm", "--norc", "--user", USER, "-w", PASSWORD, "--server", "127.0.0.1",
                "--port", str(self.inst.port("imap"))]
        if auth:
            args += ["--auth", auth]
        return run(args, input=script.encode(), timeout=60)

    def listed(self, out):
        # "127.0.0.1> " prompts, then "Name (\Attr ...)" columns.
        text = out.decode().replace("127.0.0.1> ", "\n")
        return dict(re.findall(r"(\S+) \(([^)]*)\)", text))

    def check(self, auth, prefix):
        m = self.imap()
        for name in (f"{prefix}/sub", prefix):
            m.delete(name)
        r = self.cyradm(f"cm {prefix}\ncm {prefix}/sub\nlm\n", auth=auth)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, b"")
        listed = self.listed(r.stdout)
        self.assertEqual(listed.get(prefix), "\\HasChildren", r.stdout)
        self.assertEqual(listed.get(f"{prefix}/sub"), "\\HasNoChildren", r.stdout)
        self.assertIn("INBOX", listed)
        # The server agrees.
        typ, data = m.list('""', f"{prefix}*")
        self.assertEqual(typ, "OK")
        self.assertEqual(sorted(d.decode() for d in data),
                         [f'(\\HasChildren) "/" "{prefix}"',
                          f'(\\HasNoChildren) "/" "{prefix}/sub"'])
        # Creating it again fails, and cyradm says so on stderr.
        r = self.cyradm(f"cm {prefix}\n", auth=auth)
        self.assertIn(b"createmailbox", r.stderr)
        self.assertIn(b"ALREADYEXISTS", r.stderr)
        # lm with a pattern.
        r = self.cyradm(f"lm {prefix}/*\n", auth=auth)
        self.assertEqual(r.stderr, b"")
        self.assertEqual(self.listed(r.stdout), {f"{prefix}/sub": "\\HasNoChildren"})

    def test_list_and_create_with_sasl_plain(self):
        self.check(None, "cyr-sasl")

    def test_list_and_create_with_login_command(self):
        self.check("login", "cyr-login")

    def test_wrong_password(self):
        r = run(["cyradm", "--norc", "--user", USER, "-w", "nope", "--auth", "login",
                 "--server", "127.0.0.1", "--port", str(self.inst.port("imap"))],
                input=b"lm\n", timeout=60)
        self.assertNotEqual(r.returncode, 0)
        self.assertNotIn(b"INBOX", r.stdout)


class DeliveredMessageTest(ClientTestBase):
    """A message that came in over LMTP reads back through curl exactly as imaplib sees it,
    ending with the delivered bytes after the trace fields lmtpd prepends."""

    def test_lmtp_delivery_read_by_curl(self):
        require("curl")
        body = message("delivered for curl", "over lmtp")
        s = smtplib.LMTP("127.0.0.1", self.inst.port("lmtp"), timeout=20)
        s.ehlo("client.example.com")
        self.assertEqual(s.mail("bob@example.com")[0], 250)
        self.assertEqual(s.rcpt(f"{USER}@localhost")[0], 250)
        self.assertEqual(s.data(body)[0], 250)
        s.quit()
        m = self.imap()
        m.select("INBOX")
        typ, data = m.uid("SEARCH", None, "SUBJECT", '"delivered for curl"')
        uid = int(data[0].split()[-1])
        stored = fetch_all(m, "INBOX")[uid][2]
        self.assertTrue(stored.endswith(body), stored)
        self.assertTrue(stored.startswith(b"Return-Path: <bob@example.com>\r\nReceived: "))
        r = run(["curl", "-sS", "--max-time", "20", "-u", f"{USER}:{PASSWORD}",
                 f"imap://127.0.0.1:{self.inst.port('imap')}/INBOX;UID={uid}"], timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, stored)


if __name__ == "__main__":
    unittest.main()
