// Password hashing for the user store and for PLAIN/LOGIN: new hashes are yescrypt ("$y$",
// libxcrypt's default and Debian's /etc/shadow default); verification also accepts the
// other crypt(3) methods libxcrypt rates as current (sha512-crypt "$6$", bcrypt "$2b$",
// scrypt "$7$", gost-yescrypt "$gy$"), so a site can import hashes from /etc/shadow.
// Methods libxcrypt marks as legacy (traditional DES, which silently truncates passwords to
// 8 bytes and accepts any 13-character string as a "hash"; md5crypt; sha256-crypt; ...) are
// refused: verifyPassword() returns false for them.
//
// The hash covers the password bytes exactly as given (no SASLprep), because that is what
// /etc/shadow hashes cover; SCRAM secrets are derived from the SASLprep'ed form separately.
//
// Ownership: values in, values out. Thread-safety: safe from any thread (crypt_r with a
// per-call crypt_data, RAND_bytes is thread-safe in OpenSSL 3).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "lib/base/result.h"

namespace darius::auth {

// libxcrypt refuses longer passphrases (CRYPT_MAX_PASSPHRASE_SIZE 512 includes the NUL).
inline constexpr size_t kMaxPasswordBytes = 511;

// A fresh yescrypt hash with a 16-byte random salt at libxcrypt's default cost. kInvalid
// for a password containing NUL (crypt(3) would silently cut it there) or longer than
// kMaxPasswordBytes; kTemporary if the random generator or libxcrypt fails.
base::Result<std::string> hashPassword(std::string_view password);

// True iff `password` hashes to `hash` under a supported, non-legacy method. False (never an
// error) for a wrong password, a password containing NUL or over kMaxPasswordBytes, or a
// malformed, locked ("!..."),
// empty or legacy hash. The final comparison is constant-time.
bool verifyPassword(std::string_view password, std::string_view hash);

// True if `hash` is one verifyPassword() can accept (a well-formed, non-legacy crypt(3)
// setting). Used to validate hashes read from disk.
bool isSupportedHash(std::string_view hash);

}  // namespace darius::auth
