"""bench/search_rows.py: issue 19's rows — the search index, SEARCH, SORT and THREAD — for one
server in one round (bench/README.md, "The search rows"). Called by runner.py.

For each mailbox size (quick: 2,000; full: 10,000 and 100,000), on a fresh instance of its own:

1. fill bench1's INBOX with corpus[0..N) with the server's index build at delivery off:
   Darius `search_index: off`, Dovecot fts-xapian with `fts_autoindex = no`, Cyrus
   `search_engine: squat` (squat never indexes at delivery). Darius and Dovecot by LMTP on 8
   connections (darius_load populate: the corpus is mapped, never held); Cyrus, whose
   delivery into one mailbox is 25-350 msg/s here (trap 14), as files and `reconstruct`
   (servers.ServerInstance.provision_cyrus_messages) after a login made the INBOX; Dovecot's
   100,000 likewise as Maildir files (provision_dovecot_messages: ~200 msg/s by LMTP);
2. build the index from that standing start, timed: `darius search index --all` (dariusd
   stopped, `search_index: on` written, started again after), `squatter`, `doveadm fts
   rescan` + `doveadm index`; the index's size from its files (index_bytes);
3. darius_load imap_sort_search: SEARCH TEXT/BODY of the rare body word (vorpelgrist, ~1%
   of bodies), SEARCH TEXT of the rare Subject word (mervotrund, ~1%), SORT (DATE), SORT
   (SUBJECT), THREAD REFERENCES, each once ("first") and then `reps` times, every answer
   checked (bench/load/wl_search.cc).

Then, at the first size only, LMTP with 8 connections into 8 users with the index build at
delivery on and off, each on a fresh instance (search_lmtp): Darius `search_index: on/off`,
Dovecot `fts_autoindex = yes` / no fts plugin, Cyrus squat / no search engine.

A Darius without `darius search index` (the index is being written on another branch) gets
"n/a (no darius search command)" in the index rows, and one without the `search_index`
option in the LMTP on/off row; SEARCH, SORT and THREAD run all the same (Darius answers
SEARCH by scanning). A server without SORT or THREAD=REFERENCES gets n/a in those rows.
Single-threaded; every instance is stopped and removed before the function returns.
"""
import os
import re
import subprocess
import time

import servers

BODY_WORD = "vorpelgrist"   # gen_corpus.py PLANTED_LATE: ~1% of bodies
HEADER_WORD = "mervotrund"  # gen_corpus.py PLANTED: ~1% of Subject headers
# Dovecot delivers into one mailbox at ~200 msg/s here: from this size on its mailbox is
# written as Maildir files (servers.ServerInstance.provision_dovecot_messages).
FILES_FROM = 50000
USERS = 9                   # bench1: the big mailbox; bench2..bench9: search_lmtp's recipients

# (key of the first size, key of the second) per kind of result.
SIZE_KEYS = [("search", "search_index"), ("search_big", "search_index_big")]
SEARCH_ROW_KEYS = ["search", "search_index", "search_lmtp", "search_big", "search_index_big"]


def na(reason, metrics):
    """An ok result whose numbers this server cannot have: the table says n/a."""
    return {"ok": True, "metrics": {}, "not_applicable": {m: reason for m in metrics}}


INDEX_METRICS = ["index_msgs_per_s", "index_s", "index_mib", "index_share_pct"]
LMTP_METRICS = ["on_msgs_per_s", "off_msgs_per_s", "on_cpu_ms_per_msg", "off_cpu_ms_per_msg", "on_cost_pct"]


def env_for(name, index_at_delivery, support):
    """The anchor script's environment for an instance with indexing at delivery on or off."""
    if name == "dovecot":
        return {"BENCH_FTS": "1", "BENCH_FTS_AUTOINDEX": "yes" if index_at_delivery else "no"}
    if name == "cyrus":
        return {"BENCH_SQUAT": "1"}
    return {"BENCH_SEARCH_INDEX": "on" if index_at_delivery else "off"} if support[1] else {}


def run_search(name, p, corpora, load_exe, darius_build, workdir, round_no, keys, load, log):
    """Issue 19's rows of `name` (keys: some of SEARCH_ROW_KEYS); corpora: one corpus
    directory per size of p["search_sizes"]. Returns {key: result}."""
    support = servers.darius_search_support(darius_build) if name == "darius" else (True, True)
    results = {}
    rate = None  # index build msg/s at the first size
    for i, n in enumerate(p["search_sizes"][:len(SIZE_KEYS)]):
        kq, ki = SIZE_KEYS[i]
        if kq not in keys and ki not in keys:
            continue
        # fts-xapian built Dovecot's index at 8-25 msg/s here: 100,000 would take one to three
        # hours. A size whose build the first size's rate puts beyond the budget runs without
        # the index (SEARCH then scans), and its index row says why.
        skip = None
        if i > 0 and rate and n / rate > p["search_index_budget_s"]:
            skip = (f"index build skipped: {rate:.0f} msg/s at {p['search_sizes'][0]:,} messages would take "
                    f"{n / rate / 60:.1f} min, over the budget of {p['search_index_budget_s'] / 60:g} min")
        res = run_size(name, p, n, p["search_reps"][i], corpora[i], load_exe, darius_build, workdir, round_no,
                       support, load, log, kq, ki, skip)
        if i == 0:
            rate = res.get(ki, {}).get("metrics", {}).get("index_msgs_per_s")
        results.update({k: v for k, v in res.items() if k in keys})
    if "search_lmtp" in keys:
        results["search_lmtp"] = run_lmtp_on_off(name, p, corpora[0], load_exe, darius_build, workdir, round_no,
                                                 support, load, log)
    return results


