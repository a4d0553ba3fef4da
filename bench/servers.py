"""bench/servers.py: private server instances for the benchmark runner.

A ServerInstance sets up one fresh private instance of Darius, Dovecot or Cyrus in its own
directory (through bench/anchors/<name>.sh setup), starts it in the foreground as a child
in its own process group (the script execs the server, so the child's pid is the server's
master pid, which the load client uses to find the whole process tree in /proc), waits
until its IMAP, POP3 and LMTP ports accept connections and are served by that process group,
and stops it: SIGTERM to the group, then SIGKILL after a grace period, until the group is
gone.

Ports: nothing is fixed, so the bench cannot collide with whatever else runs on the machine.
Darius is set up with `darius init --ephemeral-ports` (every port 0) and its real ports are
read from DIR/run/listeners, which dariusd writes once it has bound them. Dovecot and Cyrus
cannot report a port 0, so setup finds free ports (bind port 0 on 127.0.0.1, read the port,
close) and writes them into their configuration. Another program may take such a port
between setup and start; start() then finds the port served by a process outside the
instance's process group (or the anchor's bind fails and it exits) and raises ServerError,
so that server's rows fail instead of measuring someone else.

Ownership: the runner owns every instance and must call stop() (it does, in a finally
block and from its signal handlers, through stop_all()). Not thread-safe: the runner is
single-threaded. Only processes this module started are ever signalled, by their pid or
process group id.
"""
import os
import shutil
import signal
import socket
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SERVERS = ("darius", "dovecot", "cyrus")
_live = []


def port_open(port, host="127.0.0.1"):
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def free_ports(n, host="127.0.0.1"):
    """n distinct ports that were free on host a moment ago: bound to port 0 all at once (so
    the kernel gives n different ones), read, closed. Someone may take one before the server
    binds it; ServerInstance.start() detects that."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind((host, 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def listening_sockets(port):
    """{socket inode: local address (hex, as in /proc/net/tcp*)} of the TCP sockets in LISTEN
    state on `port`, IPv4 and IPv6, any address."""
    out = {}
    for path in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(path) as f:
                next(f, None)
                for line in f:
                    parts = line.split()
                    if len(parts) < 10 or parts[3] != "0A":  # 0A: TCP_LISTEN
                        continue
                    addr, p = parts[1].rsplit(":", 1)
                    if int(p, 16) == port:
                        out[int(parts[9])] = addr
        except OSError:
            continue
    return out


def _proc_stat(pid):
    """(comm, ppid, pgrp) of pid, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            s = f.read()
    except OSError:
        return None
    comm = s[s.index("(") + 1:s.rindex(")")]
    rest = s[s.rindex(")") + 2:].split()
    return comm, int(rest[1]), int(rest[2])


def socket_owners(inodes):
    """{inode: [(pid, comm, ppid, pgrp)]} of the processes (visible to this user) that hold
    a descriptor of one of these sockets."""
    want = {f"socket:[{i}]": i for i in inodes}
    owners = {i: [] for i in inodes}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fds = os.listdir(f"/proc/{entry}/fd")
        except OSError:
            continue
        found = set()
        for fd in fds:
            try:
                link = os.readlink(f"/proc/{entry}/fd/{fd}")
            except OSError:
                continue
            if link in want:
                found.add(want[link])
        if found:
            st = _proc_stat(int(entry))
            if st is None:
                continue
            for i in found:
                owners[i].append((int(entry), st[0], st[1], st[2]))
    return owners


def _in_tree(pid, ppid, pgrp, root):
    """Whether a process belongs to the instance whose master is `root`: in its process
    group (start_new_session made root the leader) or descended from it."""
    if pid == root or pgrp == root:
        return True
    seen = 0
    while ppid > 1 and seen < 64:
        if ppid == root:
            return True
        st = _proc_stat(ppid)
        if st is None:
            return False
        ppid = st[1]
        seen += 1
    return False


