"""Two-phase delete over plain IMAP (issue 18, docs/design/expunge.md): DELETE keeps the
folder as `.DELETED/<folder>-<YYYYMMDD-HH:MM:SS>` (UTC), read-only, with FETCH, SEARCH and
COPY; its expunged messages are `.EXPUNGED/.DELETED/...`; `RENAME ".DELETED/Old-..." "Old"`
brings it back with its UIDVALIDITY and UIDs. Its quota goes at DELETE. LIST shows the area
only to a pattern that names it. Only the owner and admins see it. Bad input (a name that does
not exist, a taken target, reserved targets) is a clear NO that changes nothing. Both
hierarchy separators. `darius undelete` and `darius expire` from the command line."""
import imaplib
import json
import re
import smtplib
import unittest

from darius_harness import Instance, darius, logout_quietly

STAMP = re.compile(r"-\d{8}-\d\d:\d\d:\d\d(-\d+)?$")


def message(i):
    return f"From: s@example.org\r\nTo: alice@example.org\r\nSubject: note {i}\r\n\r\nbody {i}\r\n"


class DeletedFoldersTest(unittest.TestCase):
    def start(self, **options):
        inst = Instance(options={"allow_plaintext_auth": "yes", "admins": "cyrus", **options})
        self.addCleanup(inst.close)
        for user in ("bob", "cyrus"):
            darius("user", "add", "-C", inst.conf, user, "--password", user + "-pw")
        inst.start()
        self.addCleanup(inst.stop)
        # A limit, so that GETQUOTAROOT reports the usage.
        darius("quota", "set", "-C", inst.conf, "user/alice", "MESSAGE=1000")
        lmtp = smtplib.LMTP("127.0.0.1", inst.port("lmtp"))
        lmtp.sendmail("s@example.org", ["alice"], message(0))
        lmtp.quit()
        return inst

    def login(self, inst, user="alice", password="alice-secret"):
        m = imaplib.IMAP4("127.0.0.1", inst.port("imap"), timeout=30)
        self.addCleanup(logout_quietly, m)
        self.assertEqual(m.login(user, password)[0], "OK")
        return m

    def raw_select(self, m, name, verb="SELECT"):
        m.untagged_responses.clear()
        m.is_readonly = True
        typ, data = m._simple_command(verb, name)
        if typ == "OK":
            m.state = "SELECTED"
        return typ, data, dict(m.untagged_responses)

    def list_names(self, m, pattern):
        typ, data = m.list('""', pattern)
        self.assertEqual(typ, "OK", data)
        return [re.search(rb'"([^"]*)"$', d).group(1).decode() for d in data if d]

    def fill(self, m, folder, n=4, expunge="2"):
        """Makes `folder` with n messages, expunges UID `expunge`; returns its UIDVALIDITY."""
        self.assertEqual(m.create(folder)[0], "OK")
        for i in range(1, n + 1):
            self.assertEqual(m.append(folder, r"(\Flagged)", None, message(i).encode())[0], "OK")
        m.is_readonly = False
        typ, data = m.select(folder)
        self.assertEqual(typ, "OK", data)
        uidvalidity = m.untagged_responses["UIDVALIDITY"][-1]
        if expunge:
            self.assertEqual(m.uid("STORE", expunge, "+FLAGS", r"(\Deleted)")[0], "OK")
            self.assertEqual(m.expunge()[0], "OK")
        self.assertEqual(m.unselect()[0], "OK")
        return uidvalidity

    def usage(self, m):
        typ, data = m.getquotaroot("INBOX")
        self.assertEqual(typ, "OK", data)
        found = re.search(rb"MESSAGE (\d+)", b" ".join(d for d in data[1] if d))
        return int(found.group(1)) if found else None

    def test_delete_keeps_the_folder_and_rename_brings_it_back(self):
        inst = self.start()
        m = self.login(inst)
        uidvalidity = self.fill(m, "Old")
        self.assertEqual(self.usage(m), 4)  # 1 in INBOX, 3 live in Old
        self.assertEqual(m.delete("Old")[0], "OK")
        self.assertEqual(self.usage(m), 1)  # released at once
        # Listed only when named; never by "*".
        self.assertNotIn(".DELETED", " ".join(self.list_names(m, '"*"')))
        kept = self.list_names(m, '".DELETED/*"')
        self.assertEqual(len(kept), 1, kept)
        self.assertEqual(self.list_names(m, '".DELETED"'), [".DELETED"])
        self.assertTrue(kept[0].startswith(".DELETED/Old-") and STAMP.search(kept[0]), kept)
        self.assertEqual(self.list_names(m, '".deleted/%"'), kept)  # the area in any case
        bin_names = self.list_names(m, '".EXPUNGED/*"')
        self.assertIn(".EXPUNGED/.DELETED/" + kept[0][len(".DELETED/"):], bin_names)
        # Read-only, same UIDVALIDITY and UIDs, FETCH and SEARCH work.
        typ, data, untagged = self.raw_select(m, f'"{kept[0]}"')
        self.assertEqual(typ, "OK", data)
        self.assertIn(b"[READ-ONLY]", data[0])
        self.assertEqual(untagged["PERMANENTFLAGS"][-1], b"()")
        self.assertEqual(untagged["UIDVALIDITY"][-1], uidvalidity)
        self.assertEqual(m.uid("SEARCH", "ALL"), ("OK", [b"1 3 4"]))
        self.assertEqual(m.uid("STORE", "1", "+FLAGS", r"(\Seen)")[0], "NO")
        typ, data = m.uid("FETCH", "3", "(FLAGS BODY.PEEK[TEXT])")
        self.assertIn(b"body 3", data[0][1])
        # COPY out of it works; so does STATUS on it.
        self.assertEqual(m.uid("COPY", "4", "INBOX")[0], "OK")
        typ, data = m.status(f'"{kept[0]}"', "(MESSAGES UIDVALIDITY)")
        self.assertEqual(typ, "OK", data)
        self.assertIn(b"MESSAGES 3", data[0])
        # Its expunged view shows UID 2, and COPY out of that is undelete.
        typ, data, untagged = self.raw_select(m, f'".EXPUNGED/.DELETED/{kept[0][9:]}"')
        self.assertEqual(typ, "OK", data)
        self.assertEqual(m.uid("SEARCH", "ALL"), ("OK", [b"2"]))
        self.assertEqual(m.unselect()[0], "OK")
        # RENAME back: same UIDVALIDITY, UIDs and flags; the area is empty again.
        self.assertEqual(m.rename(f'"{kept[0]}"', "Old")[0], "OK")
        self.assertEqual(self.list_names(m, '".DELETED/*"'), [])
        m.is_readonly = False
        typ, data = m.select("Old")
        self.assertEqual(typ, "OK", data)
        self.assertEqual(m.untagged_responses["UIDVALIDITY"][-1], uidvalidity)
        self.assertEqual(m.uid("SEARCH", "ALL"), ("OK", [b"1 3 4"]))
        typ, data = m.uid("FETCH", "1", "(FLAGS)")
        self.assertIn(rb"\Flagged", data[0])
        self.assertEqual(m.unselect()[0], "OK")
        self.assertEqual(self.usage(m), 5)  # 1 + the copied one + 3 back

    def test_bad_input_is_a_clear_no_that_changes_nothing(self):
        inst = self.start()
        m = self.login(inst)
        self.fill(m, "Old", n=2, expunge=None)
        self.assertEqual(m.delete("Old")[0], "OK")
        kept = self.list_names(m, '".DELETED/*"')[0]
        # A deleted name that does not exist, or without its time.
        for bad in ('".DELETED/Old-20000101-00:00:00"', '".DELETED/Nope-20000101-00:00:00"',
                    '".DELETED/Old"', '".DELETED"', '".DELETED/Old-20001301-00:00:00"'):
            typ, data, _ = self.raw_select(m, bad)
            self.assertEqual(typ, "NO", (bad, data))
            self.assertEqual(m.rename(bad, "Back")[0], "NO", bad)
        # Undelete into a name that is taken.
        self.assertEqual(m.create("Old")[0], "OK")
        typ, data = m.rename(f'"{kept}"', "Old")
        self.assertEqual(typ, "NO")
        self.assertIn(b"ALREADYEXISTS", data[0])
        # Reserved targets and sources: CREATE, APPEND, SETACL, RENAME into, DELETE.
        self.assertEqual(m.create('".DELETED/x-20200101-00:00:00"')[0], "NO")
        typ, data = m.append(f'"{kept}"', None, None, message(9).encode())
        self.assertEqual(typ, "NO")
        self.assertIn(b"[CANNOT]", data[0])  # never TRYCREATE: no CREATE can make it
        typ, data = m.copy("1", f'"{kept}"') if m.select("INBOX")[0] == "OK" else ("?", [b""])
        self.assertEqual(typ, "NO")
        self.assertIn(b"[CANNOT]", data[0])
        self.assertEqual(m.unselect()[0], "OK")
        self.assertEqual(m.setacl(f'"{kept}"', "bob", "lr")[0], "NO")
        self.assertEqual(m.rename("Old", f'"{kept}"')[0], "NO")
        self.assertEqual(m.rename(f'"{kept}"', '".DELETED/y"')[0], "NO")
        self.assertEqual(m.delete(f'"{kept}"')[0], "NO")
        self.assertEqual(m.rename('".EXPUNGED/INBOX"', "Restored")[0], "NO")
        # Nothing changed: the folder is still there, once.
        self.assertEqual(self.list_names(m, '".DELETED/*"'), [kept])
        typ, data = m.myrights(f'"{kept}"')
        self.assertEqual(typ, "OK", data)
        self.assertIn(b" lr", data[0])

    def test_only_the_owner_and_admins_see_deleted_folders(self):
        inst = self.start()
        m = self.login(inst)
        self.fill(m, "Shared", n=1, expunge=None)
        self.assertEqual(m.setacl("Shared", "anyone", "lr")[0], "OK")
        self.assertEqual(m.setacl("Shared", "bob", "lrswipkxtea")[0], "OK")
        self.assertEqual(m.delete("Shared")[0], "OK")
        kept = self.list_names(m, '".DELETED/*"')[0]
        suffix = kept[len(".DELETED/Shared"):]
        bob = self.login(inst, "bob", "bob-pw")
        self.assertEqual(self.list_names(bob, '".DELETED/*"'), [])
        self.assertEqual(self.list_names(bob, '".DELETED"'), [".DELETED"])
        for name in (f'".DELETED/Other Users/alice/Shared{suffix}"',
                     f'".DELETED/user/alice/Shared{suffix}"'):
            typ, data, _ = self.raw_select(bob, name)
            self.assertEqual(typ, "NO", data)
            self.assertIn(b"NONEXISTENT", data[0])
            self.assertEqual(bob.rename(name, "Mine")[0], "NO")
        # An admin sees them, and reads one only where its ACL lets them (here via anyone).
        admin = self.login(inst, "cyrus", "cyrus-pw")
        typ, data, _ = self.raw_select(admin, f'".DELETED/Other Users/alice/Shared{suffix}"',
                                       "EXAMINE")
        self.assertEqual(typ, "OK", data)
        self.fill(m, "Private", n=1, expunge=None)
        self.assertEqual(m.delete("Private")[0], "OK")
        private = [n for n in self.list_names(m, '".DELETED/*"') if "Private" in n][0]
        private = "Other Users/alice/" + private[len(".DELETED/"):]
        typ, data, _ = self.raw_select(admin, f'".DELETED/{private}"', "EXAMINE")
        self.assertEqual(typ, "NO", data)
        self.assertIn(b"NOPERM", data[0])
        # ... but may bring it back for the user.
        self.assertEqual(admin.rename(f'".DELETED/{private}"', '"Other Users/alice/Private"')[0],
                         "OK")
        self.assertEqual(m.select("Private", readonly=True)[0], "OK")
        # The account goes, and its deleted folders with it: a new alice does not inherit them.
        darius("user", "del", "-C", inst.conf, "alice")
        darius("user", "add", "-C", inst.conf, "alice", "--password", "new-pw")
        new = self.login(inst, "alice", "new-pw")
        self.assertEqual(self.list_names(new, '".DELETED/*"'), [])

    def test_dot_separator_and_the_command_line(self):
        inst = self.start(unixhiersep="no")
        m = self.login(inst)
        uidvalidity = self.fill(m, "a^b", n=2)  # the alternate namespace: user/alice/a.b
        self.assertEqual(m.delete("a^b")[0], "OK")
        kept = ["^DELETED"] + self.list_names(m, '"^DELETED.*"')
        self.assertEqual(len(kept), 2, kept)
        self.assertEqual(self.list_names(m, '"^deleted"'), ["^DELETED"])
        self.assertTrue(kept[1].startswith("^DELETED.a^b-"), kept)
        self.assertIn("^EXPUNGED.^DELETED." + kept[1][len("^DELETED."):],
                      self.list_names(m, '"^EXPUNGED.*"'))
        typ, data, untagged = self.raw_select(m, f'"{kept[1]}"', "EXAMINE")
        self.assertEqual(typ, "OK", data)
        self.assertEqual(untagged["UIDVALIDITY"][-1], uidvalidity)
        self.assertEqual(m.unselect()[0], "OK")
        # The command line lists it, and brings it back under a new name.
        out = json.loads(darius("undelete", "-C", inst.conf, "--list", "--user", "alice",
                                "--json").stdout)
        self.assertEqual(len(out), 1, out)
        self.assertEqual(out[0]["mailbox"], "user/alice/a.b")
        darius("undelete", "-C", inst.conf, out[0]["entry"], "user/alice/Restored")
        m.is_readonly = False
        typ, data = m.select("Restored")
        self.assertEqual(typ, "OK", data)
        self.assertEqual(m.untagged_responses["UIDVALIDITY"][-1], uidvalidity)
        self.assertEqual(m.unselect()[0], "OK")
        # Expire by hand removes deleted folders too (everything, at once).
        self.assertEqual(m.delete("Restored")[0], "OK")
        self.assertEqual(len(self.list_names(m, '"^DELETED.*"')), 1)
        darius("expire", "-C", inst.conf, "--user", "alice", "--now")
        self.assertEqual(self.list_names(m, '"^DELETED.*"'), [])


if __name__ == "__main__":
    unittest.main()
