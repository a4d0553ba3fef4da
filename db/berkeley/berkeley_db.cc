// The berkeley backend: db::Database over a BDB btree (bdb_env.h opens it).
//
// Reads on Database run in their own short snapshot transaction (DB_TXN_SNAPSHOT over a
// DB_MULTIVERSION btree): each call sees one committed state, takes no read locks, and so
// never waits for, deadlocks with, or sees the uncommitted pages of the writer. Writers are
// serialised across threads and processes by an exclusive OFD lock on write.lock held from
// begin() to commit/abort, so two BDB writers never meet and cannot deadlock.
#include "db/berkeley/berkeley_db.h"

#include <cstring>
#include <utility>

#include "db/berkeley/bdb_env.h"
#include "lib/io/file_lock.h"

namespace darius::db::berkeley {

using base::Result;
using base::Status;

namespace {

// get() with DB_DBT_MALLOC output; `txn` may be a snapshot or a write transaction.
Result<std::string> getIn(BdbStore& store, DB_TXN* txn, std::string_view key) {
  if (key.empty() || key.size() > kMaxKeySize) return Status::notFound("no such key");
  DBT k = inputDbt(key);
  DbtBuf v;
  int ret = store.db()->get(store.db(), txn, &k, v.dbt(), 0);
  if (ret == DB_NOTFOUND) return Status::notFound("key not found in " + store.path());
  if (ret != 0) return bdbStatus(ret, "get", store.path());
  return std::string(v.view());
}

// Ordered scan with a cursor in `txn`: DB_SET_RANGE to the first key >= start, then DB_NEXT
// until the end of the range. The btree compares keys bytewise (memcmp, shorter first).
Status scanIn(BdbStore& store, DB_TXN* txn, const Range& range, const ScanFn& fn) {
  DBC* raw = nullptr;
  int ret = store.db()->cursor(store.db(), txn, &raw, 0);
  if (ret != 0) return bdbStatus(ret, "cursor", store.path());
  DbCursor cursor(raw);
  DbtBuf k, v;
  uint32_t op = DB_FIRST;
  if (!range.start.empty()) {
    if (!k.assign(range.start)) return Status::temporary("out of memory");
    op = DB_SET_RANGE;
  }
  for (;;) {
    ret = cursor.get()->get(cursor.get(), k.dbt(), v.dbt(), op);
    if (ret == DB_NOTFOUND) return Status::ok();
    if (ret != 0) return bdbStatus(ret, "scan", store.path());
    op = DB_NEXT;
    if (range.end && k.view() >= std::string_view(*range.end)) return Status::ok();
    if (!fn(k.view(), v.view())) return Status::ok();
  }
}

// A short snapshot transaction for one read call.
Result<DbTxn> beginSnapshot(BdbStore& store) {
  DB_TXN* t = nullptr;
  int ret = store.env()->txn_begin(store.env(), nullptr, &t, DB_TXN_SNAPSHOT);
  if (ret != 0) return bdbStatus(ret, "begin read transaction", store.path());
  return DbTxn(t);
}

class BerkeleyTxn final : public Txn {
 public:
  BerkeleyTxn(std::shared_ptr<BdbStore> store, io::FileLock lock, DbTxn txn)
      : store_(std::move(store)), lock_(std::move(lock)), txn_(std::move(txn)) {}
  // Members go in reverse order: the BDB transaction aborts before write.lock is released.
  ~BerkeleyTxn() override { abort(); }

  Result<std::string> get(std::string_view key) override {
    if (Status s = usable(); !s.isOk()) return s;
    return track(getIn(*store_, txn_.get(), key));
  }

  Status put(std::string_view key, std::string_view value) override {
    if (Status s = usable(); !s.isOk()) return s;
    if (Status s = validateRecord(key, value); !s.isOk()) return s;
    DBT k = inputDbt(key);
    DBT v = inputDbt(value);
    int ret = store_->db()->put(store_->db(), txn_.get(), &k, &v, 0);
    return ret == 0 ? Status::ok() : fail(bdbStatus(ret, "put", store_->path()));
  }

  Status remove(std::string_view key) override {
    if (Status s = usable(); !s.isOk()) return s;
    if (key.empty() || key.size() > kMaxKeySize) return Status::notFound("no such key");
    DBT k = inputDbt(key);
    int ret = store_->db()->del(store_->db(), txn_.get(), &k, 0);
    if (ret == DB_NOTFOUND) return Status::notFound("key not found in " + store_->path());
    return ret == 0 ? Status::ok() : fail(bdbStatus(ret, "delete", store_->path()));
  }

  Status scan(const Range& range, const ScanFn& fn) override {
    if (Status s = usable(); !s.isOk()) return s;
    Status s = scanIn(*store_, txn_.get(), range, fn);
    return s.isOk() ? s : fail(std::move(s));
  }

