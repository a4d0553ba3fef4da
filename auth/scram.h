// SCRAM (RFC 5802) arithmetic, parameterised by the hash: SHA-1 for the RFC 5802 test
// vector, SHA-256 for SCRAM-SHA-256 (RFC 7677), which is what the server offers. This file is
// only the maths and SASLprep; the message exchange is in sasl_scram.cc.
//
//   SaltedPassword  = Hi(SASLprep(password), salt, i)     (Hi is PBKDF2-HMAC, RFC 2898)
//   ClientKey       = HMAC(SaltedPassword, "Client Key")
//   StoredKey       = H(ClientKey)
//   ServerKey       = HMAC(SaltedPassword, "Server Key")
//   ClientSignature = HMAC(StoredKey, AuthMessage);  ClientProof = ClientKey XOR ClientSignature
//   ServerSignature = HMAC(ServerKey, AuthMessage)
//
// SASLprep (RFC 4013) is ICU's complete stringprep profile (USPREP_RFC4013_SASLPREP): the
// mapping tables, NFKC, the prohibited-output tables and the bidi rule are all applied. Two
// choices to know about: stringprep is defined on Unicode 3.2, and code points unassigned
// there (many newer emoji) are allowed, as for a "query" (RFC 3454 §7) — the client treats
// the password as a query too, and refusing them would lock such passwords out of SCRAM.
// Printable ASCII skips ICU entirely: SASLprep leaves it unchanged.
//
// Ownership: values in, values out. Thread-safety: safe from any thread (the ICU profile is
// opened once and only read afterwards).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "lib/base/result.h"

namespace darius::auth {

enum class ScramDigest { kSha1, kSha256 };

// Output size of the digest in bytes: 20 or 32.
size_t scramDigestSize(ScramDigest digest);

// What the user store keeps per user and mechanism: enough to verify a client and to prove
// the server's identity, but not the password. Still secret: ServerKey lets its holder pose
// as the server, and StoredKey plus one eavesdropped exchange yields the ClientKey.
struct ScramSecrets {
  std::string salt;  // raw bytes
  uint32_t iterations = 0;
  std::string stored_key;  // raw bytes, scramDigestSize() long
  std::string server_key;  // raw bytes, scramDigestSize() long
};

// RFC 4013 SASLprep of a UTF-8 string (see the file comment). kInvalid for invalid UTF-8,
// prohibited output (controls, NUL, private use, non-characters, ...), a bidi violation,
// or a result that is empty.
base::Result<std::string> saslPrep(std::string_view utf8);

// H(data).
base::Result<std::string> scramHash(ScramDigest digest, std::string_view data);
// HMAC(key, data).
base::Result<std::string> scramHmac(ScramDigest digest, std::string_view key,
                                    std::string_view data);
// Hi(): PBKDF2-HMAC over an already-prepared password. kInvalid for 0 iterations or more
// than INT32_MAX.
base::Result<std::string> scramSaltedPassword(ScramDigest digest, std::string_view prepared,
                                              std::string_view salt, uint32_t iterations);

// SASLprep + Hi + the key derivations above.
base::Result<ScramSecrets> deriveScramSecrets(ScramDigest digest, std::string_view password,
                                              std::string_view salt, uint32_t iterations);

// Server side: true iff `proof` is the right ClientProof for `auth_message` under
// `stored_key`. The final comparison is constant-time; a wrong-length proof is false.
bool scramVerifyClientProof(ScramDigest digest, std::string_view stored_key,
                            std::string_view auth_message, std::string_view proof);

// ServerSignature = HMAC(ServerKey, AuthMessage), raw bytes.
base::Result<std::string> scramServerSignature(ScramDigest digest, std::string_view server_key,
                                               std::string_view auth_message);

// Client side (tests, and any future client such as replication): the ClientProof.
base::Result<std::string> scramClientProof(ScramDigest digest, std::string_view salted_password,
                                           std::string_view auth_message);

// `n` bytes from the OpenSSL CSPRNG (salts, nonces); kTemporary if it fails.
base::Result<std::string> randomBytes(size_t n);

}  // namespace darius::auth
