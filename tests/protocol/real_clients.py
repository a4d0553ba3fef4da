"""Drives the real mail clients of shared/notes/real-clients.md (curl, mutt in tmux, mbsync,
cyradm) against a test dariusd, with no terminal and no human: each helper runs the client
with a hard timeout and returns what it printed, so a hang is a test failure, not a stuck CI.
Also the few facts about the clients' own rewriting that byte-for-byte checks must know
(mbsync's X-TUID header, Maildir's LF line ends and flag letters)."""
import imaplib
import os
import re
import shutil
import subprocess
import time


def require(*programs):
    """Fails (never skips) when a client is missing: scripts/setup.sh installs every one, so a
    missing client is a broken CI image, not a reason to pass quietly."""
    missing = [p for p in programs if shutil.which(p) is None]
    if missing:
        raise AssertionError(f"missing clients {missing}: run scripts/setup.sh")


def run(args, timeout=60, input=None, env=None, cwd=None):
    """Runs a client; returns CompletedProcess with bytes stdout/stderr."""
    return subprocess.run(args, capture_output=True, timeout=timeout, input=input,
                          env=env, cwd=cwd)


def imap(inst, user, password):
    m = imaplib.IMAP4("127.0.0.1", inst.port("imap"), timeout=30)
    m.login(user, password)
    return m


def fetch_all(m, mailbox):
    """{uid: (flags as a sorted tuple, internaldate string, body bytes)} of a whole mailbox,
    read with one UID FETCH 1:* so 10,000 messages cost one round trip. \\Recent is left out:
    it belongs to a session (RFC 3501 §2.3.2), not to the message a client copied."""
    typ, data = m.select(f'"{mailbox}"', readonly=True)
    if typ != "OK":
        raise AssertionError(f"EXAMINE {mailbox}: {data}")
    out = {}
    if int(data[0]) == 0:
        return out
    typ, data = m.uid("FETCH", "1:*", "(UID FLAGS INTERNALDATE BODY.PEEK[])")
    if typ != "OK":
        raise AssertionError(f"UID FETCH in {mailbox}: {data}")
    for item in data:
        if not isinstance(item, tuple):
            continue
        head, body = item
        uid = int(re.search(rb"UID (\d+)", head).group(1))
        flags = tuple(sorted(f for f in re.search(rb"FLAGS \(([^)]*)\)", head).group(1)
                             .decode().split() if f != "\\Recent"))
        date = re.search(rb'INTERNALDATE "([^"]+)"', head).group(1).decode()
        out[uid] = (flags, date, body)
    return out


# mbsync (isync 1.4) inserts one "X-TUID: <12 chars>" line at the end of the header of every
# message it propagates, so it can find the copy again if the target gives no UID. It removes
# an old one from the source first, so there is exactly one after any number of hops.
_TUID = re.compile(rb"X-TUID: [A-Za-z0-9+/]{12}\r?\n")


