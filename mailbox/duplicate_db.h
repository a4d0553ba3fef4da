// DuplicateDb: duplicate-delivery suppression (DESIGN.md §3, Cyrus's duplicate_db): remembers
// which Message-ID went into which mailbox, so that the same message delivered again within a
// window (an MTA retrying after a lost reply, a mailing list sending twice, an alias expanding
// to one person twice) is accepted but not stored a second time.
//
// Storage: one db/ database, normally <data_dir>/duplicates.db, with two records per delivery:
//   "d" message-id 0x00 mailbox-id            -> u64 big-endian seconds of the delivery
//   "t" u64 big-endian seconds message-id 0x00 mailbox-id   -> ""    (the expiry index)
// The "t" records are in time order, so prune() reads exactly the expired ones and nothing
// else: its cost is the number of expired entries, never the size of the database. The
// mailbox id is the caller's (lmtpd uses the mailbox's unique id, which survives renames).
//
// Durability, on purpose lazy: a mark is kept in memory first and written with others in one
// transaction (one fsync for many deliveries) when `batch` marks are pending, when
// `flush_interval` has passed (a background thread), by flush(), and at destruction. A crash
// loses at most the marks of the last interval; the only effect is that a later copy of one of
// those messages is stored again — the same exposure as the moment between storing a message
// and marking it, which no design avoids. Paying an fsync per delivery for this would cost
// about a fifth of LMTP's throughput.
//
// Claims: claim() checks and reserves in one step under one mutex, so two concurrent
// deliveries of one message to one mailbox cannot both pass; the winner confirm()s after its
// append is durable (then the mark may be written) or release()s it when the append failed.
//
// Ownership: open() returns an owned DuplicateDb; it owns its Database and flusher thread and
// borrows the Env. Thread-safety: every method may be called from any thread at once. Other
// processes may open the same file (db/ serialises writers across processes), but they do
// not see each other's unflushed marks.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "db/db.h"
#include "lib/base/result.h"

namespace darius::config {
class Config;
}

namespace darius::mailbox {

inline constexpr std::string_view kDuplicateDbName = "duplicates.db";
// Longer Message-IDs are cut to this many bytes for the key (RFC 5322 lines are at most 998
// octets; no real id comes close).
inline constexpr size_t kMaxMessageIdKey = 1000;

struct DuplicateDbOptions {
  std::string path;
  db::Backend backend = db::Backend::kSkiplist;
  io::Env* env = nullptr;                           // null: posix
  std::chrono::seconds window{std::chrono::hours(72)};  // 0 disables suppression entirely
  size_t batch = 256;                               // pending marks that force a write
  std::chrono::milliseconds flush_interval{1000};   // 0: no background flusher
  std::chrono::seconds prune_interval{std::chrono::minutes(10)};
};

class DuplicateDb {
 public:
  // From the config: data_dir/duplicates.db, duplicate_db_backend, duplicate_suppression_window.
  static base::Result<std::unique_ptr<DuplicateDb>> open(const config::Config& config);
  static base::Result<std::unique_ptr<DuplicateDb>> open(DuplicateDbOptions options);
  ~DuplicateDb();  // flushes what is pending (best effort) and stops the flusher
  DuplicateDb(const DuplicateDb&) = delete;
  DuplicateDb& operator=(const DuplicateDb&) = delete;

  bool enabled() const { return options_.window.count() > 0; }
  std::chrono::seconds window() const { return options_.window; }

  // True when (message_id, mailbox_id) is neither marked within the window nor claimed by
  // another delivery now: the caller then holds the claim and must confirm() or release()
  // it. False means "a duplicate: do not store". Always true when suppression is disabled or
  // the id is empty (a message without Message-ID is never suppressed).
  base::Result<bool> claim(std::string_view message_id, std::string_view mailbox_id,
                           int64_t now);
  // The claimed message is stored: the mark is written with the next batch.
  void confirm(std::string_view message_id, std::string_view mailbox_id);
  // The delivery failed: forget the claim, so a retry is not suppressed.
  void release(std::string_view message_id, std::string_view mailbox_id);

  // Writes every confirmed mark in one transaction, and prunes if prune_interval passed.
  base::Status flush();
  // Removes entries older than `now - window`; returns how many. O(expired entries).
  base::Result<size_t> prune(int64_t now);

  size_t pendingForTest();

 private:
  struct Pending {
    int64_t time = 0;
    bool confirmed = false;
  };

  DuplicateDb(DuplicateDbOptions options, std::unique_ptr<db::Database> db);
  void flusherLoop();
  base::Status writeBatch(std::map<std::string, int64_t> batch);  // key "msgid\0mailbox"
  base::Result<size_t> pruneLocked(int64_t now);

  const DuplicateDbOptions options_;
  std::unique_ptr<db::Database> db_;

  std::mutex mu_;  // guards pending_ and the flusher state
  std::map<std::string, Pending> pending_;  // by "msgid\0mailbox"
  size_t confirmed_ = 0;
  bool stopping_ = false;
  std::condition_variable wake_;
  std::mutex write_mu_;  // one batch writer at a time, so batches land in order
  std::atomic<int64_t> last_prune_{0};  // wall-clock seconds of the last prune
  std::thread flusher_;
};

}  // namespace darius::mailbox
