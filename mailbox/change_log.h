// ChangeLog: the per-partition change log (docs/formats/changelog.md). Every change to the
// store (append, flags, expunge, create, rename, delete, ACL, quota) is appended as a record
// with a sequence number; the log is the feed for cross-process IDLE (change_watcher.h) and,
// later, for replication. This is the writer side; change_log_reader.h reads.
//
// Layout: a directory (changeLogDir(partition) = "<partition>/darius.changelog") holding
// segments "<first seq, 20 digits>.log" and a lock file "lock". Sequence numbers start at 1
// and are strictly increasing and gap-free across segments, processes and restarts.
//
// Concurrency. Writers may be any thread of any process. Appends are serialised between
// processes by an exclusive OFD lock (lib/io/file_lock.h) on "lock", held from the write
// through its fsync (if any), so a lock holder always finds the tail of the log either clean
// or left torn by a writer that died. Inside one process, concurrent append() calls share
// fsyncs by group commit: callers queue; the caller at the head of the queue becomes the
// leader, takes every batch queued at that moment (up to 4 MiB), assigns their sequence
// numbers in queue order, writes them with one write and makes them durable with one
// fdatasync, then hands each caller its result. Batches queued while the leader's I/O runs
// wait for the next leader. So append() returns only once its records are on stable storage
// (Sync::kNow; with Sync::kByCaller once they are written, below), N concurrent callers pay
// between 1 and N fsyncs, and records of one thread appear in the order of its calls.
// (Processes do not share fsyncs; each holds the lock through its own.)
//
// Recovery, done under the lock by the first writer that finds it necessary (on open, after
// another process's crash, after an error): a torn or damaged tail of the last segment is
// cut off and the next sequence number continues after the last whole, CRC-valid record.
// lib/io's Env has no truncate, so the cut is a rewrite of the segment's intact prefix to
// "<segment>.tmp", fsync, rename over the segment, fsync of the directory: a crash at any
// point leaves either the old file (cut again next time) or the new one. Readers read with
// pread, never mmap, so a segment replaced under them costs no SIGBUS: they keep reading the
// old inode, which holds the same intact prefix, and reopen by name at its end. A damaged
// record in the middle of the log (in a sealed segment, or followed by an intact record in
// the last one) is never cut: appends then fail with kCorruption naming segment and offset.
//
// What a reader can see (see also change_log_reader.h): only whole, CRC-valid records with
// gap-free sequence numbers. Records of a batch still in flight may be seen before its fsync;
// after a crash such a batch may be present entirely, as a prefix of whole records, or not
// at all, and sequence numbers not made durable are assigned again. An append that returned
// an error (a failed write or fsync) is in flight in that sense forever: its records may
// still appear later. Consumers treat records as idempotent notices ("this mailbox changed").
//
// Ownership: open() returns a ChangeLog the caller owns; it does not own the Env, which must
// outlive it. Thread-safety: every method may be called from any thread at once; destroy the
// object only when no call is in progress. One ChangeLog per partition per process gets the
// most fsync sharing; more are correct (the OFD lock excludes them from each other).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>

#include "lib/base/result.h"
#include "lib/base/status.h"
#include "lib/io/env.h"
#include "mailbox/change_log_format.h"

namespace darius::mailbox {

namespace internal {
class SegmentFile;
}  // namespace internal

// "<partition>/darius.changelog".
std::string changeLogDir(std::string_view partition_path);

struct SeqRange {
  uint64_t first = 0;  // sequence number of the batch's first record
  uint64_t last = 0;   // and of its last: records got first, first + 1, ..., last
  bool operator==(const SeqRange&) const = default;
};

struct ChangeLogOptions {
  io::Env* env = nullptr;                    // nullptr: io::Env::posix()
  uint64_t segment_bytes = 8 * 1024 * 1024;  // a new segment is started once one reaches this
};

class ChangeLog {
 public:
  struct Stats {
    uint64_t appends = 0;    // append() calls that succeeded
    uint64_t records = 0;    // records they appended
    uint64_t groups = 0;     // leader writes (each one write, + one fdatasync unless every
                             // batch was Sync::kByCaller), incl. failed ones
    uint64_t rotations = 0;  // segments started by this object after the first
    uint64_t tail_cuts = 0;  // torn tails (or torn segment headers) this object repaired
    size_t queued = 0;       // batches waiting for a leader right now
  };

