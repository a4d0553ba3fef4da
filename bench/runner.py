#!/usr/bin/env python3
"""bench/runner.py: the benchmark run — Darius beside Dovecot and Cyrus, same machine, same
run. Called by bench/run.sh (see bench/README.md for what each row measures).

    python3 bench/runner.py [--quick] [--servers darius,dovecot,cyrus] [--rounds N]
                            [--only ROW,...] [--check] [--install-anchors]
                            [--darius-build DIR] [--results DIR] [--expire-size N]

Steps: build Darius in Release (build/bench) and the load client; write the corpus (fixed
seed, cached) and verify its manifest; run the load client's self-test; measure the
machine's fsync rate and page-cache bandwidth; then, round by round, with the server order
rotated each round, for each server: a fresh private instance, every workload through
darius_load (one process per workload, JSON out), stop; then, per server, issue 18's expire
and undelete rows on an instance of their own (run_expire). Darius-only rows come from
darius_db_bench and darius_mailbox_bench. Raw JSON per run goes to the results directory;
one table of medians (min..max) and ratios Darius/anchor is printed and saved.

A server or workload that fails is a row entry, never an abort. The exit status is
non-zero when the harness itself is broken (self-test, corpus check, the load client
crashing or printing no JSON, an exception here) and, with `--check`, also when any row of
a server that was asked for failed or measured nothing (report.check_failures): CI runs
`--check`, so a Darius row that fails fails CI. `--report DIR --check` applies the same
check to an earlier run's raw JSON.
Single-threaded; owns every server it starts and stops them all on exit or signal.
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import delivery_rows
import report
import search_rows
import servers

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

PARAMS = {
    "quick": dict(rounds=1, users=50, mailbox=1000, corpus=2000, lmtp1=100, lmtp8=400, multi=100,
                  rcpts=4, logins=50, selects=50, pop3=1000, append=100, idle=1000, mixed=10,
                  db_keys=20000, db_updates=200, mb_msgs=2000, shared=2000, visible=200, list_reps=20,
                  expire=2000, expire_keep=100, expire_think_ms=1, undelete=200, undelete_reps=3,
                  search_sizes=[2000], search_reps=[10], search_lmtp=400, search_index_budget_s=600,
                  delivery=300, sync_pass=300, sync_linger_s=1, timeout=900),
    "full": dict(rounds=3, users=100, mailbox=10000, corpus=12000, lmtp1=1000, lmtp8=4000, multi=500,
                 rcpts=4, logins=300, selects=300, pop3=1000, append=1000, idle=10000, mixed=60,
                 db_keys=200000, db_updates=1000, mb_msgs=10000, shared=100000, visible=1000, list_reps=20,
                 expire=100000, expire_keep=1000, expire_think_ms=1, undelete=1000, undelete_reps=3,
                 search_sizes=[10000, 100000], search_reps=[10, 3], search_lmtp=4000, search_index_budget_s=600,
                 delivery=3000, sync_pass=300, sync_linger_s=1, timeout=3600),
}

# --acl-quota: every bench user's quota root gets these limits, far above what a run uses
# (100 GiB, ten million messages), so that the limits are checked on every append and never hit.
QUOTA_KIB = 100 * 1024 * 1024
QUOTA_MSGS = 10_000_000

# How each server names things for the shared-folder row and --acl-quota: its administrator
# (bench/anchors/*.sh), how the administrator names a new top-level shared mailbox, how a user
# sees one, and how the administrator names a user's quota root. Dovecot has no IMAP
# administrator: its public folders are made on disk and its quota comes from its configuration.
NAMING = {
    "darius": dict(admin="cyrus", create_prefix="Shared Folders/", list_prefix="Shared Folders/",
                   quota_root="Other Users/%u"),
    "cyrus": dict(admin="cyrus", create_prefix="", list_prefix="Shared Folders/",
                  quota_root="user/%u"),
    "dovecot": dict(admin="", create_prefix=None, list_prefix="Shared/", quota_root=""),
}

# Every server runs these rows, in this order (run_server's plan; --only picks some).
MAIN_ROW_KEYS = ["lmtp_first", "lmtp1", "lmtp8", "lmtp_multi", "populate", "imap_login", "imap_select",
                 "imap_fetch_meta", "imap_fetch_body", "imap_search", "pop3_retr", "imap_store", "imap_append",
                 "imap_expunge", "imap_idle_sessions", "mixed"]
# Issue 18's rows (two-phase expunge): an instance of their own per server (run_expire), after
# every server's other rows of the round.
EXPIRE_ROW_KEYS = ["undelete", "expire"]
# Issue 19's rows (search index, SEARCH, SORT, THREAD): instances of their own per server
# (search_rows.run_search), after the expire rows; `--only search` picks them all.
SEARCH_ROW_KEYS = search_rows.SEARCH_ROW_KEYS
# Issue 23's rows (delivery on every server's defaults, the Hermes size mix): an instance of
# their own per server (delivery_rows.run_delivery), right after the main rows, kept until the
# round ends; `--only delivery` picks them all.
DELIVERY_ROW_KEYS = delivery_rows.DELIVERY_ROW_KEYS
# list_shared runs on an instance of its own (run_list), after the others.
ROW_KEYS = MAIN_ROW_KEYS + DELIVERY_ROW_KEYS + ["list_shared"] + EXPIRE_ROW_KEYS + SEARCH_ROW_KEYS
ONLY_GROUPS = {"search": SEARCH_ROW_KEYS, "delivery": DELIVERY_ROW_KEYS}


def search_keys(p, only):
    """The search rows this run has: the "_big" ones only with a second mailbox size (full)."""
    keys = [k for k in SEARCH_ROW_KEYS if not k.endswith("_big") or len(p.get("search_sizes", [])) > 1]
    return [k for k in keys if only is None or k in only]


def search_corpora(p, results_dir, main_corpus):
    """A corpus directory per search mailbox size: the run's corpus when it is big enough,
    else corpus-<size> (the 100,000 of full mode: about 1.7 GB, generated once and cached)."""
    out = []
    for n in p["search_sizes"]:
        if n <= p["corpus"]:
            out.append(main_corpus)
            continue
        d = os.path.join(results_dir, f"corpus-{n}")
        log(f"corpus: {n} messages in {d} (search rows)")
        r = subprocess.run([sys.executable, os.path.join(HERE, "corpus", "gen_corpus.py"), "--out", d,
                            "--messages", str(n), "--check"], capture_output=True, text=True)
        if r.returncode != 0:
            harness_errors.append("search corpus generation/check failed: " + r.stderr[-300:])
            return None
        out.append(d)
    return out

harness_errors = []


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def build(build_dir, darius_targets):
    """Configures build_dir (Release) if needed and builds the load client there (required)
    and, with darius_targets, the Darius binaries (each may fail alone: its rows say so)."""
    status = {}
    os.makedirs(build_dir, exist_ok=True)
    logf = os.path.join(build_dir, "bench-build.log")
    if not os.path.exists(os.path.join(build_dir, "build.ninja")):
        r = subprocess.run(["cmake", "-S", ROOT, "-B", build_dir, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            harness_errors.append("cmake configure failed: " + r.stderr[-500:])
            return status
    targets = ["darius_load"] + (DARIUS_TARGETS if darius_targets else [])
    for target in targets:
        log(f"building {target}")
        r = subprocess.run(["cmake", "--build", build_dir, "-j2", "--target", target],
                           capture_output=True, text=True)
        with open(logf, "a") as f:
            f.write(r.stdout + r.stderr)
        out = (r.stdout + r.stderr).splitlines()
        err = [l for l in out if "error:" in l.lower() or "cmake error" in l.lower()]
        status[target] = "ok" if r.returncode == 0 else "build failed: " + (err[0][:150] if err else "see " + logf)
    return status


DARIUS_TARGETS = ["dariusd", "darius", "darius_db_bench", "darius_mailbox_bench"]


def exe(build_dir, target):
    sub = {"darius_load": "bench", "darius_db_bench": "bench", "darius_mailbox_bench": "bench",
           "dariusd": "server", "darius": "tools"}[target]
    return os.path.join(build_dir, sub, target)


def load(load_exe, workload, args, timeout):
    """Runs one workload; returns its result dict (harness failures recorded)."""
    cmd = [load_exe, workload] + [str(a) for a in args]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"workload": workload, "ok": False, "error": f"timed out after {timeout} s", "metrics": {}}
    if r.returncode != 0:
        msg = f"darius_load {workload} exited {r.returncode}: {r.stderr.strip()[-300:]}"
        harness_errors.append(msg)
        return {"workload": workload, "ok": False, "error": "harness: " + msg, "metrics": {}}
    try:
        return json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        msg = f"darius_load {workload} printed no JSON: {r.stdout[-200:]}"
        harness_errors.append(msg)
        return {"workload": workload, "ok": False, "error": "harness: " + msg, "metrics": {}}


def acl_quota_env(name, acl_quota):
    if acl_quota is not True or name != "dovecot":
        return {}
    return {"BENCH_ACL_QUOTA": "1", "BENCH_QUOTA_KIB": str(QUOTA_KIB), "BENCH_QUOTA_MSGS": str(QUOTA_MSGS)}


def run_server(name, p, corpus, load_exe, darius_build, workdir, round_no, build_status, only=None,
               acl_quota=False, variant=None, list_workdir=None, hermes=None):
    """All workloads against one fresh instance of `name`; returns {workload: result}. The
    instance is stopped but its files stay until the round ends (see end_round). With
    acl_quota, every user's INBOX gets three ACL entries and a quota root first (the
    acl_quota workload; its result is kept as "acl_quota"), and every row fails if that
    fails. The delivery rows (issue 23; hermes: their corpus, delivery_rows.hermes_corpus) run
    on an instance of their own on the server's defaults, without ACLs or quotas, whose files
    also stay until the round ends; the shared-folder LIST row on one of its own (run_list)."""
    results = {}
    names = [k for k in MAIN_ROW_KEYS if only is None or k in only]
    dkeys = [k for k in DELIVERY_ROW_KEYS if (only is None or k in only) and not variant]
    want_list = only is None or "list_shared" in only
    if name == "darius" and build_status.get("dariusd") != "ok":
        log(f"  {name}: every row fails: dariusd {build_status.get('dariusd', 'not built')}")
        return {n: {"ok": False, "error": "dariusd " + build_status.get("dariusd", "not built"), "metrics": {}}
                for n in names + dkeys + (["list_shared"] if want_list else [])}
    if names:
        results.update(run_main(name, p, corpus, load_exe, darius_build, workdir, round_no, names, acl_quota,
                                variant))
    if dkeys:
        if hermes is None:
            results.update({k: {"ok": False, "error": "no Hermes corpus", "metrics": {}} for k in dkeys})
        else:
            results.update(delivery_rows.run_delivery(name, p, hermes, load_exe, darius_build, workdir, round_no,
                                                      dkeys, load, log))
    if want_list:
        results["list_shared"] = run_list(name, p, load_exe, darius_build, workdir, round_no, list_workdir)
    return results


def run_main(name, p, corpus, load_exe, darius_build, workdir, round_no, names, acl_quota, variant):
    results = {}
    inst = servers.ServerInstance(name, workdir, p["users"], darius_build, variant=variant,
                                  env=acl_quota_env(name, acl_quota))
    try:
        inst.setup()
        inst.start()
    except servers.ServerError as e:
        inst.stop()
        log(f"  {name}: every row fails: {e}")
        return {n: {"ok": False, "error": f"{name}: {e}", "metrics": {}} for n in names}
    log(f"  {name}: pid {inst.pid}, IMAP {inst.imap}, POP3 {inst.pop3}, LMTP {inst.lmtp}")
    try:
        common = ["--imap-port", inst.imap, "--lmtp-port", inst.lmtp, "--pop3-port", inst.pop3,
                  "--corpus", corpus, "--server-pid", inst.pid, "--users", p["users"],
                  "--mailbox-msgs", p["mailbox"]]
        m, t = p["mailbox"], p["timeout"]
        tag = f"r{round_no}"
        if acl_quota:
            # "warm": the same logins as "on" and nothing set, --compare-acl-quota's baseline.
            nm = NAMING[name]
            t0 = time.time()
            r = load(load_exe, "acl_quota", common + ["--admin-user", nm["admin"], "--quota-root", nm["quota_root"],
                                                      "--quota-kib", QUOTA_KIB, "--quota-msgs", QUOTA_MSGS,
                                                      "--warm-only", 1 if acl_quota == "warm" else 0], t)
            results["acl_quota"] = r
            state = "ok" if r.get("ok") else "FAIL " + r.get("error", "")[:200]
            log(f"  {name} r{round_no} acl_quota: {time.time() - t0:.1f}s {state}")
            if not r.get("ok"):
                for n in names:
                    results[n] = {"ok": False, "error": "ACL/quota setup failed: " + r.get("error", ""), "metrics": {}}
                return results
        plan = [
            # One message to every user first: each server creates the INBOX on its first
            # delivery, which is its own row; the rows after it measure delivery into
            # existing mailboxes, as a running site does nearly always.
            ("lmtp_first", "lmtp", ["--count", p["users"] - 1, "--conns", 1, "--offset", 0, "--tag", tag + "f"]),
            ("lmtp1", "lmtp", ["--count", p["lmtp1"], "--conns", 1, "--offset", m, "--tag", tag + "a"]),
            ("lmtp8", "lmtp", ["--count", p["lmtp8"], "--conns", 8, "--offset", m + p["lmtp1"], "--tag", tag + "b"]),
            ("lmtp_multi", "lmtp", ["--count", p["multi"], "--conns", 8, "--rcpts", p["rcpts"], "--offset", 0,
                                    "--tag", tag + "c"]),
            ("populate", "populate", ["--conns", 8]),
            ("imap_login", "imap_login", ["--count", p["logins"]]),
            ("imap_select", "imap_select", ["--count", p["selects"]]),
            ("imap_fetch_meta", "imap_fetch_meta", []),
            ("imap_fetch_body", "imap_fetch_body", []),
            ("imap_search", "imap_search", []),
            ("pop3_retr", "pop3_retr", ["--count", p["pop3"]]),
            ("imap_store", "imap_store", []),
            ("imap_append", "imap_append", ["--count", p["append"], "--offset", m]),
            ("imap_expunge", "imap_expunge", []),
            ("imap_idle_sessions", "imap_idle_sessions", ["--count", p["idle"], "--conns", 4]),
            ("mixed", "mixed", ["--duration", p["mixed"], "--tag", tag + "m"]),
        ]
        if [k for k, _, _ in plan] != MAIN_ROW_KEYS:
            raise RuntimeError("run_main's plan and MAIN_ROW_KEYS disagree")
        for key, workload, args in plan:
            if key not in names:
                continue
            if not inst.alive():
                results[key] = {"ok": False, "error": f"{name} is no longer running: {inst.log_tail(200)}",
                                "metrics": {}}
                continue
            t0 = time.time()
            r = load(load_exe, workload, common + args, t)
            m_ = r.get("metrics", {})
            if workload == "lmtp" and r.get("server_cpu_s", -1) >= 0 and m_.get("messages"):
                m_["server_cpu_ms_per_msg"] = 1000 * r["server_cpu_s"] / m_["messages"]
            results[key] = r
            state = "ok" if r.get("ok") else "FAIL " + r.get("error", "")[:100]
            log(f"  {name} r{round_no} {key}: {time.time() - t0:.1f}s {state}")
    finally:
        inst.stop()
        # The next server must not pay for this one's write-back.
        os.sync()
    return results


def shared_names(p):
    """The shared mailboxes of the LIST row, as darius_load's wl_acl.cc names them, with who
    may see each: bench1 every (shared/visible)-th, bench2 the rest."""
    every = p["shared"] // p["visible"]
    return [(f"bench-{i:06d}", [("bench1" if i % every == 0 else "bench2", "lr")]) for i in range(p["shared"])]


def default_list_workdir():
    """tmpfs when the machine has one (the shared-folder row's instances live there), else None
    (the run's own work directory)."""
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                parts = line.split()
                sep = parts.index("-")
                if parts[4] == "/dev/shm" and parts[sep + 1] == "tmpfs" and os.access("/dev/shm", os.W_OK):
                    return "/dev/shm"
    except (OSError, ValueError, IndexError):
        pass
    return None


_list_dirs = []  # the shared-folder row's work directories, removed on exit whatever happens


def run_list(name, p, load_exe, darius_build, workdir, round_no, list_workdir=None):
    """The shared-folder row: a fresh instance of its own with users bench1..bench4, where
    p["shared"] top-level shared mailboxes are made and bench1 may see p["visible"] of them
    (ACL entry "bench1 lr"; the others "bench2 lr"); then LIST "" "*" as bench1
    (darius_load imap_list, which checks every reply). Darius and Cyrus: the administrator
    CREATEs and SETACLs them over IMAP, pipelined on one connection (shared_setup). Dovecot:
    made on disk in its public namespace, as its admin would. The setup's time and rate
    are in the result's metrics (setup_s, setup_mailboxes_per_s), not ranked.

    The instance lives in list_workdir (tmpfs by default, bench/README.md): on this
    machine's disk every CREATE costs its server several fsyncs (Darius made 28 shared
    mailboxes a second, Cyrus 14), so 100,000 would take one to two hours per server and
    round; on tmpfs they take about a minute, and LIST, which reads a store that is in the
    page cache either way, measured the same (2,000 mailboxes: Darius 2.32 ms on disk, 2.39
    on tmpfs; Cyrus 47.9 and 43.9). Its directory is removed, and its log moved beside the
    round's others, as soon as the row is done."""
    nm = NAMING[name]
    env = {"BENCH_PUBLIC": "1"} if name == "dovecot" else {}
    lwd = tempfile.mkdtemp(prefix="darius-bench-list-", dir=list_workdir or workdir)
    os.chmod(lwd, 0o755)  # Cyrus and Dovecot children run as other users
    _list_dirs.append(lwd)
    inst = servers.ServerInstance(name, lwd, 4, darius_build, variant="list", env=env)
    t = p["timeout"]
    setup = {}
    try:
        inst.setup()
        if name == "dovecot":
            t0 = time.time()
            inst.provision_dovecot_public(shared_names(p))
            setup = {"setup_s": time.time() - t0, "setup_how": "on disk (public namespace, dovecot-acl files)"}
        inst.start(timeout=120)
    except (servers.ServerError, OSError) as e:
        log(f"  {name}: list_shared fails: {e}")
        end_list(inst, lwd, workdir)
        return {"ok": False, "error": f"{name}: {e}", "metrics": {}}
    try:
        common = ["--imap-port", inst.imap, "--server-pid", inst.pid, "--users", 4,
                  "--shared", p["shared"], "--visible", p["visible"], "--other-user", "bench2"]
        if name != "dovecot":
            t0 = time.time()
            r = load(load_exe, "shared_setup", common + ["--admin-user", nm["admin"],
                                                         "--create-prefix", nm["create_prefix"]], t)
            log(f"  {name} r{round_no} shared_setup: {time.time() - t0:.1f}s "
                f"{'ok' if r.get('ok') else 'FAIL ' + r.get('error', '')[:200]}")
            if not r.get("ok"):
                return {"ok": False, "error": "shared setup: " + r.get("error", ""), "metrics": {},
                        "setup": r}
            setup = {"setup_s": r["metrics"]["setup_s"], "setup_how": "IMAP CREATE+SETACL as admin, pipelined"}
        t0 = time.time()
        r = load(load_exe, "imap_list", common + ["--count", p["list_reps"], "--list-prefix", nm["list_prefix"]], t)
        r.setdefault("metrics", {})
        r["metrics"]["setup_s"] = setup.get("setup_s")
        if setup.get("setup_s"):
            r["metrics"]["setup_mailboxes_per_s"] = p["shared"] / setup["setup_s"]
        r["setup_how"] = setup.get("setup_how")
        r["list_workdir"] = list_workdir or workdir
        log(f"  {name} r{round_no} list_shared: {time.time() - t0:.1f}s "
            f"{'ok' if r.get('ok') else 'FAIL ' + r.get('error', '')[:200]}")
        return r
    finally:
        end_list(inst, lwd, workdir)


def end_list(inst, lwd, workdir):
    """Stops the shared-folder row's instance, keeps its log with the round's, removes it."""
    inst.stop()
    if os.path.exists(inst.log_path):
        shutil.move(inst.log_path, os.path.join(workdir, os.path.basename(inst.log_path)))
    remove_tree(lwd)
    _list_dirs.remove(lwd)
    os.sync()


def seed(inst, load_exe, corpus, p, first, count, per_user, tag):
    """per_user corpus messages into the INBOX of each of `count` users bench<first>...: one
    delivery to each on one connection first (it makes the INBOX; Cyrus's autocreate_post
    races concurrent first deliveries), then the rest by LMTP on 8 connections, every
    Message-ID made unique by a tag (duplicate suppression). Cyrus takes the rest as files and
    `reconstruct` (ServerInstance.provision_cyrus_messages: its delivery into one mailbox is
    far too slow for 100,000). Returns (seconds, how) or raises servers.ServerError."""
    t0 = time.time()
    common = ["--imap-port", inst.imap, "--lmtp-port", inst.lmtp, "--pop3-port", inst.pop3, "--corpus", corpus,
              "--first-user", first, "--users", first + count - 1, "--timeout", 600]
    r = load(load_exe, "lmtp", common + ["--count", count, "--conns", 1, "--offset", 0, "--tag", tag + "a"],
             p["timeout"])
    if not r.get("ok"):
        raise servers.ServerError("seeding, first delivery: " + r.get("error", ""))
    how = "LMTP, 1 connection"
    if per_user > 1 and inst.name == "cyrus":
        inst.provision_cyrus_messages([f"bench{first + i}" for i in range(count)], corpus, per_user - 1, 1)
        how = "LMTP (1 each) + files and reconstruct"
    elif per_user > 1:
        # Message k goes to bench<first + k % count>: (per_user - 1) * count gives each its rest.
        r = load(load_exe, "lmtp", common + ["--count", (per_user - 1) * count, "--conns", 8, "--offset", count,
                                             "--tag", tag + "b"], p["timeout"])
        if not r.get("ok"):
            raise servers.ServerError("seeding: " + r.get("error", ""))
        how = "LMTP, 8 connections"
    os.sync()  # what the seeding wrote is on disk before anything is timed
    return time.time() - t0, how


def run_expire(name, p, corpus, load_exe, darius_build, workdir, round_no, build_status, keys):
    """Issue 18's rows (docs/design/expunge.md) on a fresh instance of their own, with users
    bench1 (expire) and bench2.. (undelete, one per repetition); no ACLs or quotas.

    undelete: each of p["undelete_reps"] users gets p["undelete"] messages, which darius_load
    `undelete` expunges and restores into the INBOX (Darius over IMAP from .EXPUNGED/INBOX,
    Cyrus with its unexpunge tool, Dovecot not at all), timed, and then copies, live, into an
    empty folder (the reference).

    expire: bench1's INBOX gets p["expire"] + p["expire_keep"] messages; darius_load `expire`
    expunges the first p["expire"] with one STORE+EXPUNGE (phase one), then runs the server's
    expire command (phase two; none for Dovecot) while another session works on the INBOX, and
    reports how long that session waited. Checked here as well: the store holds exactly
    p["expire"] message files fewer afterwards, and Darius's expire says it removed them all.

    Undelete runs first: the expire unlinks up to 100,000 files, after which ext4 allocates
    inodes more slowly for a minute (end_round), which the undelete's seeding would pay. The
    instance's directory is removed when the rows are done (its log kept with the round's)."""
    if name == "darius" and build_status.get("dariusd") != "ok":
        why = "dariusd " + build_status.get("dariusd", "not built")
        return {k: {"ok": False, "error": why, "metrics": {}} for k in keys}
    results = {}
    reps = p["undelete_reps"]
    inst = servers.ServerInstance(name, workdir, 1 + reps, darius_build, variant="expire")
    try:
        try:
            inst.setup()
            inst.start(timeout=120)
        except servers.ServerError as e:
            log(f"  {name}: expire rows fail: {e}")
            return {k: {"ok": False, "error": f"{name}: {e}", "metrics": {}} for k in keys}
        common = ["--imap-port", inst.imap, "--lmtp-port", inst.lmtp, "--pop3-port", inst.pop3,
                  "--server-pid", inst.pid, "--timeout", 1800]
        tag = f"r{round_no}e"
        if "undelete" in keys:
            t0 = time.time()
            try:
                seed_s, how = seed(inst, load_exe, corpus, p, 2, reps, p["undelete"], tag + "u")
                cmd = inst.undelete_command()
                via = "imap" if name == "darius" else "exec" if cmd else "none"
                r = load(load_exe, "undelete", common + ["--first-user", 2, "--reps", reps, "--count", p["undelete"],
                                                         "--via", via] + (["--exec", cmd] if cmd else []),
                         p["timeout"])
                r["seed"] = {"seconds": seed_s, "how": how}
            except servers.ServerError as e:
                r = {"ok": False, "error": f"{name}: {e}", "metrics": {}}
            results["undelete"] = r
            log(f"  {name} r{round_no} undelete: {time.time() - t0:.1f}s "
                f"{'ok' if r.get('ok') else 'FAIL ' + r.get('error', '')[:200]}")
        if "expire" in keys and inst.alive():
            t0 = time.time()
            n = p["expire"]
            try:
                seed_s, how = seed(inst, load_exe, corpus, p, 1, 1, n + p["expire_keep"], tag + "x")
                log(f"  {name} r{round_no} expire: seeded {n + p['expire_keep']:,} messages in {seed_s:.1f}s ({how})")
                cmd = inst.expire_command("bench1")
                before = inst.message_files()
                r = load(load_exe, "expire", common + ["--mailbox-user", "bench1", "--count", n,
                                                       "--think-ms", p["expire_think_ms"]]
                         + (["--exec", cmd] if cmd else []), p["timeout"])
                after = inst.message_files()
                r["seed"] = {"seconds": seed_s, "how": how, "msgs_per_s": (n + p["expire_keep"]) / seed_s}
                r["message_files"] = {"before": before, "after": after}
                if r.get("ok"):
                    check_expire(name, r, n, before, after)
            except servers.ServerError as e:
                r = {"ok": False, "error": f"{name}: {e}", "metrics": {}}
            results["expire"] = r
            m = r.get("metrics", {})
            log(f"  {name} r{round_no} expire: {time.time() - t0:.1f}s "
                f"{'ok' if r.get('ok') else 'FAIL ' + r.get('error', '')[:200]} "
                f"(EXPUNGE {m.get('expunge_s', 0):.2f}s, expire {m.get('expire_s', 0):.2f}s, "
                f"longest wait {m.get('probe_max_ms', 0):.1f} ms)")
        for k in keys:
            results.setdefault(k, {"ok": False, "error": f"{name} is no longer running: {inst.log_tail(200)}",
                                   "metrics": {}})
        return results
    finally:
        inst.stop()
        inst.remove()
        os.sync()


def check_expire(name, r, n, before, after):
    """The expire row's checks beyond darius_load's: n message files fewer in the store after
    the EXPUNGE (Dovecot) or the expire (Darius, Cyrus), and the expire's own account."""
    def wrong(check, detail):
        r["checks"][check] = detail
        r["ok"] = False
        r["wrong_result"] = True
        r["error"] = r.get("error") or f"check {check} failed: {detail}"
    r.setdefault("checks", {})
    if before - after == n:
        r["checks"]["message_files"] = "ok"
    else:
        wrong("message_files", f"{before:,} message files before, {after:,} after: expected {n:,} fewer")
    out = r.get("notes", {}).get("expire_output", "")
    if name == "darius":
        try:
            owners = json.loads(out[out.index("{"):])["owners"]
            removed = sum(o["removed_messages"] for o in owners)
        except (ValueError, KeyError, TypeError):
            removed = None
        if removed == n:
            r["checks"]["expire_removed"] = "ok"
        else:
            wrong("expire_removed", f"darius expire removed {removed} of {n}: {out[-200:]}")
    elif name == "cyrus":
        if re.search(rf"expunged {n} out of", out):
            r["checks"]["expire_removed"] = "ok"
        else:
            wrong("expire_removed", f"cyr_expire did not say it expunged {n}: {out[-200:]}")


def parse_db_bench(out):
    rows = []
    lines = out.splitlines()
    head = None
    for l in lines:
        parts = l.split()
        if parts and parts[0] == "backend":
            head = parts
        elif head and len(parts) == len(head) and re.match(r"^[\d.]+$", parts[1]):
            for h, v in zip(head[1:], parts[1:]):
                rows.append((f"db {parts[0]} {h}", float(v)))
    return rows


def parse_mailbox_bench(out):
    rows = []
    for l in out.splitlines():
        m = re.match(r"^(\S.*?)\s{2,}([\d.]+)(/s| ms)?\s*(\(|$)", l)
        if m and not l.startswith("mailbox_bench") and not l.startswith("phase"):
            rows.append((f"mailbox {m.group(1).strip()}", float(m.group(2))))
    return rows


def darius_only(build_dir, p, workdir, status):
    """darius_db_bench and darius_mailbox_bench; returns {row label: value} or {label: error}."""
    out = {}
    for target, args, parser in (
            ("darius_db_bench", ["--keys", p["db_keys"], "--updates", p["db_updates"]], parse_db_bench),
            ("darius_mailbox_bench", ["--messages", p["mb_msgs"]], parse_mailbox_bench)):
        if status.get(target) != "ok":
            out[target] = status.get(target, "not built")
            continue
        d = tempfile.mkdtemp(prefix=target + "-", dir=workdir)
        try:
            r = subprocess.run([exe(build_dir, target)] + [str(a) for a in args] + ["--dir", d],
                               capture_output=True, text=True, timeout=p["timeout"])
            rows = parser(r.stdout)
            if r.returncode != 0 or not rows:
                why = f"killed by signal {-r.returncode}" if r.returncode < 0 else f"exit {r.returncode}"
                out[target] = f"{why}: {r.stderr.strip()[-150:]}" if r.stderr.strip() else why
            for k, v in rows:
                out[k] = v
        except subprocess.TimeoutExpired:
            out[target] = "timed out"
    return out


# ext4 without a journal does not reuse an inode for RECENTCY_MIN (60 s) after it was freed,
# 300 s while its inode-table block is still dirty (fs/ext4/ialloc.c, recently_deleted()).
INODE_RECENTCY_S = 60


def end_round(workdir, outdir, round_no, more_rounds):
    """Keeps the round's server logs, removes its instances, syncs, and if another round
    follows waits until the kernel no longer counts their inodes as recently deleted.

    Removing an instance right before the next server ran penalised that server: ext4 without
    a journal (this benchmark's usual machine) passes over recently freed inodes when it
    allocates one near them, each a lookup in the buffer cache under the directory's lock.
    Measured after removing 40,000 files beside the instances: Darius's LMTP with 8
    connections gave 1,495 msgs/s 5 s later, 1,998 at 40 s, 3,039 at 70 s and 3,200 from
    100 s on, with its CPU per message back from 0.97 to 0.35 ms. The sync makes the inode
    tables clean, so the window is the kernel's 60 s and not 300 s. Whoever ran after a
    removal lost; whoever ran first did not."""
    for entry in os.listdir(workdir):
        path = os.path.join(workdir, entry)
        if entry.endswith(".log") and os.path.isfile(path):
            shutil.move(path, os.path.join(outdir, f"{entry[:-4]}-r{round_no}.log"))
        else:
            remove_tree(path)
    os.sync()
    if more_rounds:
        log(f"waiting {INODE_RECENTCY_S + 10} s for the removed files to age")
        time.sleep(INODE_RECENTCY_S + 10)


def machine():
    info = {"cores": os.cpu_count(), "kernel": platform.release()}
    try:
        with open("/proc/meminfo") as f:
            info["ram_gib"] = round(int(f.readline().split()[1]) / 1024 / 1024, 1)
        with open("/proc/cpuinfo") as f:
            info["cpu"] = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "?")
        info["disk"] = subprocess.run(["df", "-hT", tempfile.gettempdir()], capture_output=True,
                                      text=True).stdout.splitlines()[-1]
    except OSError:
        pass
    return info


def render(runs, names, darius_rows, physical, params=None):
    """The table from raw results: runs {server: {workload: [result per round]}},
    darius_rows {label: [value or error per round]}."""
    drows = []
    for k, vals in darius_rows.items():
        nums = [v for v in vals if isinstance(v, (int, float))]
        if nums:
            med = report.median_or_none(nums)
            text = report.fmt(med) if len(nums) == 1 else \
                f"{report.fmt(med)} ({report.fmt(min(nums))}..{report.fmt(max(nums))})"
            unit = "ms" if "open" in k else ("" if "MiB" in k or "bytes" in k else "/s")
            drows.append((k, unit, text))
        else:
            drows.append((k, "", "fail: " + str(vals[0])[:70]))
    return report.build_table(runs, names, drows, physical, params)


ACLQ = "darius+aclq"  # --compare-acl-quota's label of Darius with ACLs and quotas on


def all_failures(runs, entries, expected, rounds, darius_rows, want_darius_only, physical):
    """report.check_failures over every label, plus the acl_quota setup of labels that had
    ACLs and quotas on (a failed setup is a failure even if no row ran)."""
    out = report.check_failures(runs, [label for label, _, _ in entries],
                                [k for k in expected if k in ROW_KEYS], rounds, darius_rows,
                                want_darius_only, physical)
    aq = [label for label, _, on in entries if on]
    if aq:
        out += report.check_failures(runs, aq, ["acl_quota"], rounds)
    return out


def chart_title(meta):
    return (f"Darius beside Dovecot and Cyrus: {meta['mode']} mode, {meta['params']['rounds']} round(s), "
            f"git {meta.get('git', '?')}")


def rerender(outdir, check=False, svg=None):
    """--report DIR: the table again from a results directory's raw JSON; with check, the
    exit status of --check for that run (non-zero when a row failed)."""
    with open(os.path.join(outdir, "meta.json")) as f:
        meta = json.load(f)
    names = meta["servers"]
    runs = {s: {} for s in names}
    darius_rows = {}
    for rnd in range(1, meta["params"]["rounds"] + 1):
        for s in names:
            path = os.path.join(outdir, f"{s}-r{rnd}.json")
            if os.path.exists(path):
                with open(path) as f:
                    for k, v in json.load(f).items():
                        runs[s].setdefault(k, []).append(v)
        path = os.path.join(outdir, f"darius-only-r{rnd}.json")
        if os.path.exists(path):
            with open(path) as f:
                for k, v in json.load(f).items():
                    darius_rows.setdefault(k, []).append(v)
    if meta.get("compare_acl_quota"):
        print(report.compare_table(runs, "darius", ACLQ, meta["physical"]))
    else:
        print(render(runs, names, darius_rows, meta["physical"], meta["params"]))
        if svg:
            with open(svg, "w") as f:
                f.write(report.svg_chart(runs, names, chart_title(meta)))
    if not check:
        return 0
    only = meta.get("only")
    if only is None and "--only" in meta.get("command", "").split():  # runs before meta had "only"
        words = meta["command"].split()
        only = words[words.index("--only") + 1].split(",")
    # Runs from before the shared-folder row (no "shared" parameter), issue 18's rows (no
    # "expire"), issue 19's (no "search_sizes") or issue 23's (no "delivery") did not have them.
    rows = [k for k in ROW_KEYS if (k != "list_shared" or "shared" in meta["params"])
            and (k not in DELIVERY_ROW_KEYS or "delivery" in meta["params"])
            and (k not in EXPIRE_ROW_KEYS or "expire" in meta["params"])
            and (k not in SEARCH_ROW_KEYS or ("search_sizes" in meta["params"]
                                              and k in search_keys(meta["params"], None)))]
    if meta.get("compare_acl_quota"):
        entries = [("darius", "darius", "warm"), (ACLQ, "darius", True)]
    else:
        entries = [(s, s, meta.get("acl_quota", False)) for s in names]
    failures = all_failures(runs, entries, only or rows, meta["params"]["rounds"], darius_rows,
                            meta.get("darius_only", "darius" in names and not only), meta["physical"])
    return report_failures(failures)


def main():
    ap = argparse.ArgumentParser(description="Darius beside Dovecot and Cyrus")
    ap.add_argument("--quick", action="store_true", help="about a minute per server")
    ap.add_argument("--servers", default="darius,dovecot,cyrus")
    ap.add_argument("--rounds", type=int, help="override the rounds of the mode")
    ap.add_argument("--only", help="run only these rows of each server (keys as in run_server's "
                    "plan, e.g. lmtp_first,lmtp1,lmtp8,lmtp_multi), and no Darius-only rows")
    ap.add_argument("--check", action="store_true",
                    help="exit non-zero also if any row of a server asked for failed or measured nothing")
    ap.add_argument("--install-anchors", action="store_true", help="run bench/anchors/install.sh first")
    ap.add_argument("--darius-build", default=os.path.join(ROOT, "build", "bench"),
                    help="Darius binaries from this build dir; other than build/bench: used as they are")
    ap.add_argument("--results", default=os.path.join(HERE, "results"))
    ap.add_argument("--workdir", default="/var/tmp", help="filesystem the instances live on")
    ap.add_argument("--report", metavar="DIR", help="print the table of an earlier run and exit")
    ap.add_argument("--svg", metavar="FILE", help="with --report: also write the run's chart to FILE")
    ap.add_argument("--acl-quota", action="store_true",
                    help="every user's INBOX gets three ACL entries and a quota root before the rows")
    ap.add_argument("--compare-acl-quota", action="store_true",
                    help="Darius alone: every round runs the rows without and with --acl-quota "
                    "(order alternating), and prints the ratio per row")
    ap.add_argument("--list-workdir", default=default_list_workdir(),
                    help="filesystem of the shared-folder row's instances (default: /dev/shm when it is "
                    "tmpfs, else --workdir)")
    ap.add_argument("--list-size", metavar="SHARED:VISIBLE",
                    help="the shared-folder LIST row's sizes (quick 2000:200, full 100000:1000)")
    ap.add_argument("--expire-size", type=int, metavar="N",
                    help="the expire row's expunged messages (quick 2,000, full 100,000)")
    a = ap.parse_args()
    if a.report:
        return rerender(a.report, a.check, a.svg)
    mode = "quick" if a.quick else "full"
    p = dict(PARAMS[mode])
    if a.rounds:
        p["rounds"] = a.rounds
    if a.list_size:
        try:
            p["shared"], p["visible"] = (int(x) for x in a.list_size.split(":"))
        except ValueError:
            ap.error("--list-size takes SHARED:VISIBLE, e.g. 10000:100")
        if p["visible"] <= 0 or p["shared"] % p["visible"]:
            ap.error("--list-size: SHARED must be a positive multiple of VISIBLE")
    if a.expire_size is not None:
        if a.expire_size <= 0:
            ap.error("--expire-size must be positive")
        p["expire"] = a.expire_size
    names = [s.strip() for s in a.servers.split(",") if s.strip()]
    only = None if a.only is None else {k.strip() for k in a.only.split(",") if k.strip()}
    if only is not None:
        only = {x for k in only for x in ONLY_GROUPS.get(k, [k])}
    if a.compare_acl_quota:
        if names != ["darius"]:
            ap.error("--compare-acl-quota runs Darius alone: add --servers darius")
        if only is not None and not only <= set(MAIN_ROW_KEYS):
            ap.error("--compare-acl-quota compares the main rows; list_shared, undelete and expire have "
                     "no ACL-off variant")
        only = set(MAIN_ROW_KEYS) if only is None else only
    if only is not None and (not only or not only <= set(ROW_KEYS)):
        ap.error(f"--only takes some of: {','.join(ROW_KEYS)} (or search: every search row; delivery: "
                 "the delivery rows on the servers' defaults)")
    if not names:
        ap.error("--servers names no server")
    for s in names:
        if s not in servers.SERVERS:
            ap.error(f"unknown server {s}")

    def on_signal(sig, _frame):
        servers.stop_all()
        sys.exit(128 + sig)
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)

    started = time.time()
    failures = []  # report.check_failures of the finished run; --check fails on any
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S") + f"-{mode}" + (
        "-aclq" if a.acl_quota else "-aclq-compare" if a.compare_acl_quota else "")
    outdir = os.path.join(a.results, stamp)
    os.makedirs(outdir, exist_ok=True)
    workdir = tempfile.mkdtemp(prefix="darius-bench-", dir=a.workdir)
    os.chmod(workdir, 0o755)  # Cyrus and Dovecot children run as other users
    try:
        if a.install_anchors and any(s != "darius" for s in names):
            log("installing anchors")
            subprocess.run(["bash", os.path.join(HERE, "anchors", "install.sh")], check=False)
        load_build = os.path.join(ROOT, "build", "bench")
        own = os.path.realpath(a.darius_build) == os.path.realpath(load_build)
        status = build(load_build, darius_targets=own and "darius" in names)
        if not own:
            for t in DARIUS_TARGETS:
                status[t] = "ok" if os.path.exists(exe(a.darius_build, t)) else f"not in {a.darius_build}"
        load_exe = exe(load_build, "darius_load")
        if status.get("darius_load", "ok") != "ok" or not os.path.exists(load_exe):
            harness_errors.append("darius_load did not build: " + status.get("darius_load", "missing"))
            raise SystemExit(report_end(a, outdir, started))
        if subprocess.run([load_exe, "selftest"]).returncode != 0:
            harness_errors.append("darius_load selftest failed")
        corpus = os.path.join(a.results, f"corpus-{p['corpus']}")
        log(f"corpus: {p['corpus']} messages in {corpus}")
        r = subprocess.run([sys.executable, os.path.join(HERE, "corpus", "gen_corpus.py"), "--out", corpus,
                            "--messages", str(p["corpus"]), "--check"], capture_output=True, text=True)
        if r.returncode != 0:
            harness_errors.append("corpus generation/check failed: " + r.stderr[-300:])
            raise SystemExit(report_end(a, outdir, started))
        physical = load(load_exe, "physical", ["--dir", workdir], 120).get("metrics", {})
        log(f"physical: {physical}")

        # (label, server, ACLs and quotas on): a label per column of the table.
        entries = [(s, s, a.acl_quota) for s in names]
        if a.compare_acl_quota:
            entries = [("darius", "darius", "warm"), (ACLQ, "darius", True)]
        runs = {label: {} for label, _, _ in entries}
        darius_rows = {}
        corpora = None  # the search rows' corpora, made when the first round needs them
        hermes = None   # the delivery rows' corpus: the Hermes size mix, made from the run's corpus
        if any(k in DELIVERY_ROW_KEYS for k in (only or DELIVERY_ROW_KEYS)) and not a.compare_acl_quota:
            try:
                hermes = delivery_rows.hermes_corpus(corpus, p["delivery"], a.results)
                sh = hermes[1]
                log(f"delivery rows: {sh['messages']} messages of the Hermes mix in {hermes[0]}: "
                    f"{sh['under_4k_pct']:.1f}% under 4 KiB, {sh['under_32k_pct']:.1f}% under 32 KiB, "
                    f"mean {sh['mean_bytes']:,.0f} bytes")
            except (OSError, ValueError) as e:
                harness_errors.append(f"Hermes corpus: {e}")
        for rnd in range(1, p["rounds"] + 1):
            order = entries[(rnd - 1) % len(entries):] + entries[:(rnd - 1) % len(entries)]
            for label, s, aq in order:
                log(f"round {rnd}: {label}" + (" (ACLs and quotas on)" if aq is True else ""))
                res = run_server(s, p, corpus, load_exe, a.darius_build, workdir, rnd, status, only, acl_quota=aq,
                                 variant="aclq" if aq is True and a.compare_acl_quota else None,
                                 list_workdir=a.list_workdir, hermes=hermes)
                with open(os.path.join(outdir, f"{label}-r{rnd}.json"), "w") as f:
                    json.dump(res, f, indent=1)
                for k, v in res.items():
                    runs[label].setdefault(k, []).append(v)
            expire_keys = [k for k in EXPIRE_ROW_KEYS if only is None or k in only]
            if expire_keys and not a.compare_acl_quota:
                for label, s, aq in order:
                    log(f"round {rnd}: {label}: {' and '.join(expire_keys)} (an instance of their own)")
                    res = run_expire(s, p, corpus, load_exe, a.darius_build, workdir, rnd, status, expire_keys)
                    path = os.path.join(outdir, f"{label}-r{rnd}.json")
                    with open(path) as f:
                        saved = json.load(f)
                    saved.update(res)
                    with open(path, "w") as f:
                        json.dump(saved, f, indent=1)
                    for k, v in res.items():
                        runs[label].setdefault(k, []).append(v)
            skeys = search_keys(p, only)
            if skeys and not a.compare_acl_quota:
                corpora = corpora or search_corpora(p, a.results, corpus)
                for label, s, aq in order:
                    log(f"round {rnd}: {label}: search rows (instances of their own)")
                    if corpora is None:
                        res = {k: {"ok": False, "error": "no search corpus", "metrics": {}} for k in skeys}
                    elif s == "darius" and status.get("dariusd") != "ok":
                        res = {k: {"ok": False, "error": "dariusd " + status.get("dariusd", "not built"),
                                   "metrics": {}} for k in skeys}
                    else:
                        res = search_rows.run_search(s, p, corpora, load_exe, a.darius_build, workdir, rnd, skeys,
                                                     load, log)
                    path = os.path.join(outdir, f"{label}-r{rnd}.json")
                    saved = {}
                    if os.path.exists(path):
                        with open(path) as f:
                            saved = json.load(f)
                    saved.update(res)
                    with open(path, "w") as f:
                        json.dump(saved, f, indent=1)
                    for k, v in res.items():
                        runs[label].setdefault(k, []).append(v)
            if "darius" in names and only is None:
                log(f"round {rnd}: darius db and mailbox benches")
                dres = darius_only(a.darius_build, p, workdir, status)
                with open(os.path.join(outdir, f"darius-only-r{rnd}.json"), "w") as f:
                    json.dump(dres, f, indent=1)
                for k, v in dres.items():
                    darius_rows.setdefault(k, []).append(v)
            end_round(workdir, outdir, rnd, rnd < p["rounds"])

        labels = [label for label, _, _ in entries]
        want_darius_only = "darius" in names and only is None
        expected = [k for k in ROW_KEYS if (only is None or k in only)
                    and (k not in SEARCH_ROW_KEYS or (k in search_keys(p, only) and not a.compare_acl_quota))]
        if a.compare_acl_quota:
            table = report.compare_table(runs, "darius", ACLQ, physical)
        else:
            table = render(runs, labels, darius_rows, physical, p)
        failures[:] = all_failures(runs, entries, expected, p["rounds"], darius_rows, want_darius_only, physical)
        meta = {"mode": mode, "params": p, "servers": labels, "machine": machine(), "physical": physical,
                "list_workdir": a.list_workdir or a.workdir,
                "acl_quota": a.acl_quota, "compare_acl_quota": a.compare_acl_quota,
                "only": None if only is None else [k for k in ROW_KEYS if k in only and
                                                   (k not in SEARCH_ROW_KEYS or k in search_keys(p, only))],
                "darius_only": want_darius_only, "check_failures": failures,
                "build": status, "command": " ".join(sys.argv),
                "git": subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                                      text=True).stdout.strip(),
                "seconds": round(time.time() - started)}
        with open(os.path.join(outdir, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1)
        with open(os.path.join(outdir, "table.txt"), "w") as f:
            f.write(table + "\n")
        if not a.compare_acl_quota and "darius" in labels and len(labels) > 1:
            with open(os.path.join(outdir, "chart.svg"), "w") as f:
                f.write(report.svg_chart(runs, labels, chart_title(meta)))
        what = " with ACLs and quotas on" if a.acl_quota else (
            ", ACLs and quotas off and on" if a.compare_acl_quota else "")
        print(f"\nDarius benchmark{what}, {mode} mode, {p['rounds']} round(s), "
              f"{meta['machine'].get('cores')} cores, {meta['machine'].get('ram_gib')} GiB RAM; "
              f"git {meta['git']}; raw JSON in {outdir}\n")
        print(table)
    except SystemExit as e:
        servers.stop_all()
        remove_tree(workdir)
        for d in list(_list_dirs):
            remove_tree(d)
        return e.code
    except Exception as e:  # a bug in the runner is a harness failure, not a server's
        harness_errors.append(f"runner: {type(e).__name__}: {e}")
        import traceback
        traceback.print_exc()
    finally:
        servers.stop_all()
        remove_tree(workdir)
        for d in list(_list_dirs):
            remove_tree(d)
    return report_end(a, outdir, started, failures)


def remove_tree(path):
    """rm -rf, twice: a server's last children may still write while the first pass runs."""
    for _ in range(2):
        subprocess.run(["rm", "-rf", path])
        if not os.path.exists(path):
            return
        time.sleep(1)


def report_failures(failures, check=True):
    """Prints the rows that failed (report.check_failures); returns --check's exit status."""
    if not failures:
        return 0
    head = "CHECK FAILED: rows of servers asked for failed" if check else "rows that failed (--check would fail)"
    print(f"\n{head} ({len(failures)}):", file=sys.stderr)
    for f in failures[:50]:
        print("  " + f, file=sys.stderr)
    if len(failures) > 50:
        print(f"  ... and {len(failures) - 50} more", file=sys.stderr)
    return 1 if check else 0


def report_end(a, outdir, started, failures=()):
    took = time.time() - started
    rc = 0
    if harness_errors:
        print("\nHARNESS ERRORS (the benchmark itself is broken):", file=sys.stderr)
        for e in harness_errors:
            print("  " + e, file=sys.stderr)
        rc = 1
    rc = max(rc, report_failures(list(failures), a.check))
    if rc == 0:
        state = "every row ok" if not failures else f"{len(failures)} row failure(s), not checked"
        print(f"\nharness ok, {state}; took {took:.0f} s", file=sys.stderr)
    return rc


if __name__ == "__main__":
    sys.exit(main())
