"""bench/delivery_rows.py: issue 23's rows — delivery as a new user gets it: every server on
its defaults, the Hermes size mix (bench/README.md, "The delivery rows"). Called by runner.py.

Per server and round, on a fresh instance of its own (`<server>-delivery`, users bench1..bench33,
so that bench2..bench33 are the 32 INBOXes of the mixed row):

- Darius WITHOUT a `sync_method` line (`DARIUS_SYNC_METHOD=default` tells darius.sh to write
  none), so dariusd picks what `auto` picks for a spool on the machine's shared filesystem;
  Dovecot and Cyrus as their anchor scripts set them up (their fsync defaults);
- one delivery to each user first (it makes the INBOX; untimed);
- lmtp1_default, lmtp8_default: p["delivery"] messages (quick 300, full 3,000) of the Hermes
  sequence (hermes_corpus) on 1 and 8 connections: msg/s; server CPU per message, user and
  system apart (the whole process tree, bench/load/procmem.h);
- mixed_default: the mixed workload (8 LMTP deliverers, 32 IMAP clients) into those 32 INBOXes;
- last, for each LMTP row, a separate pass of p["sync_pass"] (300) deliveries on the same
  number of connections with `strace -f -c` attached to every process of the server: sync
  system calls per delivery. Last, so that no timed pass ever follows a traced one, and the
  timed passes are never traced.

The instance's files stay until the round ends (runner.end_round), like the main rows': a
removal right before another server's timed delivery makes that server slower (end_round).
Single-threaded; the instance is stopped before run_delivery returns.
"""
import hashlib
import math
import os
import random
import re
import shutil
import signal
import subprocess
import tempfile
import time

import servers

DELIVERY_ROW_KEYS = ["lmtp1_default", "lmtp8_default", "mixed_default"]
USERS = 33  # bench2..bench33: 32 INBOXes, one per IMAP client of the mixed row
LMTP_ROWS = [("lmtp1_default", 1), ("lmtp8_default", 8)]
# The sync calls counted per delivery. io_uring_enter is traced apart: a sync submitted through
# io_uring (IORING_OP_FSYNC) is no system call of its own and strace cannot see it.
SYNC_CALLS = ("fsync", "fdatasync", "syncfs", "sync_file_range", "msync")
URING = "io_uring_enter"

# The Hermes mix (Cambridge's mail system, issue 23): 76% of messages under 4 KiB, 95% under
# 32 KiB, the rest log-uniform from 32 KiB to 1 MiB; the mean comes out near 18 KB.
UNDER_4K, UNDER_32K = 0.76, 0.95
TAIL_LO, TAIL_HI = 32 * 1024, 1024 * 1024
BLOCK = 100  # every block of 100 deliveries has the mix exactly (76 / 19 / 5)


def shape(sizes):
    """The size mix of a list of message sizes, as the README and the table state it."""
    n = len(sizes) or 1
    return {"messages": len(sizes), "under_4k_pct": 100.0 * sum(s < 4096 for s in sizes) / n,
            "under_32k_pct": 100.0 * sum(s < 32768 for s in sizes) / n, "mean_bytes": sum(sizes) / n}


