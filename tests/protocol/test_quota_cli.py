"""`darius quota get|set|list|recalc` (with and without --json) while the real dariusd runs,
and what a crash does to usage: after kill -9 in the middle of deliveries, nothing
acknowledged is lost, the usage IMAP shows is exact (a record left pending is recounted), the
limit was never crossed, and `darius quota recalc` fixes what it finds and then finds nothing.
recalc's exit codes: 0 when nothing was wrong, 1 when something was (and was fixed unless -n);
its report is "<root>: <resource> <stored> -> <actual>". A wrong record is made the way one
happens in life: an old copy of the file restored (written here with the documented layout,
docs/formats/quota.md)."""
import hashlib
import imaplib
import json
import os
import signal
import smtplib
import struct
import threading
import unittest
import zlib

from darius_harness import Instance, darius, logout_quietly

MESSAGE = "From: s@example.org\r\nSubject: q\r\n\r\n" + "y" * 500 + "\r\n"


def boot_id():
    with open("/proc/sys/kernel/random/boot_id") as f:
        return bytes.fromhex(f.read().strip().replace("-", ""))


def usage_record(root, storage, messages, mailboxes, pending=False):
    name = root.encode()
    fixed = struct.pack("<8sHHI16sQQQI", b"DARIUSQU", 1, 0, 1 if pending else 0, boot_id(),
                        storage, messages, mailboxes, len(name))
    crc = zlib.crc32(fixed + name)
    return fixed + struct.pack("<I", crc) + name


