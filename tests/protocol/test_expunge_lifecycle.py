"""Two-phase expunge against the real dariusd and the real `darius` tool (issue 18): an
EXPUNGE keeps the message (file, flags, expunge time) until `darius expire` removes it;
`darius unexpunge` brings it back with a new UID; QRESYNC still reports what vanished after
expire removed the records; `expunge_mode: immediate` removes the files at once."""
import glob
import imaplib
import json
import os
import re
import smtplib
import unittest

from darius_harness import Instance, darius, logout_quietly


def message(i):
    return f"From: s@example.org\r\nTo: alice@example.org\r\nSubject: note {i}\r\n\r\nbody {i}\r\n"


class ExpungeLifecycleTest(unittest.TestCase):
    def start(self, **options):
        inst = Instance(options={"allow_plaintext_auth": "yes", **options})
        self.addCleanup(inst.close)
        inst.start()
        self.addCleanup(inst.stop)
        lmtp = smtplib.LMTP("127.0.0.1", inst.port("lmtp"))
        for i in range(1, 6):
            lmtp.sendmail("s@example.org", ["alice"], message(i))
        lmtp.quit()
        return inst

    def imap(self, inst):
        m = imaplib.IMAP4("127.0.0.1", inst.port("imap"), timeout=30)
        self.addCleanup(logout_quietly, m)
        self.assertEqual(m.login("alice", "alice-secret")[0], "OK")
        return m

    def subjects(self, m):
        typ, _ = m.select("INBOX")
        self.assertEqual(typ, "OK")
        typ, data = m.uid("FETCH", "1:*", "(BODY.PEEK[HEADER.FIELDS (SUBJECT)] FLAGS)")
        self.assertEqual(typ, "OK", data)
        out = {}
        for item in data:
            if isinstance(item, tuple):
                uid = int(re.search(rb"UID (\d+)", item[0]).group(1))
                out[uid] = item[1].decode().strip()
        return out

    def expunge(self, m, uids):
        m.select("INBOX")
        self.assertEqual(m.uid("STORE", uids, "+FLAGS", r"(\Deleted \Flagged)")[0], "OK")
        self.assertEqual(m.expunge()[0], "OK")

    def message_files(self, inst):
        return sorted(os.path.basename(p) for p in
                      glob.glob(os.path.join(inst.dir, "**", "user", "alice", "*."), recursive=True))

    def test_expunged_mail_is_kept_restored_and_expired(self):
        inst = self.start()
        m = self.imap(inst)
        self.expunge(m, "2:3")
        self.assertEqual(sorted(self.subjects(m)), [1, 4, 5])
        # The files are still there (phase one).
        self.assertEqual(self.message_files(inst), ["1.", "2.", "3.", "4.", "5."])

        r = darius("mailbox", "show", "-C", inst.conf, "user/alice", "--expunged")
        lines = r.stdout.splitlines()
        self.assertIn("# expunged 2", lines)
        held = [l.split("\t") for l in lines[lines.index("# expunged 2") + 1:]]
        self.assertEqual([h[0] for h in held], ["2", "3"])
        self.assertIn("\\Deleted", held[0][1])
        self.assertTrue(held[0][5].startswith("expunged "))

        r = darius("unexpunge", "-C", inst.conf, "user/alice", "--uid", "2", "--json")
        out = json.loads(r.stdout)
        self.assertEqual(out["restored"], [{"from": 2, "to": 6}])
        got = self.subjects(m)
        self.assertEqual(got[6], "Subject: note 2")
        typ, data = m.uid("FETCH", "6", "(FLAGS)")
        self.assertIn(rb"\Flagged", data[0])  # flags come back, but not \Deleted
        self.assertNotIn(rb"\Deleted", data[0])

        # Bad input: no selection, a time that is not one, a mailbox that does not exist.
        self.assertEqual(darius("unexpunge", "-C", inst.conf, "user/alice", check=False).returncode, 2)
        self.assertEqual(darius("unexpunge", "-C", inst.conf, "user/alice", "--since", "yesterday",
                                check=False).returncode, 2)
        self.assertEqual(darius("unexpunge", "-C", inst.conf, "user/nobody", "--all",
                                check=False).returncode, 1)
        self.assertEqual(darius("expire", "-C", inst.conf, check=False).returncode, 2)

        # Within the policy nothing goes; -n with --now says what would, and removes nothing.
        r = darius("expire", "-C", inst.conf, "--user", "alice", "--json")
        self.assertEqual(json.loads(r.stdout)["owners"][0]["removed_messages"], 0)
        self.assertEqual(json.loads(r.stdout)["owners"][0]["held_messages"], 2)
        r = darius("expire", "-C", inst.conf, "--all", "--now", "-n")
        self.assertIn("alice: held 2 messages", r.stdout)
        self.assertIn("would remove 2", r.stdout)
        self.assertIn("2.", self.message_files(inst))
        # Past the timeout (--at), they go: the files, and unexpunge finds nothing more.
        r = darius("expire", "-C", inst.conf, "--all", "--at", "2100-01-01")
        self.assertIn("removed 2", r.stdout)
        self.assertIn("user/alice: 2", r.stdout)
        self.assertEqual(self.message_files(inst), ["1.", "4.", "5.", "6."])
        r = darius("unexpunge", "-C", inst.conf, "user/alice", "--all", "--json")
        self.assertEqual(json.loads(r.stdout)["restored"], [])
        self.assertEqual(sorted(self.subjects(m)), [1, 4, 5, 6])

    def test_qresync_reports_vanished_after_expire_removed_the_records(self):
        inst = self.start()
        m = self.imap(inst)
        self.assertEqual(m._simple_command("ENABLE", "QRESYNC")[0], "OK")
        typ, data = m.select("INBOX")
        uidvalidity = int(m.untagged_responses["UIDVALIDITY"][0])
        known = int(re.search(rb"HIGHESTMODSEQ (\d+)", b" ".join(
            x for x in m.untagged_responses.get("OK", []) if x)).group(1))
        self.expunge(m, "2,4")
        m.close()
        m.untagged_responses.clear()
        # Every record goes: only index.purged_modseq tells SELECT that 2 and 4 vanished.
        darius("expire", "-C", inst.conf, "--user", "alice", "--now")
        typ, data = m._simple_command("SELECT", "INBOX", f"(QRESYNC ({uidvalidity} {known} 1:5))")
        self.assertEqual(typ, "OK", data)
        m.state = "SELECTED"  # a raw SELECT: imaplib does not track it
        vanished = m.untagged_responses.get("VANISHED", [])
        self.assertEqual(vanished, [b"(EARLIER) 2,4"])
        # Without known UIDs the range is 1:<UIDNEXT-1> (RFC 7162 §3.2.5.1), never past it.
        m.close()
        m.untagged_responses.clear()
        typ, data = m._simple_command("SELECT", "INBOX", f"(QRESYNC ({uidvalidity} {known}))")
        self.assertEqual(typ, "OK", data)
        m.state = "SELECTED"
        self.assertEqual(m.untagged_responses.get("VANISHED", []), [b"(EARLIER) 2,4"])
        # FETCH ... (CHANGEDSINCE ... VANISHED) gives the same answer, up to the last UID known.
        m.untagged_responses.clear()
        typ, data = m.uid("FETCH", "1:*", f"(FLAGS) (CHANGEDSINCE {known} VANISHED)")
        self.assertEqual(typ, "OK", data)
        self.assertEqual(m.untagged_responses.get("VANISHED", []), [b"(EARLIER) 2,4"])

    def test_immediate_mode_removes_the_file_with_the_expunge(self):
        inst = self.start(expunge_mode="immediate")
        m = self.imap(inst)
        self.expunge(m, "3")
        self.assertEqual(self.message_files(inst), ["1.", "2.", "4.", "5."])
        r = darius("unexpunge", "-C", inst.conf, "user/alice", "--all", "--json")
        self.assertEqual(json.loads(r.stdout)["restored"], [])


if __name__ == "__main__":
    unittest.main()
