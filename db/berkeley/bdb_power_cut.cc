// BdbPowerCut: BDB's replaceable system calls routed into FaultyEnv's crash model (header).
//
// Return conventions are BDB 5.3's (os/os_*.c): open, write and pwrite return -1 with errno
// set; close, fsync, ftruncate, rename and unlink return 0 or an errno value. BDB sets
// FD_CLOEXEC itself only when it calls open(2) itself, so our open adds O_CLOEXEC.
//
// fsync does `durable = current` for the file, as FsModel::fileSynced would, but copies only
// the bytes changed since the last sync: BDB extends every log file to its full 10 MB at
// creation, and copying 10 MB per commit would make the test slow. Every change to a file's
// `current` bytes goes through this file (writes, ftruncate) or resets both views
// (FsModel::created, truncated, first sight), so the dirty range below is exact.
#include "db/berkeley/bdb_power_cut.h"

#include <db.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#include "db/berkeley/bdb_env.h"
#include "lib/io/faulty_env_model.h"
#include "lib/io/fd.h"
#include "lib/io/mapped_file.h"
#include "lib/io/path.h"

namespace darius::db::berkeley {

using base::Result;
using base::Status;
using io::internal::FsLocation;
using io::internal::FsModel;
using io::internal::FsNode;

namespace {

bool isLog(const std::string& path) { return io::baseName(path).rfind("log.", 0) == 0; }

// The backend's own lock files: made by io::FileLock, outside BDB and the model. They hold no
// data; after a real power cut they may or may not exist, and both are fine.
bool isLockFile(const std::string& name) {
  return name == kWriteLockFile || name == kEnvLockFile || name == kOpenLockFile;
}

Status errnoStatus(int err, const std::string& what) {
  return err == 0 ? Status::ok() : Status::fromErrno(err, what);
}

// Whether the file at `path` holds exactly `want`; mapped rather than read, as log files are
// 10 MB.
Result<bool> holds(const std::string& path, const std::string& want) {
  DARIUS_ASSIGN_OR_RETURN(io::UniqueFd fd, io::openFile(path, O_RDONLY));
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return Status::fromErrno(errno, "fstat " + path);
  if (static_cast<uint64_t>(st.st_size) != want.size()) return false;
  DARIUS_ASSIGN_OR_RETURN(io::MappedFile map, io::MappedFile::map(fd.get(), want.size(), false));
  return map.view() == want;
}

}  // namespace

bool BdbPowerCut::isRegionFile(const std::string& name) {
  std::string base = io::baseName(name);
  return base.size() == 8 && base.compare(0, 5, "__db.") == 0 &&
         std::isdigit(static_cast<unsigned char>(base[5])) &&
         std::isdigit(static_cast<unsigned char>(base[6])) &&
         std::isdigit(static_cast<unsigned char>(base[7]));
}

class BdbPowerCut::Impl final : public io::Env {
 public:
  explicit Impl(bool modelled) : posix_(io::Env::posix()), modelled_(modelled), model_(posix_) {}

  // ---- BDB's system calls ----

  int open(const char* path, int flags, mode_t mode) {
    std::lock_guard<std::mutex> lock(mu_);
    Result<std::string> abs = io::absolutePath(path);
    if (!abs.ok()) return failErrno(EINVAL);
    flags |= O_CLOEXEC;
    if (isRegionFile(*abs)) {
      int fd = ::open(abs->c_str(), flags, mode);
      if (fd >= 0) fds_[fd] = OpenFile{*abs, true, nullptr};
      return fd;
    }
    Result<FsLocation> loc = model_.locate(*abs);
    if (!loc.ok()) return failErrno(modelError(loc.status()));
    Result<FsNode*> found = model_.entry(*loc);
    if (!found.ok()) return failErrno(modelError(found.status()));
    FsNode* node = *found;
    bool creates = (flags & O_CREAT) != 0 && node == nullptr;
    bool truncates = (flags & O_TRUNC) != 0 && (flags & O_ACCMODE) != O_RDONLY && node != nullptr;
    if (creates || truncates) admit('o', (creates ? "create " : "truncating open ") + name(*abs));
    int fd = ::open(abs->c_str(), flags, mode);
    if (fd < 0) return -1;
    if (node == nullptr) {
      node = model_.created(*loc, /*is_dir=*/false);
    } else if (truncates) {
      model_.truncated(node);
      dirty_.erase(node);
    }
    if (!node->is_dir) names_[*abs] = node;
    fds_[fd] = OpenFile{*abs, false, node};
    return fd;
  }

