#!/usr/bin/env bash
# bench/anchors/install.sh: install the two anchor servers of the benchmark, Dovecot and
# Cyrus, from Debian's packages, without starting any system-wide daemon; and strace, which the
# delivery rows attach to each server to count its sync calls.
#
#   bash bench/anchors/install.sh            # as root; idempotent
#
# Debian's cyrus-imapd and dovecot-imapd both "Provide: imap-server" and cyrus-imapd
# "Conflicts: imap-server" (cyrus-pop3d likewise with pop3-server), so both cannot be
# installed at once. Dovecot is installed normally; Cyrus's imapd and pop3d are fetched with
# `apt-get download` and unpacked with `dpkg-deb -x` into $ANCHORS_DIR/cyrus, and the private
# instance runs those binaries (their libraries come from cyrus-common and libsasl2, which are
# installed normally and do not conflict). If cyrus-imapd is already installed system-wide the
# roles swap: dovecot-imapd/pop3d are unpacked into $ANCHORS_DIR/dovecot and the private
# Dovecot points its services at them (dovecot-core, installed normally, has the libraries).
#
# Service starts during installation are refused with a temporary /usr/sbin/policy-rc.d
# (exit 101), and any daemon a postinst still managed to start is stopped afterwards: the
# benchmark runs only private instances on its own ports.
set -euo pipefail
ANCHORS_DIR=${DARIUS_BENCH_ANCHORS:-/opt/darius-bench}
export DEBIAN_FRONTEND=noninteractive

if [[ $(id -u) -ne 0 ]]; then
  echo "install.sh: run as root (apt-get install)" >&2
  exit 1
fi

policy=/usr/sbin/policy-rc.d
created_policy=0
if [[ ! -e $policy ]]; then
  printf '#!/bin/sh\n# darius bench: no service starts while installing anchors\nexit 101\n' >"$policy"
  chmod 755 "$policy"
  created_policy=1
fi
cleanup() { if [[ $created_policy == 1 ]]; then rm -f "$policy"; fi; }
trap cleanup EXIT

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

apt-get update -qq

# Packages that never conflict.
# dovecot-fts-xapian: Dovecot's full-text index for the search rows (runner.run_search).
# strace: the delivery rows count each server's sync calls per delivery (bench/delivery_rows.py).
apt-get install -y -qq --no-install-recommends dovecot-core dovecot-lmtpd dovecot-fts-xapian cyrus-common \
  cyrus-clients sasl2-bin libsasl2-modules libsasl2-modules-db strace >/dev/null

unpack() {  # unpack PKG... into DIR (matching the installed version of their -core/-common)
  local dir=$1; shift
  local tmp
  tmp=$(mktemp -d)
  (cd "$tmp" && apt-get download -qq "$@")
  mkdir -p "$dir"
  for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$dir"; done
  rm -rf "$tmp"
}

if installed cyrus-imapd; then
  # Cyrus is the system's imap-server: keep it, unpack Dovecot's imap/pop3 privately.
  ver=$(dpkg-query -W -f='${Version}' dovecot-core)
  if [[ ! -x $ANCHORS_DIR/dovecot/usr/lib/dovecot/imap ]]; then
    unpack "$ANCHORS_DIR/dovecot" "dovecot-imapd=$ver" "dovecot-pop3d=$ver"
  fi
else
  apt-get install -y -qq --no-install-recommends dovecot-imapd dovecot-pop3d >/dev/null
  ver=$(dpkg-query -W -f='${Version}' cyrus-common)
  if [[ ! -x $ANCHORS_DIR/cyrus/usr/lib/cyrus/bin/imapd ]]; then
    unpack "$ANCHORS_DIR/cyrus" "cyrus-imapd=$ver" "cyrus-pop3d=$ver"
  fi
fi

# A postinst may have started the system daemons despite policy-rc.d (no systemd here, but
# be sure): stop only the system instances, found by their pid files.
for pidfile in /run/dovecot/master.pid /run/cyrus-master.pid /run/cyrus/cyrus-master.pid; do
  if [[ -s $pidfile ]]; then
    pid=$(cat "$pidfile")
    if kill -0 "$pid" 2>/dev/null; then
      echo "install.sh: stopping system daemon pid $pid ($pidfile)"
      kill "$pid" || true
    fi
  fi
done

# Ownership: the private Cyrus runs as user cyrus, the private Dovecot delivers as user mail.
id cyrus >/dev/null && id mail >/dev/null && id dovecot >/dev/null && id dovenull >/dev/null

echo "install.sh: dovecot $(dpkg-query -W -f='${Version}' dovecot-core), cyrus $(dpkg-query -W -f='${Version}' cyrus-common); private binaries under $ANCHORS_DIR"
