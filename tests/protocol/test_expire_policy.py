"""Expire policy per owner and the at-once run past the overflow, against the real dariusd and
the real `darius` tool (issue 18): `darius expire policy show|set|clear` (text and --json, bad
input refused with exit 2 and nothing changed, `-C` after the subcommand), an owner's override
used by `darius expire`, and dariusd expiring a user the moment their expunged mail passes
expunge_vol_overflow (no expire_at, so nothing else could), while a user below it keeps all."""
import imaplib
import json
import smtplib
import time
import unittest

from darius_harness import Instance, darius, logout_quietly


def message(i):
    return f"From: s@example.org\r\nSubject: note {i:03d}\r\n\r\n" + "x" * 2000 + "\r\n"


class ExpirePolicyTest(unittest.TestCase):
    def start(self, **options):
        inst = Instance(options={"allow_plaintext_auth": "yes", **options})
        self.addCleanup(inst.close)
        darius("user", "add", "-C", inst.conf, "bob", "--password", "bob-secret")
        inst.start()
        self.addCleanup(inst.stop)
        lmtp = smtplib.LMTP("127.0.0.1", inst.port("lmtp"))
        for i in range(1, 11):
            for user in ("alice", "bob"):  # one recipient each: smtplib reads one DATA reply
                lmtp.sendmail("s@example.org", [user], message(i))
        lmtp.quit()
        return inst

    def expunge(self, inst, user, uids):
        m = imaplib.IMAP4("127.0.0.1", inst.port("imap"), timeout=30)
        self.addCleanup(logout_quietly, m)
        self.assertEqual(m.login(user, user + "-secret")[0], "OK")
        m.select("INBOX")
        self.assertEqual(m.uid("STORE", uids, "+FLAGS", r"(\Deleted)")[0], "OK")
        self.assertEqual(m.expunge()[0], "OK")
        logout_quietly(m)

    def held(self, inst, user):
        r = darius("expire", "-C", inst.conf, "--user", user, "-n", "--json")
        return json.loads(r.stdout)["owners"][0]["held_messages"]

    def test_policy_commands(self):
        inst = self.start()
        show = lambda *a: darius("expire", "policy", "show", *a, "-C", inst.conf)
        r = show("--user", "alice", "--json")
        policy = json.loads(r.stdout)["policy"]
        self.assertEqual(policy["expunge_vol_overflow"], {"value": 100 << 20, "override": False})
        self.assertEqual(policy["deleted_timeout"], {"value": 28 * 86400, "override": False})

        darius("expire", "policy", "set", "--user", "alice", "--expunge-timeout", "1d",
               "--deleted-vol-max", "1G", "-C", inst.conf)
        r = show("--user", "alice")
        self.assertIn("expunge_timeout: 86400s (override)", r.stdout)
        self.assertIn("deleted_vol_max: 1073741824 (override)", r.stdout)
        self.assertIn("expunge_vol_min: 52428800 (default)", r.stdout)
        r = darius("expire", "policy", "set", "--mailbox", "shared/news", "--expunge-vol-overflow",
                   "0", "--json", "-C", inst.conf)
        self.assertEqual(json.loads(r.stdout),
                         {"owner": "shared/news", "overrides": {"expunge_vol_overflow": 0}})
        r = show()
        self.assertEqual(r.stdout.splitlines(), [
            "shared/news: expunge_vol_overflow=0",
            "user/alice: expunge_timeout=86400 deleted_vol_max=1073741824"])

        # Bad input: exit 2, nothing changed.
        for args in (["set", "--user", "alice", "--expunge-vol-min", "lots"],
                     ["set", "--user", "alice", "--deleted-timeout", "soon"],
                     ["set", "--user", "alice"],
                     ["set", "--expunge-vol-min", "1M"],
                     ["set", "--user", "alice", "--mailbox", "shared/news", "--expunge-vol-min", "1M"],
                     ["clear", "--mailbox", "user/alice/Sent"],
                     ["show", "--user", "alice", "--expunge-vol-min", "1M"]):
            r = darius("expire", "policy", *args, "-C", inst.conf, check=False)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
        self.assertEqual(len(show().stdout.splitlines()), 2)

        # The override is what `darius expire` applies to alice; bob has the default.
        self.expunge(inst, "alice", "1:2")
        self.expunge(inst, "bob", "1:2")
        r = darius("expire", "-C", inst.conf, "--all", "--at", str(int(time.time()) + 2 * 86400),
                   "--json")
        owners = {o["owner"]: o for o in json.loads(r.stdout)["owners"]}
        self.assertEqual(owners["alice"]["removed_messages"], 2)
        self.assertEqual(owners["alice"]["policy"]["timeout_seconds"], 86400)
        self.assertEqual(owners["bob"]["removed_messages"], 0)
        self.assertIn("duplicates_pruned", json.loads(r.stdout))

        # `default` drops one override; clear drops them all.
        darius("expire", "policy", "set", "--user", "alice", "--expunge-timeout", "default",
               "-C", inst.conf)
        self.assertEqual(show("--user", "alice", "--json").stdout.count('"override": true'), 1)
        darius("expire", "policy", "clear", "--user", "alice", "-C", inst.conf)
        self.assertEqual(show().stdout.splitlines(), ["shared/news: expunge_vol_overflow=0"])

    def test_dariusd_expires_an_owner_past_the_overflow_at_once(self):
        # Each message is 2030 to 2400 bytes (the body and the headers delivery adds): 5 pass
        # the overflow, 3 do not; vol_min keeps 1.
        inst = self.start(expire_at="", expunge_vol_min="3000", expunge_vol_max="6000",
                          expunge_vol_overflow="10000")
        # bob's own overflow is lower: 2 messages pass it, 1 does not.
        darius("expire", "policy", "set", "--user", "bob", "--expunge-vol-overflow", "4000",
               "-C", inst.conf)
        self.expunge(inst, "alice", "1:3")  # 3: under the overflow
        self.expunge(inst, "bob", "1")      # 1: under his
        time.sleep(1)  # give a wrong at-once run the chance to happen
        self.assertEqual(self.held(inst, "alice"), 3)
        self.assertEqual(self.held(inst, "bob"), 1)

        self.expunge(inst, "alice", "4:5")  # 5 > 4: expired at once, down to vol_min (1)
        self.expunge(inst, "bob", "2")      # 2 > his overflow
        deadline = time.time() + 30
        while time.time() < deadline and (self.held(inst, "alice") > 1 or self.held(inst, "bob") > 1):
            time.sleep(0.2)
        self.assertEqual(self.held(inst, "alice"), 1, inst.log())
        self.assertEqual(self.held(inst, "bob"), 1, inst.log())
        self.assertIn("past expunge_vol_overflow", inst.log())


if __name__ == "__main__":
    unittest.main()
