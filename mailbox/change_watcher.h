// Waking up on changes to the change log (change_log.h), across processes, without polling
// the disk on a timer: what IDLE needs ("a session idling on a mailbox sees a delivery from
// lmtpd, or a change from another session or process, within 100 ms").
//
// ChangeWatcher is an inotify instance watching the log directory for IN_MODIFY (a record
// written to a segment, by any process), IN_CREATE (a new segment) and IN_MOVED_TO (a segment
// replaced by a writer's recovery). Its fd() becomes readable on any of them; an event loop
// can wait on it (the IMAP layer wraps it in an asio posix::stream_descriptor), and tools and
// tests use the blocking wait(). A notification only says "look again": it may come before
// the writer's fsync, several writes may be folded into one, and writes to a temp file wake
// it too. ChangeFeed puts a watcher and a ChangeLogReader together and returns the records
// after the last one seen, optionally only those of one mailbox.
//
// No lost wake-ups: the watch exists before the first read, and every round is "drain the
// notifications, then read to the end": a record written after the drain either is read by
// that round or leaves the fd readable for the next.
//
// Cost: one inotify instance per watcher, and Linux allows 128 per user by default
// (fs.inotify.max_user_instances): a daemon keeps one ChangeFeed per partition and fans its
// records out to sessions; it must not open one per session.
//
// Ownership: each object owns its inotify fd (closed on destruction). Thread-safety: one
// object is not synchronised; use it from one thread (or strand) at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lib/base/result.h"
#include "lib/base/status.h"
#include "lib/io/fd.h"
#include "mailbox/change_log_format.h"
#include "mailbox/change_log_reader.h"

namespace darius::mailbox {

class ChangeWatcher {
 public:
  // Watches the change log directory `dir`, which must exist (ChangeLog::open creates it).
  static base::Result<std::unique_ptr<ChangeWatcher>> open(const std::string& dir);

  // Non-blocking inotify fd: readable when the log may have changed. Call drain() then.
  int fd() const { return fd_.get(); }

  // Consumes pending notifications without blocking; true if there were any. kNotFound once
  // the directory itself was removed or moved away.
  base::Result<bool> drain();

  // Blocks until a notification arrives (then drains it: true) or `timeout` passes (false).
  base::Result<bool> wait(std::chrono::milliseconds timeout);

 private:
  explicit ChangeWatcher(io::UniqueFd fd) : fd_(std::move(fd)) {}
  io::UniqueFd fd_;
};

class ChangeFeed {
 public:
  // Watches `dir` and reads it from `from_seq` (>= 1; ChangeLog::nextSeq() for "from now").
  // With a non-empty `mailbox_id`, poll() and wait() return only that mailbox's records.
  static base::Result<std::unique_ptr<ChangeFeed>> open(std::string dir, uint64_t from_seq,
                                                        std::string mailbox_id = {});

  int fd() const { return watcher_->fd(); }

  // Drains the notifications, then returns every (matching) record after the last one seen.
  base::Result<std::vector<ChangeRecord>> poll();

  // poll() until it returns at least one record or `timeout` passes (then: empty).
  base::Result<std::vector<ChangeRecord>> wait(std::chrono::milliseconds timeout);

  // The sequence number of the last record read, matching or not (from_seq - 1 at first).
  uint64_t lastSeen() const { return last_seen_; }

 private:
  ChangeFeed(std::unique_ptr<ChangeWatcher> watcher, ChangeLogReader reader, uint64_t from_seq,
             std::string mailbox_id);

  std::unique_ptr<ChangeWatcher> watcher_;
  ChangeLogReader reader_;
  uint64_t last_seen_;
  std::string mailbox_id_;
  bool reposition_ = false;  // an error left the reader somewhere: readFrom(last_seen_ + 1)
};

}  // namespace darius::mailbox
