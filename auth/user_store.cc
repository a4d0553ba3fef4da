#include "auth/user_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <utility>

#include "auth/password_hash.h"
#include "lib/io/atomic_file.h"
#include "lib/io/env.h"
#include "lib/io/file_lock.h"

namespace darius::auth {
namespace {

// Verified against when the user is unknown, so that case costs one yescrypt run like a real
// one. Same method and cost ("j9T", libxcrypt's default) as hashPassword() produces.
constexpr std::string_view kDummyHash =
    "$y$j9T$Y3aQdJrQhEKRhpKShA5Po/$ul0Nx6FfU8aMNYtdrDV.4vJ5SLgumiIVtO6Op9jWvS8";

// 25,000 users take about 5 MB; anything far beyond that is not a users file.
constexpr off_t kMaxFileBytes = 256 << 20;

constexpr size_t kScramSaltBytes = 16;

bool sameTime(const timespec& a, const timespec& b) {
  return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

base::Status validatePassword(std::string_view password) {
  if (password.empty()) return base::Status::invalid("empty password");
  if (password.size() > kMaxPasswordBytes) {
    return base::Status::invalid("password longer than " + std::to_string(kMaxPasswordBytes) +
                                 " bytes");
  }
  if (password.find('\0') != std::string_view::npos) {
    return base::Status::invalid("password contains a NUL byte");
  }
  return base::Status::ok();
}

// Domains are case-insensitive (docs/design/naming.md: the domain of a login is
// lower-cased), so "alice@Example.COM" is stored and found as "alice@example.com". The local
// part keeps its case, as mailbox owners do.
std::string canonicalName(std::string_view name) {
  std::string out(name);
  size_t at = out.find('@');
  if (at == std::string::npos) return out;
  for (size_t i = at + 1; i < out.size(); ++i) {
    if (out[i] >= 'A' && out[i] <= 'Z') out[i] = static_cast<char>(out[i] - 'A' + 'a');
  }
  return out;
}

base::Status badName(std::string_view name) {
  return base::Status::invalid("invalid user name \"" + std::string(name.substr(0, 300)) +
                               "\": 1-255 bytes of [A-Za-z0-9._-], optionally @domain");
}

}  // namespace

bool UserStore::FileId::operator==(const FileId& o) const {
  if (exists != o.exists) return false;
  if (!exists) return true;
  return dev == o.dev && ino == o.ino && size == o.size && sameTime(mtime, o.mtime) &&
         sameTime(ctime, o.ctime);
}

UserStore::UserStore(std::string path, uint32_t scram_iterations)
    : path_(std::move(path)), scram_iterations_(scram_iterations) {}

base::Result<std::unique_ptr<UserStore>> UserStore::open(std::string path, int scram_iterations) {
  if (scram_iterations < 1) {
    return base::Status::invalid("SCRAM iteration count must be at least 1");
  }
  if (path.empty()) return base::Status::invalid("empty user store path");
  std::unique_ptr<UserStore> store(
      new UserStore(std::move(path), static_cast<uint32_t>(scram_iterations)));
  DARIUS_ASSIGN_OR_RETURN(store->snapshot_, store->readSnapshot());
  return store;
}

base::Result<UserStore::Snapshot> UserStore::readSnapshot() const {
  Snapshot snap;
  Fd fd(::open(path_.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT) {
      snap.users = std::make_shared<const UserMap>();
      return snap;
    }
    return base::Status::fromErrno(errno, "open " + path_);
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return base::Status::fromErrno(errno, "fstat " + path_);
  if (!S_ISREG(st.st_mode)) return base::Status::corruption(path_ + ": not a regular file");
  if (st.st_size > kMaxFileBytes) {
    return base::Status::corruption(path_ + ": implausibly large users file");
  }
  std::string contents(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < contents.size()) {
    ssize_t n = ::read(fd.get(), contents.data() + got, contents.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      return base::Status::fromErrno(errno, "read " + path_);
    }
    if (n == 0) break;  // shrank under us: parse what we have, the identity will differ next time
    got += static_cast<size_t>(n);
  }
  contents.resize(got);
  DARIUS_ASSIGN_OR_RETURN(UserMap users, parseUsersFile(contents, path_));
  snap.id.exists = true;
  snap.id.dev = st.st_dev;
  snap.id.ino = st.st_ino;
  snap.id.size = st.st_size;
  snap.id.mtime = st.st_mtim;
  snap.id.ctime = st.st_ctim;
  snap.users = std::make_shared<const UserMap>(std::move(users));
  return snap;
}

base::Result<std::shared_ptr<const UserMap>> UserStore::current() {
  FileId now;
  struct stat st;
  if (::stat(path_.c_str(), &st) == 0) {
    now.exists = true;
    now.dev = st.st_dev;
    now.ino = st.st_ino;
    now.size = st.st_size;
    now.mtime = st.st_mtim;
    now.ctime = st.st_ctim;
  } else if (errno != ENOENT) {
    return base::Status::fromErrno(errno, "stat " + path_);
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    if (snapshot_.id == now) return snapshot_.users;
  }
  // Parse outside the lock; if two threads race here both parse and the last one wins, which
  // is harmless (both saw a file at least as new as the one we held).
  DARIUS_ASSIGN_OR_RETURN(Snapshot fresh, readSnapshot());
  std::lock_guard<std::mutex> l(mu_);
  snapshot_ = fresh;
  return fresh.users;
}

base::Result<UserRecord> UserStore::makeRecord(std::string_view name,
                                               std::string_view password) const {
  if (!isValidUserName(name)) return badName(name);
  DARIUS_RETURN_IF_ERROR(validatePassword(password));
  UserRecord r;
  r.name = std::string(name);
  DARIUS_ASSIGN_OR_RETURN(r.password_hash, hashPassword(password));
  DARIUS_ASSIGN_OR_RETURN(std::string salt, randomBytes(kScramSaltBytes));
  auto secrets = deriveScramSecrets(ScramDigest::kSha256, password, salt, scram_iterations_);
  if (!secrets.ok()) {
    // SASLprep refusals are about the password, not the server.
    if (secrets.status().code() == base::Code::kInvalid) {
      return base::Status::invalid("password not usable: " + secrets.status().message());
    }
    return secrets.status();
  }
  r.scram_sha256 = std::move(*secrets);
  return r;
}

template <typename Fn>
base::Status UserStore::modify(Fn&& change) {
  std::lock_guard<std::mutex> w(write_mu_);
  DARIUS_ASSIGN_OR_RETURN(
      io::FileLock lock,
      io::FileLock::acquire(path_ + ".lock", io::LockMode::kExclusive, /*wait=*/true));
  // Under the lock the file cannot change, so what we read is what we modify.
  DARIUS_ASSIGN_OR_RETURN(Snapshot snap, readSnapshot());
  UserMap users = *snap.users;
  DARIUS_RETURN_IF_ERROR(change(users));
  // 0600: the SCRAM keys let whoever reads them impersonate the server to clients.
  DARIUS_RETURN_IF_ERROR(
      io::writeFileAtomic(*io::Env::posix(), path_, serializeUsersFile(users), 0600));
  // Still under the lock: the file on disk is the one we just wrote, so its identity belongs
  // to `users`.
  DARIUS_ASSIGN_OR_RETURN(Snapshot written, readSnapshot());
  std::lock_guard<std::mutex> l(mu_);
  snapshot_ = std::move(written);
  return base::Status::ok();
}

base::Status UserStore::add(std::string_view given, std::string_view password) {
  const std::string name = canonicalName(given);
  // Fail fast (without the slow hashing) for a name that is clearly taken; the check that
  // counts is repeated under the file lock.
  auto users = current();
  if (users.ok() && (*users)->count(name) != 0) {
    return base::Status::exists("user " + std::string(name) + " already exists");
  }
  DARIUS_ASSIGN_OR_RETURN(UserRecord record, makeRecord(name, password));
  return modify([&](UserMap& m) -> base::Status {
    if (m.count(record.name) != 0) {
      return base::Status::exists("user " + record.name + " already exists");
    }
    std::string key = record.name;
    m.emplace(std::move(key), std::move(record));
    return base::Status::ok();
  });
}

base::Status UserStore::setPassword(std::string_view given, std::string_view password) {
  const std::string name = canonicalName(given);
  if (!isValidUserName(name)) return base::Status::notFound("no such user");
  auto users = current();
  if (users.ok() && (*users)->count(name) == 0) {
    return base::Status::notFound("no such user " + std::string(name));
  }
  DARIUS_ASSIGN_OR_RETURN(UserRecord record, makeRecord(name, password));
  return modify([&](UserMap& m) -> base::Status {
    auto it = m.find(record.name);
    if (it == m.end()) return base::Status::notFound("no such user " + record.name);
    it->second = std::move(record);
    return base::Status::ok();
  });
}

base::Status UserStore::remove(std::string_view given) {
  const std::string name = canonicalName(given);
  if (!isValidUserName(name)) return base::Status::notFound("no such user");
  return modify([&](UserMap& m) -> base::Status {
    auto it = m.find(name);
    if (it == m.end()) return base::Status::notFound("no such user " + std::string(name));
    m.erase(it);
    return base::Status::ok();
  });
}

base::Result<UserRecord> UserStore::lookup(std::string_view given) {
  const std::string name = canonicalName(given);
  if (!isValidUserName(name)) return base::Status::notFound("no such user");
  DARIUS_ASSIGN_OR_RETURN(std::shared_ptr<const UserMap> users, current());
  auto it = users->find(name);
  // A name stored with capitals in its domain before names were canonical stays reachable.
  if (it == users->end()) it = users->find(given);
  if (it == users->end()) return base::Status::notFound("no such user " + std::string(name));
  return it->second;
}

base::Result<std::vector<std::string>> UserStore::list() {
  DARIUS_ASSIGN_OR_RETURN(std::shared_ptr<const UserMap> users, current());
  std::vector<std::string> names;
  names.reserve(users->size());
  for (const auto& [name, record] : *users) names.push_back(name);
  return names;
}

base::Result<bool> UserStore::hostsDomain(std::string_view domain) {
  DARIUS_ASSIGN_OR_RETURN(std::shared_ptr<const UserMap> users, current());
  for (const auto& [name, record] : *users) {
    size_t at = name.find('@');
    if (at != std::string::npos && std::string_view(name).substr(at + 1) == domain) return true;
  }
  return false;
}

base::Result<bool> UserStore::checkPassword(std::string_view given, std::string_view password) {
  const std::string name = canonicalName(given);
  auto record = lookup(given);
  if (!record.ok()) {
    if (!record.status().isNotFound()) return record.status();
    (void)verifyPassword(password, kDummyHash);  // burn the time a real check would take
    return false;
  }
  if (cache_ && cache_->check(name, record->password_hash, password)) return true;
  bool ok = verifyPassword(password, record->password_hash);
  if (ok && cache_) cache_->remember(name, record->password_hash, password);
  return ok;
}

void UserStore::enableCredentialCache(std::chrono::seconds ttl, size_t max_entries) {
  cache_ = std::make_unique<CredentialCache>(ttl, max_entries);
}

}  // namespace darius::auth
