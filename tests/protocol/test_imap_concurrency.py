"""Many IMAP sessions against one mailbox at once, each checked against what it was told.

Twenty sessions (DARIUS_STRESS_SESSIONS) run for 30 s (DARIUS_STRESS_SECONDS) against one
INBOX while LMTP deliveries arrive: log in, SELECT (a few EXAMINE), FETCH, STORE with
keywords drawn from a growing set, EXPUNGE, APPEND, SEARCH RECENT, LOGOUT, again. Each
session keeps a model of its view, as a client must (RFC 9051 §7.4, §7.5), and every
untagged response is checked against it:

- EXISTS never shrinks the view, EXPUNGE names a message the view has, and no EXPUNGE comes
  during a FETCH, STORE or SEARCH by sequence number (§7.5.1);
- a FETCH names a message the view has, with the UID the view already knew for that number,
  and UIDs ascend with sequence numbers (§2.3.1.1);
- a keyword shows in a FETCH only after a FLAGS response listed it (§7.3.5; RFC 3501 §7.2.6);
- a message is \\Recent to exactly one read-write session (RFC 3501 §2.3.2), including the
  sessions that select while deliveries arrive; EXAMINE only looks. Each session asks
  UID SEARCH RECENT after SELECT and again before LOGOUT, until no new message arrived in
  between, so every claim is known; at the end a last SELECT claims what is left, and every
  message still there must have been recent to someone.

Two watcher sessions stay selected the whole time (reading, storing, expunging, taking
deliveries); at the end their flags for every message must equal what a fresh session sees,
so a keyword that a long-lived session never learnt is found too.

The test also checks that each kind of event happened (deliveries, expunges, keywords
announced in the middle of a session, recent claims), so a run that did nothing cannot pass.
"""
import os
import random
import re
import smtplib
import threading
import time
import unittest

from darius_harness import Instance, logout_quietly  # noqa: F401 (logout_quietly: helpers)
from imap_raw import RawImap

DURATION = float(os.environ.get("DARIUS_STRESS_SECONDS", "30"))
SESSIONS = int(os.environ.get("DARIUS_STRESS_SESSIONS", "20"))
USER, PASSWORD = "alice", "alice-secret"
KEYWORDS = [f"$K{i}" for i in range(60)]  # under the 128 names a mailbox may hold

FETCH_RE = re.compile(rb"^\* (\d+) FETCH \((.*)\)$", re.S)
UID_RE = re.compile(rb"\bUID (\d+)")
FLAGS_RE = re.compile(rb"\bFLAGS \(([^)]*)\)")


class Violation(AssertionError):
    pass


class Shared:
    """What all sessions share: who was shown which UID as \\Recent, the first violations,
    and counters of what happened."""

    def __init__(self):
        self.lock = threading.Lock()
        self.recent_owner = {}  # uid -> connection number of the read-write session
        self.violations = []
        self.kinds = {}  # kind -> how many; the first few of each kind are kept
        self.counts = {}

    def count(self, what, n=1):
        with self.lock:
            self.counts[what] = self.counts.get(what, 0) + n

    def violation(self, kind, text):
        with self.lock:
            self.kinds[kind] = self.kinds.get(kind, 0) + 1
            if self.kinds[kind] <= 3:
                self.violations.append(text)

    def claim_recent(self, uid, conn):
        with self.lock:
            owner = self.recent_owner.setdefault(uid, conn)
            self.counts["recent claims"] = self.counts.get("recent claims", 0) + (owner == conn)
        if owner != conn:
            self.violation("recent", f"UID {uid} shown \\Recent to connection {conn} and to {owner}")


