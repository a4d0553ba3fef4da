#!/usr/bin/env bash
# Installs everything Darius needs to build, run and test on Debian 12, with apt-get.
# Idempotent: packages already present are skipped, so a second run costs one dpkg query.
set -euo pipefail

build_pkgs=(
  cmake ninja-build g++ clang-14 libclang-rt-14-dev clang-format pkg-config git
  libssl-dev libdb5.3-dev libsieve2-dev libicu-dev zlib1g-dev libgtest-dev libgmock-dev
  libasio-dev libfmt-dev libcli11-dev libcrypt-dev
)
# Tools the server itself shells out to or that `darius init` relies on.
run_pkgs=(openssl ca-certificates)
# Real clients the protocol tests drive (see shared/notes/real-clients.md).
test_pkgs=(
  python3 curl swaks libnet-ssleay-perl isync fetchmail mutt tmux cyrus-admin sieve-connect
  libsasl2-modules procps
)

want=("${build_pkgs[@]}" "${run_pkgs[@]}" "${test_pkgs[@]}")
missing=()
for p in "${want[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#want[@]} packages present"
  exit 0
fi
echo "setup: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
