// Opening a Berkeley DB environment safely from several processes, and the small RAII owners.
//
// Recovery protocol (docs/formats/berkeley.md): DB_RECOVER must run with no other process
// inside the environment. Every process that has the environment open holds a SHARED OFD lock
// on env.lock. An opener first takes open.lock exclusively (so openers do not race each
// other), then tries env.lock EXCLUSIVELY without waiting: granted means nobody else is
// inside, so it runs recovery and downgrades to shared; refused means others are inside and
// the environment is live, so it joins with a shared lock and no recovery. The kernel drops
// the lock of a process that dies, so a crash is always followed by recovery at the next
// open once every user of the environment has gone; meanwhile begin() runs failchk to
// release what a dead process left behind (docs/formats/berkeley.md).
//
// Directory entries: BDB fsyncs its files but never a directory, so the names of data.db and
// of the log files would not be durable on a strict POSIX file system. The backend syncs the
// directory itself (through the opener's io::Env) after every read-write open and whenever a
// commit finds a log file newer than the last one it synced (syncNewLogFiles).
#include "db/berkeley/bdb_env.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

namespace darius::db::berkeley {

using base::Result;
using base::Status;

namespace {

thread_local std::string t_messages;

void msgCall(const DB_ENV* env, const char* msg) { bdbErrCall(env, nullptr, msg); }

// Our own files, those BDB creates (__db.NNN regions, log.NNNNNNNNNN) and nothing else.
bool isOurFile(const std::string& name) {
  return name == "." || name == ".." || name == kDataFile || name == kWriteLockFile ||
         name == kEnvLockFile || name == kOpenLockFile || name.rfind("__db.", 0) == 0 ||
         name.rfind("log.", 0) == 0;
}

// Per-process table of open stores, keyed by real path, mode and pid (a forked child must
// never reuse its parent's handles).
std::mutex g_mu;
std::map<std::string, std::weak_ptr<BdbStore>>& stores() {
  static auto* m = new std::map<std::string, std::weak_ptr<BdbStore>>();
  return *m;
}

// Liveness for failchk: a process is dead when kill(pid, 0) says it no longer exists. Threads
// of live processes (ours included) are assumed alive: we only clean up after dead processes.
int isAlive(DB_ENV*, pid_t pid, db_threadid_t, u_int32_t) {
  if (pid == ::getpid()) return 1;
  return ::kill(pid, 0) == 0 || errno == EPERM ? 1 : 0;
}

}  // namespace

Status BdbStore::releaseDead() {
  takeBdbMessages();
  int ret = env_->failchk(env_, 0);
  if (ret == 0) return Status::ok();
  if (ret != DB_RUNRECOVERY) {
    // BDB 5.3 aborts the dead transactions and frees their locks first, then fails to
    // destroy the dead process's log-registration mutex (EBUSY from glibc). That leftover
    // does not stop writers (the test of a dead writer shows it); the next recovery clears it.
    takeBdbMessages();
    return Status::ok();
  }
  return bdbStatus(ret, "failchk (a process died inside Berkeley DB; close every handle so "
                   "the next open recovers)", path_);
}

void bdbErrCall(const DB_ENV*, const char* prefix, const char* msg) {
  if (!t_messages.empty()) t_messages += "; ";
  if (prefix != nullptr) t_messages += std::string(prefix) + ": ";
  t_messages += msg;
}

std::string takeBdbMessages() { return std::exchange(t_messages, std::string()); }

Status bdbStatus(int ret, std::string_view what, const std::string& path) {
  std::string m = std::string(what) + " " + path + ": " + db_strerror(ret);
  std::string extra = takeBdbMessages();
  if (!extra.empty()) m += " (" + extra + ")";
  switch (ret) {
    case DB_NOTFOUND:
    case DB_KEYEMPTY:
    case ENOENT: return Status::notFound(std::move(m));
    case DB_LOCK_DEADLOCK:
    case DB_LOCK_NOTGRANTED:
    case EAGAIN: return Status::temporary(std::move(m));
    case DB_RUNRECOVERY:
    case DB_VERIFY_BAD:
    case DB_PAGE_NOTFOUND:
    case DB_SECONDARY_BAD: return Status::corruption(std::move(m));
    case EACCES:
    case EPERM:
    case EROFS: return Status::permission(std::move(m));
    case EINVAL: return Status::invalid(std::move(m));
    case DB_KEYEXIST:
    case EEXIST: return Status::exists(std::move(m));
    case ENOMEM: return Status::temporary(std::move(m));
    default: return Status::ioError(std::move(m));
  }
}

DbtBuf::DbtBuf() {
  std::memset(&dbt_, 0, sizeof dbt_);
  dbt_.flags = DB_DBT_REALLOC;
}

DbtBuf::~DbtBuf() { std::free(dbt_.data); }

bool DbtBuf::assign(std::string_view bytes) {
  void* p = std::realloc(dbt_.data, bytes.empty() ? 1 : bytes.size());
  if (p == nullptr) return false;
  if (!bytes.empty()) std::memcpy(p, bytes.data(), bytes.size());
  dbt_.data = p;
  dbt_.size = static_cast<u_int32_t>(bytes.size());
  return true;
}

DBT inputDbt(std::string_view bytes) {
  DBT d;
  std::memset(&d, 0, sizeof d);
  // BDB takes void* but never writes through an input key or data DBT.
  d.data = const_cast<char*>(bytes.data());
  d.size = static_cast<u_int32_t>(bytes.size());
  return d;
}

int DbTxn::commit(uint32_t flags) {
  DB_TXN* t = std::exchange(txn_, nullptr);
  return t == nullptr ? EINVAL : t->commit(t, flags);
}

void DbTxn::abort() {
  if (DB_TXN* t = std::exchange(txn_, nullptr)) t->abort(t);
}

BdbStore::~BdbStore() {
  takeBdbMessages();
  if (db_ != nullptr) db_->close(db_, 0);
  // A checkpoint on the way out keeps the next recovery short.
  if (env_ != nullptr && !read_only_) env_->txn_checkpoint(env_, 0, 0, 0);
  if (env_ != nullptr) env_->close(env_, 0);
  takeBdbMessages();
}

Result<std::shared_ptr<BdbStore>> BdbStore::open(const std::string& path, bool create,
                                                 bool read_only, io::Env* io) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) return Status::fromErrno(errno, "stat " + path);
    if (!create || read_only) return Status::notFound("no berkeley database at " + path);
    // mkdir -p, and a sync of the parent of each directory made.
    if (Status s = io::createDirs(*io, path); !s.isOk()) return s;
  } else if (!S_ISDIR(st.st_mode)) {
    return Status::invalid(path + " is not a directory (a berkeley database is a directory)");
  }
  char real[PATH_MAX];
  if (::realpath(path.c_str(), real) == nullptr) return Status::fromErrno(errno, "realpath " + path);
  std::string dir(real);

  // Refuse a directory that holds anything but an environment: never scatter BDB files
  // into someone else's directory.
  bool has_data = false;
  if (DIR* d = ::opendir(dir.c_str())) {
    std::string stranger;
    while (dirent* e = ::readdir(d)) {
      std::string name(e->d_name);
      if (name == kDataFile) has_data = true;
      if (!isOurFile(name) && stranger.empty()) stranger = name;
    }
    ::closedir(d);
    if (!stranger.empty()) {
      return Status::invalid(path + " is not a berkeley environment (unexpected file '" +
                             stranger + "')");
    }
  } else {
    return Status::fromErrno(errno, "opendir " + path);
  }
  if (!has_data && (!create || read_only)) {
    return Status::notFound("no berkeley database in " + path);
  }

  std::lock_guard<std::mutex> guard(g_mu);
  std::string key = dir + (read_only ? "\n(ro)\n" : "\n(rw)\n") + std::to_string(::getpid());
  if (auto it = stores().find(key); it != stores().end()) {
    if (auto live = it->second.lock()) return live;
  }
  std::shared_ptr<BdbStore> store(new BdbStore(dir, read_only, io));
  if (Status s = store->openHandles(create); !s.isOk()) return s;
  stores()[key] = store;
  return store;
}

