// Env::posix(): the Env on the real filesystem, built on the wrappers of fd.h.
#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "lib/io/eintr.h"
#include "lib/io/env.h"
#include "lib/io/fd.h"
#include "lib/io/mount_info.h"
#include "lib/io/task_pool.h"

namespace darius::io {

namespace {

std::string envFailedOp(std::string_view op, const std::string& path) {
  std::string s(op);
  s += ' ';
  s += path;
  return s;
}

Status errnoStatus(std::string_view op, const std::string& path) {
  return Status::fromErrno(errno, envFailedOp(op, path));
}

class PosixWritableFile final : public WritableFile {
 public:
  PosixWritableFile(std::string path, UniqueFd fd, uint64_t size)
      : path_(std::move(path)), fd_(std::move(fd)), size_(size) {}

  // Not O_APPEND: on Linux pwrite() on an O_APPEND fd ignores its offset and appends, which
  // would break in-place record updates. We track the end ourselves instead.
  Status append(std::string_view data) override {
    DARIUS_RETURN_IF_ERROR(checkOpen());
    DARIUS_RETURN_IF_ERROR(pwriteAll(fd_.get(), size_, data).withContext(path_));
    size_ += data.size();
    return Status::ok();
  }

  Status pwrite(uint64_t offset, std::string_view data) override {
    DARIUS_RETURN_IF_ERROR(checkOpen());
    DARIUS_RETURN_IF_ERROR(pwriteAll(fd_.get(), offset, data).withContext(path_));
    size_ = std::max<uint64_t>(size_, offset + data.size());
    return Status::ok();
  }

  // Only kExisting opens for reading too (see openWritable); elsewhere this fails (EBADF).
  Result<std::string> pread(uint64_t offset, size_t length) override {
    DARIUS_RETURN_IF_ERROR(checkOpen());
    Result<std::string> data = preadUpTo(fd_.get(), offset, length);
    if (!data.ok()) return data.status().withContext(path_);
    return data;
  }

  // fdatasync is enough: it flushes the size along with the data, and mtime is not needed to
  // read the data back.
  Status sync() override {
    DARIUS_RETURN_IF_ERROR(checkOpen());
    return fdatasyncFd(fd_.get()).withContext(path_);
  }

  Status close() override { return fd_.close().withContext(path_); }

  uint64_t size() const override { return size_; }

 private:
  Status checkOpen() const {
    if (!fd_.valid()) return Status::invalid(path_ + ": file already closed");
    return Status::ok();
  }

  std::string path_;
  UniqueFd fd_;
  uint64_t size_;
};

// Filesystems whose syncfs(2) writes back every dirty page, inode and directory block and then
// flushes the device (their sync_fs waits for it), so that it is a durability point for
// everything written before. NFS, CIFS, FUSE and the like may not: there syncs go file by file.
bool syncfsIsDurable(const struct statfs& fs) {
  switch (static_cast<unsigned long>(fs.f_type)) {
    case EXT4_SUPER_MAGIC:  // also ext2 and ext3
    case XFS_SUPER_MAGIC:
    case BTRFS_SUPER_MAGIC:
    case F2FS_SUPER_MAGIC:
    case TMPFS_MAGIC:  // nothing to write: memory is all there is
      return true;
    default:
      return false;
  }
}

// Linux 5.17 is the first whose syncfs returns the filesystem's own errors (->sync_fs: a
// failed device flush, a journal commit); 5.8 the first that reports write-back errors at all.
bool kernelReportsSyncfsErrors() {
  struct utsname u;
  if (::uname(&u) != 0) return false;
  int major = 0, minor = 0;
  if (std::sscanf(u.release, "%d.%d", &major, &minor) != 2) return false;
  return major > 5 || (major == 5 && minor >= 17);
}

class PosixFilesystemSync final : public FilesystemSync {
 public:
  PosixFilesystemSync(std::string path, UniqueFd fd, dev_t dev)
      : path_(std::move(path)), fd_(std::move(fd)), dev_(dev) {}

