"""The foundation issue's "done when", end to end against the real binaries: init, start,
metrics over curl, config errors, users added beside a running server, signals, run files."""
import os
import signal
import socket
import subprocess
import time
import unittest

from darius_harness import DARIUSD, Instance, darius


def http_raw(port, data, timeout=10):
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        out = b""
        while chunk := s.recv(65536):
            out += chunk
        return out


class FoundationTest(unittest.TestCase):
    def setUp(self):
        self.inst = Instance()
        self.addCleanup(self.inst.close)

    def test_metrics_with_curl(self):
        self.inst.start()
        url = f"http://127.0.0.1:{self.inst.port('metrics')}/metrics"
        r = subprocess.run(["curl", "-sS", "--max-time", "10", url], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("# TYPE darius_uptime_seconds gauge", r.stdout)
        self.assertIn('darius_connections_total{service="metrics"} 1', r.stdout)
        self.assertIn("darius_connections_active", r.stdout)
        r2 = subprocess.run(["curl", "-sS", url], capture_output=True, text=True)
        # The first scrape counted itself; the second sees both.
        self.assertIn('darius_commands_total{service="metrics",command="GET"} 2', r2.stdout)

    def test_metrics_endpoint_rejects_bad_requests(self):
        self.inst.start()
        port = self.inst.port("metrics")
        self.assertTrue(http_raw(port, b"BREW /coffee HTCPCP/1.0\r\n\r\n").startswith(b"HTTP/1.1 505"))
        self.assertTrue(http_raw(port, b"garbage\r\n\r\n").startswith(b"HTTP/1.1 400"))
        self.assertTrue(http_raw(port, b"GET /" + b"a" * 20000 + b" HTTP/1.1\r\n\r\n")
                        .startswith(b"HTTP/1.1 431"))
        self.assertTrue(http_raw(port, b"POST /metrics HTTP/1.1\r\n\r\n").startswith(b"HTTP/1.1 405"))
        self.assertTrue(http_raw(port, b"GET /nope HTTP/1.1\r\n\r\n").startswith(b"HTTP/1.1 404"))
        # The server is still fine.
        self.assertIn(b"darius_uptime_seconds", http_raw(port, b"GET /metrics HTTP/1.0\r\n\r\n"))

    def test_config_typo_is_one_line_naming_file_line_and_key(self):
        with open(self.inst.conf, "a") as f:
            f.write("imap_lisen: 127.0.0.1:1143\n")
        lines = open(self.inst.conf).read().splitlines()
        r = subprocess.run([DARIUSD, "-C", self.inst.conf], capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(r.returncode, 78)
        err = r.stderr.strip().splitlines()
        self.assertEqual(len(err), 1, r.stderr)
        self.assertIn(f"{self.inst.conf}:{len(lines)}:", err[0])
        self.assertIn("imap_lisen", err[0])
        self.assertIn("imap_listen", err[0])  # the suggestion

    def test_bad_value_names_the_key(self):
        with open(self.inst.conf, "a") as f:
            f.write("max_line_length: 12Q\n")
        r = subprocess.run([DARIUSD, "-C", self.inst.conf], capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(r.returncode, 78)
        self.assertIn("max_line_length", r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)

    def test_missing_config_file(self):
        r = subprocess.run([DARIUSD, "-C", "/nonexistent/darius.conf"], capture_output=True,
                           text=True, timeout=30)
        self.assertEqual(r.returncode, 78)
        self.assertIn("/nonexistent/darius.conf", r.stderr)

    def test_second_server_on_one_instance_is_refused(self):
        self.inst.start()
        r = subprocess.run([DARIUSD, "-C", self.inst.conf], capture_output=True, text=True,
                           timeout=30)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(f"another dariusd (pid {self.inst.proc.pid})", r.stderr)

    def test_sigterm_stops_cleanly(self):
        self.inst.start()
        t0 = time.time()
        self.assertEqual(self.inst.stop(signal.SIGTERM), 0)
        self.assertLess(time.time() - t0, 15)
        self.assertIn("shutting down", self.inst.log())

    def test_kill9_then_restart(self):
        self.inst.start()
        self.inst.proc.kill()
        self.inst.proc.wait()
        self.inst.start()  # stale pid file and listeners file do not stop a restart
        url = f"http://127.0.0.1:{self.inst.port('metrics')}/metrics"
        r = subprocess.run(["curl", "-sS", url], capture_output=True, text=True)
        self.assertIn("darius_uptime_seconds", r.stdout)

    def test_sighup_reopens_the_log_file(self):
        log = os.path.join(self.inst.dir, "dariusd.log")
        with open(self.inst.conf, "a") as f:
            f.write("log_file: dariusd.log\n")
        self.inst.start()
        self.assertTrue(os.path.exists(log))
        os.rename(log, log + ".1")  # what logrotate does
        self.inst.send_signal(signal.SIGHUP)
        deadline = time.time() + 10
        while not os.path.exists(log) and time.time() < deadline:
            time.sleep(0.05)
        self.assertTrue(os.path.exists(log), "SIGHUP did not reopen the log")
        self.inst.stop()
        self.assertIn("SIGHUP", open(log + ".1").read())
        self.assertIn("shutting down", open(log).read())

    def test_user_tool(self):
        conf = self.inst.conf
        darius("user", "add", "-C", conf, "bob", "--password", "bob-pw")
        self.assertIn("bob", darius("user", "list", "-C", conf).stdout.split())
        r = darius("user", "add", "-C", conf, "bob", "--password", "x", check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("exists", r.stderr)
        # Password from standard input when --password is absent.
        darius("-C", conf, "user", "add", "carol", input="carol-pw\n")
        self.assertEqual(darius("user", "check", "-C", conf, "carol", input="carol-pw\n")
                         .returncode, 0)
        self.assertEqual(darius("user", "check", "-C", conf, "carol", input="wrong\n",
                                check=False).returncode, 1)
        darius("user", "passwd", "-C", conf, "carol", "--password", "new-pw")
        self.assertEqual(darius("user", "check", "-C", conf, "carol", "--password", "new-pw")
                         .returncode, 0)
        darius("user", "del", "-C", conf, "carol")
        self.assertNotIn("carol", darius("user", "list", "-C", conf).stdout.split())
        r = darius("user", "add", "-C", conf, "bad:name", "--password", "x", check=False)
        self.assertEqual(r.returncode, 1)

    def test_config_check_and_docs(self):
        r = darius("config", "check", "-C", self.inst.conf)
        self.assertIn("OK", r.stdout)
        docs = darius("config", "docs").stdout
        src = os.environ.get("DARIUS_SOURCE_DIR")
        if src:
            with open(os.path.join(src, "docs", "config.md")) as f:
                self.assertEqual(docs, f.read(), "docs/config.md is stale: "
                                 "darius config docs > docs/config.md")


class InitTest(unittest.TestCase):
    def test_init_refuses_an_existing_instance(self):
        with Instance() as inst:
            r = darius("init", inst.dir, check=False)
            self.assertEqual(r.returncode, 1)
            self.assertIn("exists", r.stderr)

    def test_default_demo_user_gets_a_printed_password(self):
        with Instance(user="demo:x") as inst:
            import tempfile
            d = tempfile.mkdtemp(prefix="darius-init-")
            out = darius("init", d + "/inst").stdout
            pw = [l.split()[-1] for l in out.splitlines() if l.strip().startswith("password")]
            self.assertEqual(len(pw), 1, out)
            self.assertGreaterEqual(len(pw[0]), 16)
            self.assertEqual(darius("-C", d + "/inst/darius.conf", "user", "check", "demo",
                                    "--password", pw[0]).returncode, 0)
            self.assertEqual(os.stat(d + "/inst/demo-credentials").st_mode & 0o777, 0o600)
            self.assertEqual(os.stat(d + "/inst/tls/key.pem").st_mode & 0o777, 0o600)
            self.assertEqual(os.stat(d + "/inst/data/users").st_mode & 0o777, 0o600)
            import shutil
            shutil.rmtree(d)
            del inst

    def test_port_base(self):
        with Instance(user="bench:bench", port_base=20000) as inst:
            conf = open(inst.conf).read()
            for line in ("imap_listen: 127.0.0.1:20143", "imaps_listen: 127.0.0.1:20993",
                         "pop3_listen: 127.0.0.1:20110", "pop3s_listen: 127.0.0.1:20995",
                         "lmtp_listen: 127.0.0.1:20024", "metrics_listen: 127.0.0.1:29100"):
                self.assertIn(line, conf)
            self.assertIn("24190", conf)  # ManageSieve's future port is reserved in the comment
            inst.start()
            r = subprocess.run(["curl", "-sS", "--max-time", "10",
                                "http://127.0.0.1:29100/metrics"], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("darius_uptime_seconds", r.stdout)
            # A user added beside the running server logs in on N+143.
            darius("user", "add", "-C", inst.conf, "bench2", "--password", "p")
            import imaplib
            m = imaplib.IMAP4("127.0.0.1", 20143, timeout=15)
            self.assertEqual(m.login("bench2", "p")[0], "OK")
            m.logout()

    def test_port_base_out_of_range(self):
        import tempfile
        d = tempfile.mkdtemp(prefix="darius-init-")
        r = darius("init", d + "/x", "--port-base", "60000", check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("port-base", r.stderr)


if __name__ == "__main__":
    unittest.main()