def hermes_sequence(index, n):
    """n source-corpus indexes whose sizes have the Hermes mix, block by block. index: [(offset,
    size)] of the source corpus. Messages under 4 KiB and from 4 to 32 KiB are taken in corpus
    order (cycling), so their variety (multipart, charsets, replies) is the corpus's; the tail
    is log-uniform by construction: one target size per tail slot at evenly spaced quantiles of
    the log-uniform law, each taken by the corpus message nearest in log-size, so the mean does
    not follow the few tail messages a small corpus happens to have. Targets are dealt to blocks
    round-robin (each block spans the whole tail) and positions are shuffled within a block with
    a fixed seed. Deterministic."""
    small = [i for i, (_, s) in enumerate(index) if s < 4096]
    mid = [i for i, (_, s) in enumerate(index) if 4096 <= s < 32768]
    big = sorted((i for i, (_, s) in enumerate(index) if s >= 32768), key=lambda i: index[i][1])
    if not small or not mid or not big:
        raise ValueError("the corpus lacks messages of some size class")
    blocks = []
    for b in range(math.ceil(n / BLOCK)):
        m = min(BLOCK, n - b * BLOCK)
        a, c = round(UNDER_4K * m), round((1 - UNDER_32K) * m)
        blocks.append([a, m - a - c, c])
    tails = sum(c for _, _, c in blocks)
    lo, hi = math.log(TAIL_LO), math.log(TAIL_HI)
    targets = [math.exp(lo + (j + 0.5) / tails * (hi - lo)) for j in range(tails)]
    logs = [math.log(index[i][1]) for i in big]
    dealt = [[] for _ in blocks]
    j = 0
    while j < tails:  # round-robin over the blocks that still have room
        for k, blk in enumerate(blocks):
            if j < tails and len(dealt[k]) < blk[2]:
                t = math.log(targets[j])
                dealt[k].append(big[min(range(len(big)), key=lambda x: abs(logs[x] - t))])
                j += 1
    rng = random.Random(23)
    seq, si, mi = [], 0, 0
    for k, (a, bm, _) in enumerate(blocks):
        part = [small[(si + x) % len(small)] for x in range(a)] + [mid[(mi + x) % len(mid)] for x in range(bm)]
        si, mi = si + a, mi + bm
        part += dealt[k]
        rng.shuffle(part)
        seq += part
    return seq


def hermes_corpus(src, n, out_root):
    """A corpus directory of n messages with the Hermes mix, made from the corpus in `src`
    (hermes_sequence; a message may appear more than once: the load client makes every
    Message-ID unique) in the format bench/load/corpus.h reads, its manifest remapped, so that
    gen_corpus.py's check passes on it. Cached in out_root/hermes-<n>-<source name> and made
    again when the source's index changes. Returns (directory, shape)."""
    with open(os.path.join(src, "index.tsv"), "rb") as f:
        raw = f.read()
    stamp = f"source {os.path.basename(src)} {hashlib.sha256(raw).hexdigest()[:16]}\n"
    index = [tuple(map(int, line.split())) for line in raw.decode().splitlines() if line.strip()]
    out = os.path.join(out_root, f"hermes-{n}-{os.path.basename(os.path.normpath(src))}")
    prov = os.path.join(out, "hermes.txt")
    seq = hermes_sequence(index, n)
    got = shape([index[i][1] for i in seq])
    if os.path.exists(prov) and open(prov).read().startswith(stamp):
        return out, got
    words, meta_lines = {}, []
    with open(os.path.join(src, "manifest.txt")) as f:
        for line in f:
            parts = line.split()
            if parts and parts[0] == "word":
                words[(parts[1], parts[2])] = set() if parts[3] == "-" else {int(x) for x in parts[3].split(",")}
            elif parts and parts[0] in ("version", "seed"):
                meta_lines.append(line)
    tmp = tempfile.mkdtemp(prefix=".hermes-", dir=out_root)
    total = 0
    with open(os.path.join(src, "messages.bin"), "rb") as data, \
            open(os.path.join(tmp, "messages.bin"), "wb") as mb, open(os.path.join(tmp, "index.tsv"), "w") as ix:
        for i in seq:
            off, size = index[i]
            data.seek(off)
            mb.write(data.read(size))
            ix.write(f"{total}\t{size}\n")
            total += size
    with open(os.path.join(tmp, "manifest.txt"), "w") as mf:
        mf.write("".join(meta_lines) + f"messages {n}\nbytes {total}\n")
        for (w, where), ids in words.items():
            hits = [k for k, i in enumerate(seq) if i in ids]
            mf.write(f"word {w} {where} {','.join(map(str, hits)) or '-'}\n")
    with open(os.path.join(tmp, "hermes.txt"), "w") as f:
        f.write(stamp + f"under_4k_pct {got['under_4k_pct']:.1f}\nunder_32k_pct {got['under_32k_pct']:.1f}\n"
                f"mean_bytes {got['mean_bytes']:.0f}\nsource_indexes {','.join(map(str, seq))}\n")
    if os.path.exists(out):
        shutil.rmtree(out)
    os.rename(tmp, out)
    return out, got