def tree_pids(root):
    """The pids of the instance whose master is `root` (its process group and descendants),
    root first: what strace attaches to (delivery_rows.sync_pass)."""
    out = [root]
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == root:
            continue
        st = _proc_stat(int(entry))
        if st is not None and _in_tree(int(entry), st[1], st[2], root):
            out.append(int(entry))
    return out


def foreign_listeners(port, root):
    """Why `port` is not served by the instance whose master pid is `root` alone, or None
    when it is: every socket listening on the port is held by that instance's processes."""
    socks = listening_sockets(port)
    if not socks:
        return f"nothing listens on port {port}"
    owners = socket_owners(socks)
    ours, others = 0, []
    for inode, procs in owners.items():
        if any(_in_tree(pid, ppid, pgrp, root) for pid, _, ppid, pgrp in procs):
            ours += 1
        elif procs:
            others += [f"pid {pid} ({comm})" for pid, comm, _, _ in procs]
        else:
            others.append("a process this user cannot see")
    if others:
        who = ", ".join(sorted(set(others)))
        return f"port {port} is also served by {who}" if ours else f"port {port} is served by {who}, not by this instance"
    return None


class ServerError(Exception):
    """The server could not be set up or started: every row of it fails with this."""


class ServerInstance:
    """variant names a second instance of the same server in the same round (its directory
    and log are `<name>-<variant>`); env adds variables to the anchor script's setup (the
    features of bench/anchors/*.sh: BENCH_ACL_QUOTA, BENCH_PUBLIC)."""

    def __init__(self, name, workdir, users, darius_build, variant=None, env=None):
        if name not in SERVERS:
            raise ValueError(f"unknown server {name}")
        self.name = name
        base = name if not variant else f"{name}-{variant}"
        self.dir = os.path.join(workdir, base)
        self.users = users
        self.build = darius_build
        self.env = dict(env or {})
        # Darius: known once dariusd has bound them (run/listeners); anchors: found at setup.
        self.imap = self.pop3 = self.lmtp = None
        self.proc = None
        self.log_path = os.path.join(workdir, f"{base}.log")

    def _script(self):
        return os.path.join(HERE, "anchors", f"{self.name}.sh")

    def ports(self):
        return [p for p in (self.imap, self.pop3, self.lmtp) if p]

    def setup(self):
        if os.path.exists(self.dir):
            shutil.rmtree(self.dir)
        args = ["bash", self._script(), "setup", self.dir, str(self.users)]
        if self.name == "darius":
            args.append(self.build)
        else:
            self.imap, self.pop3, self.lmtp = free_ports(3)
            args += [str(self.imap), str(self.pop3), str(self.lmtp)]
        r = subprocess.run(args, capture_output=True, text=True, timeout=300, env={**os.environ, **self.env})
        if r.returncode != 0:
            raise ServerError(f"setup failed: {(r.stderr or r.stdout).strip()[-300:]}")

    def _listeners_file(self):
        return os.path.join(self.dir, "run", "listeners")

    def _read_listeners(self):
        """dariusd's bound addresses: one `service address:port` per line."""
        ports = {}
        with open(self._listeners_file()) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2:
                    ports.setdefault(parts[0], int(parts[1].rsplit(":", 1)[1]))
        missing = [s for s in ("imap", "pop3", "lmtp") if not ports.get(s)]
        if missing:
            raise ServerError(f"run/listeners names no {', '.join(missing)} port: {ports}")
        self.imap, self.pop3, self.lmtp = ports["imap"], ports["pop3"], ports["lmtp"]

    def start(self, timeout=30):
        args = ["bash", self._script(), "run", self.dir]
        if self.name == "darius":
            args.append(self.build)
            try:
                os.unlink(self._listeners_file())
            except FileNotFoundError:
                pass
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     start_new_session=True)
        log.close()
        _live.append(self)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise ServerError(f"exited with status {self.proc.returncode} at start: {self.log_tail()}")
            if self.name == "darius" and self.imap is None:
                if os.path.exists(self._listeners_file()):
                    self._read_listeners()
                else:
                    time.sleep(0.1)
                    continue
            if all(port_open(p) for p in self.ports()):
                # A port that accepts is not enough: another program may own it (taken between
                # setup and start, the anchor's bind failed and it carried on without it).
                for p in self.ports():
                    why = foreign_listeners(p, self.proc.pid)
                    if why:
                        raise ServerError(why)
                return
            time.sleep(0.2)
        what = "run/listeners not written" if self.name == "darius" and self.imap is None else "ports not open"
        raise ServerError(f"{what} after {timeout} s: {self.log_tail()}")

    @property
    def pid(self):
        return self.proc.pid if self.proc else 0

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def log_tail(self, n=300):
        try:
            with open(self.log_path, "rb") as f:
                f.seek(0, 2)
                f.seek(max(0, f.tell() - n))
                return f.read().decode(errors="replace").strip().replace("\n", " | ")
        except OSError:
            return ""

    def stop(self, grace=20):
        if self.proc is None:
            return
        pgid = self.proc.pid  # start_new_session: the server leads its own group
        try:
            os.killpg(pgid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            self.proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
        # Children (Dovecot's and Cyrus's per-session processes) may outlive the master.
        deadline = time.time() + grace
        while time.time() < deadline and _group_alive(pgid):
            time.sleep(0.2)
        if _group_alive(pgid):
            try:
                os.killpg(pgid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self.proc = None
        if self in _live:
            _live.remove(self)
        # No wait for the ports: the next instance gets ports of its own.

    def remove(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def provision_dovecot_public(self, names_rights):
        """Dovecot's public folders, made on disk the way a Dovecot admin provisions them (its
        IMAP has no admin who could CREATE them): one Maildir++ folder `.<name>` under
        DIR/public per mailbox, with a `dovecot-acl` file of `user=<id> <rights>` lines,
        owned by the mail user the instance runs as. names_rights: [(name, [(id, rights)])].
        Call between setup() and start()."""
        import pwd
        mail = pwd.getpwnam("mail")
        root = os.path.join(self.dir, "public")
        os.makedirs(root, exist_ok=True)
        os.chown(root, mail.pw_uid, mail.pw_gid)
        for name, entries in names_rights:
            d = os.path.join(root, "." + name)
            os.mkdir(d)
            for sub in ("cur", "new", "tmp"):
                os.mkdir(os.path.join(d, sub))
                os.chown(os.path.join(d, sub), mail.pw_uid, mail.pw_gid)
            acl = os.path.join(d, "dovecot-acl")
            with open(acl, "w") as f:
                f.write("".join(f"user={who} {rights}\n" for who, rights in entries))
            os.chown(acl, mail.pw_uid, mail.pw_gid)
            os.chown(d, mail.pw_uid, mail.pw_gid)

    # --- Issue 18's rows (runner.run_expire) ---

    def expire_command(self, user):
        """The shell command that removes `user`'s expunged messages for good (phase two of
        two-phase expunge), or None when the server has no such phase (Dovecot: its EXPUNGE
        removes the files). Darius: `darius expire --now`, which opens the store beside the
        running dariusd and takes the same locks; Cyrus: `cyr_expire -X 0` for that user, as
        user cyrus (its tools refuse root)."""
        if self.name == "darius":
            return (f"exec {self.build}/tools/darius expire -C {self.dir}/darius.conf --user {user} "
                    "--now --json")
        if self.name == "cyrus":
            return f"exec {CYRUS_AS} {cyrus_bin('cyr_expire')} -C {self.dir}/imapd.conf -X 0 -u {user} -v"
        return None

    def undelete_command(self):
        """Cyrus's undelete of a user's expunged INBOX messages, `unexpunge -a -d` (%u: the
        user): it restores them in place with new UIDs and without \\Deleted, as Darius's COPY
        out of `.EXPUNGED/INBOX` does over IMAP."""
        if self.name == "cyrus":
            return f"exec {CYRUS_AS} {cyrus_bin('unexpunge')} -C {self.dir}/imapd.conf -a -d user/%u"
        return None

    def message_files(self):
        """How many message files the instance's store holds: Darius and Cyrus keep one file
        `UID.` per message (expunged ones too until expire), Dovecot's Maildir one per message
        in cur/ or new/."""
        n = 0
        for root, _dirs, files in os.walk(self.dir):
            if self.name == "dovecot":
                if os.path.basename(root) in ("cur", "new"):
                    n += len(files)
            else:
                n += sum(1 for f in files if f.endswith(".") and f[:-1].isdigit())
        return n

    def provision_cyrus_messages(self, users, corpus_dir, per_user, offset=0):
        """Cyrus only: `per_user` corpus messages into each user's INBOX (which must exist: a
        first LMTP delivery makes it), written as message files `UID.` after the mailbox's last
        one and taken into its index by `reconstruct`, as an administrator restores a spool.
        Cyrus delivers into one mailbox at 30-350 messages a second here (bench/README.md, trap
        14), so the 100,000 of the expire row would take up to an hour; this takes about two
        minutes. The files are the corpus's bytes (CRLF), like a delivery's, each its own inode;
        the disk is synced afterwards. Call while the instance runs."""
        import pwd
        import grp
        uid, gid = pwd.getpwnam("cyrus").pw_uid, grp.getgrnam("mail").gr_gid
        import mmap
        # Mapped, not read: the search rows' corpus of 100,000 messages is 1.7 GB.
        with open(os.path.join(corpus_dir, "messages.bin"), "rb") as f:
            data = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
        with open(os.path.join(corpus_dir, "index.tsv")) as f:
            index = [tuple(map(int, line.split())) for line in f if line.strip()]
        conf = os.path.join(self.dir, "imapd.conf")
        mailboxes = []
        for user in users:
            mbox = f"user/{user}"
            r = subprocess.run(CYRUS_AS.split() + [cyrus_bin("mbpath"), "-C", conf, mbox],
                               capture_output=True, text=True, timeout=60)
            path = r.stdout.strip().splitlines()[-1] if r.returncode == 0 and r.stdout.strip() else ""
            if not os.path.isdir(path):
                raise ServerError(f"mbpath {mbox}: {(r.stderr or r.stdout).strip()[-200:]}")
            last = max((int(f[:-1]) for f in os.listdir(path) if f.endswith(".") and f[:-1].isdigit()),
                       default=0)
            for k in range(per_user):
                off, size = index[(offset + k) % len(index)]
                name = os.path.join(path, f"{last + 1 + k}.")
                fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                try:
                    os.write(fd, data[off:off + size])
                    os.fchown(fd, uid, gid)
                finally:
                    os.close(fd)
            mailboxes.append(mbox)
        data.close()
        r = subprocess.run(CYRUS_AS.split() + [cyrus_bin("reconstruct"), "-C", conf] + mailboxes,
                           capture_output=True, text=True, timeout=3600)
        if r.returncode != 0:
            raise ServerError(f"reconstruct: {(r.stderr or r.stdout).strip()[-300:]}")
        os.sync()


    # --- Issue 19's rows (search_rows.run_search) ---

    def index_commands(self, user):
        """(preparation, timed) shell commands that build `user`'s full-text index from a
        standing start, or None when there is none: Darius `darius search index --all`
        (every mailbox), Cyrus `squatter` on the user's INBOX (as user cyrus), Dovecot `doveadm
        fts rescan` (untimed: it only marks the index for rebuilding) and `doveadm index`."""
        if self.name == "darius":
            return [], f"exec {self.build}/tools/darius search index --all -C {self.dir}/darius.conf"
        if self.name == "cyrus":
            return [], f"exec {CYRUS_AS} {cyrus_bin('squatter')} -C {self.dir}/imapd.conf user/{user}"
        conf = os.path.join(self.dir, "dovecot.conf")
        return [f"doveadm -c {conf} fts rescan -u {user}"], f"exec doveadm -c {conf} index -u {user} INBOX"

    def search_index_bytes(self):
        """Bytes in the instance's full-text index files: Darius's `darius.search*` in each
        mailbox directory, Cyrus's `cyrus.squat`, Dovecot's fts-xapian databases (under
        `xapian-indexes` in the user's home)."""
        n = 0
        for root, _dirs, files in os.walk(self.dir):
            for f in files:
                if (self.name == "darius" and f.startswith("darius.search")) or \
                        (self.name == "cyrus" and f.startswith("cyrus.squat")) or \
                        (self.name == "dovecot" and "xapian-indexes" in root):
                    try:
                        n += os.lstat(os.path.join(root, f)).st_size
                    except OSError:
                        pass
        return n

    def provision_dovecot_messages(self, user, corpus_dir, count):
        """Dovecot only: corpus messages 0..count-1 into `user`'s INBOX as Maildir files in
        `new/` (`<time>.M<k>.bench,S=<size>`, owned by the mail user), as an administrator
        restores a spool; Dovecot takes them in at the next SELECT. For the search rows'
        100,000, which its LMTP delivers into one mailbox at about 200 msg/s here (8 minutes).
        The corpus is mapped, not read."""
        import mmap
        import pwd
        mail = pwd.getpwnam("mail")
        md = os.path.join(self.dir, "home", user, "Maildir")
        for d in (os.path.join(self.dir, "home", user), md, *(os.path.join(md, x) for x in ("cur", "new", "tmp"))):
            os.makedirs(d, exist_ok=True)
            os.chown(d, mail.pw_uid, mail.pw_gid)
        with open(os.path.join(corpus_dir, "index.tsv")) as f:
            index = [tuple(map(int, line.split())) for _, line in zip(range(count), f)]
        now = int(time.time())
        with open(os.path.join(corpus_dir, "messages.bin"), "rb") as f:
            data = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
            try:
                for k, (off, size) in enumerate(index):
                    # Maildir keeps LF line ends on disk; Dovecot adds the CRs back (its W= size).
                    body = data[off:off + size].replace(b"\r\n", b"\n")
                    name = os.path.join(md, "new", f"{now}.M{k}.bench,S={len(body)}")
                    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                    try:
                        os.write(fd, body)
                        os.fchown(fd, mail.pw_uid, mail.pw_gid)
                    finally:
                        os.close(fd)
            finally:
                data.close()
        os.sync()

    def set_conf(self, key, value):
        """Darius only: rewrites `key: value` in darius.conf (the instance is stopped)."""
        path = os.path.join(self.dir, "darius.conf")
        with open(path) as f:
            lines = [l for l in f.read().splitlines() if not l.startswith(key + ":")]
        with open(path, "w") as f:
            f.write("\n".join(lines + [f"{key}: {value}"]) + "\n")


def darius_search_support(build):
    """(has `darius search index`, has the `search_index` option) of the Darius in `build`:
    the search index is written on another branch, and the rows say n/a until it is here."""
    darius = os.path.join(build, "tools", "darius")
    try:
        r = subprocess.run([darius, "search", "index", "--help"], capture_output=True, text=True, timeout=30)
        has_cmd = r.returncode == 0 and "--all" in r.stdout
        d = subprocess.run([darius, "config", "docs"], capture_output=True, text=True, timeout=30)
        has_opt = "search_index" in d.stdout
    except (OSError, subprocess.TimeoutExpired):
        return False, False
    return has_cmd, has_opt


# Cyrus's tools refuse to run as root: they run as its user (bench/anchors/cyrus.sh chowns
# the instance to cyrus:mail). setpriv, not runuser: no PAM session, a few ms less per run.
CYRUS_AS = "setpriv --reuid=cyrus --regid=mail --init-groups"


def cyrus_bin(name):
    """A Cyrus program, where bench/anchors/cyrus.sh's find_bin looks: the system's
    /usr/lib/cyrus/bin, else the private unpack of bench/anchors/install.sh."""
    sys_bin = "/usr/lib/cyrus/bin"
    for d in (sys_bin, os.path.join(os.environ.get("DARIUS_BENCH_ANCHORS", "/opt/darius-bench"), "cyrus" + sys_bin)):
        if os.access(os.path.join(d, name), os.X_OK):
            return os.path.join(d, name)
    raise ServerError(f"cyrus {name} not found (bash bench/anchors/install.sh)")


def _group_alive(pgid):
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def stop_all():
    for inst in list(_live):
        inst.stop(grace=5)