  Status sync() override {
    if (::syncfs(fd_.get()) != 0) return errnoStatus("syncfs", path_);
    return Status::ok();
  }

  Result<bool> covers(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return errnoStatus("stat", path);
    return st.st_dev == dev_;
  }

  Result<bool> isRoot(const std::string& path) override {
    struct stat st, parent;
    if (::stat(path.c_str(), &st) != 0) return errnoStatus("stat", path);
    const std::string up = path + "/..";
    if (::stat(up.c_str(), &parent) != 0) return errnoStatus("stat", up);
    if (st.st_dev == parent.st_dev && st.st_ino != parent.st_ino) return false;
    // A mount point, but the st_dev test also passes a bind mount of another filesystem's
    // subdirectory, a Btrfs subvolume and a second mount of a filesystem: mountinfo tells
    // (mount_info.h). Unreadable (no /proc), it is an error, and auto syncs file by file.
    return isWholeUnsharedFilesystemNow(path);
  }

 private:
  std::string path_;
  UniqueFd fd_;  // opened once: errors since then are reported (errseq), see env.h
  dev_t dev_;
};

struct DirCloser {
  void operator()(DIR* d) const { ::closedir(d); }
};

class PosixEnv final : public Env {
 public:
  Result<std::unique_ptr<WritableFile>> openWritable(const std::string& path,
                                                     OpenMode mode) override {
    // Write-only but for kExisting (WritableFile::pread), so that a file the process may
    // write but not read (mode 0200, a write-only ACL) opens as it always did.
    int flags = mode == OpenMode::kExisting ? O_RDWR : (O_WRONLY | O_CREAT);
    if (mode == OpenMode::kCreateNew) flags |= O_EXCL;
    if (mode == OpenMode::kTruncate) flags |= O_TRUNC;
    // 0640: mail is private; the group lets an operator's tools read without root.
    DARIUS_ASSIGN_OR_RETURN(UniqueFd fd, openFile(path, flags, 0640));
    uint64_t size = 0;
    if (mode == OpenMode::kAppend || mode == OpenMode::kExisting) {
      struct stat st;
      if (retryOnEintr([&] { return ::fstat(fd.get(), &st); }) != 0) {
        return errnoStatus("fstat", path);
      }
      size = static_cast<uint64_t>(st.st_size);
    }
    return std::unique_ptr<WritableFile>(
        std::make_unique<PosixWritableFile>(path, std::move(fd), size));
  }

  Result<std::string> readFile(const std::string& path) override {
    DARIUS_ASSIGN_OR_RETURN(UniqueFd fd, openFile(path, O_RDONLY));
    Result<std::string> data = readAll(fd.get());
    if (!data.ok()) return data.status().withContext(path);
    return data;
  }

  Status renameFile(const std::string& from, const std::string& to) override {
    if (retryOnEintr([&] { return ::rename(from.c_str(), to.c_str()); }) != 0) {
      return errnoStatus("rename", from + " -> " + to);
    }
    return Status::ok();
  }

  Status linkFile(const std::string& from, const std::string& to) override {
    if (retryOnEintr([&] { return ::link(from.c_str(), to.c_str()); }) != 0) {
      return errnoStatus("link", from + " -> " + to);
    }
    return Status::ok();
  }

  Status setPermissions(const std::string& path, mode_t mode) override {
    if (::chmod(path.c_str(), mode) != 0) return errnoStatus("chmod", path);
    return Status::ok();
  }

  Status removeFile(const std::string& path) override {
    if (retryOnEintr([&] { return ::unlink(path.c_str()); }) != 0) {
      return errnoStatus("unlink", path);
    }
    return Status::ok();
  }

  Status createDir(const std::string& path) override {
    if (retryOnEintr([&] { return ::mkdir(path.c_str(), 0750); }) != 0) {
      return errnoStatus("mkdir", path);
    }
    return Status::ok();
  }

