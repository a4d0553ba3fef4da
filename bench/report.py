"""bench/report.py: the one table of the benchmark — medians with min..max per server and
the ratio Darius/anchor per row — built from the raw per-run JSON the runner keeps.

ROWS says which number of which workload each row shows and whether higher is better. A
cell is "median (min..max)" over the rounds that produced the number; a workload that
failed in every round shows "fail: <reason>"; one that ran but returned wrong results
(a failed correctness check) shows its number marked "✗" and the reason in a footnote.
Pure functions over plain data; no state.
"""
import os
import re
import statistics

# (label, workload, metric, unit, higher_is_better[, check prefix]): with a prefix, only a
# failed check whose name starts with it marks the row wrong (two rows share imap_search).
ROWS = [
    ("LMTP first delivery per user (INBOX made)", "lmtp_first", "msgs_per_s", "msg/s", True),
    ("  server CPU per message", "lmtp_first", "server_cpu_ms_per_msg", "ms", False),
    ("LMTP deliver, 1 connection", "lmtp1", "msgs_per_s", "msg/s", True),
    ("  server CPU per message", "lmtp1", "server_cpu_ms_per_msg", "ms", False),
    ("LMTP deliver, 8 connections", "lmtp8", "msgs_per_s", "msg/s", True),
    ("  server CPU per message", "lmtp8", "server_cpu_ms_per_msg", "ms", False),
    ("LMTP 4 recipients/message, 8 conns", "lmtp_multi", "rcpts_per_s", "rcpt/s", True),
    ("LMTP fill one mailbox, 8 conns", "populate", "msgs_per_s", "msg/s", True),
    ("IMAP connect+LOGIN+LOGOUT", "imap_login", "logins_per_s", "/s", True),
    ("IMAP LOGIN+SELECT (big mailbox)", "imap_select", "per_s", "/s", True),
    ("UID FETCH 1:* (FLAGS..BODYSTRUCTURE)", "imap_fetch_meta", "msgs_per_s", "msg/s", True),
    ("FETCH 1:* BODY.PEEK[]", "imap_fetch_body", "mib_per_s", "MiB/s", True),
    ("SEARCH TEXT <word>, median", "imap_search", "text_ms", "ms", False, "text_"),
    ("SEARCH SUBJECT <word>, median", "imap_search", "subject_ms", "ms", False, "subject_"),
    ("STORE 1:* +FLAGS (\\Flagged)", "imap_store", "msgs_per_s", "msg/s", True),
    ("APPEND", "imap_append", "msgs_per_s", "msg/s", True),
    ("EXPUNGE every 10th message (delayed)", "imap_expunge", "expunged_per_s", "msg/s", True),
    ("POP3 RETR", "pop3_retr", "msgs_per_s", "msg/s", True),
    ("idle IMAP sessions held", "imap_idle_sessions", "sessions", "", True),
    ("  sessions established", "imap_idle_sessions", "sessions_per_s", "/s", True),
    ("  server PSS per session", "imap_idle_sessions", "pss_kib_per_session", "KiB", False),
    ("  server RSS per session", "imap_idle_sessions", "rss_kib_per_session", "KiB", False),
    ("mixed: deliveries", "mixed", "deliveries_per_s", "/s", True),
    ("mixed: IMAP commands", "mixed", "imap_commands_per_s", "/s", True),
]
for _cmd in ("LMTP deliver", "SELECT", "FETCH", "STORE", "SEARCH", "NOOP"):
    ROWS.append((f"mixed: {_cmd} p50", "mixed", f"{_cmd} p50_ms", "ms", False))
    ROWS.append((f"mixed: {_cmd} p99", "mixed", f"{_cmd} p99_ms", "ms", False))
# Issue 23's rows (delivery_rows.run_delivery): every server on its defaults (Darius without a
# sync_method line), the Hermes size mix; server CPU per message with its user and system parts;
# sync calls per delivery from a separate traced pass. The mix, Darius's durable point and the
# calls one by one are in the lines under the table.
for _key, _conns in (("lmtp1_default", 1), ("lmtp8_default", 8)):
    ROWS += [
        (f"defaults: LMTP {_conns} conn{'s' if _conns > 1 else ''}, Hermes mix", _key, "msgs_per_s", "msg/s", True),
        ("  server CPU per message", _key, "server_cpu_ms_per_msg", "ms", False),
        ("    user", _key, "server_user_ms_per_msg", "ms", False),
        ("    system", _key, "server_sys_ms_per_msg", "ms", False),
        ("  sync calls per delivery", _key, "syncs_per_msg", "", False),
    ]