class QuotaCliTest(unittest.TestCase):
    def setUp(self):
        self.inst = Instance(options={"allow_plaintext_auth": "yes"})
        self.addCleanup(self.inst.close)
        darius("user", "add", "-C", self.inst.conf, "bob", "--password", "bob-pw")
        self.inst.start()
        self.addCleanup(self.inst.stop)

    def quota(self, *args, check=True):
        return darius("quota", "-C", self.inst.conf, *args, check=check)

    def deliver(self, n, rcpt="bob@localhost"):
        c = smtplib.LMTP("127.0.0.1", self.inst.port("lmtp"))
        ok = 0
        for _ in range(n):
            try:
                c.sendmail("s@example.org", [rcpt], MESSAGE)
                ok += 1
            except smtplib.SMTPException:
                pass
        c.quit()
        return ok

    def imap(self):
        m = imaplib.IMAP4("127.0.0.1", self.inst.port("imap"), timeout=30)
        self.addCleanup(logout_quietly, m)
        self.assertEqual(m.login("bob", "bob-pw")[0], "OK")
        return m

    def data_dir(self):
        with open(self.inst.conf) as f:
            for line in f:
                if line.split(":", 1)[0].strip() == "data_dir":
                    return os.path.join(self.inst.dir, line.split(":", 1)[1].strip())
        raise AssertionError("no data_dir in the config")

    def test_get_set_list_while_dariusd_runs(self):
        self.assertEqual(self.deliver(2), 2)
        # Delivery adds trace headers: the KiB shown is read back, the rest is exact.
        got = json.loads(self.quota("get", "user/bob", "--json").stdout)
        kib = got["resources"]["STORAGE"]["usage"]
        self.assertGreaterEqual(kib, 2)
        self.assertEqual(got["resources"]["MESSAGE"], {"usage": 2, "limit": None})
        out = self.quota("set", "user/bob", "STORAGE=100", "MESSAGE=5").stdout
        self.assertEqual(out, f"STORAGE\t{kib}\t100\nMESSAGE\t2\t5\nMAILBOX\t1\tnone\n")
        # A limit left out is kept; none removes one.
        out = self.quota("set", "user/bob", "MESSAGE=none", "MAILBOX=3", "--json").stdout
        self.assertEqual(json.loads(out), {"root": "user/bob", "resources": {
            "STORAGE": {"usage": kib, "limit": 100}, "MESSAGE": {"usage": 2, "limit": None},
            "MAILBOX": {"usage": 1, "limit": 3}}})
        lines = self.quota("list").stdout.splitlines()
        self.assertIn(f"user/bob\tSTORAGE {kib}/100\tMESSAGE 2/none\tMAILBOX 1/3", lines)
        listed = json.loads(self.quota("list", "--prefix", "user/b", "--json").stdout)
        self.assertEqual([r["root"] for r in listed["roots"]], ["user/bob"])
        # The running server enforces what the tool set, at once.
        self.quota("set", "user/bob", "MESSAGE=2")
        self.assertEqual(self.deliver(1), 0)
        # Bad input changes nothing: exit 2.
        for bad in (["STORAGE=9223372036854775808"], ["STORAGE=18446744073709551616"],
                    ["FOO=1"], ["STORAGE=-1"], ["STORAGE"]):
            r = self.quota("set", "user/bob", *bad, check=False)
            self.assertEqual(r.returncode, 2, (bad, r.stderr))
        self.assertEqual(self.quota("get", "user/bob").stdout,
                         f"STORAGE\t{kib}\t100\nMESSAGE\t2\t2\nMAILBOX\t1\t3\n")
        self.assertEqual(self.quota("get", "user/nosuch", check=False).returncode, 1)

    def test_recalc_reports_and_fixes_a_restored_record(self):
        self.assertEqual(self.deliver(3), 3)
        r = self.quota("recalc", "--user", "bob")
        self.assertEqual((r.returncode, r.stdout), (0, ""))
        path = os.path.join(self.data_dir(), "darius.quota",
                            hashlib.sha1(b"user/bob").hexdigest())
        size = 3 * len(MESSAGE.encode())
        in_store = json.loads(self.quota("get", "user/bob", "--json").stdout)
        self.assertEqual(in_store["resources"]["MESSAGE"]["usage"], 3)
        with open(path, "rb") as f:
            real = f.read()
        actual_storage = struct.unpack_from("<Q", real, 32)[0]
        self.assertGreaterEqual(actual_storage, size)  # delivery adds trace headers
        with open(path, "wb") as f:
            f.write(usage_record("user/bob", 10, 1, 1))
        r = self.quota("recalc", "-n", "--user", "bob", check=False)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(r.stdout, f"user/bob: STORAGE 10 -> {actual_storage}\n"
                                   "user/bob: MESSAGE 1 -> 3\n")
        r = self.quota("recalc", "--all", "--json", check=False)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(json.loads(r.stdout), {"fixed": True, "differences": [
            {"root": "user/bob", "resource": "STORAGE", "stored": 10, "actual": actual_storage},
            {"root": "user/bob", "resource": "MESSAGE", "stored": 1, "actual": 3}]})
        r = self.quota("recalc", "--all")
        self.assertEqual((r.returncode, r.stdout), (0, ""))
        self.assertEqual(self.quota("recalc", "--user", "bob", "--all", check=False).returncode,
                         2)

    def test_kill_9_during_deliveries(self):
        self.quota("set", "user/bob", "MESSAGE=40")
        acked = []
        stop = threading.Event()

        def pump():
            while not stop.is_set():
                try:
                    c = smtplib.LMTP("127.0.0.1", self.inst.port("lmtp"))
                    c.sendmail("s@example.org", ["bob@localhost"], MESSAGE)
                    acked.append(1)
                    c.quit()
                except (OSError, smtplib.SMTPException):
                    return

        threads = [threading.Thread(target=pump) for _ in range(4)]
        for t in threads:
            t.start()
        while len(acked) < 12:
            threading.Event().wait(0.01)
        self.inst.stop(sig=signal.SIGKILL)
        stop.set()
        for t in threads:
            t.join(30)
        self.inst.start()
        m = self.imap()
        count = int(m.select("INBOX")[1][0])
        self.assertGreaterEqual(count, len(acked))  # nothing acknowledged is lost
        self.assertLessEqual(count, 40)
        # The usage shown is exact: a record the kill left pending was recounted.
        typ, data = m.getquota("INBOX")
        self.assertEqual(typ, "OK")
        self.assertIn(f"MESSAGE {count} 40".encode(), data[0])
        r = self.quota("recalc", "--user", "bob")
        self.assertEqual((r.returncode, r.stdout), (0, ""))
        # And the limit holds exactly afterwards.
        self.assertEqual(self.deliver(50), 40 - count)
        self.assertEqual(int(m.select("INBOX")[1][0]), 40)


if __name__ == "__main__":
    unittest.main()