  Status removeDir(const std::string& path) override {
    if (retryOnEintr([&] { return ::rmdir(path.c_str()); }) != 0) {
      return errnoStatus("rmdir", path);
    }
    return Status::ok();
  }

  Status syncDir(const std::string& path) override { return fsyncDir(path); }

  Status runConcurrently(std::span<const std::function<Status()>> tasks) override {
    if (tasks.size() < 2) return Env::runConcurrently(tasks);
    return TaskPool::shared().runAll(tasks);
  }

  Result<std::unique_ptr<FilesystemSync>> openFilesystemSync(
      const std::vector<std::string>& paths) override {
    if (paths.empty()) return Status::invalid("openFilesystemSync: no paths");
    DARIUS_ASSIGN_OR_RETURN(UniqueFd fd, openFile(paths[0], O_RDONLY | O_DIRECTORY));
    struct stat first;
    if (::fstat(fd.get(), &first) != 0) return errnoStatus("fstat", paths[0]);
    struct statfs fs;
    if (retryOnEintr([&] { return ::fstatfs(fd.get(), &fs); }) != 0) {
      return errnoStatus("fstatfs", paths[0]);
    }
    if (!kernelReportsSyncfsErrors()) {
      return Status::notSupported("syncfs reports write-back and flush errors only from Linux "
                                  "5.17 on");
    }
    if (!syncfsIsDurable(fs)) {
      char type[32];
      std::snprintf(type, sizeof type, "0x%lx", static_cast<unsigned long>(fs.f_type));
      return Status::notSupported(paths[0] + ": syncfs is not trusted on filesystem type " +
                                  type);
    }
    for (size_t i = 1; i < paths.size(); ++i) {
      struct stat st;
      if (::stat(paths[i].c_str(), &st) != 0) return errnoStatus("stat", paths[i]);
      if (st.st_dev != first.st_dev) {
        return Status::notSupported(paths[i] + " is on another filesystem than " + paths[0]);
      }
    }
    return std::unique_ptr<FilesystemSync>(
        std::make_unique<PosixFilesystemSync>(paths[0], std::move(fd), first.st_dev));
  }

  Result<bool> fileExists(const std::string& path) override {
    struct stat st;
    if (retryOnEintr([&] { return ::stat(path.c_str(), &st); }) == 0) return true;
    if (errno == ENOENT || errno == ENOTDIR) return false;
    return errnoStatus("stat", path);
  }

  Result<uint64_t> fileSize(const std::string& path) override {
    struct stat st;
    if (retryOnEintr([&] { return ::stat(path.c_str(), &st); }) != 0) {
      return errnoStatus("stat", path);
    }
    return static_cast<uint64_t>(st.st_size);
  }

  Result<std::vector<std::string>> listDir(const std::string& path) override {
    // Open with our wrapper (O_CLOEXEC, EINTR) and hand the fd to fdopendir.
    DARIUS_ASSIGN_OR_RETURN(UniqueFd fd, openFile(path, O_RDONLY | O_DIRECTORY));
    std::unique_ptr<DIR, DirCloser> dir(::fdopendir(fd.get()));
    if (!dir) return errnoStatus("fdopendir", path);
    fd.release();  // now owned by the DIR
    std::vector<std::string> names;
    for (;;) {
      errno = 0;
      struct dirent* e = ::readdir(dir.get());
      if (e == nullptr) {
        if (errno == EINTR) continue;
        if (errno != 0) return errnoStatus("readdir", path);
        break;
      }
      std::string_view name(e->d_name);
      if (name == "." || name == "..") continue;
      names.emplace_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  Result<bool> isDirectory(const std::string& path) override {
    struct stat st;
    if (retryOnEintr([&] { return ::stat(path.c_str(), &st); }) != 0) {
      return errnoStatus("stat", path);
    }
    return S_ISDIR(st.st_mode) ? true : false;
  }
};

}  // namespace

Env* Env::posix() {
  // Leaked on purpose: never destroyed, so usable from static destructors and other threads
  // during exit.
  static Env* const env = new PosixEnv();
  return env;
}

}  // namespace darius::io
