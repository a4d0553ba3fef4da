// The user database: names, password hashes (for PLAIN/LOGIN) and SCRAM-SHA-256 secrets, kept
// in one small text file (docs/formats/users.md) until the db/ layer gives it a table.
//
// Several processes share the file: the running server reads it, `darius user add` writes it
// beside the server. Writers serialise on an exclusive lock of "<path>.lock", re-read the
// file under the lock, change it, and replace it atomically (temp file, fsync, rename, fsync
// of the directory), so a crash leaves either the old or the new file. Readers never lock:
// every read stat()s the file and reloads it when its identity (device, inode, size, mtime,
// ctime) changed, so a user added by another process is visible at the next lookup without a
// restart, at the cost of one stat() per lookup.
//
// The slow work (yescrypt, PBKDF2) happens before the file lock is taken, so a writer holds
// the lock only for a read-modify-write of the file.
//
// Ownership: a UserStore owns its in-memory copy; lookup() returns copies. Thread-safety: all
// methods may be called concurrently from any thread.
#pragma once

#include <chrono>

#include "auth/credential_cache.h"

#include <sys/types.h>

#include <ctime>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "auth/scram.h"
#include "auth/user_file.h"
#include "lib/base/result.h"

namespace darius::auth {

class UserStore {
 public:
  // Opens (and loads) the store at `path`. A missing file is an empty store; the file is
  // created on the first write. `scram_iterations` is the PBKDF2 count for new SCRAM secrets
  // (RFC 7677 asks for at least 4096; tests use fewer); kInvalid unless it is 1..2^31-1.
  // kCorruption if the file exists but is malformed.
  static base::Result<std::unique_ptr<UserStore>> open(std::string path, int scram_iterations);

  UserStore(const UserStore&) = delete;
  UserStore& operator=(const UserStore&) = delete;

  // Names are canonical: the domain after '@' is lower-cased by every method (domains are
  // case-insensitive, docs/design/naming.md), the local part kept as given.
  // Adds a user; kExists if present, kInvalid for a bad name or a password that is empty,
  // longer than kMaxPasswordBytes (password_hash.h), contains NUL, or that SASLprep refuses.
  base::Status add(std::string_view name, std::string_view password);
  // Replaces the hash and SCRAM secrets; kNotFound if the user does not exist.
  base::Status setPassword(std::string_view name, std::string_view password);
  // kNotFound if the user does not exist.
  base::Status remove(std::string_view name);

  // The current record (reloading the file first if it changed). kNotFound for an unknown or
  // syntactically invalid name; kCorruption/kIoError if the changed file cannot be loaded.
  base::Result<UserRecord> lookup(std::string_view name);
  // All names, sorted.
  base::Result<std::vector<std::string>> list();
  // Whether some user is `*@domain` (domain in lower case): the site hosts that virtual
  // domain, whose addresses then name its own users only (LMTP). O(users).
  base::Result<bool> hostsDomain(std::string_view domain);

  // True iff the user exists and the password matches its crypt hash. An unknown user costs
  // the same yescrypt verification as a known one (against a fixed dummy hash), so timing does
  // not reveal which users exist. Errors only for a file that cannot be (re)loaded.
  base::Result<bool> checkPassword(std::string_view name, std::string_view password);

  const std::string& path() const { return path_; }
  uint32_t scramIterations() const { return scram_iterations_; }

  // Remember successful password checks for `ttl` (auth/credential_cache.h); off until called.
  // Call before the store is shared between threads.
  void enableCredentialCache(std::chrono::seconds ttl, size_t max_entries);

 private:
  // What identifies one version of the file. Writers always rename a new inode into place, so
  // any change shows up as a new inode (and mtime/ctime); inode reuse with an identical size
  // and nanosecond times is what would have to happen to miss one.
  struct FileId {
    bool exists = false;
    dev_t dev = 0;
    ino_t ino = 0;
    off_t size = 0;
    timespec mtime{};
    timespec ctime{};
    bool operator==(const FileId& o) const;
  };
  struct Snapshot {
    FileId id;
    std::shared_ptr<const UserMap> users;
  };

  UserStore(std::string path, uint32_t scram_iterations);

  // Reads and parses the file as it is now (identity taken from the open descriptor, so the
  // contents and the identity always match).
  base::Result<Snapshot> readSnapshot() const;
  // Reloads if the file changed since the snapshot we hold; returns the current users.
  base::Result<std::shared_ptr<const UserMap>> current();
  // Computes a record for `password` (outside any lock: this is the slow part).
  base::Result<UserRecord> makeRecord(std::string_view name, std::string_view password) const;
  // Locks the file, re-reads it, applies `change`, writes it back and installs the result.
  template <typename Fn>
  base::Status modify(Fn&& change);

  const std::string path_;
  const uint32_t scram_iterations_;

  std::mutex mu_;  // guards snapshot_ only; held for pointer copies, never for I/O
  Snapshot snapshot_;
  std::mutex write_mu_;  // serialises this object's writers before they take the file lock
  std::unique_ptr<CredentialCache> cache_;
};

}  // namespace darius::auth