ROWS += [
    ("defaults: mixed: deliveries", "mixed_default", "deliveries_per_s", "/s", True),
    ("defaults: mixed: IMAP commands", "mixed_default", "imap_commands_per_s", "/s", True),
]
for _cmd in ("LMTP deliver", "SELECT", "FETCH", "STORE", "SEARCH", "NOOP"):
    ROWS.append((f"defaults: mixed: {_cmd} p50", "mixed_default", f"{_cmd} p50_ms", "ms", False))
    ROWS.append((f"defaults: mixed: {_cmd} p99", "mixed_default", f"{_cmd} p99_ms", "ms", False))
DELIVERY_WORKLOADS = {"lmtp1_default", "lmtp8_default", "mixed_default"}
# The sync count needs strace; without it (or without ptrace) the cell is n/a, from any server.
NA_ANY_METRIC = {"syncs_per_msg"}
# The shared-folder row (issue 17): its sizes are in the line under the table.
ROWS += [
    ('LIST "" "*", shared visible (median)', "list_shared", "median_ms", "ms", False),
    ("  p90", "list_shared", "p90_ms", "ms", False),
    ("  first LIST after login", "list_shared", "first_ms", "ms", False),
    ("  setup: shared mailboxes made", "list_shared", "setup_mailboxes_per_s", "/s", True),
]
# Issue 18's rows (two-phase expunge), on an instance of their own per server (runner.run_expire):
# their sizes are in the line under the table. Dovecot has no delayed expunge and no undelete:
# those cells are "n/a" (Result.not_applicable).
ROWS += [
    ("EXPUNGE of N at once (phase one)", "expire", "expunge_per_s", "msg/s", True),
    ("expire of those N (phase two)", "expire", "expire_per_s", "msg/s", True),
    ("  another session's longest wait", "expire", "probe_max_ms", "ms", False),
    ("  another session's p99", "expire", "probe_p99_ms", "ms", False),
    ("  its longest in the second before", "expire", "baseline_max_ms", "ms", False),
    ("undelete: COPY out of .EXPUNGED/INBOX", "undelete", "undelete_ms", "ms", False),
    ("  reference: COPY of live messages", "undelete", "copy_ms", "ms", False),
]

# Issue 19's rows (search_rows.run_search): the first mailbox size (quick 2,000, full 10,000)
# and, in full mode, 100,000 (workloads with "_big"). Sizes and words: the line under the table.
SEARCH_CMDS = [("SEARCH TEXT <rare body word>", "search_text"), ("SEARCH BODY <rare body word>", "search_body"),
               ("SEARCH TEXT <rare Subject word>", "header_text"), ("SORT (DATE)", "sort_date"),
               ("SORT (SUBJECT)", "sort_subject"), ("THREAD REFERENCES", "thread_refs")]
for _wl, _ix, _p in (("search", "search_index", ""), ("search_big", "search_index_big", "100k: ")):
    for _label, _key in SEARCH_CMDS:
        ROWS.append((f"{_p}{_label}, median", _wl, f"{_key}_ms", "ms", False, _key))
        ROWS.append(("  p95", _wl, f"{_key}_p95_ms", "ms", False, _key))
        if _key == "search_text":
            ROWS.append(("  first one (cold)", _wl, f"{_key}_first_ms", "ms", False, _key))
    ROWS.append((f"{_p}search index build, standing start", _ix, "index_msgs_per_s", "msg/s", True))
    ROWS.append(("  index size, % of the mail", _ix, "index_share_pct", "%", False))
    if not _p:
        ROWS += [
            ("LMTP 8 conns, index at delivery on", "search_lmtp", "on_msgs_per_s", "msg/s", True),
            ("  server CPU per message", "search_lmtp", "on_cpu_ms_per_msg", "ms", False),
            ("LMTP 8 conns, index at delivery off", "search_lmtp", "off_msgs_per_s", "msg/s", True),
            ("  server CPU per message", "search_lmtp", "off_cpu_ms_per_msg", "ms", False),
            ("  slowdown with the index on", "search_lmtp", "on_cost_pct", "%", False),
        ]