class SessionModel:
    """One connection's view: UIDs by sequence number (None until a FETCH told us), the
    keywords FLAGS has announced, and whether the session may claim \\Recent."""

    def __init__(self, conn, shared, read_write):
        self.conn = conn
        self.shared = shared
        self.read_write = read_write
        self.view = []
        self.keywords = set()
        self.log = []  # the last responses, for the failure message

    def fail(self, kind, text):
        tail = b"\n".join(self.log[-12:]).decode("utf-8", "replace")
        self.shared.violation(kind, f"connection {self.conn}: {text}\n  last responses:\n{tail}")

    def untagged(self, line, command):
        self.log.append(line)
        by_msn = command.split(" ", 1)[0].upper() in ("FETCH", "STORE", "SEARCH")
        if m := re.match(rb"^\* (\d+) EXISTS$", line):
            n = int(m.group(1))
            if n < len(self.view):
                self.fail("exists", f"EXISTS {n} below the {len(self.view)} messages in the view")
            self.view.extend([None] * (n - len(self.view)))
        elif m := re.match(rb"^\* (\d+) EXPUNGE$", line):
            n = int(m.group(1))
            if by_msn:
                self.fail("expunge held", f"EXPUNGE {n} during {command!r}")
            if not 1 <= n <= len(self.view):
                self.fail("expunge range", f"EXPUNGE {n} of a view of {len(self.view)}")
            else:
                del self.view[n - 1]
                self.shared.count("expunges seen")
        elif m := re.match(rb"^\* FLAGS \((.*)\)$", line):
            self.keywords = {f.lower() for f in m.group(1).split() if not f.startswith(b"\\")}
            if command.split(" ", 1)[0].upper() not in ("SELECT", "EXAMINE"):
                self.shared.count("keywords announced mid-session")
        elif m := FETCH_RE.match(line):
            self.fetch(int(m.group(1)), m.group(2))
        elif line.startswith(b"* SEARCH") and command.upper().startswith("UID SEARCH RECENT"):
            for uid in line.split()[2:]:
                if self.read_write:
                    self.shared.claim_recent(int(uid), self.conn)

    def fetch(self, msn, items):
        if not 1 <= msn <= len(self.view):
            self.fail("fetch range", f"FETCH for message {msn} of a view of {len(self.view)}")
            return
        uid = None
        if m := UID_RE.search(items):
            uid = int(m.group(1))
            known = self.view[msn - 1]
            if known is not None and known != uid:
                self.fail("uid changed", f"message {msn} was UID {known}, now FETCH says UID {uid}")
            self.view[msn - 1] = uid
            lower = [u for u in self.view[:msn - 1] if u is not None]
            higher = [u for u in self.view[msn:] if u is not None]
            if (lower and lower[-1] >= uid) or (higher and higher[0] <= uid):
                self.fail("uid order", f"UID {uid} at {msn} out of order in the view")
        if m := FLAGS_RE.search(items):
            for flag in m.group(1).split():
                if flag.startswith(b"\\"):
                    if flag.lower() == b"\\recent" and self.read_write and uid is not None:
                        self.shared.claim_recent(uid, self.conn)
                    continue
                if flag.lower() not in self.keywords:
                    self.fail("keyword", f"FETCH shows keyword {flag.decode()} before any FLAGS listed it")


