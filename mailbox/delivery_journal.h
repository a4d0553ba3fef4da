// DeliveryJournal: a partition's append-only delivery journal (docs/formats/journal.md), the
// durable point of `sync_method: journal`. A delivery writes its message's bytes to the
// journal once (writeMessage), links and indexes it as any append does but without syncing
// those files, writes one append record naming the index records (writeAppend), and waits
// for one fdatasync of the journal (sync) that it shares with every delivery in flight to any
// mailbox of the partition: the crash-only log of ../shared/notes/queue-design.md, applied to
// the store. The message files, the cache and the index become durable later, all at once, at
// a checkpoint (a filesystem sync where the filesystem reports its write-back errors, else
// file by file in the background); only then are the segments that describe them removed.
// After a crash, journal_recovery.cc replays what is left before anyone opens a mailbox, so a
// delivery acknowledged after its sync survives whatever the page cache lost.
//
// Group commit: sync(lsn) returns once an fdatasync that started after the caller's write has
// finished. The first caller to find none running leads: it syncs the active segment up to
// everything written so far and wakes everyone it covered. Errors are sticky per segment:
// once an fdatasync of a segment fails, every sync of what was written to it fails, and the
// next write starts a new segment (the kernel reports a write-back error once).
//
// One process owns a partition's journal (dariusd): it holds <journal>/lock for its
// lifetime. Other processes (the tools) replay a journal nobody holds and otherwise append
// file by file.
//
// Ownership: owns its segment files, its lock and its checkpoint thread; borrows the Env,
// which must outlive it. Thread-safety: every method may be called from any thread at once.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "lib/base/result.h"
#include "lib/io/env.h"
#include "lib/io/file_lock.h"
#include "mailbox/journal_format.h"

namespace darius::mailbox {

inline constexpr std::string_view kJournalLockName = "lock";

struct JournalOptions {
  // A segment this large is closed and checkpointed; also the most a replay reads at once.
  uint64_t segment_bytes = 64ull << 20;
  // A segment with records is checkpointed at the latest this long after its first write
  // (bounds both the journal's size on disk and the work of a replay).
  int checkpoint_interval_ms = 5000;
  // Checkpoints by one filesystem sync (null: file by file). Owned by the journal.
  std::unique_ptr<io::FilesystemSync> filesystem_sync;
  // Also run by a checkpoint that syncs file by file, before the segments go: the change
  // log's sync (its records of journaled appends are written without one).
  std::function<base::Status()> sync_also;
  // False: no checkpoint thread; checkpoint() runs only when called (the crash tests, whose
  // cut points must not depend on a timer) and at destruction.
  bool background = true;
};

class DeliveryJournal {
 public:
  // Opens (creating) `dir` as the owner: waits for the lock, then starts a new segment and
  // the checkpoint thread. The caller must have replayed the journal first (recoverJournal,
  // under the same lock: pass it in).
  static base::Result<std::unique_ptr<DeliveryJournal>> openOwned(io::Env& env, std::string dir,
                                                                  io::FileLock lock,
                                                                  JournalOptions options);
  // The lock a replay and the owner hold. `wait` false: kLocked when another process owns it.
  static base::Result<io::FileLock> lockDir(io::Env& env, const std::string& dir, bool wait);
  // The segment files of `dir`, oldest first.
  static base::Result<std::vector<uint64_t>> listSegments(io::Env& env, const std::string& dir);

  ~DeliveryJournal();
  DeliveryJournal(const DeliveryJournal&) = delete;
  DeliveryJournal& operator=(const DeliveryJournal&) = delete;

  // Writes a message's bytes (not synced). The ref stays valid until the segment is
  // checkpointed; writeAppend copies the bytes forward if that happened meanwhile.
  base::Result<JournalRef> writeMessage(const Guid& guid, std::string_view bytes);

