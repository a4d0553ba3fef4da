"""The bench harness's own checks can fail (issue 16): `--check` exits non-zero when a row of
a server that was asked for failed or measured nothing, and an instance whose port is served
by another program is refused instead of measured. No build needed except for the last test,
which starts a real dariusd while something else holds 127.0.0.1:21143 (the old fixed port)
and is skipped when DARIUS_BIN_DIR has no dariusd.

    cd bench && python3 -m unittest -v harness_test      # ctest: bench/harness_check
"""
import copy
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import delivery_rows  # noqa: E402
import report  # noqa: E402
import runner  # noqa: E402
import servers  # noqa: E402


def ok_result(workload):
    """A result of `workload` that has a positive number for every row the table shows."""
    return {"workload": workload, "ok": True, "metrics": {m: 1.0 for _, wl, m, *_ in report.ROWS if wl == workload},
            "checks": {}, "wall_s": 1.0, "client_cpu_s": 0.1, "server_cpu_s": 0.5}


def ok_run(names=("darius",), rounds=1):
    return {s: {k: [ok_result(k) for _ in range(rounds)] for k in runner.ROW_KEYS} for s in names}


DARIUS_ONLY = {"db skiplist load/s": [1000.0], "mailbox append (stage+link+commit)": [250.0]}
PHYSICAL = {"fsync_per_s": 200.0, "page_cache_read_mib_per_s": 9000.0}


def check(runs, names=("darius",), rounds=1, darius_rows=DARIUS_ONLY, physical=PHYSICAL):
    return report.check_failures(runs, list(names), runner.ROW_KEYS, rounds, darius_rows,
                                 "darius" in names, physical)