class Client:
    """One session: a RawImap whose every response goes through the model."""

    def __init__(self, port, conn, shared, rng):
        self.imap = RawImap(port, timeout=30)
        self.rng = rng
        self.shared = shared
        self.model = None
        self.conn = conn

    def run(self, command, literal=None):
        tag = self.imap.next_tag()
        if literal is None:
            self.imap.send(f"{tag} {command}\r\n")
        else:
            self.imap.send(f"{tag} {command} {{{len(literal)}+}}\r\n".encode() + literal + b"\r\n")
        untagged, tagged = self.imap.collect(tag, timeout=30)
        for line in untagged:
            if self.model is not None:
                self.model.untagged(line, command)
        if self.model is not None:
            self.model.log.append(tagged)
        self.shared.count("commands")
        status = tagged.split(b" ", 2)[1] if b" " in tagged else b""
        if status == b"BAD":
            self.shared.violation("bad", f"connection {self.conn}: {command!r} answered {tagged!r}")
        return status, untagged

    def open(self, examine):
        status, _ = self.run(f'LOGIN "{USER}" "{PASSWORD}"')
        if status != b"OK":
            self.shared.violation("login", f"LOGIN failed: {status!r}")
            return False
        self.model = SessionModel(self.conn, self.shared, read_write=not examine)
        status, _ = self.run("EXAMINE INBOX" if examine else "SELECT INBOX")
        if status != b"OK":
            self.shared.violation("select", f"connection {self.conn}: SELECT failed")
            return False
        self.learn_recent()
        return True

    def learn_recent(self):
        """UID SEARCH RECENT until no new message arrived with the answer: a session claims
        \\Recent only for new messages, and every new one comes with an EXISTS, so once an
        answer brings none, the result holds every message this session has claimed."""
        for _ in range(50):
            _, untagged = self.run("UID SEARCH RECENT")
            if not any(re.match(rb"^\* \d+ EXISTS$", u) for u in untagged):
                return
        self.shared.violation("recent", f"connection {self.conn}: new messages never stopped")

    def session(self, deadline):
        rng = self.rng
        examine = rng.random() < 0.15
        if not self.open(examine):
            return
        for _ in range(rng.randint(5, 40)):
            if time.time() > deadline:
                break
            self.step(examine)
        self.learn_recent()
        self.run("LOGOUT")

    def flags_by_uid(self):
        """{uid: flags without \\Recent} for every message, from UID FETCH 1:* (FLAGS)."""
        _, untagged = self.run("UID FETCH 1:* (FLAGS)")
        out = {}
        for line in untagged:
            if (m := FETCH_RE.match(line)) and (u := UID_RE.search(m.group(2))):
                f = FLAGS_RE.search(m.group(2))
                out[int(u.group(1))] = sorted(x.lower() for x in (f.group(1).split() if f else [])
                                              if x.lower() != b"\\recent")
        return out

    def step(self, examine):
        rng = self.rng
        n = len(self.model.view)
        r = rng.random()
        if r < 0.25 and n:
            a = rng.randint(1, n)
            self.run(f"FETCH {a}:{min(n, a + rng.randint(0, 30))} (UID FLAGS)")
        elif r < 0.35:
            self.run("UID FETCH 1:* (FLAGS)")
        elif r < 0.60 and n and not examine:
            a = rng.randint(1, n)
            flag = rng.choice(KEYWORDS[: 5 + int(55 * self.progress())] + ["\\Seen", "\\Flagged"])
            op = rng.choice(["+FLAGS", "-FLAGS", "+FLAGS.SILENT"])
            uid = rng.random() < 0.3
            self.run(f"{'UID ' if uid else ''}STORE {a}:{min(n, a + 3)} {op} ({flag})")
            self.shared.count("stores")
        elif r < 0.68 and n and not examine:
            # Keep the mailbox small: delete a few, sometimes many, then expunge.
            count = n // 2 if n > 150 else min(n, rng.randint(1, 3))
            a = rng.randint(1, n - count + 1)
            self.run(f"STORE {a}:{a + count - 1} +FLAGS.SILENT (\\Deleted)")
            status, _ = self.run("EXPUNGE")
            if status == b"OK":
                self.shared.count("expunge commands")
        elif r < 0.78 and not examine:
            kw = " ".join(rng.sample(KEYWORDS[: 5 + int(55 * self.progress())], 2))
            body = (f"From: stress@example.org\r\nSubject: append {rng.random()}\r\n\r\n"
                    f"from connection {self.conn}\r\n").encode()
            self.run(f"APPEND INBOX ({kw})", literal=body)
            self.shared.count("appends")
        elif r < 0.88:
            self.run("UID SEARCH RECENT")
        else:
            self.run("NOOP")

    def progress(self):
        return min(1.0, (time.time() - self.shared.start) / max(DURATION, 1))


