"""bench/servers.py: private server instances for the benchmark runner.

A ServerInstance sets up one fresh private instance of Darius, Dovecot or Cyrus in its own
directory (through bench/anchors/<name>.sh setup), starts it in the foreground as a child
in its own process group (the script execs the server, so the child's pid is the server's
master pid, which the load client uses to find the whole process tree in /proc), waits
until its IMAP, POP3 and LMTP ports accept connections, and stops it: SIGTERM to the
group, then SIGKILL after a grace period, then a check that the ports are free again.

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
PORT_BASES = {"darius": 21000, "dovecot": 22000, "cyrus": 23000}
_live = []


def port_open(port, host="127.0.0.1"):
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


class ServerError(Exception):
    """The server could not be set up or started: every row of it fails with this."""


class ServerInstance:
    def __init__(self, name, workdir, users, darius_build):
        self.name = name
        self.dir = os.path.join(workdir, name)
        self.users = users
        self.build = darius_build
        base = PORT_BASES[name]
        self.imap, self.pop3, self.lmtp = base + 143, base + 110, base + 24
        self.proc = None
        self.log_path = os.path.join(workdir, f"{name}.log")

    def _script(self):
        return os.path.join(HERE, "anchors", f"{self.name}.sh")

    def setup(self):
        for p in (self.imap, self.pop3, self.lmtp):
            if port_open(p):
                raise ServerError(f"port {p} already in use (a stale instance?)")
        if os.path.exists(self.dir):
            shutil.rmtree(self.dir)
        args = ["bash", self._script(), "setup", self.dir, str(PORT_BASES[self.name]), str(self.users)]
        if self.name == "darius":
            args.append(self.build)
        r = subprocess.run(args, capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            raise ServerError(f"setup failed: {(r.stderr or r.stdout).strip()[-300:]}")

    def start(self, timeout=30):
        args = ["bash", self._script(), "run", self.dir]
        if self.name == "darius":
            args.append(self.build)
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     start_new_session=True)
        log.close()
        _live.append(self)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise ServerError(f"exited with status {self.proc.returncode} at start: {self.log_tail()}")
            if all(port_open(p) for p in (self.imap, self.pop3, self.lmtp)):
                return
            time.sleep(0.2)
        raise ServerError(f"ports not open after {timeout} s: {self.log_tail()}")

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
        deadline = time.time() + 10
        while time.time() < deadline and any(port_open(p) for p in (self.imap, self.pop3, self.lmtp)):
            time.sleep(0.2)

    def remove(self):
        shutil.rmtree(self.dir, ignore_errors=True)


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
