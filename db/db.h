// db: the key-value layer every global database of the store goes through (mailbox list,
// quota roots, seen state, subscriptions, duplicate suppression, users, TLS session cache).
// One interface, three backends: skiplist (default; db/skiplist), Berkeley DB 5.3
// (db/berkeley) and flat (a sorted text file replaced atomically; db/flat, for tiny data).
// Only db/registry.cc knows every backend; backends never include each other.
//
// Semantics every backend provides (db/conformance_test.cc checks them all alike):
// - Keys are non-empty byte strings up to kMaxKeySize, values byte strings up to
//   kMaxValueSize, both may contain any byte. Order is bytewise (memcmp, shorter first).
// - Reads on Database see the latest committed state, each call a consistent snapshot.
// - One writer at a time across threads and processes: begin() waits for the write lock,
//   which the Txn holds until commit or abort. Many readers run beside it.
// - A Txn sees its own writes. commit() returns OK only once the transaction is on stable
//   storage; a crash before that leaves no trace of it, a crash after keeps all of it.
//
// Ownership: open() returns an owned Database; a Txn borrows its Database, which must outlive
// it. Destroying an uncommitted Txn aborts it. Thread-safety: a Database may be shared by
// threads (get/scan/begin concurrently); a Txn belongs to one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/result.h"

namespace darius::io {
class Env;
}

namespace darius::db {

inline constexpr size_t kMaxKeySize = 64 * 1024;
inline constexpr size_t kMaxValueSize = 64 * 1024 * 1024;

enum class Backend { kSkiplist, kBerkeley, kFlat };
std::string_view backendName(Backend backend);  // "skiplist", "berkeley", "flat"
std::ostream& operator<<(std::ostream& os, Backend backend);  // writes backendName()
base::Result<Backend> parseBackend(std::string_view name);

struct OpenOptions {
  bool create = true;       // create an empty database when none exists
  bool read_only = false;   // begin() fails with kPermission; nothing is written or repaired
  io::Env* env = nullptr;   // file operations (crash tests pass a FaultyEnv); null = posix
};

// Return false to stop a scan early.
using ScanFn = std::function<bool(std::string_view key, std::string_view value)>;

// Keys k with start <= k < end (end absent: to the last key).
struct Range {
  std::string start;
  std::optional<std::string> end;
  static Range all() { return {}; }
  static Range prefix(std::string_view p);  // every key that starts with p
  bool contains(std::string_view key) const;
};

class Txn {
 public:
  virtual ~Txn() = default;
  virtual base::Result<std::string> get(std::string_view key) = 0;  // kNotFound if absent
  virtual base::Status put(std::string_view key, std::string_view value) = 0;
  virtual base::Status remove(std::string_view key) = 0;  // kNotFound if absent
  virtual base::Status scan(const Range& range, const ScanFn& fn) = 0;
  virtual base::Status commit() = 0;
  virtual void abort() = 0;
};

// A token of a database's committed state, for caches kept over it (the mailbox list's
// in-memory copy): two stamps compare equal only if no transaction committed between the
// two calls, in this process or any other. The reverse does not hold: a repack may change
// the stamp without changing a record.
struct CommitStamp {
  uint64_t file = 0;        // which file (device and inode)
  uint64_t generation = 0;  // which rewrite of it
  uint64_t position = 0;    // how far its commits have come
  bool operator==(const CommitStamp&) const = default;
};

struct CheckReport {
  uint64_t records = 0;
  std::vector<std::string> problems;  // each names what is wrong and where (file offset)
  bool ok() const { return problems.empty(); }
};

class Database {
 public:
  // kNotFound when absent and !create; kCorruption (with the offset) for a damaged file that
  // recovery cannot open; kInvalid for a file of another backend or an unknown version.
  static base::Result<std::unique_ptr<Database>> open(const std::string& path, Backend backend,
                                                      const OpenOptions& options = {});
  virtual ~Database() = default;

  virtual Backend backend() const = 0;
  virtual const std::string& path() const = 0;

  virtual base::Result<std::string> get(std::string_view key) = 0;  // kNotFound if absent
  virtual base::Status scan(const Range& range, const ScanFn& fn) = 0;
  virtual base::Result<std::unique_ptr<Txn>> begin() = 0;

  // The current CommitStamp, or nullopt when the backend cannot tell cheaply (skiplist can: it
  // reads the header it already maps; Berkeley DB and flat do not), so a cache must re-read.
  virtual base::Result<std::optional<CommitStamp>> commitStamp() {
    return std::optional<CommitStamp>();
  }

  // Verifies the on-disk structure without changing it.
  virtual base::Result<CheckReport> check() = 0;
  // Rewrites the file without dead records (skiplist repack, BDB compaction); readers go on.
  virtual base::Status compact() = 0;
};

// Validates a key/value pair against the limits above (shared by every backend).
base::Status validateRecord(std::string_view key, std::string_view value);

}  // namespace darius::db
