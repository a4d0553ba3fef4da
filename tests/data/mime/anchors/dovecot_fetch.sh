#!/bin/bash
# Prints Dovecot's FETCH (ENVELOPE BODYSTRUCTURE BODY) for one message file, offline: a
# throwaway maildir and /usr/lib/dovecot/imap in PREAUTH mode (needs dovecot-imapd and root,
# to drop to nobody). Used only to review lib/mime's output; no test depends on it.
set -e
conf=/tmp/darius-dovecot/dovecot.conf
if [ ! -f $conf ]; then
  mkdir -p /tmp/darius-dovecot/run /tmp/darius-dovecot/state
  cat > $conf <<'CONF'
log_path = /tmp/darius-dovecot/dovecot.log
mail_location = maildir:~/Maildir
base_dir = /tmp/darius-dovecot/run
state_dir = /tmp/darius-dovecot/state
ssl = no
mail_uid = 65534
mail_gid = 65534
first_valid_uid = 1
first_valid_gid = 1
CONF
  chown -R nobody:nogroup /tmp/darius-dovecot
fi
d=$(mktemp -d /tmp/darius-dovecot/box.XXXXXX)
mkdir -p $d/Maildir/cur $d/Maildir/new $d/Maildir/tmp
cp "$1" $d/Maildir/cur/1.eml:2,
chown -R nobody:nogroup $d
printf 'a select INBOX\r\nb fetch 1 (envelope bodystructure body)\r\nc logout\r\n' |
  setpriv --reuid=65534 --regid=65534 --clear-groups env -i HOME=$d USER=test \
  /usr/lib/dovecot/imap -c $conf 2>&1
rm -rf $d
