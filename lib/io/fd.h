// File descriptors and the small syscall wrappers everything else in the store is built on.
// Each wrapper retries on EINTR and handles short reads and writes, so callers never see
// either; failures come back as a Status made with Status::fromErrno ("<what> <path>: ...").
//
// Ownership: a UniqueFd owns one descriptor and closes it when destroyed or reset; release()
// hands it back to the caller. The free functions borrow the fd they are given.
// Thread-safety: a UniqueFd is a value (one owner, not synchronised); the free functions are
// as thread-safe as the syscalls under them (concurrent writes to one fd interleave).
//
// Durability (DESIGN.md §8): data is on stable storage only after fsyncFd() of the file, and a
// new, renamed or linked name only after fsyncDir() of the directory holding it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "lib/base/result.h"
#include "lib/base/status.h"

namespace darius::io {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { reset(); }

  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }

  // Gives up ownership without closing; the object becomes invalid.
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

  // Closes the current descriptor (errors ignored, see close()) and takes `fd`.
  void reset(int fd = -1);

  // Closes now and reports the kernel's verdict; some filesystems (NFS) report delayed write
  // errors only here. Never retried on EINTR: Linux has released the fd by then, and a retry
  // could close a descriptor another thread has just been given.
  base::Status close();

 private:
  int fd_ = -1;
};

// open(2) with O_CLOEXEC always added, so no descriptor leaks into a spawned child.
base::Result<UniqueFd> openFile(const std::string& path, int flags, mode_t mode = 0644);

// Writes all of `data` at the current offset (loops over short writes).
base::Status writeAll(int fd, std::string_view data);

// Writes all of `data` at `offset` without moving the file offset.
base::Status pwriteAll(int fd, uint64_t offset, std::string_view data);

// Reads from the current offset to end of file.
base::Result<std::string> readAll(int fd);

// Reads up to `length` bytes at `offset`; fewer only at end of file.
base::Result<std::string> preadUpTo(int fd, uint64_t offset, size_t length);

// fsync(2). A failed fsync is never retried (except for EINTR): after EIO Linux may already
// have dropped the dirty pages, so a second fsync can "succeed" with the data lost. Callers
// must treat the file's unsynced contents as gone.
base::Status fsyncFd(int fd);

// fdatasync(2): like fsyncFd, but skips metadata that is not needed to read the data back
// (mtime). File size changes are still flushed.
base::Status fdatasyncFd(int fd);

// Opens the directory and fsyncs it, making entries created, renamed or removed in it durable.
base::Status fsyncDir(const std::string& dir_path);

// mkdir -p: creates every missing directory of `path` with `mode`, then fsyncs the parent of
// each directory it created so the new entries survive a crash. Succeeds if `path` already is
// a directory; fails with kExists if it (or a prefix) exists and is not a directory.
base::Status makeDirs(const std::string& path, mode_t mode = 0750);

}  // namespace darius::io