def start(name, workdir, darius_build, variant, env):
    inst = servers.ServerInstance(name, workdir, USERS, darius_build, variant=variant, env=env)
    inst.setup()
    inst.start(timeout=120)
    return inst


def run_size(name, p, n, reps, corpus, load_exe, darius_build, workdir, round_no, support, load, log, kq, ki,
             skip=None):
    t = p["timeout"]
    inst = None
    try:
        try:
            env = {} if skip else env_for(name, False, support)
            inst = start(name, workdir, darius_build, f"search{n}", env)
            t0 = time.time()
            fill(inst, n, corpus, load_exe, load, t)
            fill_s = time.time() - t0
            log(f"  {name} r{round_no} search: {n:,} messages in {fill_s:.1f}s")
        except servers.ServerError as e:
            log(f"  {name}: search rows ({n:,}) fail: {e}")
            return {kq: {"ok": False, "error": f"{name}: {e}", "metrics": {}},
                    ki: {"ok": False, "error": f"{name}: {e}", "metrics": {}}}
        ri = na(skip, INDEX_METRICS) if skip else build_index(inst, name, n, corpus, support, log, round_no)
        if skip:
            log(f"  {name} r{round_no} {ki}: {skip}; SEARCH without the index")
        ri["fill"] = {"seconds": fill_s, "msgs_per_s": n / fill_s if fill_s else None}
        if not inst.alive():
            return {ki: ri, kq: {"ok": False, "error": f"{name} is not running: {inst.log_tail(200)}",
                                 "metrics": {}}}
        t0 = time.time()
        rq = load(load_exe, "imap_sort_search",
                  ["--imap-port", inst.imap, "--corpus", corpus, "--server-pid", inst.pid, "--mailbox-msgs", n,
                   "--count", reps, "--body-word", BODY_WORD, "--header-word", HEADER_WORD,
                   "--timeout", 1800], t)
        log(f"  {name} r{round_no} {kq}: {time.time() - t0:.1f}s "
            f"{'ok' if rq.get('ok') else 'FAIL ' + rq.get('error', '')[:200]}")
        return {kq: rq, ki: ri}
    finally:
        if inst:
            inst.stop()
            inst.remove()
        os.sync()


def fill(inst, n, corpus, load_exe, load, timeout):
    """corpus[0..n) into bench1's INBOX; raises servers.ServerError."""
    common = ["--imap-port", inst.imap, "--lmtp-port", inst.lmtp, "--corpus", corpus, "--users", USERS,
              "--mailbox-user", "bench1", "--mailbox-msgs", n, "--timeout", 600]
    if inst.name == "cyrus":
        # A login makes the INBOX (autocreate); the messages go in as files + reconstruct.
        r = load(load_exe, "imap_login", common + ["--count", 1, "--users", 1], timeout)
        if not r.get("ok"):
            raise servers.ServerError("login to make the INBOX: " + r.get("error", ""))
        inst.provision_cyrus_messages(["bench1"], corpus, n, 0)
    elif inst.name == "dovecot" and n >= FILES_FROM:
        inst.provision_dovecot_messages("bench1", corpus, n)
    else:
        r = load(load_exe, "populate", common + ["--conns", 8], timeout)
        if not r.get("ok"):
            raise servers.ServerError("filling the mailbox: " + r.get("error", ""))
    os.sync()