  int close(int fd) {
    std::lock_guard<std::mutex> lock(mu_);
    fds_.erase(fd);
    // No EINTR retry: Linux has released the fd even then (docs/design/io.md).
    return ::close(fd) == 0 ? 0 : errno;
  }

  ssize_t write(int fd, const void* buf, size_t n) {
    std::lock_guard<std::mutex> lock(mu_);
    OpenFile* f = file(fd, "write");
    if (f == nullptr) return failErrno(EBADF);
    off_t off = ::lseek(fd, 0, SEEK_CUR);
    if (off < 0) return -1;
    return writeAt(*f, fd, static_cast<const char*>(buf), n, off, /*positional=*/false);
  }

  ssize_t pwrite(int fd, const void* buf, size_t n, off_t off) {
    std::lock_guard<std::mutex> lock(mu_);
    OpenFile* f = file(fd, "pwrite");
    if (f == nullptr) return failErrno(EBADF);
    return writeAt(*f, fd, static_cast<const char*>(buf), n, off, /*positional=*/true);
  }

  int fsync(int fd) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!modelled_) return 0;  // installWithoutSyncs()
    OpenFile* f = file(fd, "fsync");
    if (f == nullptr) return EBADF;
    if (f->region) return 0;  // regions are not data: nothing to make durable
    admit('s', "fsync " + name(f->path));
    // Not passed to the kernel: the model decides what survives (header).
    synced(f->node);
    if (isLog(f->path)) ++log_syncs_;
    return 0;
  }

  int ftruncate(int fd, off_t len) {
    std::lock_guard<std::mutex> lock(mu_);
    OpenFile* f = file(fd, "ftruncate");
    if (f == nullptr) return EBADF;
    if (f->region) return ::ftruncate(fd, len) == 0 ? 0 : errno;
    admit('o', "ftruncate " + name(f->path) + " to " + std::to_string(len));
    if (::ftruncate(fd, len) != 0) return errno;
    // Like a write: the new length is durable at the next fsync.
    uint64_t old_size = f->node->current.size();
    f->node->current.resize(static_cast<size_t>(len));
    markDirty(f->node, std::min<uint64_t>(old_size, len), std::max<uint64_t>(old_size, len));
    return 0;
  }

  int rename(const char* from, const char* to) {
    std::lock_guard<std::mutex> lock(mu_);
    return renameLocked(from, to);
  }

  int unlink(const char* path) {
    std::lock_guard<std::mutex> lock(mu_);
    return unlinkLocked(path);
  }

  // ---- io::Env: what the backend does itself ----

  Result<std::unique_ptr<io::WritableFile>> openWritable(const std::string& path,
                                                         OpenMode) override {
    return notRouted("openWritable " + path);
  }
  Result<std::string> readFile(const std::string& path) override { return posix_->readFile(path); }
  Status renameFile(const std::string& from, const std::string& to) override {
    if (!modelled_) return posix_->renameFile(from, to);
    std::lock_guard<std::mutex> lock(mu_);
    return errnoStatus(renameLocked(from.c_str(), to.c_str()), "rename " + from);
  }
  Status linkFile(const std::string& from, const std::string&) override {
    return notRouted("link " + from);
  }
  Status removeFile(const std::string& path) override {
    if (!modelled_) return posix_->removeFile(path);
    std::lock_guard<std::mutex> lock(mu_);
    return errnoStatus(unlinkLocked(path.c_str()), "unlink " + path);
  }
  Status setPermissions(const std::string& path, mode_t) override {
    return notRouted("chmod " + path);
  }
  Status createDir(const std::string& path) override {
    if (!modelled_) return posix_->createDir(path);
    std::lock_guard<std::mutex> lock(mu_);
    DARIUS_ASSIGN_OR_RETURN(std::string p, io::absolutePath(path));
    DARIUS_ASSIGN_OR_RETURN(FsLocation loc, model_.locate(p));
    DARIUS_RETURN_IF_ERROR(model_.entry(loc).status());
    admit('o', "mkdir " + name(p));
    DARIUS_RETURN_IF_ERROR(posix_->createDir(p));
    model_.created(loc, /*is_dir=*/true);
    created_dirs_.insert(p);
    return Status::ok();
  }
  Status removeDir(const std::string& path) override { return notRouted("rmdir " + path); }
  Status syncDir(const std::string& path) override {
    if (!modelled_) return Status::ok();
    std::lock_guard<std::mutex> lock(mu_);
    DARIUS_ASSIGN_OR_RETURN(std::string p, io::absolutePath(path));
    DARIUS_ASSIGN_OR_RETURN(FsNode * dir, model_.directory(p));
    admit('s', "syncdir " + name(p));
    model_.dirSynced(dir);  // not passed to the kernel either
    return Status::ok();
  }
  Result<bool> fileExists(const std::string& path) override { return posix_->fileExists(path); }
  Result<uint64_t> fileSize(const std::string& path) override { return posix_->fileSize(path); }
  Result<std::vector<std::string>> listDir(const std::string& path) override {
    return posix_->listDir(path);
  }
  Result<bool> isDirectory(const std::string& path) override { return posix_->isDirectory(path); }

  // ---- the test's controls ----

  Counts counts() const {
    std::lock_guard<std::mutex> lock(mu_);
    return counts_;
  }
  uint64_t logSyncs() const {
    std::lock_guard<std::mutex> lock(mu_);
    return log_syncs_;
  }
  void reportTo(int fd, bool trace) {
    std::lock_guard<std::mutex> lock(mu_);
    report_fd_ = fd;
    trace_ = trace;
  }
  void losePowerAfterOps(uint64_t n) {
    std::lock_guard<std::mutex> lock(mu_);
    cut_at_ = counts_.ops() + n;
  }
  [[noreturn]] void losePowerNow() {
    mu_.lock();  // never released: the process ends
    die('n', "-");
  }

 private:
  struct OpenFile {
    std::string path;
    bool region = false;
    FsNode* node = nullptr;  // null for regions
  };

  static std::string name(const std::string& path) { return io::baseName(path); }
  static int failErrno(int e) {
    errno = e;
    return -1;
  }
  static Status notRouted(const std::string& what) {
    return Status::notSupported(what +
                                ": not routed by BdbPowerCut (the berkeley backend "
                                "never does this itself)");
  }

  void report(const std::string& line) {
    if (report_fd_ < 0) return;
    std::string l = line + "\n";
    for (size_t done = 0; done < l.size();) {
      ssize_t w = ::write(report_fd_, l.data() + done, l.size() - done);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return;
      done += static_cast<size_t>(w);
    }
  }

  // Counts a mutating call about to happen; at the cut it does not happen. mu_ held.
  void admit(char kind, const std::string& what) {
    if (trace_) report("op " + std::to_string(counts_.ops()) + " " + kind + " " + what);
    if (cut_at_ && counts_.ops() >= *cut_at_) die(kind, what);
    if (kind == 'w') ++counts_.writes;
    if (kind == 's') ++counts_.syncs;
    if (kind == 'o') ++counts_.others;
  }

  // The power cut: check, roll back, report, end the process. mu_ held (and kept).
  [[noreturn]] void die(char kind, const std::string& what) {
    std::string failure = model_error_;
    if (failure.empty()) {
      if (Status s = checkDisk(); !s.isOk()) failure = s.toString();
    }
    if (failure.empty()) {
      if (Status s = model_.rebuild(nullptr); !s.isOk()) failure = s.toString();
    }
    if (failure.empty()) {
      report("cut " + std::to_string(counts_.ops()) + " " + std::to_string(log_syncs_) + " " +
             kind + " " + what);
    } else {
      report("fail " + failure);
    }
    ::_exit(failure.empty() ? kPowerCutExit : kShimFailedExit);
  }

  // The open file a mutating call names. mu_ held.
  OpenFile* file(int fd, const char* op) {
    auto it = fds_.find(fd);
    if (it != fds_.end()) return &it->second;
    (void)modelError(Status::invalid(std::string(op) + " on descriptor " + std::to_string(fd) +
                                     " that BDB did not open through the shim"));
    return nullptr;
  }

  ssize_t writeAt(OpenFile& f, int fd, const char* p, size_t n, off_t off, bool positional) {
    if (!f.region) {
      admit('w', (positional ? "pwrite " : "write ") + name(f.path) + " @" + std::to_string(off) +
                     "+" + std::to_string(n));
    }
    for (size_t done = 0; done < n;) {
      ssize_t w = positional ? ::pwrite(fd, p + done, n - done, off + static_cast<off_t>(done))
                             : ::write(fd, p + done, n - done);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return w < 0 ? -1 : failErrno(EIO);
      done += static_cast<size_t>(w);
    }
    if (!f.region) {
      uint64_t old_size = f.node->current.size();
      FsModel::written(f.node, static_cast<uint64_t>(off), {p, n});
      // A write past the end also changes the gap (now zeros).
      markDirty(f.node, std::min<uint64_t>(old_size, off), static_cast<uint64_t>(off) + n);
    }
    return static_cast<ssize_t>(n);
  }

  void markDirty(FsNode* node, uint64_t from, uint64_t to) {
    auto [it, fresh] = dirty_.try_emplace(node, from, to);
    if (!fresh) {
      it->second.first = std::min(it->second.first, from);
      it->second.second = std::max(it->second.second, to);
    }
  }

  // durable = current (FsModel::fileSynced), copying only what changed since the last sync.
  void synced(FsNode* node) {
    auto it = dirty_.find(node);
    if (it == dirty_.end()) return;  // nothing changed since the last sync
    node->durable.resize(node->current.size());
    uint64_t from = std::min<uint64_t>(it->second.first, node->current.size());
    uint64_t to = std::min<uint64_t>(it->second.second, node->current.size());
    node->durable.replace(from, to - from, node->current, from, to - from);
    dirty_.erase(it);
  }

  // Remembers the first failure of the model itself (the cut reports it); returns an errno.
  int modelError(const Status& s) {
    if (s.isNotFound()) return ENOENT;  // an ordinary answer, e.g. open of a missing file
    if (model_error_.empty()) model_error_ = s.toString();
    return EIO;
  }

  int renameLocked(const char* from, const char* to) {
    Result<std::string> f = io::absolutePath(from);
    Result<std::string> t = io::absolutePath(to);
    if (!f.ok() || !t.ok()) return EINVAL;
    if (isRegionFile(*f) || isRegionFile(*t)) {
      return ::rename(f->c_str(), t->c_str()) == 0 ? 0 : errno;
    }
    Result<FsLocation> from_loc = model_.locate(*f);
    if (!from_loc.ok()) return modelError(from_loc.status());
    Result<FsNode*> moving = model_.entry(*from_loc);
    if (!moving.ok()) return modelError(moving.status());
    if (*moving == nullptr) return ENOENT;
    Result<FsLocation> to_loc = model_.locate(*t);
    if (!to_loc.ok()) return modelError(to_loc.status());
    Result<FsNode*> replaced = model_.entry(*to_loc);
    if (!replaced.ok()) return modelError(replaced.status());
    // A directory that moves must be rebuildable from memory (as FaultyEnv::renameFile).
    if (Status s = model_.loadTree(*moving, *f); !s.isOk()) return modelError(s);
    if (*replaced != nullptr) {
      if (Status s = model_.loadTree(*replaced, *t); !s.isOk()) return modelError(s);
    }
    admit('o', "rename " + name(*f) + " -> " + name(*t));
    if (::rename(f->c_str(), t->c_str()) != 0) return errno;
    if (*moving != *replaced) model_.renamed(*from_loc, *to_loc);
    names_.erase(*f);
    names_[*t] = *moving;
    return 0;
  }

  int unlinkLocked(const char* path) {
    Result<std::string> p = io::absolutePath(path);
    if (!p.ok()) return EINVAL;
    if (isRegionFile(*p)) return ::unlink(p->c_str()) == 0 ? 0 : errno;
    Result<FsLocation> loc = model_.locate(*p);
    if (!loc.ok()) return modelError(loc.status());
    Result<FsNode*> node = model_.entry(*loc);
    if (!node.ok()) return modelError(node.status());
    if (*node == nullptr) return ENOENT;  // changes nothing, so not a cut point
    admit('o', "unlink " + name(*p));
    if (::unlink(p->c_str()) != 0) return errno;
    model_.removed(*loc);
    names_.erase(*p);
    return 0;
  }

  // Nothing changed the disk behind the shim's back: every file the model knows holds what
  // the model says, and the directories it saw created hold nothing it does not know.
  Status checkDisk() {
    for (const auto& [path, node] : names_) {
      Result<bool> same = holds(path, node->current);
      if (!same.ok()) {
        return Status::corruption(
            path + " disappeared outside the replaced system calls: " + same.status().toString());
      }
      if (!*same) {
        return Status::corruption(path + " was changed outside the replaced system calls");
      }
    }
    for (const std::string& dir : created_dirs_) {
      Result<std::vector<std::string>> entries = posix_->listDir(dir);
      if (!entries.ok()) return entries.status().withContext("BdbPowerCut disk check");
      for (const std::string& entry : *entries) {
        std::string p = io::joinPath(dir, entry);
        if (names_.count(p) != 0 || created_dirs_.count(p) != 0 || isRegionFile(p) ||
            isLockFile(entry)) {
          continue;
        }
        return Status::corruption(p + " was created outside the replaced system calls");
      }
    }
    return Status::ok();
  }

  Env* const posix_;
  const bool modelled_;  // false: installWithoutSyncs()
  mutable std::mutex mu_;
  FsModel model_;
  std::map<int, OpenFile> fds_;
  std::map<std::string, FsNode*> names_;  // path -> file, for every modelled file with a name
  std::map<FsNode*, std::pair<uint64_t, uint64_t>> dirty_;  // bytes changed since last sync
  std::set<std::string> created_dirs_;
  Counts counts_;
  uint64_t log_syncs_ = 0;
  std::optional<uint64_t> cut_at_;  // the index of the call that does not happen
  int report_fd_ = -1;
  bool trace_ = false;
  std::string model_error_;
};