class ConcurrencyTest(unittest.TestCase):
    def test_many_sessions_keep_the_protocol_invariants(self):
        with Instance(user=f"{USER}:{PASSWORD}") as inst:
            inst.start()
            shared = Shared()
            shared.start = time.time()
            deadline = shared.start + DURATION
            errors = []

            def worker(seed):
                rng = random.Random(seed)
                conn = seed * 100000
                try:
                    while time.time() < deadline:
                        conn += 1
                        client = Client(inst.port("imap"), conn, shared, rng)
                        try:
                            client.session(deadline)
                        finally:
                            client.imap.close()
                except Exception as e:  # a hang or a dropped connection is a failure too
                    errors.append(f"worker {seed}: {type(e).__name__}: {e}")

            quiet = threading.Event()
            settled = threading.Barrier(2, timeout=120)  # both watchers' last writes are done
            watched = {}

            def watcher(seed):
                """One session for the whole run, then its flags for every message."""
                rng = random.Random(seed)
                client = Client(inst.port("imap"), seed * 100000, shared, rng)
                try:
                    if not client.open(examine=False):
                        return
                    while not quiet.is_set():
                        n = len(client.model.view)
                        r = rng.random()
                        if r < 0.5:
                            client.run("NOOP")
                        elif r < 0.7 and n:
                            client.run(f"FETCH 1:{n} (UID FLAGS)")
                        elif r < 0.85 and n:
                            kw = rng.choice(KEYWORDS[: 5 + int(55 * client.progress())])
                            client.run(f"UID STORE {rng.randint(1, 10 ** 6)}:* +FLAGS ({kw})")
                        elif n:
                            client.run(f"STORE {rng.randint(1, n)} +FLAGS.SILENT (\\Deleted)")
                            client.run("EXPUNGE")
                        client.learn_recent()
                        time.sleep(rng.uniform(0.01, 0.1))
                    settled.wait()
                    client.run("NOOP")
                    watched[seed] = client.flags_by_uid()
                    client.run("LOGOUT")
                except Exception as e:
                    errors.append(f"watcher {seed}: {type(e).__name__}: {e}")
                finally:
                    client.imap.close()

            def deliverer():
                rng = random.Random(7)
                try:
                    lmtp = smtplib.LMTP("127.0.0.1", inst.port("lmtp"), timeout=30)
                    i = 0
                    while time.time() < deadline:
                        i += 1
                        msg = (f"From: lmtp@example.org\r\nTo: {USER}@localhost\r\n"
                               f"Subject: delivery {i}\r\n\r\nbody {i}\r\n")
                        lmtp.sendmail("lmtp@example.org", [f"{USER}@localhost"], msg)
                        shared.count("deliveries")
                        time.sleep(rng.uniform(0.005, 0.05))
                    lmtp.quit()
                except Exception as e:
                    errors.append(f"deliverer: {type(e).__name__}: {e}")

            threads = [threading.Thread(target=worker, args=(s + 1,)) for s in range(SESSIONS)]
            threads.append(threading.Thread(target=deliverer))
            watchers = [threading.Thread(target=watcher, args=(SESSIONS + 1 + i,)) for i in range(2)]
            for t in threads + watchers:
                t.start()
            for t in threads:
                t.join(DURATION + 120)
            quiet.set()
            for t in watchers:
                t.join(120)
            self.assertFalse(any(t.is_alive() for t in threads + watchers), "a session hung")
            self.assertEqual(errors, [], "\n".join(errors) + "\n" + inst.log()[-3000:])

            # Now that nothing changes: a last SELECT claims whatever nobody has; then every
            # message is recent to someone, and the watchers' flags are a fresh session's.
            last = Client(inst.port("imap"), 10 ** 9, shared, random.Random(0))
            try:
                self.assertTrue(last.open(examine=False))
                final = last.flags_by_uid()
            finally:
                last.imap.close()
            unclaimed = sorted(set(final) - set(shared.recent_owner))
            if unclaimed:
                shared.violation("recent", f"\\Recent to no session: UIDs {unclaimed[:20]}")
            for seed, flags in watched.items():
                differ = {u: (flags.get(u), f) for u, f in final.items() if flags.get(u) != f}
                if differ:
                    shared.violation("watcher", f"watcher {seed} differs from a fresh session "
                                     f"(watcher, fresh): {dict(list(differ.items())[:10])}")
            self.assertEqual(len(watched), 2, "a watcher did not finish")
            self.assertEqual(shared.violations, [],
                             f"{shared.kinds}\n\n" + "\n\n".join(shared.violations))
            counts = shared.counts
            print(f"\n{SESSIONS} sessions, {DURATION:.0f} s: {counts}")
            for what in ("deliveries", "appends", "stores", "expunge commands", "expunges seen",
                         "keywords announced mid-session", "recent claims"):
                self.assertGreater(counts.get(what, 0), 0, f"no {what} happened: {counts}")


if __name__ == "__main__":
    unittest.main()
