#!/usr/bin/env bash
# bench/anchors/darius.sh: a private dariusd for the benchmark (owned by bench/run.sh).
#
#   darius.sh setup DIR USERS BUILD_DIR   # darius init + users bench1..benchUSERS
#   darius.sh run DIR BUILD_DIR           # exec dariusd in the foreground
#
# `darius init DIR --ephemeral-ports` gives a loopback-only instance whose every port is 0:
# the kernel picks free ones when dariusd binds them, and dariusd writes the real addresses
# to DIR/run/listeners (bench/servers.py reads them), so the bench never collides with
# another program's port. Plaintext auth is allowed on loopback. The connection caps are raised as they are
# for Dovecot (max_connections 10000 and max_connections_per_host 200 by default would refuse
# the 10,000 idle sessions, all from 127.0.0.1); expunge_mode is stated (delayed, the
# default) and the nightly expire is off; sync_method is syncfs unless DARIUS_SYNC_METHOD says
# otherwise (below); everything else is the default.
# Users are added with `darius user add` (one process each; 50 users take about a second),
# and `cyrus`, password bench, is an administrator (`admins: cyrus`) as in the Cyrus
# instance.
set -euo pipefail
cmd=${1:?setup|run}
dir=${2:?DIR}
dir=$(realpath -m "$dir")

case $cmd in
setup)
  users=${3:?USERS}
  build=${4:?BUILD_DIR}
  darius=$build/tools/darius
  [[ -x $darius && -x $build/server/dariusd ]] || { echo "darius not built in $build" >&2; exit 3; }
  rm -rf "$dir"
  "$darius" init "$dir" --ephemeral-ports --user bench1:bench >/dev/null
  printf '\n# bench/anchors/darius.sh: idle-session workload\nmax_connections: 20000\nmax_connections_per_host: 20000\n' \
    >>"$dir/darius.conf"
  printf 'log_file: darius.log\n' >>"$dir/darius.conf"
  # A production spool is a filesystem of its own, where sync_method auto picks syncfs; the
  # bench instances share the machine's one filesystem, so it is set here (bench/README.md).
  # DARIUS_SYNC_METHOD=fsync measures the file-by-file path instead, and
  # DARIUS_SYNC_METHOD=default writes no line at all: dariusd's default, what a new user gets
  # (issue 23's delivery rows, bench/delivery_rows.py).
  sync_method=${DARIUS_SYNC_METHOD:-syncfs}
  if [[ $sync_method != default ]]; then
    printf 'sync_method: %s\n' "$sync_method" >>"$dir/darius.conf"
  fi
  # Two-phase expunge (docs/design/expunge.md): EXPUNGE keeps the files until expire removes
  # them. delayed is the default; it is written here so that the EXPUNGE rows say what they
  # measure. No nightly expire inside a run (expire_at empty): the expire row runs `darius
  # expire` itself, and a run that crossed 03:00 would otherwise have one beside its rows.
  printf 'expunge_mode: delayed\nexpire_at:\n' >>"$dir/darius.conf"
  # An administrator, as in the Cyrus instance (`admins: cyrus`): the shared-folder row and
  # --acl-quota create shared mailboxes and set quotas over IMAP as this user.
  printf 'admins: cyrus\n' >>"$dir/darius.conf"
  # The search rows (runner.run_search) turn the search index's background indexing at
  # delivery on or off; only set when asked, so that a dariusd without the option still starts.
  if [[ -n ${BENCH_SEARCH_INDEX:-} ]]; then
    printf 'search_index: %s\n' "$BENCH_SEARCH_INDEX" >>"$dir/darius.conf"
  fi
  # DARIUS_EXTRA_CONFIG: lines appended as they are, for an A/B of one option in one run
  # (e.g. DARIUS_EXTRA_CONFIG='lmtp_delivery_nice: 0').
  if [[ -n ${DARIUS_EXTRA_CONFIG:-} ]]; then
    printf '%s\n' "$DARIUS_EXTRA_CONFIG" >>"$dir/darius.conf"
  fi
  "$darius" user add -C "$dir/darius.conf" cyrus --password bench >/dev/null
  for ((i = 2; i <= users; i++)); do
    "$darius" user add -C "$dir/darius.conf" "bench$i" --password bench >/dev/null
  done
  ;;
run)
  build=${3:?BUILD_DIR}
  ulimit -n "$(ulimit -Hn)"
  exec "$build/server/dariusd" -C "$dir/darius.conf"
  ;;
*)
  echo "usage: darius.sh setup DIR USERS BUILD_DIR | run DIR BUILD_DIR" >&2
  exit 2
  ;;
esac
