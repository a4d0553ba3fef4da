// Env: the one door through which storage code (db/, mailbox/) creates, writes, renames and
// removes files, after LevelDB's Env. Production code uses Env::posix(); crash tests hand the
// same code a FaultyEnv (faulty_env.h) that fails or "loses power" at a chosen operation and
// then rolls the disk back to what a crash would have left. Storage code that bypasses the
// Env for a mutation escapes those tests, so don't. (Reading through mmap, fd.h and
// MappedFile, is fine: reads change nothing a crash could lose.)
//
// Durability contract, the same for every Env (DESIGN.md §3, §8): data written through a
// WritableFile survives a crash only after sync(); a created, renamed, linked or removed
// directory entry only after syncDir() of the directory that holds it. Nothing else is
// promised, and FaultyEnv enforces exactly that.
//
// Ownership: openWritable() returns a WritableFile the caller owns; it holds its own fd and
// must not outlive its Env. Env::posix() is a process-wide singleton, never deleted.
// Thread-safety: Env methods are safe to call from any thread at once. One WritableFile is
// not synchronised: use it from one thread at a time.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/result.h"
#include "lib/base/status.h"

namespace darius::io {

using base::Result;
using base::Status;

// An open file being written; append-only from the caller's view, plus in-place pwrite for
// fixed-size records. append() writes at size(), which is the file's size when opened plus
// what this object wrote since: concurrent writers to one file must be excluded by a lock.
class WritableFile {
 public:
  virtual ~WritableFile() = default;
  virtual Status append(std::string_view data) = 0;
  // Writes at `offset`; may extend the file (a gap reads as zeros). Used for index records.
  virtual Status pwrite(uint64_t offset, std::string_view data) = 0;
  // Reads up to `length` bytes at `offset` (fewer only at the end of the file): what the
  // file holds now, as any reader would see it. Lets a writer read a header it is about to
  // rewrite without a second descriptor. Only a file opened with OpenMode::kExisting reads;
  // the other modes open write-only, and pread() fails.
  virtual Result<std::string> pread(uint64_t offset, size_t length) = 0;
  // Data (and the size) on stable storage. The file's name is durable only after syncDir().
  virtual Status sync() = 0;
  // Idempotent; every other call after close() fails with kInvalid.
  virtual Status close() = 0;
  virtual uint64_t size() const = 0;
};

// Makes everything written to one filesystem durable at once: syncfs(2), which writes back
// every dirty page, inode and directory block of the filesystem and flushes the device once.
// One call covers any number of files, directories and writers, which per-file fsyncs cannot
// share (each pays its own inode write and device flush); a group commit over it
// (sync_barrier.h) shares one flush among all concurrent deliveries of a partition. The
// price: it also writes back unrelated dirty data on the same filesystem, so it suits a
// filesystem of the store's own (the `sync_method` option chooses).
//
// Errors: the handle keeps its descriptor from opening on, so a write-back error anywhere on
// the filesystem after that point (the superblock's errseq) is reported by the next sync()
// through this handle — also when the background flusher met it before that sync(), and also
// when the pages were other callers' (sync_barrier.h, "Errors"). Linux reports write-back
// errors to syncfs from 5.8 and the filesystem's own (a failed device flush) from 5.17, so
// Env::posix() refuses older kernels.
// Thread-safety: every method may be called from any thread at once.
class FilesystemSync {
 public:
  virtual ~FilesystemSync() = default;
  virtual Status sync() = 0;
  // Whether `path` lies on this filesystem (a mount point below the partition may not).
  virtual Result<bool> covers(const std::string& path) = 0;
  // Whether `path` is the root of a filesystem that no other mount shares: a mount point
  // showing the whole filesystem (not a bind-mounted subdirectory or a Btrfs subvolume),
  // mounted nowhere else (mount_info.h). Whoever owns the directory then has the filesystem
  // to itself, so a syncfs writes back nobody else's data.
  virtual Result<bool> isRoot(const std::string& path) = 0;
};

class Env {
 public:
  virtual ~Env() = default;

  // The real filesystem. Process-wide, thread-safe, never deleted.
  static Env* posix();

  enum class OpenMode {
    kCreateNew,  // O_EXCL: fails with kExists if the name exists
    kTruncate,   // open or create, and empty it
    kAppend,     // open or create, keep the data; writes go after it
    kExisting,   // as kAppend, but kNotFound if the name does not exist (never creates)
  };
  virtual Result<std::unique_ptr<WritableFile>> openWritable(const std::string& path,
                                                             OpenMode mode) = 0;
  virtual Result<std::string> readFile(const std::string& path) = 0;
  // rename(2): atomically replaces `to` if it exists.
  virtual Status renameFile(const std::string& from, const std::string& to) = 0;
  // Hard link; kExists if `to` exists. Fails across filesystems (EXDEV -> kIoError).
  virtual Status linkFile(const std::string& from, const std::string& to) = 0;
  virtual Status removeFile(const std::string& path) = 0;
  // Permission bits of a file (new files are 0640); for files holding secrets.
  virtual Status setPermissions(const std::string& path, mode_t mode) = 0;
  // One level, mode 0750; kExists if present, kNotFound if the parent is missing.
  virtual Status createDir(const std::string& path) = 0;
  // Must be empty (kExists otherwise, from ENOTEMPTY).
  virtual Status removeDir(const std::string& path) = 0;
  // Makes the entries of directory `path` durable.
  virtual Status syncDir(const std::string& path) = 0;
  // false for a missing name; errors only for real failures (EACCES, EIO).
  virtual Result<bool> fileExists(const std::string& path) = 0;
  virtual Result<uint64_t> fileSize(const std::string& path) = 0;
  // Entry names, sorted bytewise, without "." and "..".
  virtual Result<std::vector<std::string>> listDir(const std::string& path) = 0;
  // true for a directory, false for anything else; kNotFound if missing. (Added beyond the
  // LevelDB set because FaultyEnv must tell files from directories to roll them back.)
  virtual Result<bool> isDirectory(const std::string& path) = 0;

  // Runs independent durability steps — syncs of different files and directories, a change
  // log append — and returns when all have finished: the first error in task order, else ok.
  // The caller promises that no task's correctness depends on another's having finished, so
  // they may run in any order or at once. Env::posix() runs them at once (task_pool.h), so
  // N device flushes cost about one flush latency; this default runs them one after another
  // in the given order, which keeps a crash test's operation count deterministic.
  virtual Status runConcurrently(std::span<const std::function<Status()>> tasks);

  // A FilesystemSync for the one filesystem holding every path in `paths` (directories that
  // exist). kNotSupported when they are on different filesystems, on a filesystem whose
  // syncfs is not known to write back, flush and report everything (network, FUSE and
  // overlay filesystems — overlayfs does not see its upper filesystem's write-back errors —
  // anything but ext2/3/4, XFS, Btrfs, F2FS and tmpfs), or on a kernel before 5.17: the
  // caller then syncs file by file. This default: kNotSupported.
  virtual Result<std::unique_ptr<FilesystemSync>> openFilesystemSync(
      const std::vector<std::string>& paths);
};

// mkdir -p through an Env: creates each missing level with createDir() and syncs the parent of
// every directory it created. OK if `path` is already a directory.
Status createDirs(Env& env, const std::string& path);

// rm -r through an Env (no syncs). OK if `path` does not exist. For tests and tools, not for
// the live store, which renames into the deleted area instead (DESIGN.md §3).
Status removeTree(Env& env, const std::string& path);

}  // namespace darius::io
