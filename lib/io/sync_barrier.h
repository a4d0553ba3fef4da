// SyncBarrier: group commit over one FilesystemSync (env.h). A caller that has written what it
// needs durable (through any descriptor, to any file or directory of the filesystem) calls
// sync(); it returns once a syncfs that started after the call has finished, with that
// syncfs's result. Callers that arrive while one syncfs runs wait and share the next: under
// load one device flush serves every delivery in flight, whatever mailbox it went to, where
// per-file fsyncs cost each delivery its own (DESIGN.md §3, "group commit").
//
// The leader of a group is a caller: the first to find no syncfs running takes every caller
// queued at that moment (itself included), runs the syncfs outside the lock and hands each its
// result. So nothing waits on a thread of the barrier's own. Callers wait on their group's own
// condition variable: a finished syncfs wakes its group, and one caller of the next group to
// lead it, not every waiter (the others would only go back to sleep: a futex call and a
// context switch each, several per delivery under load).
//
// Errors. The kernel reports a write-back error once, to the next syncfs through the
// descriptor, and that need not be the syncfs whose group wrote the pages that failed: a
// syncfs writes back everything dirty, also pages of callers still on their way to a later
// group, and the background flusher writes pages before anyone syncs. Those pages are then
// clean and lost, and a later syncfs succeeds. So a caller takes a mark() before its first
// write, and sync(mark) fails if any syncfs failed after the mark, whoever ran it. Failures
// are counted, never forgotten: an append is refused only if it was under way across one.
//
// Ownership: owns its FilesystemSync. Thread-safety: sync() and stats() may be called from any
// thread at once; destroy the barrier only when no sync() is in progress.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "lib/base/status.h"
#include "lib/io/env.h"

namespace darius::io {

class SyncBarrier {
 public:
  explicit SyncBarrier(std::unique_ptr<FilesystemSync> fs) : fs_(std::move(fs)) {}
  SyncBarrier(const SyncBarrier&) = delete;
  SyncBarrier& operator=(const SyncBarrier&) = delete;

  // Taken before the first write that sync() must cover: the failures so far.
  uint64_t mark() const;
  // Everything the caller wrote before this call is durable when it returns ok. Fails if the
  // syncfs fails or any other syncfs failed after `mark`.
  base::Status sync(uint64_t mark);

  // Whether `path` is on the barrier's filesystem (FilesystemSync::covers).
  base::Result<bool> covers(const std::string& path) { return fs_->covers(path); }

  struct Stats {
    uint64_t calls = 0;  // sync() calls
    uint64_t syncs = 0;  // syncfs calls made for them
    uint64_t failures = 0;  // of those, the ones that failed
  };
  Stats stats() const;

 private:
  // The callers one syncfs covers. Shared by its members and its leader, so that the leader
  // can wake them after it has let go of mu_ (they then do not wake into a held lock).
  struct Group {
    std::condition_variable cv;
    bool done = false;
    base::Status status;    // of the syncfs
    uint64_t failures = 0;  // failures counted when it ended
  };

  std::unique_ptr<FilesystemSync> fs_;
  mutable std::mutex mu_;
  std::shared_ptr<Group> forming_;  // callers waiting for the next syncfs; null if none
  bool running_ = false;
  Stats stats_;
};

}  // namespace darius::io