  // Writes an append record for `a` (entries' message_offset are filled in from `refs`, one
  // per entry). A ref to an older segment than the active one has its message written again
  // first, read with `load(i)`. `mailbox_path` is the mailbox's absolute directory, which
  // the checkpoint syncs. Returns the position to pass to sync().
  base::Result<uint64_t> writeAppend(JournalAppend a, const std::vector<JournalRef>& refs,
                                     const std::function<base::Result<std::string>(size_t)>& load,
                                     const std::string& mailbox_path);

  // Returns once everything written up to `lsn` is on stable storage.
  base::Status sync(uint64_t lsn);

  // An append to the mailbox at `dir` has written its unsettled tail and its record (up to
  // `lsn`) and waits for sync() without the mailbox's lock (Mailbox::append): another handle
  // of this process that meets that tail waits for the same sync instead of syncing the
  // files itself (settleTail), and an open leaves it to the appender. One per directory (the
  // Store runs one append per mailbox at a time).
  void beginTail(const std::string& dir, uint64_t lsn);
  void endTail(const std::string& dir);
  // The lsn of the append in flight in `dir`, if any.
  std::optional<uint64_t> tailInFlight(const std::string& dir) const;

  // Makes everything the closed segments describe durable and removes them. Runs on its own
  // thread; exposed for tests and for shutdown.
  base::Status checkpoint();

  // What a killed process leaves: the destructor then neither syncs nor removes anything
  // (tests; the next open replays).
  void abandon();

  struct Stats {
    uint64_t messages = 0;     // message records written
    uint64_t appends = 0;      // append records written
    uint64_t sync_calls = 0;   // sync() calls that had to wait for a flush
    uint64_t fdatasyncs = 0;   // flushes made for them
    uint64_t checkpoints = 0;  // segments checkpointed
    uint64_t checkpoint_failures = 0;
  };
  Stats stats() const;
  const std::string& dir() const { return dir_; }

 private:
  struct Segment {
    uint64_t number = 0;
    std::shared_ptr<io::WritableFile> file;
    uint64_t base_lsn = 0;  // lsn of the segment's first byte
    bool failed = false;    // an fdatasync of it failed: nothing more is acknowledged from it
    bool sealed = false;    // a write to it failed part-way: it takes no more records
    // What its append records describe, for a checkpoint without a filesystem sync:
    // mailbox directory -> the UIDs of its message files.
    std::map<std::string, std::set<uint32_t>> touched;
  };

  DeliveryJournal(io::Env& env, std::string dir, io::FileLock lock, JournalOptions options);
  base::Status startSegmentLocked();   // mu_ held
  // mu_ held: closes a failed, sealed or full active segment and starts the next.
  base::Status makeRoomLocked(size_t frame_size);
  base::Status appendFrameLocked(const std::string& frame);  // mu_ held
  void closeActiveLocked();  // mu_ held, active_ set: syncs it and moves it to closed_
  base::Status makeDurable(const std::vector<std::unique_ptr<Segment>>& closed);
  void checkpointLoop();

  io::Env& env_;
  const std::string dir_;
  io::FileLock lock_;
  JournalOptions options_;

  mutable std::mutex mu_;
  std::condition_variable synced_cv_;
  std::unique_ptr<Segment> active_;
  std::vector<std::unique_ptr<Segment>> closed_;  // synced, awaiting their checkpoint
  uint64_t next_segment_ = 1;
  uint64_t written_lsn_ = 0;  // end of what has been written
  uint64_t durable_lsn_ = 0;  // end of what an fdatasync has covered
  uint64_t failed_below_ = 0; // syncs of lsns at or below this fail (a failed segment's end)
  bool syncing_ = false;
  int64_t active_since_ms_ = 0;  // when the active segment got its first record; 0 if none
  Stats stats_;

  mutable std::mutex tails_mu_;
  std::map<std::string, uint64_t> tails_;  // beginTail()..endTail(), by directory

  std::mutex checkpoint_mu_;  // one checkpoint at a time
  std::condition_variable wake_cv_;
  bool stopping_ = false;
  bool abandoned_ = false;
  std::thread thread_;
};

}  // namespace darius::mailbox