def strip_tuid(message):
    """The message without mbsync's X-TUID line; fails unless there is exactly one, last in
    the header, so a server that dropped or mangled header bytes cannot hide behind it."""
    crlf = b"\r\n" in message[:200] or message.startswith(b"\r\n")
    sep = b"\r\n\r\n" if crlf else b"\n\n"
    end = message.find(sep)
    if end < 0:
        raise AssertionError(f"no header/body separator in {message[:200]!r}")
    head = message[:end + len(sep) // 2]
    m = None
    for m in _TUID.finditer(head):
        pass
    found = len(_TUID.findall(head))
    if found != 1 or m.end() != len(head):
        raise AssertionError(f"expected one X-TUID at the end of the header, got {head!r}")
    return message[:m.start()] + message[m.end():]


# Maildir flag letters (https://cr.yp.to/proto/maildir.html), as mbsync writes them.
MAILDIR_FLAGS = {"D": "\\Draft", "F": "\\Flagged", "R": "\\Answered", "S": "\\Seen",
                 "T": "\\Deleted"}
IMAP_TO_MAILDIR = {v: k for k, v in MAILDIR_FLAGS.items()}


def read_maildir(path):
    """{filename: (flags as a sorted tuple of IMAP names, bytes)} of cur/ and new/."""
    out = {}
    for sub in ("cur", "new"):
        d = os.path.join(path, sub)
        for name in os.listdir(d):
            letters = name.split(":2,", 1)[1] if ":2," in name else ""
            flags = tuple(sorted(MAILDIR_FLAGS[c] for c in letters if c in MAILDIR_FLAGS))
            with open(os.path.join(d, name), "rb") as f:
                out[os.path.join(sub, name)] = (flags, f.read())
    return out


def mbsync_config(path, inst, user, password, maildir, channels, tls=False, fsync=True):
    """Writes an mbsyncrc. `channels` is a list of dicts with name, far, near, state and
    options (extra "Key value" lines). Blank lines end sections in mbsyncrc, so none inside."""
    lines = [] if fsync else ["FSync no", ""]
    lines += ["IMAPAccount far", f"User {user}", f"Pass {password}", "Timeout 120"]
    if tls:
        # mbsync checks only the CN or a DNS SAN, never an IP SAN: connect to "localhost".
        lines += ["Host localhost", f"Port {inst.port('imaps')}", "SSLType IMAPS",
                  f"CertificateFile {inst.cert}"]
    else:
        lines += ["Host 127.0.0.1", f"Port {inst.port('imap')}", "SSLType None",
                  "AuthMechs LOGIN"]
    lines += ["", "IMAPStore far", "Account far", "",
              "MaildirStore near", f"Path {maildir}/", f"Inbox {maildir}/INBOX",
              "SubFolders Verbatim", ""]
    for c in channels:
        os.makedirs(c["state"], exist_ok=True)
        lines += [f"Channel {c['name']}", f"Far :far:{c['far']}", f"Near :near:{c['near']}",
                  f"SyncState {c['state']}/"] + c.get("options", []) + [""]
    with open(path, "w") as f:
        f.write("\n".join(lines))


def mbsync(config, *channels, timeout=300):
    r = run(["mbsync", "-c", config, *channels], timeout=timeout)
    # The only stderr line a clean run may print: the LOGIN-in-the-clear warning.
    noise = [ln for ln in r.stderr.decode(errors="replace").splitlines()
             if ln and "Password is being sent in the clear" not in ln
             and "no UIDVALIDITY, creating new" not in ln]
    if r.returncode != 0 or noise:
        raise AssertionError(f"mbsync {channels} rc={r.returncode}: {r.stderr.decode()}")
    return r


class Tmux:
    """One program in a private tmux server (its own -L socket, so kill-server kills only
    ours), read by screen captures: mutt is a terminal program and has no batch mode."""

    def __init__(self, command, width=160, height=40):
        self.sock = f"darius-test-{os.getpid()}-{time.monotonic_ns()}"
        self.base = ["tmux", "-L", self.sock]
        r = run(self.base + ["new-session", "-d", "-s", "m", "-x", str(width), "-y",
                             str(height), command], timeout=20)
        if r.returncode != 0:
            raise AssertionError(f"tmux: {r.stderr.decode()}")

    def screen(self):
        return run(self.base + ["capture-pane", "-p", "-t", "m"], timeout=20).stdout.decode()

    def keys(self, *keys):
        run(self.base + ["send-keys", "-t", "m", *keys], timeout=20)

    def wait_for(self, pattern, timeout=20):
        """Waits until the screen matches `pattern` (a regex, multiline)."""
        deadline = time.monotonic() + timeout
        while True:
            text = self.screen()
            if re.search(pattern, text, re.M):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"timeout waiting for /{pattern}/ on screen:\n{text}")
            time.sleep(0.1)

    def close(self):
        run(self.base + ["kill-server"], timeout=20)
