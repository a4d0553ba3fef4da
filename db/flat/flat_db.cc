// The flat backend (docs/formats/flat.md). Every commit writes the whole file anew with
// io::writeFileAtomic, so a reader — in this process or another — always opens either the
// old file or the new one, never a mix, and a crash leaves one of the two.
//
// Readers keep the parsed file (a Snapshot) and the open fd of the file it came from. Every
// commit creates a new inode, and holding the old one open keeps its inode number from being
// reused, so "the path still names the inode we hold" is an exact test for "no commit since".
#include "db/flat/flat_db.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <mutex>

#include "db/flat/flat_format.h"
#include "lib/io/atomic_file.h"
#include "lib/io/env.h"
#include "lib/io/fd.h"
#include "lib/io/file_lock.h"
#include "lib/io/path.h"

namespace darius::db::flat {

using base::Result;
using base::Status;

namespace {

struct Snapshot {
  io::UniqueFd fd;  // the file it was read from, held open (see the top of the file)
  dev_t dev = 0;
  ino_t ino = 0;
  Records records;
};

Status scanRecords(const Records& records, const Range& range, const ScanFn& fn) {
  auto it = records.lower_bound(range.start);
  for (; it != records.end(); ++it) {
    if (range.end && !(it->first < *range.end)) break;
    if (!fn(it->first, it->second)) break;
  }
  return Status::ok();
}

class FlatDatabase;

class FlatTxn final : public Txn {
 public:
  FlatTxn(FlatDatabase* db, io::FileLock lock, Records records)
      : db_(db), lock_(std::move(lock)), records_(std::move(records)) {}
  ~FlatTxn() override { abort(); }

  Result<std::string> get(std::string_view key) override;
  Status put(std::string_view key, std::string_view value) override;
  Status remove(std::string_view key) override;
  Status scan(const Range& range, const ScanFn& fn) override;
  Status commit() override;
  void abort() override {
    lock_.unlock();
    done_ = true;
  }

 private:
  Status live() const {
    return done_ ? Status::invalid("transaction already committed or aborted") : Status::ok();
  }

  FlatDatabase* db_;
  io::FileLock lock_;  // the writer lock, held until commit or abort
  Records records_;    // the committed state plus this transaction's writes
  bool dirty_ = false;
  bool done_ = false;
};

class FlatDatabase final : public Database {
 public:
  FlatDatabase(std::string path, const OpenOptions& options)
      : path_(std::move(path)),
        lock_path_(path_ + ".lock"),
        env_(options.env ? options.env : io::Env::posix()),
        read_only_(options.read_only) {}

  Backend backend() const override { return Backend::kFlat; }
  const std::string& path() const override { return path_; }

  Result<std::string> get(std::string_view key) override {
    DARIUS_ASSIGN_OR_RETURN(auto snap, current());
    auto it = snap->records.find(std::string(key));
    if (it == snap->records.end()) return Status::notFound("no such key");
    return it->second;
  }

  Status scan(const Range& range, const ScanFn& fn) override {
    // The snapshot is shared, so the callback runs without our mutex held and may call back
    // into this Database.
    DARIUS_ASSIGN_OR_RETURN(auto snap, current());
    return scanRecords(snap->records, range, fn);
  }

  Result<std::unique_ptr<Txn>> begin() override {
    if (read_only_) return Status::permission("flat database " + path_ + " opened read-only");
    DARIUS_ASSIGN_OR_RETURN(io::FileLock lock, writeLock());
    // Another writer may have committed while we waited: start from what is on disk now.
    DARIUS_ASSIGN_OR_RETURN(auto snap, current());
    return std::unique_ptr<Txn>(new FlatTxn(this, std::move(lock), snap->records));
  }

  Result<CheckReport> check() override {
    DARIUS_ASSIGN_OR_RETURN(std::string data, env_->readFile(path_));
    CheckReport report;
    report.records = checkContents(data, path_, &report.problems);
    return report;
  }

  Status compact() override {
    if (read_only_) return Status::permission("flat database " + path_ + " opened read-only");
    DARIUS_ASSIGN_OR_RETURN(io::FileLock lock, writeLock());
    DARIUS_ASSIGN_OR_RETURN(auto snap, current());
    return publish(snap->records);
  }

  // Opening: create the file if allowed, remove temp files left by a crash, load it.
  Status init(bool create) {
    DARIUS_ASSIGN_OR_RETURN(bool exists, env_->fileExists(path_));
    if (!exists && (!create || read_only_)) {
      return Status::notFound("no flat database at " + path_);
    }
    if (!exists && !read_only_) {
      DARIUS_ASSIGN_OR_RETURN(io::FileLock lock, writeLock());
      DARIUS_RETURN_IF_ERROR(removeStrayTemps());
      DARIUS_ASSIGN_OR_RETURN(exists, env_->fileExists(path_));  // another opener's?
      if (!exists) DARIUS_RETURN_IF_ERROR(publish(Records{}));
    } else if (!read_only_) {
      // Clean up only if no writer is active: open must not wait for a transaction (it may
      // be this thread's own), and the active writer's temp file is not stray.
      auto lock = io::FileLock::acquire(lock_path_, io::LockMode::kExclusive, /*wait=*/false);
      if (lock.ok()) {
        DARIUS_RETURN_IF_ERROR(removeStrayTemps());
      } else if (lock.status().code() != base::Code::kLocked) {
        return lock.status().withContext("flat database writer lock");
      }
    }
    return current().status();
  }

