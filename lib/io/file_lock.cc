#include "lib/io/file_lock.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <utility>

#include "lib/io/eintr.h"

namespace darius::io {

using base::Result;
using base::Status;

namespace {

// F_OFD_* needs l_pid == 0; whole file is l_start 0, l_len 0.
Status ofdLock(int fd, short type, bool wait) {
  struct flock fl = {};
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = 0;
  fl.l_len = 0;
  fl.l_pid = 0;
  int cmd = wait ? F_OFD_SETLKW : F_OFD_SETLK;
  if (retryOnEintr([&] { return ::fcntl(fd, cmd, &fl); }) == 0) return Status::ok();
  // A conflicting lock shows as EAGAIN or EACCES (POSIX allows both); fromErrno would call
  // EACCES a permission problem.
  if (!wait && (errno == EAGAIN || errno == EACCES)) return Status::locked("file is locked");
  return Status::fromErrno(errno, "fcntl(F_OFD_SETLK)");
}

short lockType(LockMode mode) { return mode == LockMode::kShared ? F_RDLCK : F_WRLCK; }

}  // namespace

FileLock::FileLock(FileLock&& other) noexcept
    : owned_(std::move(other.owned_)), fd_(std::exchange(other.fd_, -1)), mode_(other.mode_) {}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    unlock();
    owned_ = std::move(other.owned_);
    fd_ = std::exchange(other.fd_, -1);
    mode_ = other.mode_;
  }
  return *this;
}

void FileLock::unlock() {
  if (fd_ < 0) return;
  if (owned_.valid()) {
    owned_.reset();  // closing our own description releases its lock
  } else {
    (void)ofdLock(fd_, F_UNLCK, false);  // the caller keeps the fd; drop just the lock
  }
  fd_ = -1;
}

Result<FileLock> FileLock::acquireFd(int fd, LockMode mode, bool wait) {
  Status s = ofdLock(fd, lockType(mode), wait);
  if (!s.isOk()) return s;
  return FileLock(UniqueFd(), fd, mode);
}

Result<FileLock> FileLock::acquire(const std::string& path, LockMode mode, bool wait) {
  // Each round opens a fresh description; a round only repeats when someone replaced the
  // file between our open and our lock, which needs a racing writer every single time.
  for (int attempt = 0; attempt < 100; ++attempt) {
    DARIUS_ASSIGN_OR_RETURN(UniqueFd fd, openFile(path, O_RDWR | O_CREAT, 0640));
    Status s = ofdLock(fd.get(), lockType(mode), wait);
    if (!s.isOk()) return s.withContext(path);

    struct stat held, current;
    if (retryOnEintr([&] { return ::fstat(fd.get(), &held); }) != 0) {
      return Status::fromErrno(errno, "fstat " + path);
    }
    if (retryOnEintr([&] { return ::stat(path.c_str(), &current); }) != 0) {
      if (errno == ENOENT) continue;  // unlinked while we waited
      return Status::fromErrno(errno, "stat " + path);
    }
    if (held.st_dev != current.st_dev || held.st_ino != current.st_ino) continue;
    int raw = fd.get();
    return FileLock(std::move(fd), raw, mode);
  }
  return Status::temporary("lock file " + path + " keeps being replaced");
}

}  // namespace darius::io