# Workloads whose n/a is accepted from every server, Darius included: SORT and THREAD are
# capabilities a server may lack, and Darius's search index is written on another branch.
NA_ANY_SERVER = {"search", "search_index", "search_lmtp", "search_big", "search_index_big"}
# Rows whose ratio Darius/anchor means nothing (a difference, not a rate).
NO_RATIO = {"on_cost_pct"}


def fmt(v):
    if v is None:
        return "-"
    a = abs(v)
    if a >= 100:
        return f"{v:,.0f}"
    if a >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def short(err, n=34):
    """The cell's version of a failure: without "connection N: " and the like, cut to n."""
    err = " ".join(err.split())
    err = re.sub(r"^(connection|session|imap client|deliverer) \d+: ", "", err)
    return err if len(err) <= n else err[:n - 1] + "…"


def cell(results, metric, check_prefix=""):
    """results: this server's result dicts for one workload, one per round. A metric the
    server cannot have (its result's not_applicable) is "n/a"."""
    vals, wrong, errors = [], [], []
    na = 0
    for r in results:
        m = r.get("metrics", {})
        if not r.get("ok") and not r.get("wrong_result"):
            errors.append(r.get("error", "failed"))
        elif metric in r.get("not_applicable", {}):
            na += 1
        elif metric in m and m[metric] is not None:
            vals.append(m[metric])
            bad = [f"{k} {v}" for k, v in r.get("checks", {}).items() if k.startswith(check_prefix) and v != "ok"]
            if not r.get("ok") and (bad if check_prefix else True):
                wrong.append("; ".join(bad) if check_prefix else r.get("error", ""))
        elif not r.get("ok"):
            errors.append(r.get("error", "failed"))
    if not vals:
        if errors:
            return None, "fail: " + short(errors[0]), None
        return None, "n/a" if na else "-", None
    med = statistics.median(vals)
    text = fmt(med) if len(vals) == 1 else f"{fmt(med)} ({fmt(min(vals))}..{fmt(max(vals))})"
    note = None
    if wrong:
        text += " ✗"
        note = wrong[0]
    return med, text, note