class CheckFailuresTest(unittest.TestCase):
    def test_every_row_ok_passes(self):
        self.assertEqual(check(ok_run()), [])
        self.assertEqual(check(ok_run(("darius", "dovecot", "cyrus"), rounds=3), ("darius", "dovecot", "cyrus"), 3),
                         [])

    def test_a_failed_row_fails(self):
        runs = ok_run()
        runs["darius"]["imap_fetch_body"] = [{"ok": False, "error": "FETCH: BAD Unknown command", "metrics": {}}]
        out = check(runs)
        self.assertEqual(len(out), 1, out)
        self.assertIn("darius imap_fetch_body round 1: fail: FETCH: BAD Unknown command", out[0])

    def test_a_server_that_never_started_fails(self):
        # What port 21143 taken by another program gave: every Darius row a fail: entry.
        runs = {"darius": {k: [{"ok": False, "error": "darius: port 21143 already in use", "metrics": {}}]
                           for k in runner.ROW_KEYS}}
        self.assertEqual(len(check(runs)), len(runner.ROW_KEYS))

    def test_a_failed_anchor_row_fails_too(self):
        runs = ok_run(("darius", "cyrus"))
        runs["cyrus"]["pop3_retr"] = [{"ok": False, "error": "cyrus: setup failed", "metrics": {}}]
        self.assertTrue(any(f.startswith("cyrus pop3_retr") for f in check(runs, ("darius", "cyrus"))))

    def test_one_failed_round_is_not_hidden_by_the_others(self):
        runs = ok_run(rounds=3)
        runs["darius"]["lmtp8"][1] = {"ok": False, "error": "connection 3: 451 try again", "metrics": {}}
        self.assertEqual(len(check(runs, rounds=3)), 1)

    def test_a_row_that_never_ran_fails(self):
        runs = ok_run()
        del runs["darius"]["mixed"]
        self.assertIn("darius mixed: 0 result(s) for 1 round(s)", check(runs))
        runs = ok_run(rounds=2)
        runs["darius"]["lmtp1"].pop()
        self.assertIn("darius lmtp1: 1 result(s) for 2 round(s)", check(runs, rounds=2))

    def test_ok_but_nothing_measured_fails(self):
        runs = ok_run()
        runs["darius"]["lmtp1"][0]["metrics"]["msgs_per_s"] = 0.0
        del runs["darius"]["imap_search"][0]["metrics"]["subject_ms"]
        runs["darius"]["imap_idle_sessions"][0]["metrics"]["sessions"] = 0
        out = check(runs)
        self.assertEqual(len(out), 3, out)
        self.assertTrue(any("lmtp1" in f and "measured nothing" in f for f in out))
        self.assertTrue(any("imap_search" in f and "subject_ms" in f for f in out))

    def test_a_wrong_result_fails_for_darius_only(self):
        wrong = {"ok": False, "wrong_result": True, "error": "text_quintaflor expected 52 got 48"}
        runs = ok_run(("darius", "cyrus"))
        r = copy.deepcopy(runs["cyrus"]["imap_search"][0])
        r.update(wrong)
        runs["cyrus"]["imap_search"] = [r]
        self.assertEqual(check(runs, ("darius", "cyrus")), [])  # Cyrus's known fault: a note
        runs["darius"]["imap_search"] = [copy.deepcopy(r)]
        self.assertEqual(len(check(runs, ("darius", "cyrus"))), 1)

    def test_not_applicable_is_accepted_from_an_anchor_only(self):
        # Issue 18: Dovecot has no delayed expunge, so its expire row has no phase two.
        na = {"ok": True, "metrics": {"expunge_per_s": 1.0},
              "not_applicable": {m: "no delayed expunge" for m in ("expire_per_s", "probe_max_ms", "probe_p99_ms",
                                                                    "baseline_max_ms")}}
        runs = ok_run(("darius", "dovecot"))
        runs["dovecot"]["expire"] = [na]
        self.assertEqual(check(runs, ("darius", "dovecot")), [])
        table = report.build_table(runs, ["darius", "dovecot"], [], PHYSICAL)
        line = next(l for l in table.splitlines() if l.startswith("expire of those N"))
        self.assertIn("n/a", line)
        runs["darius"]["expire"] = [copy.deepcopy(na)]
        self.assertEqual(len(check(runs, ("darius", "dovecot"))), 4)

    def test_search_rows_accept_not_applicable_from_darius_too(self):
        # Issue 19: Darius's search index is written on another branch, and SORT/THREAD are
        # capabilities a server may lack; a wrong SEARCH count from Darius still fails.
        runs = ok_run(("darius", "dovecot"))
        runs["darius"]["search_index"] = [{"ok": True, "metrics": {}, "not_applicable": {
            m: "no darius search command" for m in ("index_msgs_per_s", "index_share_pct")}}]
        self.assertEqual(check(runs, ("darius", "dovecot")), [])
        table = report.build_table(runs, ["darius", "dovecot"], [], PHYSICAL)
        self.assertIn("n/a: darius search_index: no darius search command", table)
        wrong = ok_result("search")
        wrong.update(ok=False, wrong_result=True, error="wrong result: search_text expected 14 hits got 13")
        wrong["checks"] = {"search_text": "expected 14 hits got 13"}
        runs["darius"]["search"] = [wrong]
        out = check(runs, ("darius", "dovecot"))
        self.assertEqual(len(out), 1, out)
        self.assertIn("darius search round 1: wrong result", out[0])

    def test_darius_only_benches_and_physical_probe(self):
        self.assertEqual(len(check(ok_run(), darius_rows={"darius_db_bench": ["exit 1: boom"]})), 1)
        self.assertEqual(check(ok_run(), darius_rows={}), ["darius-only benches: no results"])
        self.assertEqual(len(check(ok_run(), physical={})), 1)


