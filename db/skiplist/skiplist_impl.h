// skiplist_impl: the skiplist Database and Txn classes, shared by the .cc files of this folder
// (skiplist_db.cc: open and reads; skiplist_commit.cc: commit and recovery; skiplist_repack.cc:
// compact, check, salvage). Not for use outside db/skiplist.
//
// Concurrency (docs/formats/skiplist.md §4): writers hold an exclusive OFD lock on
// "<path>.lock" for a whole transaction (and for compact). Readers take no lock: they read a
// snapshot bounded by the header's committed end; if two commits "lap" a reader (nextOf),
// get() starts over and scan() resumes after the last key it returned.
//
// Ownership: SkiplistDb owns its mapping (shared with in-flight readers by shared_ptr).
// Thread-safety: SkiplistDb is shared by threads; a SkiplistTxn belongs to one thread.
#pragma once

#include <sys/types.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "db/db.h"
#include "db/skiplist/skiplist_format.h"
#include "lib/io/env.h"
#include "lib/io/file_lock.h"
#include "lib/io/mapped_file.h"

namespace darius::db::skiplist {

// One mapping of one inode of the database file.
struct Mapping {
  io::MappedFile map;
  dev_t dev = 0;
  ino_t ino = 0;
  std::string_view bytes() const { return map.view(); }
};

// A read view: the mapping and the header read from it. Slots whose offset is >= end are
// newer than the view and ignored (see nextOf).
struct Snapshot {
  std::shared_ptr<const Mapping> mapping;
  FileHeader header{};
  std::string_view file() const { return mapping->bytes(); }
  uint64_t end() const { return header.committed_end; }
};

// The successor of `node` at `level` as of `snap`: the larger of the two slot values that are
// well-formed and below the snapshot end. *lapped = true when neither is (two commits rewrote
// the slot since the snapshot was taken: the reader must start over).
// (*lapped is set to the node's offset.)
base::Result<uint64_t> nextOf(const Snapshot& snap, const Record& node, int level,
                              uint64_t* lapped);
// After a lap: kCorruption if `now` is the same committed state as `before` (so nothing
// overwrote the slots: they are damaged), OK if the reader may retry.
base::Status lapStatus(const Snapshot& before, const Snapshot& now, uint64_t lapped);

using Writes = std::map<std::string, std::optional<std::string>, std::less<>>;

class SkiplistDb;

class SkiplistTxn final : public Txn {
 public:
  SkiplistTxn(SkiplistDb* db, io::FileLock lock, std::unique_ptr<io::WritableFile> file,
              Snapshot snap)
      : db_(db), lock_(std::move(lock)), file_(std::move(file)), snap_(std::move(snap)) {}
  ~SkiplistTxn() override { abort(); }

  base::Result<std::string> get(std::string_view key) override;
  base::Status put(std::string_view key, std::string_view value) override;
  base::Status remove(std::string_view key) override;
  base::Status scan(const Range& range, const ScanFn& fn) override;
  base::Status commit() override;
  void abort() override;

 private:
  base::Status live() const;

  SkiplistDb* db_;
  io::FileLock lock_;
  std::unique_ptr<io::WritableFile> file_;
  Snapshot snap_;  // the state the transaction builds on (no one else can change it)
  Writes writes_;
  bool done_ = false;
};

class SkiplistDb final : public Database {
 public:
  SkiplistDb(std::string path, io::Env* env, bool read_only)
      : path_(std::move(path)), env_(env), read_only_(read_only) {}

  Backend backend() const override { return Backend::kSkiplist; }
  const std::string& path() const override { return path_; }
  base::Result<std::string> get(std::string_view key) override;
  base::Status scan(const Range& range, const ScanFn& fn) override;
  base::Result<std::unique_ptr<Txn>> begin() override;
  base::Result<std::optional<CommitStamp>> commitStamp() override;
  base::Result<CheckReport> check() override;
  base::Status compact() override;

  // --- internals shared by the .cc files ---
  base::Status openExisting();
  base::Result<Snapshot> snapshot();
  // Scan without taking the scan lock (the caller holds the write lock or the scan lock).
  base::Status scanSnapshot(const Snapshot& snap, const Range& range, const ScanFn& fn,
                            uint64_t* lapped);
  base::Result<std::optional<std::string>> getSnapshot(const Snapshot& snap,
                                                       std::string_view key,
                                                       uint64_t* lapped);
  // With the write lock held: maps the current file, redoes committed-but-unapplied
  // transactions after the header's committed end, returns the writer's snapshot.
  base::Result<Snapshot> prepareWriter(io::WritableFile* file);
  base::Status commitWrites(io::WritableFile& file, const Snapshot& snap, const Writes& writes);
  base::Result<io::FileLock> writeLock();
  // Maps the file now at path(); installs it as the current mapping unless a newer one is.
  base::Result<std::shared_ptr<const Mapping>> remap();
  CheckReport checkSnapshot(const Snapshot& snap, uint64_t* lapped);
  io::Env* env() const { return env_; }
  int randomLevel();

 private:
  std::string path_;
  io::Env* env_;
  bool read_only_;
  std::mutex mu_;
  std::shared_ptr<const Mapping> mapping_;  // guarded by mu_
  std::mt19937_64 rng_{std::random_device{}()};  // used under the write lock
};

// Creates an empty database file atomically (the caller holds the write lock).
base::Status createEmpty(io::Env& env, const std::string& path);

}  // namespace darius::db::skiplist