def build_table(runs, servers, darius_only_rows, physical, params=None):
    """runs: {server: {workload: [result, ...]}}; params: the run's sizes (the LIST row's
    line). Returns the table as text."""
    anchors = [s for s in servers if s != "darius"]
    head = ["workload", "unit"] + servers + [f"darius/{a}" for a in anchors if "darius" in servers]
    lines = []
    notes = []
    for label, wl, metric, unit, higher, *prefix in ROWS:
        if wl in NA_ANY_SERVER | DELIVERY_WORKLOADS and not any(runs.get(s, {}).get(wl) for s in servers):
            continue  # the search or delivery rows of a run without them (or quick mode's 100k): left out
        row = [label, unit + ("" if not unit else (" ↑" if higher else " ↓"))]
        meds = {}
        for s in servers:
            med, text, note = cell(runs.get(s, {}).get(wl, []), metric, prefix[0] if prefix else "")
            meds[s] = med
            row.append(text)
            if note and (s, wl, note) not in notes:
                notes.append((s, wl, note))
        if "darius" in servers:
            for a in anchors:
                d, x = meds.get("darius"), meds.get(a)
                ok = d is not None and x not in (None, 0) and metric not in NO_RATIO
                row.append(f"{d / x:.3g}" if ok else "-")
        lines.append(row)
    extra = []
    for label, unit, text in darius_only_rows:
        extra.append([label, unit, text])
    widths = [max(len(str(r[i])) for r in [head] + lines) for i in range(len(head))]
    widths[0] = min(widths[0], 40)

    def render(r):
        return "  ".join(str(c).ljust(widths[i]) if i == 0 else str(c).rjust(widths[i]) for i, c in enumerate(r))

    out = [render(head), "  ".join("-" * w for w in widths)]
    out += [render(r) for r in lines]
    if extra:
        w0 = max(len(r[0]) for r in extra)
        w2 = max(len(r[2]) for r in extra)
        out.append("")
        out.append("Darius only (bench/db_bench.cc, bench/mailbox_bench.cc; no anchor runs these):")
        out += [f"{r[0].ljust(w0)}  {r[1].rjust(4)}  {r[2].rjust(w2)}" for r in extra]
    out.append("")
    out.append(f"physical limits of this machine: {fmt(physical.get('fsync_per_s'))} small write+fsync/s "
               f"on the bench filesystem, page-cache read {fmt(physical.get('page_cache_read_mib_per_s'))} MiB/s")
    out.append("cells: median (min..max) over rounds; ↑ higher is better, ↓ lower is better; "
               "ratio = darius median / anchor median; ✗ = ran but gave a wrong result (see notes)")
    if params and params.get("shared") and any(runs.get(s, {}).get("list_shared") for s in servers):
        out.append(f'LIST "" "*": bench1 may see {params["visible"]:,} of {params["shared"]:,} shared mailboxes '
                   f'(ACL "bench1 lr"); {params.get("list_reps", "?")} LISTs on one connection after a first one; '
                   "setup (not ranked): Darius and Cyrus over IMAP as admin, Dovecot on disk")
    if any(runs.get(s, {}).get("imap_expunge") for s in servers):
        out.append("EXPUNGE every 10th: Darius and Cyrus in delayed mode (the files stay until expire; both "
                   "defaults), Dovecot removes the files")
    if params and params.get("expire") and any(runs.get(s, {}).get(k) for s in servers
                                               for k in ("expire", "undelete")):
        out.append(f"expire: one INBOX of {params['expire'] + params['expire_keep']:,} messages, N = "
                   f"{params['expire']:,} of them expunged by one STORE+EXPUNGE (Dovecot: this removes the "
                   "files), then removed by `darius expire --now` / `cyr_expire -X 0` (a process each) "
                   f"while another session loops UID STORE/NOOP on a live message, "
                   f"{params.get('expire_think_ms', 1):g} ms apart")
        out.append(f"undelete: {params['undelete']:,} expunged messages back into the INBOX (Darius: UID COPY "
                   "1:* INBOX from .EXPUNGED/INBOX; Cyrus: `unexpunge -a -d`, a process; Dovecot: none); "
                   f"reference: UID COPY of them, live, into an empty folder; median of {params['undelete_reps']}"
                   " mailboxes")
    for wl, ix, what in (("search", "search_index", 0), ("search_big", "search_index_big", 1)):
        if not any(runs.get(s, {}).get(wl) or runs.get(s, {}).get(ix) for s in servers):
            continue
        size = f"{params['search_sizes'][what]:,}" if params and len(params.get("search_sizes", [])) > what else "?"
        hits = next((r["metrics"] for s in servers for r in runs.get(s, {}).get(wl, [])
                     if r.get("ok") and "search_text_hits" in r.get("metrics", {})), {})
        out.append(f"{'100k: ' if what else ''}search rows: bench1's INBOX of {size} corpus messages; "
                   f"rare words: vorpelgrist in {int(hits.get('search_body_hits', -1))} bodies, mervotrund in "
                   f"{int(hits.get('header_text_hits', -1))} subjects; index built from a standing start "
                   "(Darius `darius search index --all`, Cyrus `squatter` (squat), Dovecot `doveadm index` "
                   "(fts-xapian)); median and p95 of repetitions after a first")
        threads = {s: sorted({int(r["metrics"]["thread_count"]) for r in runs.get(s, {}).get(wl, [])
                              if "thread_count" in r.get("metrics", {})}) for s in servers}
        if any(threads.values()):
            same = len({tuple(v) for v in threads.values() if v}) == 1
            out.append("  THREAD REFERENCES threads: " + ", ".join(
                f"{s} {'/'.join(map(str, v)) if v else 'n/a'}" for s, v in threads.items())
                + ("" if same else "  (differ between servers)"))
    out += delivery_notes(runs, servers)
    why_na = sorted({(s, wl, why) for s in servers for wl in sorted(NA_ANY_SERVER | DELIVERY_WORKLOADS)
                     for r in runs.get(s, {}).get(wl, []) for why in set(r.get("not_applicable", {}).values())})
    for s, wl, why in why_na:
        out.append(f"  n/a: {s} {wl}: {why}")
    if any(runs.get(s, {}).get("search_lmtp") for s in servers):
        out.append("LMTP index on/off: Darius `search_index: on/off`, Dovecot fts-xapian `fts_autoindex = yes` / "
                   "no fts plugin (its indexer works on after the last delivery), Cyrus `search_engine: squat` / "
                   "none (squat indexes only when squatter runs); fresh instances, 8 users")
    busiest = max(((r.get("client_cpu_s", 0) / r["wall_s"], s, wl) for s in servers
                   for wl, rs in runs.get(s, {}).items() for r in rs
                   if r.get("ok") and r.get("wall_s", 0) > 0.5), default=None)
    if busiest:
        out.append(f"load client CPU: at most {100 * busiest[0]:.0f}% of one core over a workload "
                   f"({busiest[1]} {busiest[2]}); the machine has {os.cpu_count()} cores")
    for s, wl, note in notes:
        out.append(f"✗ {s} {wl}: {note[:200]}")
    fails = sorted({(s, r.get("error", "")) for s in servers for wl, rs in runs.get(s, {}).items()
                    for r in rs if not r.get("ok") and not r.get("wrong_result")})
    if fails:
        out.append("failures in full:")
        seen = set()
        for s, e in fails:
            key = (s, e[:60])
            if key not in seen:
                seen.add(key)
                out.append(f"  {s}: {' '.join(e.split())[:220]}")
    return "\n".join(out)