  Status commit() override {
    if (Status s = usable(); !s.isOk()) return s;
    // DB_TXN_SYNC: the log is on disk before commit returns; and if the commit record went
    // into a log file newer than the last one whose name we made durable, we sync the
    // directory too. Only then does OK mean durable.
    int ret = txn_.commit(DB_TXN_SYNC);
    done_ = true;
    Status result = ret == 0 ? Status::ok() : bdbStatus(ret, "commit", store_->path());
    if (ret == 0) {
      if (Status s = store_->syncNewLogFiles(); !s.isOk()) {
        result = s.withContext("commit (made, but its new log file may not survive a crash)");
      }
      // Cheap unless 1 MB of log has passed since the last one; bounds recovery time and
      // lets DB_LOG_AUTO_REMOVE delete old logs.
      store_->env()->txn_checkpoint(store_->env(), 1024, 0, 0);
      takeBdbMessages();
    }
    lock_.unlock();
    return result;
  }

  void abort() override {
    txn_.abort();
    done_ = true;
    lock_.unlock();
  }

 private:
  Status usable() const {
    if (done_) return Status::invalid("transaction already committed or aborted");
    if (failed_) return Status::invalid("transaction failed earlier; abort it (" + why_ + ")");
    return Status::ok();
  }
  // After a BDB error other than not-found the transaction may only be aborted.
  Status fail(Status s) {
    if (!s.isNotFound()) {
      failed_ = true;
      why_ = s.message();
    }
    return s;
  }
  Result<std::string> track(Result<std::string> r) {
    if (!r.ok()) (void)fail(r.status());
    return r;
  }

  std::shared_ptr<BdbStore> store_;
  io::FileLock lock_;
  DbTxn txn_;
  bool done_ = false;
  bool failed_ = false;
  std::string why_;
};

}  // namespace

// Defined in check.cc (verify and cursor walk) to keep this file short.
Result<CheckReport> checkStore(BdbStore& store);
Status compactStore(BdbStore& store);

namespace {

class BerkeleyDatabase final : public Database {
 public:
  BerkeleyDatabase(std::string path, std::shared_ptr<BdbStore> store)
      : path_(std::move(path)), store_(std::move(store)) {}

  Backend backend() const override { return Backend::kBerkeley; }
  const std::string& path() const override { return path_; }

  Result<std::string> get(std::string_view key) override {
    DARIUS_ASSIGN_OR_RETURN(DbTxn txn, beginSnapshot(*store_));
    Result<std::string> r = getIn(*store_, txn.get(), key);
    txn.commit(DB_TXN_NOSYNC);
    return r;
  }

  Status scan(const Range& range, const ScanFn& fn) override {
    DARIUS_ASSIGN_OR_RETURN(DbTxn txn, beginSnapshot(*store_));
    Status s = scanIn(*store_, txn.get(), range, fn);
    txn.commit(DB_TXN_NOSYNC);
    return s;
  }

  Result<std::unique_ptr<Txn>> begin() override {
    if (store_->readOnly()) return Status::permission("database opened read-only: " + path_);
    DARIUS_ASSIGN_OR_RETURN(io::FileLock lock,
                            io::FileLock::acquire(store_->file(kWriteLockFile),
                                                  io::LockMode::kExclusive, /*wait=*/true));
    // A writer that died since the last begin() left its transaction and page locks behind
    // (its write.lock went with it); clear them before we need those pages.
    if (Status s = store_->releaseDead(); !s.isOk()) return s;
    DB_TXN* t = nullptr;
    int ret = store_->env()->txn_begin(store_->env(), nullptr, &t, 0);
    if (ret != 0) return bdbStatus(ret, "begin transaction", path_);
    return std::unique_ptr<Txn>(new BerkeleyTxn(store_, std::move(lock), DbTxn(t)));
  }

  Result<CheckReport> check() override { return checkStore(*store_); }
  Status compact() override {
    if (store_->readOnly()) return Status::permission("database opened read-only: " + path_);
    return compactStore(*store_);
  }

 private:
  std::string path_;
  std::shared_ptr<BdbStore> store_;
};

}  // namespace

Result<std::unique_ptr<Database>> openBerkeley(const std::string& path,
                                               const OpenOptions& options) {
  // options.env serves what the backend does itself (the directory, its fsyncs). BDB does its
  // own file I/O with its own system calls, which no io::Env can reach; the power-cut test
  // replaces those system calls instead (bdb_power_cut.h, docs/formats/berkeley.md).
  io::Env* io = options.env != nullptr ? options.env : io::Env::posix();
  DARIUS_ASSIGN_OR_RETURN(std::shared_ptr<BdbStore> store,
                          BdbStore::open(path, options.create, options.read_only, io));
  return std::unique_ptr<Database>(new BerkeleyDatabase(path, std::move(store)));
}

}  // namespace darius::db::berkeley
