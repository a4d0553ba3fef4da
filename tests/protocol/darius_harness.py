"""Starts real dariusd instances for protocol tests: `darius init --ephemeral-ports` in a
temporary directory, dariusd in the background, the real ports read from run/listeners."""
import imaplib
import os
import shutil
import signal
import subprocess
import tempfile
import time

BIN = os.environ.get("DARIUS_BIN_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "build"))
DARIUS = os.path.join(BIN, "tools", "darius")
DARIUSD = os.path.join(BIN, "server", "dariusd")


def darius(*args, input=None, check=True):
    r = subprocess.run([DARIUS, *args], capture_output=True, text=True, input=input, timeout=60)
    if check and r.returncode != 0:
        raise AssertionError(f"darius {' '.join(args)} failed ({r.returncode}): {r.stderr}")
    return r


class Instance:
    """One instance directory; start() runs dariusd on it."""

    def __init__(self, user="alice:alice-secret", options=None, port_base=None, keep=False):
        self.dir = tempfile.mkdtemp(prefix="darius-test-")
        self.keep = keep or bool(os.environ.get("DARIUS_KEEP_TEST_DIRS"))
        self.conf = os.path.join(self.dir, "darius.conf")
        self.cert = os.path.join(self.dir, "tls", "cert.pem")
        args = ["init", self.dir, "--user", user]
        args += ["--ephemeral-ports"] if port_base is None else ["--port-base", str(port_base)]
        self.init_output = darius(*args).stdout
        for key, value in (options or {}).items():
            self.set_option(key, value)
        self.proc = None
        self.ports = {}
        self.log_path = os.path.join(self.dir, "dariusd.stderr")

    def set_option(self, key, value):
        """Replaces `key: ...` in darius.conf, or appends it."""
        with open(self.conf) as f:
            lines = f.read().splitlines()
        out, done = [], False
        for line in lines:
            if line.split(":", 1)[0].strip() == key:
                out.append(f"{key}: {value}")
                done = True
            else:
                out.append(line)
        if not done:
            out.append(f"{key}: {value}")
        with open(self.conf, "w") as f:
            f.write("\n".join(out) + "\n")

    def start(self, timeout=20):
        listeners = os.path.join(self.dir, "run", "listeners")
        if os.path.exists(listeners):
            os.unlink(listeners)
        self._log = open(self.log_path, "ab")
        self.proc = subprocess.Popen([DARIUSD, "-C", self.conf], stdout=self._log,
                                     stderr=subprocess.STDOUT)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"dariusd exited with {self.proc.returncode}: {self.log()}")
            if os.path.exists(listeners):
                self.ports = {}
                with open(listeners) as f:
                    for line in f:
                        service, addr = line.split()
                        self.ports.setdefault(service, int(addr.rsplit(":", 1)[1]))
                return self
            time.sleep(0.02)
        raise AssertionError("dariusd did not write run/listeners in time: " + self.log())

    def port(self, service):
        return self.ports[service]

    def log(self):
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def send_signal(self, sig):
        self.proc.send_signal(sig)

    def stop(self, sig=signal.SIGTERM, timeout=20):
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else None
        self.proc.send_signal(sig)
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("dariusd did not stop in time: " + self.log())
        self._log.close()
        return rc

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if not self.keep:
            shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def logout_quietly(m):
    """Cleanup for an imaplib client: LOGOUT if the connection is still there."""
    try:
        m.logout()
    except (OSError, imaplib.IMAP4.error):
        pass