def delivery_notes(runs, servers):
    """The lines under the table for issue 23's rows: the mix delivered, what each server ran
    on, and the sync calls one by one (medians over rounds, per delivery)."""
    out = []
    rs = [r for s in servers for k in sorted(DELIVERY_WORKLOADS) for r in runs.get(s, {}).get(k, [])]
    if not rs:
        return out
    mix = next((r["mix"] for r in rs if r.get("mix")), None)
    if mix:
        out.append(f"defaults rows: {mix['messages']:,} deliveries per LMTP row over 32 INBOXes, the Hermes mix "
                   f"({mix['under_4k_pct']:.0f}% under 4 KiB, {mix['under_32k_pct']:.0f}% under 32 KiB, mean "
                   f"{mix['mean_bytes'] / 1000:.1f} KB); Darius with no sync_method line, Dovecot and Cyrus as "
                   "their anchors set them up; CPU: user+system of the whole process tree")
    note = next((r.get("sync_method_note") for r in runs.get("darius", {}).get("lmtp8_default", [])
                 + runs.get("darius", {}).get("lmtp1_default", []) if r.get("sync_method_note")), "")
    if "darius" in servers and any(runs.get("darius", {}).get(k) for k in DELIVERY_WORKLOADS):
        out.append("  darius's log on its durable point: " + (note[:300] or "(nothing said about sync_method)"))
    for s in servers:
        for k in ("lmtp1_default", "lmtp8_default"):
            passes = [r["sync_pass"] for r in runs.get(s, {}).get(k, []) if "calls" in r.get("sync_pass", {})]
            if not passes:
                continue
            per = {}
            for sp in passes:
                for c, v in sp["per_msg"].items():
                    per.setdefault(c, []).append(v)
            # io_uring_enter is not in the row's sum: a sync it submits is invisible to strace,
            # so a count of it says only that the server might sync that way.
            calls = ", ".join(f"{c if c != 'io_uring_enter' else 'io_uring_enter (not in the sum)'} "
                              f"{fmt(statistics.median(v))}" for c, v in per.items() if any(v))
            out.append(f"  sync calls per delivery, {s} {k} ({passes[0]['messages']} deliveries under strace -f -c, "
                       f"{passes[0]['conns']} conn(s)): {calls or 'none'}")
    return out


