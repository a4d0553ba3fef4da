"""`darius reconstruct` end to end with the real binaries (issue 4, "Done when": deleting or
corrupting a mailbox's index and cache, then running reconstruct, gives back the same UIDs,
flags and message bytes). Content goes in through `darius mailbox create|append`, damage is
done to the files on disk, and what comes back is read with `darius mailbox list|show` and from
the message files themselves."""
import os
import shutil
import subprocess
import unittest

from darius_harness import DARIUS, Instance, darius

MAILBOXES = ["user/alice", "user/alice/Sent", "user/alice/Archive", "user/alice/Archive/2024",
             "example.com!user/bob", "shared/news"]

# (mailbox, message number, flags): flags as `darius mailbox append --flag` takes them.
MESSAGES = [("user/alice", 1, ["\\Seen"]), ("user/alice", 2, ["\\Seen", "\\Flagged", "work"]),
            ("user/alice", 3, []), ("user/alice", 4, ["\\Answered", "$Forwarded"]),
            ("user/alice/Sent", 5, ["\\Seen", "\\Draft"]), ("user/alice/Archive/2024", 6, ["\\Deleted"]),
            ("example.com!user/bob", 7, ["\\Seen", "$Label1"]), ("shared/news", 8, [])]


def message(i):
    # LF line ends on purpose: `darius mailbox append` stores canonical CRLF.
    return (f"From: sender{i}@example.org\nTo: alice@example.com\nSubject: message {i}\n"
            f"Message-ID: <{i}@example.org>\nMIME-Version: 1.0\nContent-Type: text/plain\n\n"
            f"body of message {i}\n" + "x" * (i * 37) + "\n")


def relative_dir(name):
    """The directory of an internal name below a partition (docs/design/naming.md), for the
    plain ASCII names used here."""
    domain, _, rest = name.rpartition("!")
    return (f"domain/{domain}/" if domain else "") + rest


