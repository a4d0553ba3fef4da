#include "lib/io/fd.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "lib/io/eintr.h"
#include "lib/io/path.h"

namespace darius::io {

using base::Result;
using base::Status;

namespace {

std::string failedOp(std::string_view op, std::string_view path) {
  std::string s(op);
  s += ' ';
  s += path;
  return s;
}

// Regular files never legitimately return 0 from write(2) for a non-empty buffer; treat it as
// an I/O error instead of spinning.
Status zeroWrite(std::string_view op) {
  return Status::ioError(std::string(op) + ": wrote 0 bytes");
}

}  // namespace

void UniqueFd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);  // see close() for why there is no EINTR retry
  fd_ = fd;
}

Status UniqueFd::close() {
  if (fd_ < 0) return Status::ok();
  int fd = release();
  if (::close(fd) != 0 && errno != EINTR) return Status::fromErrno(errno, "close");
  return Status::ok();
}

Result<UniqueFd> openFile(const std::string& path, int flags, mode_t mode) {
  int fd = retryOnEintr([&] { return ::open(path.c_str(), flags | O_CLOEXEC, mode); });
  if (fd < 0) return Status::fromErrno(errno, failedOp("open", path));
  return UniqueFd(fd);
}

Status writeAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::fromErrno(errno, "write");
    }
    if (n == 0) return zeroWrite("write");
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Status::ok();
}

Status pwriteAll(int fd, uint64_t offset, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::pwrite(fd, data.data(), data.size(), static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::fromErrno(errno, "pwrite");
    }
    if (n == 0) return zeroWrite("pwrite");
    data.remove_prefix(static_cast<size_t>(n));
    offset += static_cast<uint64_t>(n);
  }
  return Status::ok();
}

Result<std::string> readAll(int fd) {
  std::string out;
  struct stat st;
  size_t chunk = 64 * 1024;
  // The size is only a hint (the file may grow meanwhile): reading continues until EOF. A
  // short read that has reached the size fstat gave is EOF at that moment, which is as good
  // as a read that returns 0 (the file may as well have grown just after it). Not before the
  // size: one read(2) returns at most 2 GiB - 4 KiB, and some filesystems (FUSE direct_io,
  // uncached 9p, an interrupted NFS read) read short before the end. Files of /proc, which
  // read short before their end too, show a size of 0.
  size_t known_size = 0;  // 0: not a regular file with a size; read on to a 0
  if (retryOnEintr([&] { return ::fstat(fd, &st); }) == 0 && S_ISREG(st.st_mode) &&
      st.st_size > 0) {
    known_size = static_cast<size_t>(st.st_size);
    chunk = known_size + 1;  // +1 so the first read can see EOF
  }
  size_t used = 0;
  for (;;) {
    if (out.size() - used < chunk) out.resize(used + chunk);
    const size_t want = out.size() - used;
    ssize_t n = ::read(fd, out.data() + used, want);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::fromErrno(errno, "read");
    }
    if (n == 0) break;
    used += static_cast<size_t>(n);
    if (known_size > 0 && static_cast<size_t>(n) < want && used >= known_size) break;
    chunk = 64 * 1024;
  }
  out.resize(used);
  return out;
}

Result<std::string> preadUpTo(int fd, uint64_t offset, size_t length) {
  std::string out(length, '\0');
  size_t used = 0;
  while (used < length) {
    ssize_t n = ::pread(fd, out.data() + used, length - used,
                        static_cast<off_t>(offset + used));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::fromErrno(errno, "pread");
    }
    if (n == 0) break;
    used += static_cast<size_t>(n);
  }
  out.resize(used);
  return out;
}

Status fsyncFd(int fd) {
  int rc = retryOnEintr([&] { return ::fsync(fd); });
  if (rc != 0) return Status::fromErrno(errno, "fsync");
  return Status::ok();
}

Status fdatasyncFd(int fd) {
  int rc = retryOnEintr([&] { return ::fdatasync(fd); });
  if (rc != 0) return Status::fromErrno(errno, "fdatasync");
  return Status::ok();
}

Status fsyncDir(const std::string& dir_path) {
  DARIUS_ASSIGN_OR_RETURN(UniqueFd fd, openFile(dir_path, O_RDONLY | O_DIRECTORY));
  return fsyncFd(fd.get()).withContext(dir_path);
}

namespace {

// true = is a directory, false = absent, kExists = something else is there.
Result<bool> isDir(const std::string& path) {
  struct stat st;
  if (retryOnEintr([&] { return ::stat(path.c_str(), &st); }) != 0) {
    if (errno == ENOENT) return false;
    return Status::fromErrno(errno, failedOp("stat", path));
  }
  if (!S_ISDIR(st.st_mode)) return Status::exists(path + " exists and is not a directory");
  return true;
}

}  // namespace

Status makeDirs(const std::string& path, mode_t mode) {
  if (path.empty()) return Status::invalid("makeDirs: empty path");
  // Common case first: nothing to create.
  DARIUS_ASSIGN_OR_RETURN(bool exists, isDir(path));
  if (exists) return Status::ok();

  std::string prefix = path.front() == '/' ? "/" : "";
  std::vector<std::string> created;
  for (const std::string& part : splitPath(path)) {
    prefix = joinPath(prefix, part);
    if (retryOnEintr([&] { return ::mkdir(prefix.c_str(), mode); }) == 0) {
      created.push_back(prefix);
      continue;
    }
    int err = errno;
    // EEXIST is the usual reason; but mkdir may also say EACCES or EROFS for a directory that
    // exists where we may not write, so ask stat what is really there.
    DARIUS_ASSIGN_OR_RETURN(bool there, isDir(prefix));
    if (!there) return Status::fromErrno(err, failedOp("mkdir", prefix));
  }
  for (const std::string& dir : created) DARIUS_RETURN_IF_ERROR(fsyncDir(parentDir(dir)));
  return Status::ok();
}

}  // namespace darius::io
