#!/usr/bin/env bash
# bench/run.sh: the one command of the benchmark — Darius beside Dovecot and Cyrus on this
# machine, in the same run, one table of medians and ratios (bench/README.md).
#
#   bash bench/run.sh                                  # full mode, all three servers
#   bash bench/run.sh --quick                          # about a minute or two per server
#   bash bench/run.sh --quick --servers darius --check # CI: non-zero if the harness breaks or a row fails
#   bash bench/run.sh --install-anchors ...            # install Dovecot and Cyrus first (root)
#
# Everything else is in bench/runner.py; this wrapper only finds it and raises the fd limit
# (10,000 idle sessions need 10,000 sockets in the client and in the server).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
exec python3 "$here/runner.py" "$@"