def parse_strace_summary(text):
    """{syscall: calls} from `strace -c`'s table (columns: % time, seconds, usecs/call, calls,
    [errors,] syscall; the errors column is blank when there are none)."""
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 5 and parts[0].replace(".", "", 1).isdigit() and parts[3].isdigit() \
                and parts[-1] != "total":
            out[parts[-1]] = int(parts[3])
    return out


def sync_pass(inst, load_exe, load, common, conns, count, tag, timeout, linger_s):
    """`count` deliveries on `conns` connections with strace -f -c attached to every process of
    the instance (and, through -f, to every process and thread they start), plus linger_s after
    the last one (syncs a server defers a little are its deliveries' too). Returns the pass's
    record: calls per syscall, per delivery, or an error."""
    strace = shutil.which("strace")
    if not strace:
        return {"error": "strace not installed (bash bench/anchors/install.sh)"}
    pids = servers.tree_pids(inst.pid)
    with tempfile.TemporaryDirectory(prefix="strace-") as d:
        out, err = os.path.join(d, "summary"), os.path.join(d, "stderr")
        cmd = [strace, "-f", "-c", "-o", out, "-e", "trace=" + ",".join(SYNC_CALLS + (URING,))]
        for pid in pids:
            cmd += ["-p", str(pid)]
        with open(err, "wb") as ef:
            proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=ef, stdin=subprocess.DEVNULL)
        try:
            # strace says "Process N attached" once per pid it seized (threads too, with -f).
            deadline = time.time() + 15
            while time.time() < deadline and proc.poll() is None:
                with open(err, errors="replace") as ef:
                    attached = ef.read().count(" attached")
                if attached >= len(pids):
                    break
                time.sleep(0.1)
            if proc.poll() is not None:
                with open(err, errors="replace") as ef:
                    return {"error": "strace exited: " + ef.read().strip()[-200:]}
            t0 = time.time()
            r = load(load_exe, "lmtp", common + ["--count", count, "--conns", conns, "--offset", 0, "--tag", tag],
                     timeout)
            wall = time.time() - t0
            time.sleep(linger_s)
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)  # detach from every tracee and write the summary
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        with open(out, errors="replace") as f:
            calls = parse_strace_summary(f.read())
    if not r.get("ok"):
        return {"error": "traced pass: " + r.get("error", "")}
    n = r["metrics"].get("messages", count) or count
    rec = {"messages": n, "conns": conns, "processes_attached": len(pids), "calls": calls, "wall_s": wall,
           "linger_s": linger_s, "syncs_per_msg": sum(calls.get(c, 0) for c in SYNC_CALLS) / n,
           "per_msg": {c: calls.get(c, 0) / n for c in SYNC_CALLS + (URING,)}}
    return rec


def env_for(name):
    """The anchor script's environment: Darius with no sync_method line (its default)."""
    return {"DARIUS_SYNC_METHOD": "default"} if name == "darius" else {}


def darius_sync_note(inst):
    """What dariusd's log says about the durable point it chose (a dariusd on its default
    writes no sync_method and `auto` decides), for the note under the table."""
    lines = []
    for path in (os.path.join(inst.dir, "darius.log"), inst.log_path):
        try:
            with open(path, errors="replace") as f:
                # Without the "<time> dariusd[<pid>]: info: " prefix.
                lines += [re.sub(r"^\S+ dariusd\[\d+\]: \w+: ", "", l.strip()) for l in f
                          if "sync_method" in l or "journal" in l.lower()]
        except OSError:
            pass
    return " | ".join(dict.fromkeys(lines))[:400]


def add_cpu(r):
    """Server CPU per message of an lmtp result, and its user and system parts."""
    m = r.get("metrics", {})
    n = m.get("messages")
    if not n:
        return
    for key, field in (("server_cpu_ms_per_msg", "server_cpu_s"), ("server_user_ms_per_msg", "server_user_s"),
                       ("server_sys_ms_per_msg", "server_sys_s")):
        if r.get(field, -1) is not None and r.get(field, -1) >= 0:
            m[key] = 1000 * r[field] / n


