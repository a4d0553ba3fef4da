#include "auth/user_file.h"

#include <charconv>
#include <vector>

#include "auth/password_hash.h"
#include "lib/base/base64.h"
#include "lib/base/split.h"

namespace darius::auth {
namespace {

constexpr std::string_view kMagic = "# darius-users ";
constexpr std::string_view kScramTag = "scram-sha-256";
constexpr size_t kFields = 7;
// The server never runs Hi() itself at login, but clients must; a file that asks them for
// billions of rounds is damaged or hostile.
constexpr uint32_t kMaxIterations = 100'000'000;

bool isLocalChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

bool isDomainChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '-';
}

base::Status corrupt(std::string_view path, size_t line, std::string_view what) {
  std::string m(path);
  m += ':';
  m += std::to_string(line);
  m += ": ";
  m += what;
  return base::Status::corruption(std::move(m));
}

// A positive decimal without sign or leading zeros (one spelling per number).
bool parseIterations(std::string_view s, uint32_t* out) {
  if (s.empty() || s[0] == '0' || s.size() > 10) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v == 0 || v > kMaxIterations) return false;
  *out = static_cast<uint32_t>(v);
  return true;
}

base::Result<UserRecord> parseLine(std::string_view line, std::string_view path, size_t lineno) {
  auto f = base::split(line, ':');
  if (f.size() != kFields) {
    return corrupt(path, lineno,
                   "expected " + std::to_string(kFields) + " ':'-separated fields, found " +
                       std::to_string(f.size()));
  }
  UserRecord r;
  if (!isValidUserName(f[0])) return corrupt(path, lineno, "invalid user name");
  r.name = std::string(f[0]);
  if (!isSupportedHash(f[1])) {
    return corrupt(path, lineno,
                   "password hash of " + r.name + " is not a supported crypt(3) hash");
  }
  r.password_hash = std::string(f[1]);
  if (f[2] != kScramTag) return corrupt(path, lineno, "expected \"scram-sha-256\" in field 3");
  if (!parseIterations(f[3], &r.scram_sha256.iterations)) {
    return corrupt(path, lineno, "bad SCRAM iteration count");
  }
  auto salt = base::base64Decode(f[4]);
  if (!salt.ok() || salt->empty()) return corrupt(path, lineno, "bad SCRAM salt");
  auto stored = base::base64Decode(f[5]);
  auto server = base::base64Decode(f[6]);
  const size_t n = scramDigestSize(ScramDigest::kSha256);
  if (!stored.ok() || stored->size() != n) return corrupt(path, lineno, "bad SCRAM StoredKey");
  if (!server.ok() || server->size() != n) return corrupt(path, lineno, "bad SCRAM ServerKey");
  r.scram_sha256.salt = std::move(*salt);
  r.scram_sha256.stored_key = std::move(*stored);
  r.scram_sha256.server_key = std::move(*server);
  return r;
}

}  // namespace

bool isValidUserName(std::string_view name) {
  if (name.empty() || name.size() > 255) return false;
  size_t at = name.find('@');
  std::string_view local = name.substr(0, at);
  if (local.empty()) return false;
  for (char c : local) {
    if (!isLocalChar(c)) return false;
  }
  if (at == std::string_view::npos) return true;
  std::string_view domain = name.substr(at + 1);
  if (domain.empty()) return false;
  for (char c : domain) {
    if (!isDomainChar(c)) return false;  // also rejects a second '@'
  }
  return true;
}

base::Result<UserMap> parseUsersFile(std::string_view contents, std::string_view path) {
  UserMap users;
  size_t lineno = 0;
  size_t pos = 0;
  const UserRecord* prev = nullptr;
  while (pos < contents.size()) {
    ++lineno;
    size_t nl = contents.find('\n', pos);
    if (nl == std::string_view::npos) {
      // Writers always end the file with a newline and replace it atomically, so a partial
      // last line means someone else wrote it (or it was cut short): do not guess.
      return corrupt(path, lineno, "last line has no newline (truncated?)");
    }
    std::string_view line = contents.substr(pos, nl - pos);
    pos = nl + 1;
    if (lineno == 1) {
      if (line.substr(0, kMagic.size()) != kMagic) {
        return corrupt(path, lineno, "not a darius users file (expected \"# darius-users 1\")");
      }
      std::string_view v = line.substr(kMagic.size());
      if (v != std::to_string(kUsersFileVersion)) {
        return corrupt(path, lineno,
                       "unsupported users file version \"" + std::string(v.substr(0, 20)) +
                           "\" (this build reads version " + std::to_string(kUsersFileVersion) +
                           ")");
      }
      continue;
    }
    DARIUS_ASSIGN_OR_RETURN(UserRecord r, parseLine(line, path, lineno));
    if (prev != nullptr && !(prev->name < r.name)) {
      return corrupt(path, lineno,
                     prev->name == r.name ? "duplicate user " + r.name
                                          : "user " + r.name + " is out of order");
    }
    auto it = users.emplace_hint(users.end(), r.name, std::move(r));
    prev = &it->second;
  }
  if (lineno == 0) return corrupt(path, 1, "empty file (expected \"# darius-users 1\")");
  return users;
}

std::string serializeUsersFile(const UserMap& users) {
  std::string out;
  out.reserve(32 + users.size() * 200);
  out += kMagic;
  out += std::to_string(kUsersFileVersion);
  out += '\n';
  for (const auto& [name, r] : users) {
    out += name;
    out += ':';
    out += r.password_hash;
    out += ':';
    out += kScramTag;
    out += ':';
    out += std::to_string(r.scram_sha256.iterations);
    out += ':';
    out += base::base64Encode(r.scram_sha256.salt);
    out += ':';
    out += base::base64Encode(r.scram_sha256.stored_key);
    out += ':';
    out += base::base64Encode(r.scram_sha256.server_key);
    out += '\n';
  }
  return out;
}

}  // namespace darius::auth