def check_failures(runs, servers, expected, rounds, darius_rows=None, want_darius_only=False, physical=None):
    """What makes `--check` fail, one line each; empty when every row of every server that
    was asked for produced a number. runs: {server: {workload: [result per round]}};
    expected: the workload keys each server was to run; darius_rows: {label: [value or error
    per round]} of the Darius-only benches, required when want_darius_only.

    A failure is: a `fail:` entry (the server could not be set up or started, or a workload
    failed, in any round: a round that failed is not hidden by a round that did not); a
    workload with fewer results than rounds (it never ran); a result that says ok but lacks
    a row's number, or whose throughput or count is zero (it ran and measured nothing); a
    wrong result (✗) from Darius (an anchor's, such as Cyrus's SEARCH TEXT, is a known
    fault of the anchor and stays a note); a Darius-only bench that failed or printed no
    rows; a physical-limits probe that failed."""
    out = []
    for s in servers:
        for wl in expected:
            results = runs.get(s, {}).get(wl, [])
            if len(results) < rounds:
                out.append(f"{s} {wl}: {len(results)} result(s) for {rounds} round(s)")
            for i, r in enumerate(results, 1):
                where = f"{s} {wl} round {i}"
                if not r.get("ok") and not r.get("wrong_result"):
                    out.append(f"{where}: fail: {' '.join(str(r.get('error', 'failed')).split())[:200]}")
                    continue
                if not r.get("ok") and s == "darius":
                    out.append(f"{where}: wrong result: {' '.join(str(r.get('error', '')).split())[:200]}")
                m = r.get("metrics", {})
                for label, rwl, metric, unit, higher, *_ in ROWS:
                    if rwl != wl:
                        continue
                    v = m.get(metric)
                    if v is None and (s != "darius" or wl in NA_ANY_SERVER or metric in NA_ANY_METRIC) and \
                            metric in r.get("not_applicable", {}):
                        continue  # an anchor without the feature (Dovecot: no delayed expunge)
                    if v is None:
                        out.append(f"{where}: no number for '{label.strip()}' ({metric})")
                    elif higher and v <= 0:
                        out.append(f"{where}: '{label.strip()}' is {v}: it measured nothing")
    if want_darius_only:
        if not darius_rows:
            out.append("darius-only benches: no results")
        for label, vals in (darius_rows or {}).items():
            bad = [v for v in vals if not isinstance(v, (int, float))]
            if bad:
                out.append(f"darius-only {label}: fail: {str(bad[0])[:200]}")
    if physical is not None and not physical:
        out.append("physical limits: the probe measured nothing")
    return out


def compare_table(runs, off, on, physical=None):
    """--compare-acl-quota: per row, Darius without (`off`) and with (`on`) ACLs and quotas,
    medians (min..max) over the rounds, the ratio on/off, and what it costs: the slowdown in
    percent (positive = slower with ACLs and quotas on, whichever way the row counts). A
    difference whose ranges overlap is marked "~" (within the rounds' spread: noise)."""
    head = ["workload", "unit", "off", "on", "on/off", "cost"]
    lines = []
    for label, wl, metric, unit, higher, *prefix in ROWS:
        if wl == "list_shared" or wl in DELIVERY_WORKLOADS:  # no ACL-off/on variant of these
            continue
        a = [r["metrics"][metric] for r in runs.get(off, {}).get(wl, [])
             if r.get("ok") and r.get("metrics", {}).get(metric) is not None]
        b = [r["metrics"][metric] for r in runs.get(on, {}).get(wl, [])
             if r.get("ok") and r.get("metrics", {}).get(metric) is not None]
        if not a or not b:
            lines.append([label, unit, fmt(median_or_none(a)), fmt(median_or_none(b)), "-", "-"])
            continue
        ma, mb = statistics.median(a), statistics.median(b)
        ratio = mb / ma if ma else None
        cost = None
        if ma and mb:
            cost = (ma / mb - 1) * 100 if higher else (mb / ma - 1) * 100
        overlap = min(max(a), max(b)) >= max(min(a), min(b))
        cell_ = lambda v: fmt(statistics.median(v)) if len(v) == 1 else \
            f"{fmt(statistics.median(v))} ({fmt(min(v))}..{fmt(max(v))})"
        lines.append([label, unit + ("" if not unit else (" ↑" if higher else " ↓")), cell_(a), cell_(b),
                      f"{ratio:.3f}" if ratio else "-",
                      "-" if cost is None else f"{cost:+.1f}%" + (" ~" if overlap and len(a) > 1 else "")])
    widths = [max(len(str(r[i])) for r in [head] + lines) for i in range(len(head))]
    widths[0] = min(widths[0], 40)

    def render(r):
        return "  ".join(str(c).ljust(widths[i]) if i == 0 else str(c).rjust(widths[i]) for i, c in enumerate(r))

    out = [render(head), "  ".join("-" * w for w in widths)] + [render(r) for r in lines]
    out.append("")
    out.append("off: Darius as in the main table, after the same logins as on (each user twice: a login makes the "
               "INBOX and fills the login cache); on: every user's INBOX has three ACL entries for other users "
               "and a quota root (STORAGE and MESSAGE limits far above the run)")
    out.append("cost: slowdown with ACLs and quotas on (+ = slower, whichever way the row counts); "
               "~ = the two ranges of rounds overlap (within noise)")
    if physical:
        out.append(f"physical limits: {fmt(physical.get('fsync_per_s'))} small write+fsync/s, "
                   f"page-cache read {fmt(physical.get('page_cache_read_mib_per_s'))} MiB/s")
    return "\n".join(out)


