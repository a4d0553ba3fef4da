"""A small raw IMAP client for protocol tests: what Python's imaplib cannot do (IDLE before
3.14, MULTIAPPEND, LITERAL+, reading untagged responses as they come). It parses literals in
responses ("{n}\r\n" + n bytes) so FETCH bodies come back whole."""
import re
import socket
import ssl
import time


class RawImap:
    def __init__(self, port, host="127.0.0.1", tls=False, cafile=None, timeout=10):
        sock = socket.create_connection((host, port), timeout=timeout)
        if tls:
            ctx = ssl.create_default_context(cafile=cafile)
            ctx.check_hostname = False
            sock = ctx.wrap_socket(sock, server_hostname="localhost")
        self.sock = sock
        self.buf = b""
        self.tag_no = 0
        self.greeting = self.read_response()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def _fill(self, timeout=None):
        if timeout is not None:
            self.sock.settimeout(timeout)
        data = self.sock.recv(65536)
        if not data:
            raise EOFError("server closed the connection")
        self.buf += data

    def read_line(self, timeout=None):
        while b"\r\n" not in self.buf:
            self._fill(timeout)
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def read_response(self, timeout=None):
        """One response line with its literals inlined (bytes)."""
        out = b""
        while True:
            line = self.read_line(timeout)
            out += line
            m = re.search(rb"\{(\d+)\}$", line)
            if not m:
                return out
            n = int(m.group(1))
            while len(self.buf) < n:
                self._fill(timeout)
            out += b"\r\n" + self.buf[:n]
            self.buf = self.buf[n:]

    def send(self, data):
        if isinstance(data, str):
            data = data.encode()
        self.sock.sendall(data)

    def next_tag(self):
        self.tag_no += 1
        return f"t{self.tag_no}"

    def command(self, text, timeout=30):
        """Sends one command line; returns (untagged responses, tagged line)."""
        tag = self.next_tag()
        self.send(f"{tag} {text}\r\n".encode() if isinstance(text, str) else tag.encode() + b" " + text + b"\r\n")
        return self.collect(tag, timeout)

    def collect(self, tag, timeout=30):
        untagged = []
        deadline = time.time() + timeout
        while True:
            line = self.read_response(max(0.1, deadline - time.time()))
            if line.startswith(tag.encode() + b" "):
                return untagged, line
            untagged.append(line)

    def ok(self, text):
        untagged, tagged = self.command(text)
        parts = tagged.split(b" ", 2)
        if len(parts) < 2 or parts[1] != b"OK":
            raise AssertionError(f"{text!r} failed: {tagged!r}")
        return untagged, tagged

    def login(self, user, password):
        return self.ok(f'LOGIN "{user}" "{password}"')