namespace {

std::mutex g_install_mu;
std::atomic<BdbPowerCut::Impl*> g_impl{nullptr};

BdbPowerCut::Impl& shim() { return *g_impl.load(); }

int hookOpen(const char* path, int flags, ...) {
  mode_t mode = 0;
  if ((flags & O_CREAT) != 0) {
    va_list ap;
    va_start(ap, flags);
    mode = static_cast<mode_t>(va_arg(ap, int));
    va_end(ap);
  }
  return shim().open(path, flags, mode);
}
int hookClose(int fd) { return shim().close(fd); }
ssize_t hookWrite(int fd, const void* buf, size_t n) { return shim().write(fd, buf, n); }
ssize_t hookPwrite(int fd, const void* buf, size_t n, off_t off) {
  return shim().pwrite(fd, buf, n, off);
}
int hookFsync(int fd) { return shim().fsync(fd); }
int hookFtruncate(int fd, off_t len) { return shim().ftruncate(fd, len); }
int hookRename(const char* from, const char* to) { return shim().rename(from, to); }
int hookUnlink(const char* path) { return shim().unlink(path); }

// Installs the hooks (only fsync's when `!modelled`), or (install == false) gives BDB its own
// system calls back.
Status setHooks(bool install, bool modelled) {
  int ret = 0;
  auto set = [&ret](int r) { ret = ret != 0 ? ret : r; };
  set(db_env_set_func_fsync(install ? hookFsync : nullptr));
  if (!modelled) install = false;
  set(db_env_set_func_open(install ? hookOpen : nullptr));
  set(db_env_set_func_close(install ? hookClose : nullptr));
  set(db_env_set_func_write(install ? hookWrite : nullptr));
  set(db_env_set_func_pwrite(install ? hookPwrite : nullptr));
  set(db_env_set_func_ftruncate(install ? hookFtruncate : nullptr));
  set(db_env_set_func_rename(install ? hookRename : nullptr));
  set(db_env_set_func_unlink(install ? hookUnlink : nullptr));
  return ret == 0 ? Status::ok()
                  : Status::ioError(std::string("db_env_set_func_*: ") + db_strerror(ret));
}

}  // namespace