class ReconstructTest(unittest.TestCase):
    def setUp(self):
        self.inst = Instance(user="alice:alice-secret")
        self.conf = self.inst.conf
        self.spool = os.path.join(self.inst.dir, "data", "spool")
        self.db = os.path.join(self.inst.dir, "data", "mailboxes.db")

    def tearDown(self):
        self.inst.close()

    def tool(self, *args, check=True):
        return darius(args[0], "-C", self.conf, *args[1:], check=check)

    def reconstruct(self, *args):
        return self.tool("reconstruct", *args, check=False)

    def mailbox_dir(self, name):
        return os.path.join(self.spool, relative_dir(name))

    def populate(self):
        for name in MAILBOXES:
            self.tool("mailbox", "create", name)
        for name, i, flags in MESSAGES:
            path = os.path.join(self.inst.dir, f"msg{i}")
            with open(path, "w") as f:
                f.write(message(i))
            args = ["mailbox", "append", name, path, "--date", str(1780000000 + i)]
            for flag in flags:
                args += ["--flag", flag]
            self.assertIn("appended UID", self.tool(*args).stdout)

    def state(self):
        """Everything reconstruct must give back: the list, and per mailbox its unique id,
        UIDVALIDITY, UIDNEXT and each message's UID, flags, size, GUID, date and bytes."""
        listing = self.tool("mailbox", "list").stdout
        shown = {}
        for name in MAILBOXES:
            lines = self.tool("mailbox", "show", name).stdout.splitlines()
            fields = lines[0].split()
            head = {k: v for k, v in zip(fields[2::2], fields[3::2]) if k != "highestmodseq"}
            messages = []
            for line in lines[1:]:
                uid = line.split("\t")[0]
                with open(os.path.join(self.mailbox_dir(name), uid + "."), "rb") as f:
                    messages.append((line, f.read()))
            shown[name] = (head, messages)
        return listing, shown

    def tree_bytes(self):
        out = {}
        for root, dirs, files in os.walk(os.path.join(self.inst.dir, "data")):
            for d in dirs:
                out[os.path.join(root, d) + "/"] = b""
            for name in files:
                with open(os.path.join(root, name), "rb") as f:
                    out[os.path.join(root, name)] = f.read()
        return out

    def corrupt_index_header(self, name):
        path = os.path.join(self.mailbox_dir(name), "darius.index")
        with open(path, "r+b") as f:
            f.seek(124)  # the header's CRC
            b = f.read(1)
            f.seek(124)
            f.write(bytes([b[0] ^ 0x5A]))

    def test_healthy_store_reports_nothing(self):
        self.populate()
        for args in (["-n", "--all"], ["--all"], ["-n", "-u", "alice"], ["-n", "-r", "shared/news"]):
            r = self.reconstruct(*args)
            self.assertEqual(r.returncode, 0, f"{args}: {r.stdout}{r.stderr}")
            self.assertEqual(r.stdout, "", args)
        r = self.reconstruct("-n", "--all")
        self.assertIn("6 mailboxes checked, 8 messages", r.stderr)

    def test_corrupted_indexes_caches_and_lost_list_come_back_the_same(self):
        self.populate()
        before = self.state()
        for name in MAILBOXES:
            self.corrupt_index_header(name)
            os.unlink(os.path.join(self.mailbox_dir(name), "darius.cache"))
        damaged = self.tree_bytes()
        r = self.reconstruct("-n", "--all")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(self.tree_bytes(), damaged, "-n changed the store")
        for name in MAILBOXES:
            self.assertIn(f"{name}: index: ", r.stdout)
            self.assertIn(f"{name}: cache: ", r.stdout)

        # Opening the store makes an empty list when there is none; that is all -n writes.
        os.unlink(self.db)
        r = self.reconstruct("-n", "--all")
        self.assertEqual(r.returncode, 1, r.stderr)
        for name in MAILBOXES:
            self.assertIn(f"{name}: not in the mailbox list; entry would be added", r.stdout)
        self.assertEqual(self.tool("mailbox", "list").stdout, "")

        r = self.reconstruct("--all")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("6 mailboxes repaired", r.stderr)
        r = self.reconstruct("-n", "--all")
        self.assertEqual((r.returncode, r.stdout), (0, ""), r.stderr)
        self.assertEqual(self.state(), before)

    def test_lost_index_and_cache_keep_uids_and_bytes(self):
        self.populate()
        listing, before = self.state()
        gone = "user/alice"
        for f in ("darius.index", "darius.cache"):
            os.unlink(os.path.join(self.mailbox_dir(gone), f))
        r = self.reconstruct(gone)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn(f"{gone}: UID 4: message file without index record", r.stdout)
        after_listing, after = self.state()
        self.assertEqual(after_listing, listing)
        head, messages = after[gone]
        self.assertEqual(head, before[gone][0])
        # UIDs, sizes, GUIDs and bytes come back; flags lived only in the lost index.
        strip = lambda ms: [(line.split("\t")[0], line.split("\t")[2], line.split("\t")[3], b)
                            for line, b in ms]
        self.assertEqual(strip(messages), strip(before[gone][1]))
        for name in MAILBOXES:
            if name != gone:
                self.assertEqual(after[name], before[name])

    def test_damaged_records_and_stale_entries_are_removed(self):
        self.populate()
        listing, shown = self.state()
        dump = self.tool("db", "dump", self.db).stdout.splitlines()
        out = []
        for line in dump:
            if line.startswith("\\x00u\\x00alice\\x00Sent\t"):
                line = line.split("\t")[0] + "\t\\x01\\x00garbage"  # value cut short
            out.append(line)
        out.insert(-1, "zz\\x00q\\x00what\tever")  # no mailbox name; before the format record
        dump_path = os.path.join(self.inst.dir, "list.dump")
        with open(dump_path, "w") as f:
            f.write("\n".join(out) + "\n")
        new_db = self.db + ".new"
        self.tool("db", "load", new_db, "-i", dump_path)
        os.replace(new_db, self.db)
        shutil.rmtree(self.mailbox_dir("user/alice/Archive/2024"))

        r = self.reconstruct("--all")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("user/alice/Sent: damaged list record", r.stdout)
        self.assertIn("mailbox list key zz\\x00q\\x00what: damaged list record", r.stdout)
        self.assertIn("user/alice/Sent: not in the mailbox list; entry added", r.stdout)
        self.assertIn("user/alice/Archive/2024: listed, but partition default has no mailbox "
                      "directory for it; entry removed", r.stdout)
        expected = "".join(l + "\n" for l in listing.splitlines()
                           if not l.startswith("user/alice/Archive/2024\t"))
        self.assertEqual(self.tool("mailbox", "list").stdout, expected)
        self.assertEqual(self.reconstruct("-n", "--all").returncode, 0)

    def test_orphans_are_reported_and_adopted_on_request(self):
        self.populate()
        lost = os.path.join(self.mailbox_dir("user/alice"), "Lost")
        os.mkdir(lost)
        for uid in (4, 9):
            with open(os.path.join(lost, f"{uid}."), "wb") as f:
                f.write(message(uid).replace("\n", "\r\n").encode())
        r = self.reconstruct("--all")
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        self.assertIn("user/alice/Lost: 2 message files but no darius.header", r.stdout)
        self.assertNotIn("user/alice/Lost\t", self.tool("mailbox", "list").stdout)

        r = self.reconstruct("--all", "--adopt")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("user/alice/Lost", self.tool("mailbox", "list", "--prefix", "user/alice").stdout)
        shown = self.tool("mailbox", "show", "user/alice/Lost").stdout.splitlines()
        self.assertEqual([l.split("\t")[0] for l in shown[1:]], ["4", "9"])
        self.assertIn("uidnext 10", shown[0])
        self.assertEqual(self.reconstruct("-n", "--all").returncode, 0)

    def test_scopes_and_usage(self):
        self.populate()
        os.unlink(os.path.join(self.mailbox_dir("example.com!user/bob"), "darius.cache"))
        self.assertEqual(self.reconstruct("-n", "-u", "alice").returncode, 0)
        self.assertEqual(self.reconstruct("-n", "-r", "user/alice").returncode, 0)
        r = self.reconstruct("-n", "-u", "bob@example.com")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertTrue(r.stdout.startswith("example.com!user/bob: cache: "), r.stdout)
        self.assertEqual(self.reconstruct("-n", "example.com!user/bob").returncode, 1)
        self.assertEqual(self.reconstruct("example.com!user/bob").returncode, 1)
        self.assertEqual(self.reconstruct("-n", "example.com!user/bob").returncode, 0)
        self.assertEqual(self.reconstruct("-n", "user/nobody").returncode, 4)
        self.assertEqual(self.reconstruct().returncode, 2)
        self.assertEqual(self.reconstruct("--all", "-u", "alice").returncode, 2)
        self.assertEqual(self.reconstruct("-n", "not a name").returncode, 2)
        help_text = subprocess.run([DARIUS, "reconstruct", "--help"], capture_output=True,
                                   text=True).stdout
        self.assertIn("Exit codes", help_text)

    def test_runs_beside_a_live_server(self):
        self.populate()
        self.inst.start()
        try:
            r = self.reconstruct("-n", "--all")
            self.assertEqual((r.returncode, r.stdout), (0, ""), r.stderr)
            os.unlink(os.path.join(self.mailbox_dir("user/alice/Sent"), "darius.cache"))
            r = self.reconstruct("--all")
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            self.tool("mailbox", "create", "user/alice/New")  # the namespace lock was let go
            self.assertEqual(self.reconstruct("-n", "--all").returncode, 0)
        finally:
            self.assertEqual(self.inst.stop(), 0, self.inst.log())


if __name__ == "__main__":
    unittest.main()