def svg_chart(runs, servers, title):
    """The bench's chart, as an SVG document (plain text, no library): for every row of ROWS
    that Darius and an anchor both measured, how many times better Darius is than that
    anchor (its median over theirs, inverted for rows where lower is better), one bar per
    anchor, on a log scale from 1/10 to 1,000; bars left of 1 are rows where Darius is
    behind. Rows whose anchors all lack a number are left out."""
    anchors = [s for s in servers if s != "darius"]
    colours = {"dovecot": "#d9822b", "cyrus": "#2b7bd9"}
    data = []
    parent = ""
    for label, wl, metric, unit, higher, *prefix in ROWS:
        if not label.startswith(" "):
            parent = label
        elif len(parent) + len(label) < 56:  # "  p90" alone says nothing in a chart
            label = parent.split(" (")[0] + ": " + label.strip()
        if metric in NO_RATIO:
            continue
        d, _, _ = cell(runs.get("darius", {}).get(wl, []), metric, prefix[0] if prefix else "")
        bars = []
        for a in anchors:
            x, _, _ = cell(runs.get(a, {}).get(wl, []), metric, prefix[0] if prefix else "")
            if d and x:
                bars.append((a, d / x if higher else x / d))
        if bars:
            data.append((label.strip(), bars))
    import math
    lo, hi = 0.1, 1000.0
    left, width, bar_h = 380, 520, 7
    row_h = bar_h * max(1, len(anchors)) + 6
    top = 60
    height = top + row_h * len(data) + 50

    def x(v):
        v = min(max(v, lo), hi)
        return left + width * (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))

    def esc(t):
        return t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 80}" height="{height}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="100%" height="100%" fill="white"/>',
           f'<text x="10" y="20" font-size="14" font-weight="bold">{esc(title)}</text>',
           '<text x="10" y="38">times better than the anchor (median over median; for rows where lower is '
           'better, inverted); log scale, 1 = equal</text>']
    legend_x = left
    for a in anchors:
        out.append(f'<rect x="{legend_x}" y="46" width="10" height="8" fill="{colours.get(a, "#888")}"/>'
                   f'<text x="{legend_x + 14}" y="54">Darius vs {esc(a)}</text>')
        legend_x += 130
    for tick in (0.1, 0.3, 1, 3, 10, 30, 100, 300, 1000):
        tx = x(tick)
        out.append(f'<line x1="{tx:.1f}" y1="{top - 2}" x2="{tx:.1f}" y2="{height - 40}" '
                   f'stroke="{"#000" if tick == 1 else "#ddd"}" stroke-width="1"/>')
        out.append(f'<text x="{tx:.1f}" y="{height - 26}" text-anchor="middle">{tick:g}×</text>')
    for i, (label, bars) in enumerate(data):
        y0 = top + i * row_h
        out.append(f'<text x="{left - 6}" y="{y0 + row_h / 2 + 3:.1f}" text-anchor="end">{esc(label)}</text>')
        for j, (a, v) in enumerate(bars):
            y = y0 + 3 + j * bar_h
            x0, x1 = sorted((x(1), x(v)))
            out.append(f'<rect x="{x0:.1f}" y="{y}" width="{max(x1 - x0, 1):.1f}" height="{bar_h - 1}" '
                       f'fill="{colours.get(a, "#888")}"><title>{esc(label)}: Darius {v:.3g}× vs {esc(a)}</title></rect>')
            out.append(f'<text x="{(x1 if v >= 1 else x0) + (3 if v >= 1 else -3):.1f}" y="{y + bar_h - 1}" '
                       f'font-size="8" text-anchor="{"start" if v >= 1 else "end"}">{v:.3g}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def median_or_none(vals):
    return statistics.median(vals) if vals else None