  // Opens the log in `dir`, creating the directory, the lock file and the first segment if
  // needed, and recovers the tail under the lock. kCorruption if the log is damaged in a way
  // recovery must not repair (see above); kNotSupported for an unknown major version.
  static base::Result<std::unique_ptr<ChangeLog>> open(std::string dir,
                                                       ChangeLogOptions options = {});
  ~ChangeLog();
  ChangeLog(const ChangeLog&) = delete;
  ChangeLog& operator=(const ChangeLog&) = delete;

  // Who makes an append durable. kByCaller: the records are written, not fsync'd; the caller
  // promises a filesystem-wide sync (io::SyncBarrier) of the log's filesystem before it
  // relies on them, and until then they are "in flight" as described above. A group holding
  // any kNow batch is fsync'd, which covers its kByCaller batches too.
  enum class Sync { kNow, kByCaller };

  // Appends `records` (seq ignored; time_usec 0 = now) as consecutive sequence numbers and
  // returns them once the records are on stable storage (kNow) or written (kByCaller).
  // kInvalid for an empty batch or a malformed record; kTooBig for a record over
  // kMaxRecordBody; nothing is written then.
  base::Result<SeqRange> append(std::span<const ChangeRecord> records, Sync sync = Sync::kNow);
  base::Result<uint64_t> append(const ChangeRecord& record);

  // Makes every record written so far durable (kByCaller ones included): an fdatasync of the
  // last segment (earlier ones were synced when they were closed). For the delivery journal's
  // checkpoint where no filesystem sync covers the log (delivery_journal.h).
  base::Status sync();

  // The sequence number the next append will get (brought up to date under the lock).
  base::Result<uint64_t> nextSeq();

  // Removes, oldest first, every segment all of whose records are below `seq` (for expire).
  // The last segment is never removed, so the sequence continues. Returns how many went.
  base::Result<size_t> pruneBefore(uint64_t seq);

  Stats stats() const;
  const std::string& dir() const { return dir_; }

 private:
  struct Batch;
  struct Tail {
    uint64_t first_seq = 0;  // of the active (last) segment
    uint64_t end = 0;        // bytes of intact data in it (its size, when valid)
    uint64_t next_seq = 0;
    ino_t inode = 0;
    std::unique_ptr<io::WritableFile> file;  // null: unknown, recover before the next write
  };

  ChangeLog(std::string dir, ChangeLogOptions options, io::Env& env);

  std::string segmentPath(uint64_t first_seq) const;
  std::string lockPath() const;

  // All of these run with io_mu_ and the OFD lock held.
  base::Status writeGroup(std::span<Batch* const> group);
  base::Status refreshTail();
  base::Status recoverTail();
  base::Status followFrom(uint64_t first_seq, uint64_t offset, uint64_t expect);
  base::Status adoptTail(uint64_t first_seq, uint64_t end, uint64_t next_seq);
  base::Status rewriteSegment(uint64_t first_seq, std::string_view contents);
  base::Status createSegment(uint64_t first_seq);
  base::Status rotate();

  const std::string dir_;
  const ChangeLogOptions options_;
  io::Env& env_;

  mutable std::mutex queue_mu_;
  std::condition_variable queue_cv_;
  std::deque<Batch*> queue_;            // guarded by queue_mu_; the front one is the leader
  uint64_t appends_ = 0, records_ = 0;  // guarded by queue_mu_

  std::mutex io_mu_;  // one I/O operation of this object at a time (leader, prune, nextSeq)
  Tail tail_;         // guarded by io_mu_
  std::atomic<uint64_t> groups_{0}, rotations_{0}, tail_cuts_{0};
};

}  // namespace darius::mailbox
