// FaultyEnv: an Env for crash tests. It passes every operation but the syncs to a base Env
// (normally Env::posix() on a temporary directory; a sync only updates the model, which is
// what decides durability), counts the mutating ones, can make them fail, and can simulate
// a power loss followed by a reboot: the files on disk are then rewritten to what a strict
// POSIX filesystem guarantees to have kept. Storage code (db/, mailbox/) is run
// against it with a power loss at every operation index in turn, and after each recovery the
// test checks that nothing acknowledged was lost and nothing is inconsistent (DESIGN.md §3).
//
// WHAT IS MODELLED. FaultyEnv keeps in memory the "durable" state of everything it touched:
//  - File contents roll back to what they were at the file's last successful
//    WritableFile::sync(). A file never synced rolls back to what it held when FaultyEnv first
//    saw it — empty if it was created through the env. Opening with kTruncate empties the
//    durable contents at once: the truncation is assumed to have reached the disk (as ext4's
//    journal commits it) while the new data has not — the zero-length-file trap that
//    truncate-and-rewrite falls into and writeFileAtomic avoids.
//  - Directory entries roll back per directory: every create, rename (both sides), link,
//    unlink, mkdir and rmdir of an entry since the last syncDir() of the directory holding
//    that entry is undone. A file's sync() does NOT make its name durable, and syncDir() of a
//    directory does not make the directory's own name durable (sync its parent for that).
//    Directories roll back independently: a rename between two directories of which only one
//    was synced leaves the file under both names (as hard links) or under neither.
//  - An undone directory comes back with its durable entries; a directory whose creation is
//    undone vanishes with everything in it, synced or not.
//  - openFilesystemSync()'s sync() (syncfs) makes every file and every directory entry durable
//    at once.
//  - Hard links made through the env are the same file: they share contents, and restoring
//    several durable names of one file re-links them.
// WHAT IS NOT MODELLED.
//  - Torn or reordered writes inside the unsynced part: by default unsynced data vanishes
//    entirely. With tornWrites(true), a file whose changes since its last sync are appends
//    only keeps a random prefix (possibly none, possibly all) of the unsynced bytes, which is
//    what a crash mid-append can leave; files with unsynced pwrites still roll back whole.
//  - Unsynced operations surviving: real filesystems often keep some of them; the model
//    always takes the harshest outcome listed above, which is a legal one.
//  - Metadata: permissions, timestamps, ownership are not rolled back.
//  - Anything done outside this env (by the base env directly, by other processes, through
//    MappedFile) is invisible to it, and a name it never touched is assumed durable.
//  - Symlinks: paths are normalised lexically (path.h); do not put symlinks in the tree.
//  - A failed sync (failAfterSyncs) has no side effect — except a filesystem sync, which
//    keeps the steps before the failing one durable; real Linux may drop the dirty pages
//    after a failed fsync, so code must never assume a retried fsync recovers them.
//
// Counting and triggers. writeCount() counts append/pwrite calls, syncCount() counts
// WritableFile::sync and syncDir calls, opCount() counts every mutating call (openWritable,
// append, pwrite, sync, renameFile, linkFile, removeFile, createDir, removeDir, syncDir; not
// close nor reads). Calls failed by an injected fault are counted; calls refused because the
// power is off are not. A trigger "after n" is counted from the moment it is armed: the next
// n such calls succeed and the (n+1)-th fires.
//  - failAfter*(n): the firing call and every later one of that kind returns
//    kIoError("injected fault") without touching the disk, until clearFaults().
//  - losePowerAfter*(n): the firing call fails, and from then on every call of any kind
//    (reads too, and calls on already open WritableFiles) returns kIoError("power lost"),
//    until recoverFromPowerLoss().
//  - recoverFromPowerLoss() rewrites the disk to the durable state, disarms all triggers and
//    turns the power back on. dropUnsyncedData() does the same rewrite without touching
//    triggers or the power state. After either, WritableFiles opened before are dead ("file
//    handle from before power loss"), as they would be in a rebooted machine, and everything
//    on disk counts as durable again.
//
// Ownership: does not own the base Env, which must outlive it; WritableFiles it returns must
// not outlive it. Memory: keeps old and new contents of every file it touched (and of whole
// directory trees that get renamed or removed), so it is for test-sized data only.
// Thread-safety: all methods, and the methods of its WritableFiles, are serialised by one
// mutex; the counters and triggers are exact even with many threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "lib/io/env.h"

