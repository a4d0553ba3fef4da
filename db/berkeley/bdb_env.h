// db/berkeley internals: RAII owners of Berkeley DB 5.3 C handles, the mapping of BDB errors
// to Status, and BdbStore, the per-process shared open environment + btree of one directory.
//
// Why a shared BdbStore: two Database objects on one path in one process share one DB_ENV and
// one DB (BDB handles opened with DB_THREAD are free-threaded). That keeps one env.lock
// description per process and avoids joining the same region twice from one process.
//
// Ownership: BdbStore owns the DB_ENV*, the DB* and the shared lock on env.lock; Database
// objects hold it through shared_ptr. It borrows the io::Env of the opener that opened it
// (OpenOptions::env, which must outlive every Database on the path). The DbTxn/DbCursor/DbtBuf
// owners free what they own.
// Thread-safety: BdbStore is immutable after open (but for the number of the last log file
// whose name it made durable, an atomic) and its handles are free-threaded; the small owners
// are single-thread values.
#pragma once

#include <db.h>

#include <atomic>
#include <memory>
#include <string>
#include <string_view>

#include "lib/base/result.h"
#include "lib/base/status.h"
#include "lib/io/env.h"
#include "lib/io/file_lock.h"

namespace darius::db::berkeley {

// File names inside the environment directory (docs/formats/berkeley.md).
inline constexpr const char* kDataFile = "data.db";
inline constexpr const char* kWriteLockFile = "write.lock";
inline constexpr const char* kEnvLockFile = "env.lock";
inline constexpr const char* kOpenLockFile = "open.lock";
inline constexpr uint32_t kPageSize = 8192;
inline constexpr uint32_t kCacheBytes = 32 * 1024 * 1024;

// BDB return code -> Status: "<what> <path>: <db_strerror>[: <message BDB printed>]".
base::Status bdbStatus(int ret, std::string_view what, const std::string& path);

// The errcall installed on every handle: collects BDB's messages for the next Status of
// this thread instead of letting BDB print them on stderr.
void bdbErrCall(const DB_ENV* env, const char* prefix, const char* msg);

// The messages BDB's errcall delivered on this thread since the last call (then cleared).
std::string takeBdbMessages();

// A DBT that BDB fills with malloc'd memory (DB_DBT_REALLOC, so one buffer is reused across
// cursor steps); freed on destruction.
class DbtBuf {
 public:
  DbtBuf();
  ~DbtBuf();
  DbtBuf(const DbtBuf&) = delete;
  DbtBuf& operator=(const DbtBuf&) = delete;
  // Makes the buffer hold a copy of `bytes` (input of DB_SET_RANGE, which also writes back).
  bool assign(std::string_view bytes);
  DBT* dbt() { return &dbt_; }
  std::string_view view() const {
    return {static_cast<const char*>(dbt_.data), static_cast<size_t>(dbt_.size)};
  }

 private:
  DBT dbt_;
};

// A DBT pointing at caller-owned bytes BDB only reads.
DBT inputDbt(std::string_view bytes);

// Aborts the transaction on destruction unless commit()/abort() consumed it.
class DbTxn {
 public:
  DbTxn() = default;
  explicit DbTxn(DB_TXN* txn) : txn_(txn) {}
  ~DbTxn() { abort(); }
  DbTxn(DbTxn&& o) noexcept : txn_(o.txn_) { o.txn_ = nullptr; }
  DbTxn& operator=(DbTxn&&) = delete;
  DB_TXN* get() const { return txn_; }
  int commit(uint32_t flags);  // the handle is gone afterwards, whatever the result
  void abort();

 private:
  DB_TXN* txn_ = nullptr;
};

// Closes the cursor on destruction (before its transaction ends: callers declare it after).
class DbCursor {
 public:
  explicit DbCursor(DBC* c) : c_(c) {}
  ~DbCursor() {
    if (c_ != nullptr) c_->close(c_);
  }
  DbCursor(const DbCursor&) = delete;
  DbCursor& operator=(const DbCursor&) = delete;
  DBC* get() const { return c_; }

 private:
  DBC* c_;
};

class BdbStore {
 public:
  // Opens (or shares this process's already open) environment in directory `path`. `io` does
  // what the backend itself does to the file system (create the directory, sync it); BDB does
  // the rest with its own system calls.
  static base::Result<std::shared_ptr<BdbStore>> open(const std::string& path, bool create,
                                                      bool read_only, io::Env* io);
  ~BdbStore();
  BdbStore(const BdbStore&) = delete;
  BdbStore& operator=(const BdbStore&) = delete;

  DB_ENV* env() const { return env_; }
  DB* db() const { return db_; }
  const std::string& path() const { return path_; }
  bool readOnly() const { return read_only_; }
  std::string file(const char* name) const { return path_ + "/" + name; }

  // DB_ENV->failchk: aborts the transactions of processes that died while the environment
  // stayed open (a SIGKILLed writer), releasing their locks. Called by begin() under
  // write.lock; kCorruption when the dead process held a BDB mutex (recovery needed).
  base::Status releaseDead();

  // BDB starts a new log file when the current one is full (10 MB) but never fsyncs a
  // directory, so a commit record in a new file is not durable until the file's name is.
  // Called after every commit: one log_stat, plus a directory fsync when a log file appeared
  // since the last one this process synced.
  base::Status syncNewLogFiles();

 private:
  BdbStore(std::string path, bool read_only, io::Env* io)
      : path_(std::move(path)), read_only_(read_only), io_(io) {}
  base::Status openHandles(bool create);
  base::Result<uint32_t> currentLogFile();

  std::string path_;
  bool read_only_;
  io::Env* io_;
  std::atomic<uint32_t> synced_log_file_{0};  // every log file up to it has a durable name
  io::FileLock env_lock_;  // shared while this process has the environment open
  DB_ENV* env_ = nullptr;
  DB* db_ = nullptr;
};

}  // namespace darius::db::berkeley
