"""Per-user \\Seen (issue 17) against the real dariusd: alice shares a folder with bob
(SETACL), and bob's \\Seen is his own, in seen.db, while alice's stays in the index. Bob's
FETCH BODY[] and STORE never mark anything read for alice (nor hers for him); STATUS UNSEEN,
LIST-STATUS, SEARCH and SELECT's UNSEEN follow each user's own state; bob's second session
(NOOP and IDLE) gets the FETCH FLAGS of his change and alice's sessions get nothing;
CHANGEDSINCE, SEARCH MODSEQ and QRESYNC report bob's change to bob alone, and HIGHESTMODSEQ
only grows; APPEND and COPY carry \\Seen into the right place; a shared mailbox keeps one
state per user. docs/formats/seen.md has the design."""
import itertools
import re
import unittest

from darius_harness import Instance, darius
from imap_raw import RawImap

USERS = {"bob": "bob-pw", "carol": "carol-pw", "dave": "dave-pw"}
_names = itertools.count(1)


def flags_of(untagged, msn):
    """The FLAGS of message `msn` in the FETCH responses among `untagged`, or None."""
    for line in untagged:
        m = re.match(rb"\* (\d+) FETCH \((.*)\)$", line, re.S)
        if m and int(m.group(1)) == msn:
            f = re.search(rb"FLAGS \(([^)]*)\)", m.group(2))
            if f:
                # \Recent is the session's, not a flag anyone stores: left out.
                return set(f.group(1).decode().split()) - {"\\Recent"}
    return None


def fetched_msns(untagged):
    return sorted(int(m.group(1)) for line in untagged
                  if (m := re.match(rb"\* (\d+) FETCH ", line)))


def modseq_of(untagged, msn):
    for line in untagged:
        m = re.match(rb"\* (\d+) FETCH \(.*MODSEQ \((\d+)\)", line)
        if m and int(m.group(1)) == msn:
            return int(m.group(2))
    return None


def code_value(untagged, code):
    for line in untagged:
        m = re.search(rb"\[" + code.encode() + rb" (\d+)\]", line)
        if m:
            return int(m.group(1))
    return None


def search_result(untagged):
    for line in untagged:
        if line.startswith(b"* SEARCH"):
            # Without the "(MODSEQ n)" a SEARCH MODSEQ ends with (RFC 7162 §3.1.5).
            return [int(x) for x in line.split(b"(")[0].split()[2:]]
    return None


def status_value(untagged, item):
    for line in untagged:
        m = re.search(item.encode() + rb" (\d+)", line)
        if line.startswith(b"* STATUS") and m:
            return int(m.group(1))
    return None


class SeenPerUserTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # The standard namespace with "." (docs/design/naming.md): INBOX.x, user.alice.x.
        cls.inst = Instance(options={"allow_plaintext_auth": "yes", "altnamespace": "no",
                                     "unixhiersep": "no"})
        for user, password in USERS.items():
            darius("user", "add", "-C", cls.inst.conf, user, "--password", password)
        cls.inst.start()

    @classmethod
    def tearDownClass(cls):
        cls.inst.stop()
        cls.inst.close()

    def login(self, user, password):
        c = RawImap(self.inst.port("imap"))
        self.addCleanup(c.close)
        _, tagged = c.command(f'LOGIN {user} "{password}"')
        self.assertIn(b"OK", tagged, tagged)
        return c

    def alice(self):
        return self.login("alice", "alice-secret")

    def bob(self):
        return self.login("bob", "bob-pw")

    def ok(self, client, command):
        untagged, tagged = client.command(command)
        self.assertRegex(tagged, rb"^t\d+ OK", (command, untagged, tagged))
        return untagged

    def append(self, client, mailbox, n, flags=""):
        for i in range(n):
            msg = f"Subject: message {i + 1}\r\n\r\nbody {i + 1}\r\n".encode()
            tag = client.next_tag()
            client.send(f"{tag} APPEND {mailbox} ({flags}) {{{len(msg)}}}\r\n".encode())
            self.assertTrue(client.read_response().startswith(b"+"))
            client.send(msg + b"\r\n")
            _, tagged = client.collect(tag)
            self.assertIn(b"OK", tagged, tagged)

    def shared_folder(self, rights="lrswi", n=3):
        """A new folder of alice's with `n` messages, the last one seen by alice, shared with
        bob. Returns (alice's name, bob's name)."""
        name = f"Shared{next(_names)}"
        # The store's own tool sets the ACL, so this test does not depend on SETACL.
        darius("mailbox", "create", "-C", self.inst.conf, f"user/alice/{name}",
               "--acl", f"alice lrswipkxtea bob {rights}")
        a = self.alice()
        self.append(a, f"INBOX.{name}", n - 1)
        self.append(a, f"INBOX.{name}", 1, "\\Seen")
        return f"INBOX.{name}", f"user.alice.{name}"

    def flags(self, client, mailbox, msn):
        self.ok(client, f"EXAMINE {mailbox}")
        return flags_of(self.ok(client, f"FETCH {msn} FLAGS"), msn)

    # --- reading and storing ---

    def test_bobs_fetch_body_marks_it_read_for_bob_only(self):
        mine, his = self.shared_folder()
        b = self.bob()
        self.ok(b, f"SELECT {his}")
        untagged = self.ok(b, "FETCH 1 BODY[]")
        self.assertIn("\\Seen", flags_of(untagged, 1))
        self.assertEqual(self.flags(self.alice(), mine, 1), set())
        self.assertIn("\\Seen", self.flags(self.bob(), his, 1))
        # Alice's own \Seen of message 3 is hers: bob never sees it.
        self.assertEqual(self.flags(self.bob(), his, 3), set())
        self.assertEqual(self.flags(self.alice(), mine, 3), {"\\Seen"})

    def test_bobs_store_changes_nothing_for_alice(self):
        mine, his = self.shared_folder()
        b = self.bob()
        self.ok(b, f"SELECT {his}")
        self.assertEqual(flags_of(self.ok(b, "STORE 2 +FLAGS (\\Seen)"), 2), {"\\Seen"})
        # Removing "his" \Seen of message 3 leaves alice's alone.
        self.assertEqual(flags_of(self.ok(b, "STORE 3 -FLAGS (\\Seen)"), 3), set())
        # FLAGS (replace) sets the shared \Flagged for everyone, \Seen only for bob.
        self.assertEqual(flags_of(self.ok(b, "STORE 3 FLAGS (\\Flagged \\Seen)"), 3),
                         {"\\Flagged", "\\Seen"})
        self.assertEqual(flags_of(self.ok(b, "STORE 2 FLAGS (\\Answered)"), 2), {"\\Answered"})
        a = self.alice()
        self.assertEqual(self.flags(a, mine, 2), {"\\Answered"})
        self.assertEqual(self.flags(a, mine, 3), {"\\Flagged", "\\Seen"})
        self.ok(a, f"SELECT {mine}")
        self.ok(a, "STORE 3 -FLAGS (\\Seen)")
        self.assertEqual(self.flags(self.bob(), his, 3), {"\\Flagged", "\\Seen"})
        # The owner's \Seen is still the index's: alice's STORE reaches her other sessions.
        self.assertEqual(self.flags(self.alice(), mine, 3), {"\\Flagged"})

    def test_seen_needs_the_s_right(self):
        mine, his = self.shared_folder(rights="lr")
        b = self.bob()
        untagged, tagged = b.command(f"SELECT {his}")
        self.assertIn(b"READ-ONLY", tagged)
        self.ok(b, "FETCH 1 BODY[]")
        self.assertEqual(self.flags(self.bob(), his, 1), set())
        self.assertEqual(self.flags(self.alice(), mine, 1), set())

    # --- counting and searching ---

    def test_status_list_status_search_and_select_follow_each_user(self):
        mine, his = self.shared_folder(n=4)
        b = self.bob()
        self.assertEqual(status_value(self.ok(b, f"STATUS {his} (UNSEEN MESSAGES)"), "UNSEEN"), 4)
        untagged = self.ok(b, f"SELECT {his}")
        self.assertEqual(code_value(untagged, "UNSEEN"), 1)
        self.ok(b, "STORE 1:2 +FLAGS.SILENT (\\Seen)")
        self.assertEqual(search_result(self.ok(b, "SEARCH UNSEEN")), [3, 4])
        self.assertEqual(search_result(self.ok(b, "SEARCH SEEN")), [1, 2])
        self.assertEqual(search_result(self.ok(b, "SEARCH NOT SEEN NOT DELETED")), [3, 4])
        self.assertEqual(status_value(self.ok(b, f"STATUS {his} (UNSEEN)"), "UNSEEN"), 2)
        listed = self.ok(b, f'LIST "" "{his}" RETURN (STATUS (UNSEEN))')
        self.assertEqual(status_value(listed, "UNSEEN"), 2, listed)
        self.assertEqual(code_value(self.ok(self.bob(), f"EXAMINE {his}"), "UNSEEN"), 3)
        a = self.alice()
        self.assertEqual(status_value(self.ok(a, f"STATUS {mine} (UNSEEN)"), "UNSEEN"), 3)
        self.ok(a, f"EXAMINE {mine}")
        self.assertEqual(search_result(self.ok(a, "SEARCH UNSEEN")), [1, 2, 3])
        self.assertEqual(search_result(self.ok(a, "SEARCH SEEN")), [4])
        # The owner's own reading goes to the index and leaves bob's counts alone.
        self.ok(a, f"SELECT {mine}")
        self.ok(a, "FETCH 1 BODY[]")
        self.assertEqual(status_value(self.ok(a, f"STATUS {mine} (UNSEEN)"), "UNSEEN"), 2)
        self.assertEqual(status_value(self.ok(b, f"STATUS {his} (UNSEEN)"), "UNSEEN"), 2)

    # --- other sessions ---

    def test_bobs_other_session_gets_the_update_and_alices_do_not(self):
        mine, his = self.shared_folder()
        b1, b2, a = self.bob(), self.bob(), self.alice()
        self.ok(b1, f"SELECT {his}")
        self.ok(b2, f"SELECT {his}")
        self.ok(a, f"SELECT {mine}")
        self.ok(b2, "STORE 1 +FLAGS.SILENT (\\Seen)")
        self.assertEqual(flags_of(self.ok(b1, "NOOP"), 1), {"\\Seen"})
        self.assertEqual(fetched_msns(self.ok(a, "NOOP")), [])
        # IDLE is woken by the change (the change log) and reports it too.
        tag = b1.next_tag()
        b1.send(f"{tag} IDLE\r\n")
        self.assertTrue(b1.read_response().startswith(b"+"))
        self.ok(b2, "STORE 2 +FLAGS.SILENT (\\Seen)")
        line = b1.read_response(timeout=20)
        self.assertEqual(flags_of([line], 2), {"\\Seen"}, line)
        b1.send("DONE\r\n")
        b1.collect(tag)
        # And alice's own change reaches bob as a shared-flag change, with his \Seen.
        self.ok(a, "STORE 1 +FLAGS.SILENT (\\Flagged)")
        self.assertEqual(flags_of(self.ok(b1, "NOOP"), 1), {"\\Seen", "\\Flagged"})
        self.assertEqual(fetched_msns(self.ok(a, "NOOP")), [])

    # --- CONDSTORE and QRESYNC ---

    def test_condstore_and_qresync_report_bobs_change_to_bob_alone(self):
        mine, his = self.shared_folder()
        b, a = self.bob(), self.alice()
        self.ok(b, "ENABLE QRESYNC")
        self.ok(a, "ENABLE QRESYNC")
        untagged = self.ok(b, f"SELECT {his} (CONDSTORE)")
        h0 = code_value(untagged, "HIGHESTMODSEQ")
        uidvalidity = code_value(untagged, "UIDVALIDITY")
        self.ok(a, f"SELECT {mine} (CONDSTORE)")

        b2 = self.bob()  # another session of bob changes \Seen
        self.ok(b2, f"SELECT {his} (CONDSTORE)")
        untagged = self.ok(b2, "STORE 2 +FLAGS (\\Seen)")
        m = modseq_of(untagged, 2)
        self.assertIsNotNone(m, untagged)
        self.assertGreater(m, h0)
        # CHANGEDSINCE: bob is told of message 2, with his \Seen and the new modseq.
        untagged = self.ok(b, f"FETCH 1:* (FLAGS) (CHANGEDSINCE {h0})")
        self.assertEqual(fetched_msns(untagged), [2], untagged)
        self.assertEqual(flags_of(untagged, 2), {"\\Seen"})
        self.assertEqual(modseq_of(untagged, 2), m)
        self.assertEqual(search_result(self.ok(b, f"SEARCH MODSEQ {h0 + 1}")), [2])
        # Alice is told of nothing: message 2 did not change for her.
        self.assertEqual(fetched_msns(self.ok(a, f"FETCH 1:* (FLAGS) (CHANGEDSINCE {h0})")), [])
        self.assertEqual(search_result(self.ok(a, f"SEARCH MODSEQ {h0 + 1}")), [])
        # HIGHESTMODSEQ only grows, for both.
        for c, box in ((b, his), (a, mine)):
            hm = status_value(self.ok(c, f"STATUS {box} (HIGHESTMODSEQ)"), "HIGHESTMODSEQ")
            self.assertGreaterEqual(hm, m)
        # QRESYNC: bob's resync from h0 brings message 2 back; alice's brings nothing.
        untagged = self.ok(self.bob_qresync(), f"SELECT {his} (QRESYNC ({uidvalidity} {h0}))")
        self.assertEqual(fetched_msns(untagged), [2], untagged)
        self.assertEqual(flags_of(untagged, 2), {"\\Seen"})
        a2 = self.alice()
        self.ok(a2, "ENABLE QRESYNC")
        untagged = self.ok(a2, f"SELECT {mine} (QRESYNC ({uidvalidity} {h0}))")
        self.assertEqual(fetched_msns(untagged), [], untagged)
        # UNCHANGEDSINCE compares bob's view: message 2 changed for him after h0.
        untagged, tagged = b.command(f"STORE 2 (UNCHANGEDSINCE {h0}) -FLAGS (\\Seen)")
        self.assertIn(b"[MODIFIED 2]", tagged, (untagged, tagged))

    def bob_qresync(self):
        c = self.bob()
        self.ok(c, "ENABLE QRESYNC")
        return c

    # --- APPEND and COPY ---

    def test_append_and_copy_put_seen_where_it_belongs(self):
        mine, his = self.shared_folder()
        b = self.bob()
        self.append(b, his, 1, "\\Seen")  # message 4: seen by bob, not by alice
        self.assertEqual(self.flags(self.alice(), mine, 4), set())
        self.assertEqual(self.flags(self.bob(), his, 4), {"\\Seen"})
        # COPY out of the shared folder into bob's INBOX: his \Seen, not alice's, comes along
        # (message 3 is alice's \Seen, message 4 his).
        self.ok(b, f"SELECT {his}")
        untagged = self.ok(b, "STATUS INBOX (MESSAGES)")
        before = status_value(untagged, "MESSAGES")
        self.ok(b, "COPY 3:4 INBOX")
        self.assertEqual(self.flags(self.bob(), "INBOX", before + 1), set())
        self.assertEqual(self.flags(self.bob(), "INBOX", before + 2), {"\\Seen"})
        # And back into the shared folder: \Seen into bob's state, not alice's index.
        self.ok(b, "SELECT INBOX")
        self.ok(b, f"COPY {before + 2} {his}")
        self.assertEqual(self.flags(self.alice(), mine, 5), set())
        self.assertEqual(self.flags(self.bob(), his, 5), {"\\Seen"})

    # --- a shared mailbox ---

    def test_a_shared_mailbox_keeps_one_state_per_user(self):
        name = f"news{next(_names)}"
        darius("mailbox", "create", "-C", self.inst.conf, f"shared/{name}",
               "--acl", "anyone lrsi")
        a, b = self.alice(), self.bob()
        self.append(a, name, 2)
        self.ok(a, f"SELECT {name}")
        self.ok(a, "FETCH 1 BODY[]")
        self.ok(b, f"SELECT {name}")
        self.ok(b, "STORE 2 +FLAGS (\\Seen)")
        self.assertEqual(self.flags(self.alice(), name, 1), {"\\Seen"})
        self.assertEqual(self.flags(self.alice(), name, 2), set())
        self.assertEqual(self.flags(self.bob(), name, 1), set())
        self.assertEqual(self.flags(self.bob(), name, 2), {"\\Seen"})
        carol = self.login("carol", "carol-pw")
        self.assertEqual(status_value(self.ok(carol, f"STATUS {name} (UNSEEN)"), "UNSEEN"), 2)

    # --- accounts ---

    def test_a_new_account_of_the_same_name_starts_with_nothing_read(self):
        name = f"ForDave{next(_names)}"
        darius("mailbox", "create", "-C", self.inst.conf, f"user/alice/{name}",
               "--acl", "alice lrswipkxtea dave lrs")
        self.append(self.alice(), f"INBOX.{name}", 1)
        box = f"user.alice.{name}"
        d = self.login("dave", "dave-pw")
        self.ok(d, f"SELECT {box}")
        self.ok(d, "FETCH 1 BODY[]")
        self.assertEqual(self.flags(self.login("dave", "dave-pw"), box, 1), {"\\Seen"})
        # `darius user del` takes dave's seen states with the account.
        darius("user", "del", "-C", self.inst.conf, "dave")
        darius("user", "add", "-C", self.inst.conf, "dave", "--password", "dave-pw2")
        self.assertEqual(self.flags(self.login("dave", "dave-pw2"), box, 1), set())


if __name__ == "__main__":
    unittest.main()
