"""A small SCRAM-SHA-256 client (RFC 5802/7677) for driving AUTHENTICATE end to end."""
import base64
import hashlib
import hmac
import os


class ScramSha256:
    def __init__(self, user, password, nonce=None):
        self.user = user.replace("=", "=3D").replace(",", "=2C")
        self.password = password.encode()
        self.nonce = nonce or base64.b64encode(os.urandom(18)).decode()
        self.gs2 = "n,,"
        self.first_bare = f"n={self.user},r={self.nonce}"
        self.server_signature = None

    def client_first(self):
        return (self.gs2 + self.first_bare).encode()

    def client_final(self, server_first):
        server_first = server_first.decode()
        attrs = dict(kv.split("=", 1) for kv in server_first.split(","))
        nonce, salt, iters = attrs["r"], base64.b64decode(attrs["s"]), int(attrs["i"])
        if not nonce.startswith(self.nonce):
            raise ValueError("server nonce does not extend ours")
        salted = hashlib.pbkdf2_hmac("sha256", self.password, salt, iters)
        client_key = hmac.new(salted, b"Client Key", hashlib.sha256).digest()
        stored_key = hashlib.sha256(client_key).digest()
        without_proof = "c=" + base64.b64encode(self.gs2.encode()).decode() + ",r=" + nonce
        auth_message = ",".join([self.first_bare, server_first, without_proof]).encode()
        sig = hmac.new(stored_key, auth_message, hashlib.sha256).digest()
        proof = bytes(a ^ b for a, b in zip(client_key, sig))
        server_key = hmac.new(salted, b"Server Key", hashlib.sha256).digest()
        self.server_signature = hmac.new(server_key, auth_message, hashlib.sha256).digest()
        return (without_proof + ",p=" + base64.b64encode(proof).decode()).encode()

    def verify_server_final(self, server_final):
        attrs = dict(kv.split("=", 1) for kv in server_final.decode().split(","))
        return base64.b64decode(attrs.get("v", "")) == self.server_signature
