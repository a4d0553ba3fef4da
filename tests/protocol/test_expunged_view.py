"""The Hermes interface to expunged mail over plain IMAP (issue 18): `.EXPUNGED/<folder>`
is a read-only folder of <folder>'s expunged messages (SELECT gives [READ-ONLY] and
PERMANENTFLAGS ()), FETCH and SEARCH work there, and COPY out of it is undelete (with
COPYUID, without \\Deleted). Only the owner and admins see it; LIST shows it only to a
pattern that names it; CREATE, RENAME, APPEND and SETACL cannot make or change a name in the
reserved areas. Both hierarchy separators."""
import imaplib
import re
import smtplib
import unittest

from darius_harness import Instance, darius, logout_quietly


def message(i):
    return f"From: s@example.org\r\nTo: alice@example.org\r\nSubject: note {i}\r\n\r\nbody {i}\r\n"


class ExpungedViewTest(unittest.TestCase):
    def start(self, **options):
        inst = Instance(options={"allow_plaintext_auth": "yes", "admins": "cyrus", **options})
        self.addCleanup(inst.close)
        for user in ("bob", "cyrus"):
            darius("user", "add", "-C", inst.conf, user, "--password", user + "-pw")
        inst.start()
        self.addCleanup(inst.stop)
        lmtp = smtplib.LMTP("127.0.0.1", inst.port("lmtp"))
        for i in range(1, 6):
            lmtp.sendmail("s@example.org", ["alice"], message(i))
        lmtp.quit()
        return inst

    def login(self, inst, user="alice", password="alice-secret"):
        m = imaplib.IMAP4("127.0.0.1", inst.port("imap"), timeout=30)
        self.addCleanup(logout_quietly, m)
        self.assertEqual(m.login(user, password)[0], "OK")
        return m

    def raw_select(self, m, name, verb="SELECT"):
        """SELECT without imaplib's READ-ONLY exception; returns (typ, data, untagged)."""
        m.untagged_responses.clear()
        m.is_readonly = True
        typ, data = m._simple_command(verb, name)
        if typ == "OK":
            m.state = "SELECTED"
        return typ, data, dict(m.untagged_responses)

    def expunge_in_inbox(self, m, uids):
        m.is_readonly = False
        self.assertEqual(m.select("INBOX")[0], "OK")
        self.assertEqual(m.uid("STORE", uids, "+FLAGS", r"(\Deleted \Flagged)")[0], "OK")
        self.assertEqual(m.expunge()[0], "OK")

    def list_names(self, m, pattern):
        typ, data = m.list('""', pattern)
        self.assertEqual(typ, "OK", data)
        return [re.search(rb'"([^"]*)"$', d).group(1).decode() for d in data if d]

    def test_select_fetch_search_and_copy_out_restores(self):
        inst = self.start()
        m = self.login(inst)
        self.expunge_in_inbox(m, "2:3")
        typ, data, untagged = self.raw_select(m, '".EXPUNGED/INBOX"')
        self.assertEqual(typ, "OK", data)
        self.assertIn(b"[READ-ONLY]", data[0])
        self.assertEqual(untagged["EXISTS"][-1], b"2")
        self.assertEqual(untagged["PERMANENTFLAGS"][-1], b"()")
        typ, data = m.uid("FETCH", "1:*", "(FLAGS ENVELOPE BODY[TEXT])")
        self.assertEqual(typ, "OK", data)
        text = b" ".join(x[0] + x[1] if isinstance(x, tuple) else x for x in data)
        self.assertIn(b'"note 2"', text)
        self.assertIn(b"body 3", text)
        self.assertIn(rb"\Deleted", text)  # the view shows the flags as they were
        self.assertEqual(m.uid("SEARCH", "SUBJECT", '"note 3"'), ("OK", [b"3"]))
        # Read-only: no flag changes, no expunge, nothing appended into the view.
        self.assertEqual(m.uid("STORE", "2", "+FLAGS", r"(\Seen)")[0], "NO")
        self.assertEqual(m.expunge()[0], "NO")
        self.assertEqual(m.append('".EXPUNGED/INBOX"', None, None, message(9).encode())[0], "NO")
        # COPY out is undelete: COPYUID, and the message is live again without \Deleted.
        typ, data = m.uid("COPY", "3", "INBOX")
        self.assertEqual(typ, "OK", data)
        m.is_readonly = False
        self.assertEqual(m.select("INBOX")[0], "OK")
        typ, data = m.uid("FETCH", "6", "(FLAGS BODY.PEEK[HEADER.FIELDS (SUBJECT)])")
        self.assertEqual(typ, "OK", data)
        self.assertIn(b"note 3", data[0][1])
        self.assertNotIn(rb"\Deleted", data[0][0])
        self.assertIn(rb"\Flagged", data[0][0])
        # STATUS and MYRIGHTS know the view; its ACL can be neither read nor changed.
        typ, data = m.status('".EXPUNGED/INBOX"', "(MESSAGES UIDNEXT UIDVALIDITY UNSEEN RECENT)")
        self.assertEqual(typ, "OK", data)
        self.assertRegex(data[0], rb'MESSAGES 2 UIDNEXT 7 UIDVALIDITY \d+ UNSEEN 2 RECENT 0')
        typ, data = m.myrights('".EXPUNGED/INBOX"')
        self.assertEqual((typ, data), ("OK", [b'".EXPUNGED/INBOX" lr']))
        typ, data = m.getacl('".EXPUNGED/INBOX"')
        self.assertEqual(typ, "NO", data)
        self.assertIn(b"NOPERM", data[0])
        # EXAMINE works the same way.
        typ, data, untagged = self.raw_select(m, '".EXPUNGED/INBOX"', "EXAMINE")
        self.assertEqual(typ, "OK", data)
        self.assertEqual(untagged["EXISTS"][-1], b"2")

    def test_copyuid_names_the_restored_uids(self):
        inst = self.start()
        m = self.login(inst)
        self.expunge_in_inbox(m, "1,4")
        self.raw_select(m, '".EXPUNGED/INBOX"')
        tag = m._command("UID", "COPY", "1:*", "INBOX")
        typ, data = m._command_complete("UID", tag)
        self.assertEqual(typ, "OK", data)
        uidvalidity = m.untagged_responses.get("UIDVALIDITY", [b"?"])[-1].decode()
        self.assertIn(f"[COPYUID {uidvalidity} 1,4 6:7]".encode(), data[0])

    def test_list_shows_the_area_only_when_named(self):
        inst = self.start()
        m = self.login(inst)
        self.assertEqual(m.create("Archive")[0], "OK")
        self.assertEqual(m.create("Empty")[0], "OK")
        m.select("INBOX")
        self.assertEqual(m.copy("1", "Archive")[0], "OK")
        m.select("Archive")
        m.store("1", "+FLAGS", r"\Deleted")
        m.expunge()
        self.expunge_in_inbox(m, "5")
        everything = self.list_names(m, '"*"')
        self.assertFalse([n for n in everything if "EXPUNGED" in n.upper()], everything)
        self.assertEqual(self.list_names(m, '".EXPUNGED/*"'), [".EXPUNGED/INBOX", ".EXPUNGED/Archive"])
        self.assertEqual(self.list_names(m, '".expunged/%"'), [".EXPUNGED/INBOX", ".EXPUNGED/Archive"])
        typ, data = m.list('""', '".EXPUNGED"')
        self.assertEqual(typ, "OK", data)
        self.assertIn(rb"\HasChildren", data[0])
        self.assertNotIn(b".EXPUNGED/Empty", b" ".join(d for d in data if d))

    def test_reserved_names_cannot_be_made_or_changed(self):
        inst = self.start()
        m = self.login(inst)
        self.expunge_in_inbox(m, "1")
        before = self.list_names(m, '"*"')
        for name in ('".EXPUNGED/Foo"', '".EXPUNGED"', '".DELETED/x"', '".deleted"'):
            typ, data = m.create(name)
            self.assertEqual(typ, "NO", (name, data))
        self.assertEqual(m.create("Work")[0], "OK")
        self.assertEqual(m.rename("Work", '".EXPUNGED/Work"')[0], "NO")
        self.assertEqual(m.rename('".EXPUNGED/INBOX"', "Back")[0], "NO")
        self.assertEqual(m.setacl('".EXPUNGED/INBOX"', "bob", "lr")[0], "NO")
        self.assertEqual(m.delete('".EXPUNGED/INBOX"')[0], "NO")
        self.assertEqual(m.append('".DELETED/x"', None, None, message(9).encode())[0], "NO")
        self.assertEqual(sorted(self.list_names(m, '"*"')), sorted(before + ["Work"]))
        # The view still holds what it held.
        typ, data, untagged = self.raw_select(m, '".EXPUNGED/INBOX"')
        self.assertEqual(untagged["EXISTS"][-1], b"1")
        # Malformed: the area itself, a folder that does not exist.
        self.assertEqual(self.raw_select(m, '".EXPUNGED"')[0], "NO")
        self.assertEqual(self.raw_select(m, '".EXPUNGED/Nope"')[0], "NO")

    def test_only_the_owner_and_admins_see_the_view(self):
        inst = self.start()
        m = self.login(inst)
        self.expunge_in_inbox(m, "2")
        self.assertEqual(m.setacl("INBOX", "bob", "lrs")[0], "OK")
        self.assertEqual(m.setacl("INBOX", "anyone", "lr")[0], "OK")
        bob = self.login(inst, "bob", "bob-pw")
        # bob may read alice's INBOX, but her bin is hers: it answers as a missing folder.
        self.assertEqual(bob.select('"Other Users/alice"', readonly=True)[0], "OK")
        typ, data, _ = self.raw_select(bob, '".EXPUNGED/Other Users/alice"')
        self.assertEqual(typ, "NO", data)
        self.assertIn(b"NONEXISTENT", data[0])
        typ, data, _ = self.raw_select(bob, '".EXPUNGED/Other Users/nobody"')
        self.assertEqual((typ, data[0]), ("NO", b"[NONEXISTENT] Mailbox does not exist"))
        self.assertEqual(self.list_names(bob, '".EXPUNGED/*"'), [])
        admin = self.login(inst, "cyrus", "cyrus-pw")
        typ, data, untagged = self.raw_select(admin, '".EXPUNGED/Other Users/alice"')
        self.assertEqual(typ, "OK", data)
        self.assertEqual(untagged["EXISTS"][-1], b"1")

    def test_dot_separator_spells_the_area_with_a_caret(self):
        inst = self.start(unixhiersep="no")
        m = self.login(inst)
        self.assertEqual(m.create("Archive")[0], "OK")
        self.expunge_in_inbox(m, "3")
        typ, data, untagged = self.raw_select(m, '"^EXPUNGED.INBOX"')
        self.assertEqual(typ, "OK", data)
        self.assertEqual(untagged["EXISTS"][-1], b"1")
        self.assertEqual(self.list_names(m, '"^EXPUNGED.*"'), ["^EXPUNGED.INBOX"])
        self.assertEqual(m.create('"^EXPUNGED.x"')[0], "NO")
        self.assertEqual(m.uid("COPY", "3", "Archive")[0], "OK")


if __name__ == "__main__":
    unittest.main()