def build_index(inst, name, n, corpus, support, log, round_no):
    """The index build from a standing start: its result (metrics INDEX_METRICS)."""
    if name == "darius" and not support[0]:
        return na("no darius search command", INDEX_METRICS)
    mail_bytes = corpus_bytes(corpus, n)
    prep, timed = inst.index_commands("bench1")
    try:
        if name == "darius":
            # dariusd indexed nothing at delivery (search_index: off); the build runs with the
            # server stopped and the option on, and dariusd comes back with it on.
            inst.stop()
            inst.set_conf("search_index", "on")
        for cmd in prep:
            r = subprocess.run(["/bin/sh", "-c", cmd], capture_output=True, text=True, timeout=600)
            if r.returncode != 0:
                return {"ok": False, "error": f"{cmd.split()[0]}: {(r.stderr or r.stdout).strip()[-200:]}",
                        "metrics": {}}
        os.sync()
        t0 = time.time()
        r = subprocess.run(["/bin/sh", "-c", timed], capture_output=True, text=True, timeout=3600)
        s = time.time() - t0
        os.sync()
        out = (r.stdout + r.stderr).strip()
        if r.returncode != 0:
            return {"ok": False, "error": f"index build exited {r.returncode}: {out[-200:]}", "metrics": {}}
        size = inst.search_index_bytes()
        res = {"ok": True, "metrics": {"index_msgs_per_s": n / s, "index_s": s, "index_mib": size / 2**20,
                                       "index_share_pct": 100.0 * size / mail_bytes,
                                       "mail_mib": mail_bytes / 2**20},
               "notes": {"output": out[-500:]}, "checks": {}}
        if size == 0:
            res.update(ok=False, wrong_result=True, error="the index build left no index files")
            res["checks"]["index_files"] = "none found"
        if name == "darius":
            m = re.search(r"indexed (\d+) messages", out)
            if not m or int(m.group(1)) != n:
                res.update(ok=False, wrong_result=True, error=f"darius search index: expected 'indexed {n} "
                           f"messages', got: {out[-200:]}")
                res["checks"]["indexed"] = "expected " + str(n)
        log(f"  {name} r{round_no} index build: {n:,} messages in {s:.1f}s, index {size / 2**20:.1f} MiB")
        return res
    except subprocess.TimeoutExpired as e:
        return {"ok": False, "error": f"index build timed out: {e}", "metrics": {}}
    except servers.ServerError as e:
        return {"ok": False, "error": f"{name}: {e}", "metrics": {}}
    finally:
        if name == "darius" and not inst.alive():
            inst.imap = inst.pop3 = inst.lmtp = None  # ephemeral ports: new ones, from run/listeners
            try:
                inst.start(timeout=120)
            except servers.ServerError as e:
                log(f"  darius: restart after the index build failed: {e}")


def corpus_bytes(corpus, n):
    with open(os.path.join(corpus, "index.tsv")) as f:
        return sum(int(line.split()[1]) for _, line in zip(range(n), f))


def run_lmtp_on_off(name, p, corpus, load_exe, darius_build, workdir, round_no, support, load, log):
    """LMTP, 8 connections, p["search_lmtp"] messages over bench2..bench9, with the index
    build at delivery off and then on, each on a fresh instance (the first delivery to each
    user, untimed, makes the INBOXes)."""
    if name == "darius" and not support[1]:
        return na("no search_index option in this darius", LMTP_METRICS)
    res = {"ok": True, "metrics": {}, "runs": {}}
    for mode in ("off", "on"):
        if name == "dovecot" and mode == "off":
            env = {}  # no fts plugin at all
        elif name == "cyrus" and mode == "off":
            env = {}  # no search_engine
        else:
            env = env_for(name, mode == "on", support)
        inst = None
        try:
            inst = start(name, workdir, darius_build, f"lmtp-{mode}", env)
            common = ["--lmtp-port", inst.lmtp, "--imap-port", inst.imap, "--corpus", corpus, "--users", USERS,
                      "--first-user", 2, "--server-pid", inst.pid]
            r = load(load_exe, "lmtp", common + ["--count", USERS - 1, "--conns", 1, "--offset", 0,
                                                 "--tag", f"r{round_no}{mode}f"], p["timeout"])
            if r.get("ok"):
                os.sync()
                r = load(load_exe, "lmtp", common + ["--count", p["search_lmtp"], "--conns", 8, "--offset", 100,
                                                     "--tag", f"r{round_no}{mode}"], p["timeout"])
            res["runs"][mode] = r
            if not r.get("ok"):
                return {"ok": False, "error": f"indexing {mode}: " + r.get("error", ""), "metrics": {}, "runs": res["runs"]}
            m = r["metrics"]
            res["metrics"][f"{mode}_msgs_per_s"] = m["msgs_per_s"]
            if r.get("server_cpu_s", -1) >= 0:
                res["metrics"][f"{mode}_cpu_ms_per_msg"] = 1000 * r["server_cpu_s"] / m["messages"]
            log(f"  {name} r{round_no} search_lmtp {mode}: {m['msgs_per_s']:.0f} msg/s")
        except servers.ServerError as e:
            return {"ok": False, "error": f"{name} (indexing {mode}): {e}", "metrics": {}}
        finally:
            if inst:
                inst.stop()
                inst.remove()
            os.sync()
    on, off = res["metrics"]["on_msgs_per_s"], res["metrics"]["off_msgs_per_s"]
    res["metrics"]["on_cost_pct"] = (off / on - 1) * 100 if on else None
    return res
