// The on-disk format of the user store, version 1 (specified in docs/formats/users.md):
// parsing and serialising only, no I/O, so the format can be tested and fuzzed on its own.
//
//   # darius-users 1\n
//   name:crypt-hash:scram-sha-256:<iterations>:<base64 salt>:<base64 StoredKey>:<base64
//   ServerKey>\n
//   ... one line per user, strictly ascending by name (bytewise)
//
// Ownership: values in, values out. Thread-safety: pure functions, safe from any thread.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "auth/scram.h"
#include "lib/base/result.h"

namespace darius::auth {

struct UserRecord {
  std::string name;
  std::string password_hash;  // crypt(3) string, see password_hash.h
  ScramSecrets scram_sha256;
};

// Ordered by name, which is also the file's line order.
using UserMap = std::map<std::string, UserRecord, std::less<>>;

inline constexpr int kUsersFileVersion = 1;

// 1-255 bytes: a local part of [A-Za-z0-9._-]+, optionally "@" and a domain of [A-Za-z0-9.-]+.
// No "+" (the LMTP subaddress separator), no ":" (the field separator), nothing else.
bool isValidUserName(std::string_view name);

// Parses a whole file. kCorruption "<path>:<line>: <what>" for anything malformed, including a
// version this build does not know; never crashes on any input.
base::Result<UserMap> parseUsersFile(std::string_view contents, std::string_view path);

// The canonical file text for `users` (which must hold valid records; the store checks them).
std::string serializeUsersFile(const UserMap& users);

}  // namespace darius::auth