  // Writes `records` as the new file; called with the writer lock held.
  Status publish(const Records& records) {
    Status s = io::writeFileAtomic(*env_, path_, serialize(records));
    std::lock_guard<std::mutex> guard(mu_);
    // Whatever happened, the next read looks at the disk again: after a failed directory
    // fsync the new file is already visible, and the disk is the truth.
    snap_.reset();
    return s;
  }

 private:
  Result<io::FileLock> writeLock() {
    auto lock = io::FileLock::acquire(lock_path_, io::LockMode::kExclusive, /*wait=*/true);
    if (!lock.ok()) return lock.status().withContext("flat database writer lock");
    return lock;
  }

  // The snapshot of the file at the path now, reloaded if a commit replaced it.
  Result<std::shared_ptr<const Snapshot>> current() {
    std::lock_guard<std::mutex> guard(mu_);
    struct stat st;
    if (::stat(path_.c_str(), &st) != 0) return Status::fromErrno(errno, "stat " + path_);
    if (snap_ && snap_->dev == st.st_dev && snap_->ino == st.st_ino) return snap_;
    DARIUS_ASSIGN_OR_RETURN(io::UniqueFd fd, io::openFile(path_, O_RDONLY));
    // fstat the descriptor we read, not the path, so the identity matches the contents even
    // if a commit renames a new file into place between the calls.
    if (::fstat(fd.get(), &st) != 0) return Status::fromErrno(errno, "fstat " + path_);
    if (S_ISDIR(st.st_mode)) return Status::invalid(path_ + " is a directory, not a flat database");
    DARIUS_ASSIGN_OR_RETURN(std::string data, io::readAll(fd.get()));
    DARIUS_ASSIGN_OR_RETURN(Records records, parse(data, path_));
    auto snap = std::make_shared<Snapshot>();
    snap->fd = std::move(fd);
    snap->dev = st.st_dev;
    snap->ino = st.st_ino;
    snap->records = std::move(records);
    snap_ = std::move(snap);
    return snap_;
  }

  // A crash during writeFileAtomic can leave ".<name>.tmp.<unique>" beside the file. Only
  // the lock holder writes such files, and we hold the lock, so any we see are dead.
  Status removeStrayTemps() {
    std::string dir = io::parentDir(path_);
    std::string prefix = "." + io::baseName(path_) + ".tmp.";
    DARIUS_ASSIGN_OR_RETURN(auto names, env_->listDir(dir));
    for (const std::string& name : names) {
      if (name.compare(0, prefix.size(), prefix) == 0 && io::isAtomicTempName(name)) {
        DARIUS_RETURN_IF_ERROR(env_->removeFile(io::joinPath(dir, name)));
      }
    }
    return Status::ok();
  }

  const std::string path_;
  const std::string lock_path_;
  io::Env* const env_;
  const bool read_only_;
  std::mutex mu_;  // guards snap_
  std::shared_ptr<const Snapshot> snap_;

  friend class FlatTxn;
};

Result<std::string> FlatTxn::get(std::string_view key) {
  DARIUS_RETURN_IF_ERROR(live());
  auto it = records_.find(std::string(key));
  if (it == records_.end()) return Status::notFound("no such key");
  return it->second;
}

Status FlatTxn::put(std::string_view key, std::string_view value) {
  DARIUS_RETURN_IF_ERROR(live());
  DARIUS_RETURN_IF_ERROR(validateRecord(key, value));
  records_.insert_or_assign(std::string(key), std::string(value));
  dirty_ = true;
  return Status::ok();
}

Status FlatTxn::remove(std::string_view key) {
  DARIUS_RETURN_IF_ERROR(live());
  if (records_.erase(std::string(key)) == 0) return Status::notFound("no such key");
  dirty_ = true;
  return Status::ok();
}

Status FlatTxn::scan(const Range& range, const ScanFn& fn) {
  DARIUS_RETURN_IF_ERROR(live());
  return scanRecords(records_, range, fn);
}

Status FlatTxn::commit() {
  DARIUS_RETURN_IF_ERROR(live());
  Status s = dirty_ ? db_->publish(records_) : Status::ok();
  abort();  // releases the lock; a failed commit is over too (the caller starts again)
  return s;
}

}  // namespace

Result<std::unique_ptr<Database>> openFlat(const std::string& path, const OpenOptions& options) {
  auto db = std::make_unique<FlatDatabase>(path, options);
  DARIUS_RETURN_IF_ERROR(db->init(options.create));
  return std::unique_ptr<Database>(std::move(db));
}

}  // namespace darius::db::flat
