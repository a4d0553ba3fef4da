"""bench/imap_big.py: issue 6's IMAP rows on a big mailbox only, for Darius and the anchors,
one server after another, without the rest of a full run (which takes ~50 minutes).

    python3 bench/imap_big.py --corpus DIR [--messages 10000] [--darius-build build/bench]
                              [--workdir DIR] [SERVER ...]        # default: darius dovecot cyrus

DIR is a corpus from bench/corpus/gen_corpus.py with at least --messages + 500 messages
(bench/run.sh leaves one in bench/results/corpus-N). It uses the same pieces as bench/run.sh
(bench/servers.py instances, darius_load workloads and their result checks) and prints one
JSON object per server. docs/benchmarks.md, "The IMAP rows on a 10,000-message mailbox".
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import servers  # noqa: E402

ROWS = [("populate", ["--conns", 8], "msgs_per_s"),
        ("imap_select", ["--count", 20], "per_s"),
        ("imap_fetch_meta", [], "msgs_per_s"),
        ("imap_fetch_body", [], "mib_per_s"),
        ("imap_search", [], "text_ms"),
        ("imap_search", [], "subject_ms"),
        ("imap_store", [], "msgs_per_s"),
        ("imap_append", ["--count", 500, "--offset", None], "msgs_per_s"),
        ("imap_expunge", [], "expunged_per_s")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--messages", type=int, default=10000)
    ap.add_argument("--darius-build", default=os.path.join(HERE, "..", "build", "bench"))
    ap.add_argument("--workdir", default="/tmp/darius-imap-big")
    ap.add_argument("servers", nargs="*", default=["darius", "dovecot", "cyrus"])
    a = ap.parse_args()
    load = os.path.join(a.darius_build, "bench", "darius_load")
    os.makedirs(a.workdir, exist_ok=True)
    failed = False
    for name in a.servers:
        inst = servers.ServerInstance(name, a.workdir, 3, os.path.abspath(a.darius_build))
        inst.setup()
        inst.start()
        res, done = {}, {}
        try:
            common = ["--imap-port", inst.imap, "--lmtp-port", inst.lmtp, "--pop3-port", inst.pop3,
                      "--corpus", a.corpus, "--server-pid", inst.pid, "--users", 3,
                      "--mailbox-msgs", a.messages]
            for wl, args, metric in ROWS:
                if wl not in done:
                    args = [a.messages if x is None else x for x in args]
                    t0 = time.time()
                    r = subprocess.run([load, wl] + [str(x) for x in common + args],
                                       capture_output=True, text=True, timeout=1800)
                    try:
                        done[wl] = json.loads(r.stdout.strip().splitlines()[-1])
                    except (ValueError, IndexError):
                        done[wl] = {"ok": False, "error": (r.stdout + r.stderr)[-300:], "metrics": {}}
                    ok = done[wl].get("ok")
                    failed |= not ok and "harness" in done[wl].get("error", "")
                    print(f"{name} {wl}: {time.time() - t0:.1f}s {'ok' if ok else done[wl].get('error', '')[:100]}",
                          file=sys.stderr, flush=True)
                res[f"{wl}:{metric}"] = done[wl].get("metrics", {}).get(metric)
        finally:
            inst.stop()
            inst.remove()
        print(json.dumps({"server": name, "messages": a.messages, "rows": res}), flush=True)
    return 2 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