def run_delivery(name, p, hermes, load_exe, darius_build, workdir, round_no, keys, load, log):
    """Issue 23's rows of `name` (keys: some of DELIVERY_ROW_KEYS); hermes: (corpus directory,
    shape) from hermes_corpus. Returns {key: result}."""
    def fail_all(why):
        return {k: {"ok": False, "error": why, "metrics": {}} for k in keys}
    hdir, hshape = hermes
    inst = servers.ServerInstance(name, workdir, USERS, darius_build, variant="delivery", env=env_for(name))
    try:
        try:
            inst.setup()
            inst.start(timeout=120)
        except servers.ServerError as e:
            log(f"  {name}: delivery rows fail: {e}")
            return fail_all(f"{name}: {e}")
        note = darius_sync_note(inst) if name == "darius" else ""
        common = ["--imap-port", inst.imap, "--lmtp-port", inst.lmtp, "--pop3-port", inst.pop3, "--corpus", hdir,
                  "--server-pid", inst.pid, "--users", USERS, "--first-user", 2]
        t, tag = p["timeout"], f"r{round_no}d"
        r = load(load_exe, "lmtp", common + ["--count", USERS - 1, "--conns", 1, "--offset", 0, "--tag", tag + "f"], t)
        if not r.get("ok"):
            return fail_all("first delivery to each user: " + r.get("error", ""))
        results = {}
        for key, conns in LMTP_ROWS:
            if key not in keys or not inst.alive():
                continue
            os.sync()  # the previous step's write-back is not this row's
            t0 = time.time()
            r = load(load_exe, "lmtp", common + ["--count", p["delivery"], "--conns", conns, "--offset", 0,
                                                 "--tag", f"{tag}{conns}"], t)
            add_cpu(r)
            r["mix"] = hshape
            r["sync_method_note"] = note
            results[key] = r
            m = r.get("metrics", {})
            log(f"  {name} r{round_no} {key}: {time.time() - t0:.1f}s "
                + (f"{m.get('msgs_per_s', 0):.0f} msg/s, CPU {m.get('server_user_ms_per_msg', 0):.2f} user + "
                   f"{m.get('server_sys_ms_per_msg', 0):.2f} sys ms/msg" if r.get("ok")
                   else "FAIL " + r.get("error", "")[:200]))
        if "mixed_default" in keys and inst.alive():
            os.sync()
            t0 = time.time()
            r = load(load_exe, "mixed", common + ["--duration", p["mixed"], "--tag", tag + "m"], t)
            r["mix"] = hshape
            results["mixed_default"] = r
            log(f"  {name} r{round_no} mixed_default: {time.time() - t0:.1f}s "
                f"{'ok' if r.get('ok') else 'FAIL ' + r.get('error', '')[:200]}")
        # The traced passes, after everything timed.
        for key, conns in LMTP_ROWS:
            r = results.get(key)
            if not r or not r.get("ok") or not inst.alive():
                continue
            os.sync()
            sp = sync_pass(inst, load_exe, load, common, conns, p["sync_pass"], f"{tag}s{conns}", t,
                           p["sync_linger_s"])
            r["sync_pass"] = sp
            if "error" in sp:
                # No strace (or ptrace refused): the row stands, its sync cell says why.
                r.setdefault("not_applicable", {})["syncs_per_msg"] = sp["error"]
            else:
                r["metrics"]["syncs_per_msg"] = sp["syncs_per_msg"]
            log(f"  {name} r{round_no} {key} sync pass: "
                + (sp["error"][:200] if "error" in sp else
                   f"{sp['syncs_per_msg']:.2f} syncs per delivery {sp['calls']}"))
        for k in keys:
            results.setdefault(k, {"ok": False, "error": f"{name} is no longer running: {inst.log_tail(200)}",
                                   "metrics": {}})
        return results
    finally:
        inst.stop()
        os.sync()  # the next server must not pay for this one's write-back
