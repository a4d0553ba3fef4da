#!/usr/bin/env bash
# README command one: install what is needed, build a Release dariusd, create the embedded
# default instance under ./var on first run (loopback ports from DARIUS_PORT_BASE, default
# 10000), print how to connect, and run dariusd in the foreground (Ctrl-C stops it).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DDARIUS_BUILD_TESTS=OFF >/dev/null
cmake --build build/release --target dariusd darius
bin=build/release
if [ ! -f var/darius.conf ]; then
  "$bin/tools/darius" init var --port-base "${DARIUS_PORT_BASE:-10000}"
fi
port() { sed -n "s/^$1_listen: *127\.0\.0\.1:\([0-9]*\).*/\1/p" var/darius.conf; }
user=demo; pass='(the one you chose)'
if [ -f var/demo-credentials ]; then
  user=$(sed -n 's/^user: //p' var/demo-credentials)
  pass=$(sed -n 's/^password: //p' var/demo-credentials)
fi
cat <<MSG

Darius is starting on 127.0.0.1 with the instance in ./var (config: var/darius.conf).
  user $user, password $pass
  IMAP   $(port imap) (plaintext login allowed on loopback), IMAPS $(port imaps)
  POP3   $(port pop3), POP3S $(port pop3s)
  LMTP   $(port lmtp)
  metrics  curl http://127.0.0.1:$(port metrics)/metrics
  TLS      openssl s_client -connect 127.0.0.1:$(port imaps) -CAfile var/tls/cert.pem
  python3 -c 'import imaplib; m=imaplib.IMAP4("127.0.0.1",$(port imap)); print(m.login("$user","$pass"))'
  add a user:  $bin/tools/darius -C var/darius.conf user add NAME
Stop with Ctrl-C (SIGTERM/SIGINT stop gracefully).

MSG
exec "$bin/server/dariusd" -C var/darius.conf
