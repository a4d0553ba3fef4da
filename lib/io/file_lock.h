// FileLock: an RAII whole-file lock that excludes other processes AND other threads of this
// process. The mailbox layer is used concurrently by dariusd's threads and by the `darius`
// tools in other processes (DESIGN.md §1), so one lock primitive must cover both.
//
// Why open-file-description locks (F_OFD_SETLK / F_OFD_SETLKW) and not classic fcntl locks
// (DESIGN.md §8): a classic POSIX record lock belongs to the process, so two threads never
// exclude each other, and closing ANY descriptor of the file — say a reader that opened the
// index to look at it — silently drops every lock the process holds on it. An OFD lock
// belongs to the open file description (one open(2) call): two descriptions conflict even
// inside one process, and only closing the last fd of that description releases it. flock has
// the same ownership, but OFD locks also conflict with classic fcntl locks other tools may take,
// and they mean the same on NFS (where Linux emulates flock with byte-range locks, changing its
// semantics). Needs Linux >= 3.15.
//
// Consequences for callers: a lock is tied to one open(2); fds made by dup() or inherited by
// fork() share it (they do not exclude each other). acquire() always opens its own
// description, so two FileLocks made by acquire() exclude each other wherever they live.
// The lock is advisory: it keeps out only code that asks for it too.
//
// Ownership: acquire() opens and owns the lock file's fd (closing it releases the lock);
// acquireFd() borrows the caller's fd, which must outlive the FileLock, and releases the lock
// with F_UNLCK on destruction. Thread-safety: one FileLock object is not synchronised; distinct
// FileLocks may be used from any threads (that is the point).
#pragma once

#include <string>

#include "lib/base/result.h"
#include "lib/base/status.h"
#include "lib/io/fd.h"

namespace darius::io {

enum class LockMode { kShared, kExclusive };

class FileLock {
 public:
  FileLock() = default;  // holds nothing
  ~FileLock() { unlock(); }

  FileLock(FileLock&& other) noexcept;
  FileLock& operator=(FileLock&& other) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

  // Opens `path` (creating it, mode 0640, if absent) and locks the whole file. With `wait`
  // false a conflicting lock gives kLocked at once; with `wait` true it blocks until granted.
  // If the lock file is unlinked or replaced while we wait, the lock would guard an orphaned
  // inode, so acquire() checks the inode it locked is still the one at `path` and retries.
  static base::Result<FileLock> acquire(const std::string& path, LockMode mode, bool wait);

  // Locks the whole file behind the caller's `fd` (opened for reading for kShared, for
  // writing for kExclusive). Locks belong to the description, so a second FileLock on the
  // same description (or a dup of it) converts the one lock in place rather than conflicting,
  // and releasing either FileLock releases it: keep one FileLock per description.
  static base::Result<FileLock> acquireFd(int fd, LockMode mode, bool wait);

  bool held() const { return fd_ >= 0; }
  LockMode mode() const { return mode_; }
  // The locked descriptor (owned or borrowed), -1 when nothing is held.
  int fd() const { return fd_; }

  // Releases the lock now (idempotent).
  void unlock();

 private:
  FileLock(UniqueFd owned, int fd, LockMode mode)
      : owned_(std::move(owned)), fd_(fd), mode_(mode) {}

  UniqueFd owned_;  // valid only for acquire()
  int fd_ = -1;
  LockMode mode_ = LockMode::kShared;
};

}  // namespace darius::io