class DeliveryRowsTest(unittest.TestCase):
    """Issue 23's rows (bench/delivery_rows.py): the Hermes sequence has the mix it claims, the
    strace summary is read right, and the check accepts a missing sync count (no strace) from
    any server but not a missing CPU split."""

    def test_only_delivery_names_the_three_rows(self):
        self.assertEqual(runner.ONLY_GROUPS["delivery"], ["lmtp1_default", "lmtp8_default", "mixed_default"])
        self.assertTrue(set(runner.ONLY_GROUPS["delivery"]) <= set(runner.ROW_KEYS))

    def test_hermes_sequence_has_the_mix_in_every_block(self):
        import random
        rng = random.Random(5)
        # A corpus whose own mix is far from Hermes: half the messages over 32 KiB.
        index = [(0, rng.randint(500, 4095)) for _ in range(50)] + [(0, rng.randint(4096, 32767)) for _ in range(30)] \
            + [(0, rng.randint(32768, 1 << 20)) for _ in range(80)]
        seq = delivery_rows.hermes_sequence(index, 3000)
        self.assertEqual(len(seq), 3000)
        for first in range(0, 3000, 100):
            sizes = [index[i][1] for i in seq[first:first + 100]]
            self.assertEqual(sum(x < 4096 for x in sizes), 76)
            self.assertEqual(sum(x < 32768 for x in sizes), 95)
        sh = delivery_rows.shape([index[i][1] for i in seq])
        self.assertAlmostEqual(sh["under_4k_pct"], 76.0)
        self.assertAlmostEqual(sh["under_32k_pct"], 95.0)
        self.assertTrue(14000 < sh["mean_bytes"] < 22000, sh)  # the log-uniform tail, not the corpus's
        self.assertEqual(seq, delivery_rows.hermes_sequence(index, 3000))  # deterministic
        self.assertEqual(len(delivery_rows.hermes_sequence(index, 250)), 250)

    def test_strace_summary(self):
        text = ("% time     seconds  usecs/call     calls    errors syscall\n"
                "------ ----------- ----------- --------- --------- ----------------\n"
                " 61.00    0.000610           2       300           fsync\n"
                " 39.00    0.000390           1       606         3 fdatasync\n"
                "------ ----------- ----------- --------- --------- ----------------\n"
                "100.00    0.001000           1       906         3 total\n")
        self.assertEqual(delivery_rows.parse_strace_summary(text), {"fsync": 300, "fdatasync": 606})
        self.assertEqual(delivery_rows.parse_strace_summary(""), {})

    def test_sync_count_may_be_na_but_cpu_split_may_not(self):
        runs = ok_run(("darius", "dovecot"))
        for s in ("darius", "dovecot"):
            r = runs[s]["lmtp8_default"][0]
            del r["metrics"]["syncs_per_msg"]
            r["not_applicable"] = {"syncs_per_msg": "strace not installed"}
        self.assertEqual(check(runs, ("darius", "dovecot")), [])
        table = report.build_table(runs, ["darius", "dovecot"], [], PHYSICAL)
        self.assertIn("n/a: darius lmtp8_default: strace not installed", table)
        del runs["darius"]["lmtp8_default"][0]["metrics"]["server_sys_ms_per_msg"]
        out = check(runs, ("darius", "dovecot"))
        self.assertEqual(len(out), 1, out)
        self.assertIn("server_sys_ms_per_msg", out[0])

    def test_delivery_rows_are_left_out_of_a_table_without_them(self):
        runs = ok_run(("darius", "dovecot"))
        self.assertIn("defaults: LMTP 8 conns", report.build_table(runs, ["darius", "dovecot"], [], PHYSICAL))
        for s in runs:
            for k in runner.DELIVERY_ROW_KEYS:
                del runs[s][k]
        self.assertNotIn("defaults:", report.build_table(runs, ["darius", "dovecot"], [], PHYSICAL))


class ReportCheckExitTest(unittest.TestCase):
    """`runner.py --report DIR --check`: the exit status --check gives for a run's raw JSON."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="bench-check-test-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def write(self, runs, darius_rows=DARIUS_ONLY):
        meta = {"mode": "quick", "params": {"rounds": 1}, "servers": list(runs), "physical": PHYSICAL}
        with open(os.path.join(self.dir, "meta.json"), "w") as f:
            json.dump(meta, f)
        for s, res in runs.items():
            with open(os.path.join(self.dir, f"{s}-r1.json"), "w") as f:
                json.dump({k: v[0] for k, v in res.items()}, f)
        with open(os.path.join(self.dir, "darius-only-r1.json"), "w") as f:
            json.dump({k: v[0] for k, v in darius_rows.items()}, f)

    def run_check(self):
        return subprocess.run([sys.executable, os.path.join(HERE, "runner.py"), "--report", self.dir, "--check"],
                              capture_output=True, text=True)

    def test_healthy_run_exits_0(self):
        self.write(ok_run())
        r = self.run_check()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_failed_row_exits_non_zero(self):
        runs = ok_run()
        runs["darius"]["imap_login"] = [{"ok": False, "error": "darius: port 21143 already in use", "metrics": {}}]
        self.write(runs)
        r = self.run_check()
        self.assertNotEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("darius imap_login round 1: fail: darius: port 21143 already in use", r.stderr)


class AclQuotaAndChartTest(unittest.TestCase):
    """Issue 17's additions: a failed --acl-quota setup fails --check even if the rows ran;
    --compare-acl-quota's table; the chart is well-formed SVG."""

    def test_failed_acl_quota_setup_fails(self):
        runs = ok_run()
        runs["darius"]["acl_quota"] = [{"ok": True, "metrics": {}}]
        entries = [("darius", "darius", True)]
        self.assertEqual(runner.all_failures(runs, entries, runner.ROW_KEYS, 1, DARIUS_ONLY, True, PHYSICAL), [])
        runs["darius"]["acl_quota"] = [{"ok": False, "error": "acl: 1 entries wrong", "metrics": {}}]
        out = runner.all_failures(runs, entries, runner.ROW_KEYS, 1, DARIUS_ONLY, True, PHYSICAL)
        self.assertEqual(len(out), 1, out)
        self.assertIn("darius acl_quota round 1: fail: acl: 1 entries wrong", out[0])
        del runs["darius"]["acl_quota"]
        self.assertEqual(len(runner.all_failures(runs, entries, runner.ROW_KEYS, 1, DARIUS_ONLY, True, PHYSICAL)), 1)

    def test_compare_table(self):
        runs = ok_run(("darius", runner.ACLQ), rounds=2)
        runs[runner.ACLQ]["lmtp1"][0]["metrics"]["msgs_per_s"] = 0.5  # half as fast with them on
        runs[runner.ACLQ]["lmtp1"][1]["metrics"]["msgs_per_s"] = 0.5
        table = report.compare_table(runs, "darius", runner.ACLQ)
        line = next(l for l in table.splitlines() if l.startswith("LMTP deliver, 1 connection"))
        self.assertIn("+100.0%", line)
        self.assertNotIn("~", line)  # the ranges 0.5..0.5 and 1..1 do not overlap
        self.assertNotIn("LIST", table)  # the shared row has no off/on variant

    def test_chart_is_svg(self):
        import xml.etree.ElementTree as ET
        runs = ok_run(("darius", "dovecot", "cyrus"))
        runs["dovecot"]["lmtp1"][0]["metrics"]["msgs_per_s"] = 0.25
        root = ET.fromstring(report.svg_chart(runs, ["darius", "dovecot", "cyrus"], "t <&>"))
        self.assertTrue(root.tag.endswith("svg"))
        titles = [e.text for e in root.iter() if e.tag.endswith("title")]
        self.assertIn("LMTP deliver, 1 connection: Darius 4× vs dovecot", titles)