Status BdbStore::openHandles(bool create) {
  DARIUS_ASSIGN_OR_RETURN(io::FileLock open_lock,
                          io::FileLock::acquire(file(kOpenLockFile), io::LockMode::kExclusive,
                                                /*wait=*/true));
  bool alone = false;
  {
    Result<io::FileLock> excl =
        io::FileLock::acquire(file(kEnvLockFile), io::LockMode::kExclusive, /*wait=*/false);
    if (excl.ok()) {
      alone = true;
      env_lock_ = std::move(excl).value();
    } else if (excl.status().code() == base::Code::kLocked) {
      DARIUS_ASSIGN_OR_RETURN(env_lock_, io::FileLock::acquire(file(kEnvLockFile),
                                                               io::LockMode::kShared, true));
    } else {
      return excl.status();
    }
  }
  takeBdbMessages();
  int ret = db_env_create(&env_, 0);
  if (ret != 0) return bdbStatus(ret, "db_env_create", path_);
  env_->set_errcall(env_, bdbErrCall);
  env_->set_msgcall(env_, msgCall);
  env_->set_cachesize(env_, 0, kCacheBytes, 1);
  // A single write transaction may touch many pages; give the lock table room for it.
  env_->set_lk_max_locks(env_, 100000);
  env_->set_lk_max_objects(env_, 100000);
  env_->set_lk_max_lockers(env_, 10000);
  env_->set_lk_detect(env_, DB_LOCK_DEFAULT);
  // failchk() (see BdbStore::releaseDead) needs a thread table and a liveness test.
  env_->set_thread_count(env_, 1024);
  env_->set_isalive(env_, isAlive);
  // Logs no longer needed for normal recovery are deleted as checkpoints pass them.
  env_->log_set_config(env_, DB_LOG_AUTO_REMOVE, 1);
  uint32_t flags = DB_CREATE | DB_INIT_LOCK | DB_INIT_LOG | DB_INIT_MPOOL | DB_INIT_TXN |
                   DB_THREAD;
  // read_only never repairs anything, even when it finds itself alone.
  if (alone && !read_only_) flags |= DB_RECOVER;
  ret = env_->open(env_, path_.c_str(), flags, 0640);
  if (ret != 0) {
    Status s = bdbStatus(ret, alone && !read_only_ ? "open+recover environment" : "open environment", path_);
    env_->close(env_, 0);
    env_ = nullptr;
    return s;
  }
  if (alone) {
    // Downgrade in place: same description, so the exclusive lock becomes shared atomically.
    // (fcntl, not FileLock::acquireFd: a second FileLock on the description would unlock
    // it when destroyed.)
    struct flock fl;
    std::memset(&fl, 0, sizeof fl);
    fl.l_type = F_RDLCK;
    fl.l_whence = SEEK_SET;
    if (::fcntl(env_lock_.fd(), F_OFD_SETLKW, &fl) != 0) {
      return Status::fromErrno(errno, "downgrade lock " + file(kEnvLockFile));
    }
  }
  ret = db_create(&db_, env_, 0);
  if (ret != 0) return bdbStatus(ret, "db_create", path_);
  db_->set_pagesize(db_, kPageSize);  // used only when the file is created
  uint32_t dflags = DB_THREAD | DB_MULTIVERSION;
  dflags |= read_only_ ? DB_RDONLY : (create ? DB_CREATE : 0);
  // DB_MULTIVERSION wants the open inside a transaction; it also makes creating the file
  // atomic (a crash leaves either no data.db or an empty valid one).
  DB_TXN* t = nullptr;
  ret = env_->txn_begin(env_, nullptr, &t, 0);
  if (ret != 0) return bdbStatus(ret, "begin open transaction", path_);
  DbTxn open_txn(t);
  ret = db_->open(db_, open_txn.get(), kDataFile, nullptr, DB_BTREE, dflags, 0640);
  if (ret == 0) ret = open_txn.commit(0);
  if (ret != 0) {
    open_txn.abort();
    Status s = bdbStatus(ret, "open database", file(kDataFile));
    db_->close(db_, 0);
    db_ = nullptr;
    if (s.code() == base::Code::kInvalid) {
      return Status::invalid("not a berkeley btree database: " + s.message());
    }
    return s;
  }
  if (read_only_) return Status::ok();
  // Make the names BDB created durable: data.db (created by the transaction above), the log
  // files, the regions. Only then is anything committed through this store acknowledged.
  DARIUS_ASSIGN_OR_RETURN(uint32_t log_file, currentLogFile());
  DARIUS_RETURN_IF_ERROR(io_->syncDir(path_));
  synced_log_file_.store(log_file);
  return Status::ok();
}

Result<uint32_t> BdbStore::currentLogFile() {
  DB_LOG_STAT* st = nullptr;
  int ret = env_->log_stat(env_, &st, 0);
  if (ret != 0) return bdbStatus(ret, "log_stat", path_);
  uint32_t file = st->st_cur_file;
  std::free(st);  // BDB allocated it with malloc (no set_alloc)
  return file;
}

Status BdbStore::syncNewLogFiles() {
  DARIUS_ASSIGN_OR_RETURN(uint32_t log_file, currentLogFile());
  if (log_file == synced_log_file_.load()) return Status::ok();
  DARIUS_RETURN_IF_ERROR(io_->syncDir(path_));
  synced_log_file_.store(log_file);
  return Status::ok();
}

}  // namespace darius::db::berkeley