Result<std::unique_ptr<BdbPowerCut>> BdbPowerCut::install() { return installMode(true); }

Result<std::unique_ptr<BdbPowerCut>> BdbPowerCut::installWithoutSyncs() {
  return installMode(false);
}

Result<std::unique_ptr<BdbPowerCut>> BdbPowerCut::installMode(bool modelled) {
  std::lock_guard<std::mutex> lock(g_install_mu);
  if (g_impl.load() != nullptr) return Status::invalid("a BdbPowerCut is already installed");
  auto impl = std::make_unique<Impl>(modelled);
  g_impl.store(impl.get());
  if (Status s = setHooks(true, modelled); !s.isOk()) {
    (void)setHooks(false, true);
    g_impl.store(nullptr);
    return s;
  }
  return std::unique_ptr<BdbPowerCut>(new BdbPowerCut(std::move(impl)));
}

BdbPowerCut::BdbPowerCut(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

BdbPowerCut::~BdbPowerCut() {
  std::lock_guard<std::mutex> lock(g_install_mu);
  (void)setHooks(false, true);
  g_impl.store(nullptr);
}

io::Env* BdbPowerCut::env() { return impl_.get(); }
BdbPowerCut::Counts BdbPowerCut::counts() const { return impl_->counts(); }
uint64_t BdbPowerCut::logSyncs() const { return impl_->logSyncs(); }
void BdbPowerCut::reportTo(int fd, bool trace) { impl_->reportTo(fd, trace); }
void BdbPowerCut::losePowerAfterOps(uint64_t n) { impl_->losePowerAfterOps(n); }
void BdbPowerCut::losePowerNow() { impl_->losePowerNow(); }

}  // namespace darius::db::berkeley