namespace darius::io {

namespace internal {
class FsModel;
}  // namespace internal

class FaultyEnv final : public Env {
 public:
  explicit FaultyEnv(Env* base);
  ~FaultyEnv() override;
  FaultyEnv(const FaultyEnv&) = delete;
  FaultyEnv& operator=(const FaultyEnv&) = delete;

  // Env
  Result<std::unique_ptr<WritableFile>> openWritable(const std::string& path,
                                                     OpenMode mode) override;
  Result<std::string> readFile(const std::string& path) override;
  Status renameFile(const std::string& from, const std::string& to) override;
  Status linkFile(const std::string& from, const std::string& to) override;
  Status removeFile(const std::string& path) override;
  // Metadata only: forwarded, and not rolled back by a power loss.
  Status setPermissions(const std::string& path, mode_t mode) override;
  Status createDir(const std::string& path) override;
  Status removeDir(const std::string& path) override;
  Status syncDir(const std::string& path) override;
  Result<bool> fileExists(const std::string& path) override;
  Result<uint64_t> fileSize(const std::string& path) override;
  Result<std::vector<std::string>> listDir(const std::string& path) override;
  Result<bool> isDirectory(const std::string& path) override;
  // One after another, in the given order or, with reverseConcurrent(true), in reverse: a
  // crash test runs its scenario both ways to cut power between the steps in either order.
  Status runConcurrently(std::span<const std::function<Status()>> tasks) override;
  void reverseConcurrent(bool enable);
  // Accepts any paths that are directories: the model is one filesystem of a trusted kind,
  // whatever the machine's (so the syncfs modes are tested everywhere). The handle's sync()
  // makes every file and directory the model knows durable one by one, each step counted as
  // a sync (and an op), in the order the model met them or, with reverseConcurrent(true),
  // reversed: a power cut can fall in the middle of a syncfs. It never calls the machine's
  // syncfs, which would write back unrelated data. covers() is true for what exists,
  // isRoot() false.
  Result<std::unique_ptr<FilesystemSync>> openFilesystemSync(
      const std::vector<std::string>& paths) override;

  // Counters since construction (recovery does not reset them).
  uint64_t writeCount() const;
  uint64_t syncCount() const;
  uint64_t opCount() const;

  void failAfterWrites(uint64_t n);
  void failAfterSyncs(uint64_t n);
  void failAfterOps(uint64_t n);
  void losePowerAfterWrites(uint64_t n);
  void losePowerAfterSyncs(uint64_t n);
  void losePowerAfterOps(uint64_t n);
  void losePowerNow();
  // close() of a file opened at `path` from now on releases it but reports an I/O error, as
  // NFS or a full quota can report write-back failures at close. Not counted as an op, and
  // not disarmed by clearFaults(); an empty path turns it off.
  void failClosesOf(const std::string& path);
  // Disarms every failAfter* and losePowerAfter* trigger; does not turn the power back on.
  void clearFaults();
  bool powerLost() const;

  // See the header comment. On error the disk may be half rewritten and the env stays off.
  Status recoverFromPowerLoss();
  Status dropUnsyncedData();

  // Keep a random prefix of unsynced appended data at recovery (see above). The seed makes a
  // failing test reproducible.
  void tornWrites(bool enable, uint64_t seed = 1);

 private:
  friend class FaultyWritableFile;
  friend class FaultyFilesystemSync;
  enum class OpKind { kWrite, kSync, kOther };

  struct Trigger {
    std::optional<uint64_t> at;  // fires when the counter exceeds this
    bool fires(uint64_t count) const { return at.has_value() && count > *at; }
  };

  // Called with mu_ held at the start of every mutating call: counts it, fires triggers.
  Status admit(OpKind kind);
  // Called with mu_ held at the start of every non-mutating call.
  Status admitRead() const;
  Status rebuild();  // mu_ held

  Env* const base_;
  std::unique_ptr<internal::FsModel> model_;
  mutable std::mutex mu_;
  uint64_t writes_ = 0, syncs_ = 0, ops_ = 0;
  Trigger fail_writes_, fail_syncs_, fail_ops_;
  Trigger power_writes_, power_syncs_, power_ops_;
  bool power_lost_ = false;
  bool torn_ = false;
  std::string fail_close_path_;  // absolute; empty: off
  std::atomic<bool> reverse_concurrent_{false};
  std::mt19937_64 rng_;
  uint64_t epoch_ = 0;  // bumped by every rollback; older WritableFiles are dead
};

}  // namespace darius::io
