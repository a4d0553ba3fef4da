// Test-only (linked into db_test, never into the library): simulated power cuts for the
// berkeley backend. Berkeley DB does its file I/O with its own system calls, which no io::Env
// reaches, so FaultyEnv cannot test it. BDB lets a program replace those calls process-wide
// (db_env_set_func_*); BdbPowerCut replaces every one that changes a file — open, close,
// write, pwrite, fsync, ftruncate, rename, unlink — while it lives, and feeds each change BDB
// makes into the crash model of FaultyEnv (lib/io/faulty_env_model.h). It is also the io::Env
// (env()) through which the backend does what it does itself — create its directory, sync it
// — so one model sees every change made to the disk.
//
// THE MODEL is FaultyEnv's, unchanged (lib/io/faulty_env.h, docs/design/io.md): after a power
// cut a file holds what it held at its last fsync (nothing, if it was created and never
// synced); a name created, renamed or unlinked in a directory reverts unless that directory
// was synced since; opening with O_TRUNC empties the durable contents at once. An ftruncate
// is a change like a write: durable at the next fsync.
//
// THE CUT. Mutating calls on modelled files are counted: writes (write, pwrite), syncs (fsync,
// syncDir) and others (creating or truncating open, ftruncate, rename, unlink, mkdir).
// losePowerAfterOps(n) lets n of them happen; the next one does not: the shim checks that the
// disk holds what it saw, rewrites it to the durable state and ends the process with
// _exit(kPowerCutExit). Nothing of the dead machine runs after the cut — no error path, no
// close, no destructor — so the tests run the scenario in a forked child and reboot in the
// parent. (Failing every call with EIO instead and letting the process wind down would test
// BDB's I/O-error paths rather than power loss; BDB 5.3 even frees a file handle twice when
// close(2) fails inside __fop_file_setup.)
//
// WHAT IS NOT ROUTED, AND WHY IT IS SAFE.
//  - Region files (__db.001 ...): BDB's shared memory, mmap'd MAP_SHARED; they hold no data
//    and recovery (DB_RECOVER) removes and recreates them. Their calls pass through uncounted
//    and unmodelled, so after the cut they are as the process left them; the test then also
//    removes or empties them, since a real power cut can leave any of the three.
//  - Reads and queries (read, pread, seek, stat, directory lists) stay BDB's own: they change
//    nothing, and nothing runs after the cut. (A replaced read would even be wrong: BDB takes
//    the replacement's short read at end of file for a full one.)
//  - mmap of database files: mpool maps only files opened read-only, MAP_PRIVATE, PROT_READ.
//  - fsync is not passed to the kernel: the model decides what survives, the real disk does
//    not matter, and skipping it keeps the test fast.
// The cut checks that nothing escaped: every file the model knows must hold on disk what the
// model says, and each directory the shim saw created may hold only names it knows (and
// regions and the backend's lock files), or the child reports "fail" instead of "cut".
//
// Ownership: install() returns the only instance; destroying it restores BDB's own system
// calls. No BDB environment may be open in the process at either moment (a descriptor BDB
// opened before install() is unknown to the shim). Thread-safety: all calls, from BDB's hooks
// on any thread and from the test, are serialised by one mutex.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "lib/base/result.h"
#include "lib/io/env.h"

namespace darius::db::berkeley {

class BdbPowerCut {
 public:
  static constexpr int kPowerCutExit = 75;    // exit status after a simulated power cut
  static constexpr int kShimFailedExit = 76;  // the model failed, or BDB bypassed the shim

  struct Counts {
    uint64_t writes = 0, syncs = 0, others = 0;
    uint64_t ops() const { return writes + syncs + others; }
  };

  // kInvalid if another BdbPowerCut exists.
  static base::Result<std::unique_ptr<BdbPowerCut>> install();
  // For the reboot after a cut, where durability no longer matters: only fsync is replaced,
  // by a no-op (and env()'s syncDir), so recovery and the checks run fast. No model, no
  // counting, no cut.
  static base::Result<std::unique_ptr<BdbPowerCut>> installWithoutSyncs();
  ~BdbPowerCut();
  BdbPowerCut(const BdbPowerCut&) = delete;
  BdbPowerCut& operator=(const BdbPowerCut&) = delete;

  // The Env to pass as OpenOptions::env. It routes what the backend does (createDirs,
  // syncDir, renameFile, removeFile, queries); the other mutators return kNotSupported.
  io::Env* env();

  Counts counts() const;
  // Successful fsyncs of BDB log files ("log.*"): the test asks whether a commit reached one.
  uint64_t logSyncs() const;

  // Lines for the parent of a forked run, written to `fd` (unbuffered): at the cut
  // "cut <calls done> <log syncs> <kind w|s|o|n> <what>" or "fail <why>"; with `trace`, also
  // "op <index> <kind> <what>" for every counted call.
  void reportTo(int fd, bool trace);

  void losePowerAfterOps(uint64_t n);
  // The cut, now (kind 'n'): roll back and _exit.
  [[noreturn]] void losePowerNow();

  // "__db.001" ...: BDB's region file name pattern (DB_REGION_FMT "__db.%03d").
  static bool isRegionFile(const std::string& name);

  class Impl;

 private:
  explicit BdbPowerCut(std::unique_ptr<Impl> impl);
  static base::Result<std::unique_ptr<BdbPowerCut>> installMode(bool modelled);
  std::unique_ptr<Impl> impl_;
};

}  // namespace darius::db::berkeley
