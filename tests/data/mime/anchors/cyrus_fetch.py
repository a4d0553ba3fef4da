#!/usr/bin/env python3
"""Prints Cyrus's FETCH (ENVELOPE BODYSTRUCTURE BODY) for message files, offline.

usage: cyrus_fetch.py OUT_JSON FILE...   (as root; needs cyrus-common and Cyrus's imapd, as
                                          bench/anchors/install.sh installs them)
A private Cyrus in a temporary directory: master runs as user cyrus with imapd on a Unix
socket inside that directory (no TCP port, so nothing collides with other servers on this
machine), a sasldb user "test", one APPEND per file into INBOX, then one FETCH per message.
Header munging and 8-bit rejection are off (munge8bit, reject8bit) so Cyrus parses what it
was given. Messages Cyrus refuses at APPEND are put into the spool directly and read by
reconstruct. Writes {file name: raw FETCH response (literals included), or the error} as
JSON. Used only to review lib/mime's output; no test depends on it.
"""
import json, os, re, shutil, signal, socket, subprocess, sys, tempfile, time

BIN = "/usr/lib/cyrus/bin"
PRIVATE = os.environ.get("DARIUS_BENCH_ANCHORS", "/opt/darius-bench") + "/cyrus" + BIN


def find_bin(name):
    for d in (BIN, PRIVATE):
        if os.access(os.path.join(d, name), os.X_OK):
            return os.path.join(d, name)
    sys.exit(f"cyrus {name} not found (bash bench/anchors/install.sh)")


def setup(d):
    for sub in ("conf/db", "conf/log", "conf/proc", "conf/socket", "conf/lock", "conf/sieve",
                "conf/user", "conf/quota", "conf/msg", "conf/ptclient", "conf/sync", "spool", "run"):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    with open(os.path.join(d, "imapd.conf"), "w") as f:
        f.write(f"""configdirectory: {d}/conf
partition-default: {d}/spool
defaultpartition: default
sievedir: {d}/conf/sieve
proc_path: {d}/conf/proc
mboxname_lockpath: {d}/conf/lock
servername: localhost
admins: cyrus
allowplaintext: yes
sasl_mech_list: PLAIN LOGIN
sasl_pwcheck_method: auxprop
sasl_auxprop_plugin: sasldb
sasl_sasldb_path: {d}/sasldb2
unixhierarchysep: yes
altnamespace: yes
autocreate_quota: 0
munge8bit: no
reject8bit: no
maxmessagesize: 0
lmtpsocket: {d}/conf/socket/lmtp
idlesocket: {d}/conf/socket/idle
notifysocket: {d}/conf/socket/notify
syslog_prefix: darius-mime-cyrus
""")
    with open(os.path.join(d, "cyrus.conf"), "w") as f:
        f.write(f"""START {{
  recover cmd="{find_bin('ctl_cyrusdb')} -C {d}/imapd.conf -r"
}}
SERVICES {{
  imap cmd="{find_bin('imapd')} -C {d}/imapd.conf" listen="{d}/conf/socket/imap" prefork=0
}}
EVENTS {{
}}
""")
    subprocess.run(["saslpasswd2", "-p", "-c", "-f", f"{d}/sasldb2", "-u", "localhost", "test"],
                   input=b"test", check=True)
    subprocess.run(["chown", "-R", "cyrus:mail", d], check=True)
    os.chmod(d, 0o755)


class Conn:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.connect(path)
        self.f = self.s.makefile("rb")
        self.n = 0
        self.f.readline()  # greeting

    def line(self):
        """One response line with its literals."""
        out = self.f.readline()
        while out.endswith(b"}\r\n"):
            k = out.rindex(b"{")
            n = int(out[k + 1:-3].rstrip(b"+"))
            out += self.f.read(n) + self.f.readline()
        return out

    def cmd(self, text, literal=None):
        self.n += 1
        tag = b"t%d" % self.n
        if literal is None:
            self.s.sendall(tag + b" " + text + b"\r\n")
        else:
            self.s.sendall(tag + b" " + text + b" {%d}\r\n" % len(literal))
            while True:  # the continuation request, or a refusal; untagged data may come first
                first = self.line()
                if first.startswith(b"+"): break
                if first.startswith(tag + b" "): return [], first
            self.s.sendall(literal + b"\r\n")
        untagged = []
        while True:
            l = self.line()
            if l.startswith(tag + b" "):
                return untagged, l
            untagged.append(l)


def main():
    out_json, files = sys.argv[1], sys.argv[2:]
    d = tempfile.mkdtemp(prefix="darius-mime-cyrus.")
    master = None
    try:
        setup(d)
        master = subprocess.Popen(
            ["setpriv", "--reuid=cyrus", "--regid=mail", "--init-groups", find_bin("master"),
             "-D", "-C", f"{d}/imapd.conf", "-M", f"{d}/cyrus.conf", "-p", f"{d}/run/master.pid"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        sock = f"{d}/conf/socket/imap"
        for _ in range(100):
            if os.path.exists(sock): break
            time.sleep(0.1)
        c = Conn(sock)
        _, r = c.cmd(b"LOGIN test test")
        assert b" OK" in r, r
        c.cmd(b"SELECT INBOX")
        results, uids, refused = {}, {}, []
        for path in files:
            _, r = c.cmd(b"APPEND INBOX", open(path, "rb").read())
            name = os.path.basename(path)
            m = re.search(rb"\[APPENDUID \d+ (\d+)\]", r)
            if m:
                uids[name] = int(m.group(1))
            else:
                refused.append(path)
                results[name] = "APPEND " + r.decode("latin-1").strip()
        if refused:
            # Cyrus refuses some messages at APPEND and LMTP alike (header lines without a
            # colon, NUL bytes). Its parser still reads them when they are put into the spool
            # directly and picked up by reconstruct, which is how their answers are obtained.
            untagged, _ = c.cmd(b"STATUS INBOX (UIDNEXT)")
            uid = int(re.search(rb"UIDNEXT (\d+)", b"".join(untagged)).group(1))
            spool = subprocess.run([find_bin("mbpath"), "-C", f"{d}/imapd.conf", "-u", "test"],
                                   capture_output=True, check=True).stdout.decode().strip()
            for path in refused:
                dest = os.path.join(spool, f"{uid}.")
                shutil.copyfile(path, dest)
                shutil.chown(dest, "cyrus", "mail")
                uids[os.path.basename(path)] = uid
                uid += 1
            c.cmd(b"LOGOUT")
            subprocess.run(["setpriv", "--reuid=cyrus", "--regid=mail", "--init-groups",
                            find_bin("reconstruct"), "-C", f"{d}/imapd.conf", "-q", "-u", "test"],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            c = Conn(sock)
            c.cmd(b"LOGIN test test")
            c.cmd(b"SELECT INBOX")
        for name, uid in uids.items():
            untagged, r = c.cmd(b"UID FETCH %d (ENVELOPE BODYSTRUCTURE BODY)" % uid)
            fetch = [u for u in untagged if b" FETCH (" in u]
            if fetch:
                results[name] = fetch[0].decode("latin-1")
            elif name not in results:
                results[name] = "FETCH " + r.decode("latin-1")
        c.cmd(b"LOGOUT")
        with open(out_json, "w") as f:
            json.dump(results, f, indent=0, sort_keys=True)
    finally:
        if master is not None:
            master.send_signal(signal.SIGTERM)
            try: master.wait(10)
            except subprocess.TimeoutExpired: master.kill(); master.wait()
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