class PortOwnershipTest(unittest.TestCase):
    """servers.foreign_listeners: a port that accepts but belongs to someone else is refused."""

    def spawn(self, code):
        p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                             start_new_session=True)
        self.addCleanup(lambda: (p.kill(), p.wait(), p.stdout.close()))
        return p

    def listener(self):
        p = self.spawn("import socket,sys,time\ns=socket.socket()\ns.bind(('127.0.0.1',0))\ns.listen()\n"
                       "print(s.getsockname()[1],flush=True)\ntime.sleep(60)")
        return p, int(p.stdout.readline())

    def test_free_ports_are_distinct_and_free(self):
        ports = servers.free_ports(3)
        self.assertEqual(len(set(ports)), 3)
        for p in ports:
            self.assertFalse(servers.listening_sockets(p))

    def test_own_listener_passes_and_foreign_one_fails(self):
        owner, port = self.listener()
        other = self.spawn("import time\ntime.sleep(60)")
        self.assertIsNone(servers.foreign_listeners(port, owner.pid))
        why = servers.foreign_listeners(port, other.pid)
        self.assertIsNotNone(why)
        self.assertIn(f"pid {owner.pid}", why)

    def test_nothing_listening_fails(self):
        port = servers.free_ports(1)[0]
        self.assertIn("nothing listens", servers.foreign_listeners(port, os.getpid()))


BIN = os.environ.get("DARIUS_BIN_DIR", "")


@unittest.skipUnless(BIN and os.path.exists(os.path.join(BIN, "server", "dariusd"))
                     and os.path.exists(os.path.join(BIN, "tools", "darius")), "needs DARIUS_BIN_DIR with dariusd")
class DariusEphemeralPortsTest(unittest.TestCase):
    """The bench's Darius takes the ports dariusd bound, whatever holds the old fixed ones."""

    def test_starts_beside_a_taken_21143(self):
        squatter = socket.socket()
        try:
            squatter.bind(("127.0.0.1", 21143))
            squatter.listen()
        except OSError:
            squatter.close()
            squatter = None  # someone else holds it already: just as good for this test
        work = tempfile.mkdtemp(prefix="bench-ports-test-")
        inst = servers.ServerInstance("darius", work, 2, os.path.abspath(BIN))
        try:
            inst.setup()
            inst.start()
            self.assertNotIn(21143, inst.ports())
            self.assertEqual(len(set(inst.ports())), 3)
            for p in inst.ports():
                self.assertIsNone(servers.foreign_listeners(p, inst.pid))
            with socket.create_connection(("127.0.0.1", inst.imap), timeout=5) as c:
                self.assertTrue(c.recv(100).startswith(b"* OK"))
        finally:
            inst.stop(grace=5)
            shutil.rmtree(work, ignore_errors=True)
            if squatter:
                squatter.close()


if __name__ == "__main__":
    unittest.main()
