// QuotaUsageFiles: the usage records of quota roots, one file per root,
// <data_dir>/darius.quota/<hex SHA-1 of the root's printable name> (docs/formats/quota.md,
// "Usage records"). A record is a cache of the sum of quotaCharge() over the root's mailboxes;
// the index headers it sums are the truth, durable with each commit, so the record itself is
// never synced (no fsync is added to any delivery).
//
// The protocol that keeps it exact (the argument is in quota.md, "Crash safety"):
//  - Every change of a root's usage (append, copy, expunge, create, delete, rename, and a
//    recount) runs under the root's lock: an exclusive OFD lock on its file (lib/io/
//    file_lock.h), so threads and processes (dariusd, the darius tool) are serialised per root,
//    check and change together: "would this fit?" and "it is in" are one critical section.
//  - Before its first change the holder writes the usage it will reach with the PENDING flag
//    (begin()), after the change is durable it writes the final usage without it (commit()).
//    A holder that dies in between (kill -9) releases the lock with the flag still set, so the
//    next holder knows the record may be off and recounts before it checks anything.
//  - Each record carries the boot id it was written in. A power cut can lose any of its
//    unsynced writes, in any order, but a power cut is a reboot: a record of another boot is
//    recounted too.
// A record that is missing, damaged, of another boot, or pending is "not trusted"; the Store
// recounts it (under the namespace lock, store_quota.cc) before it is used.
//
// Ownership: QuotaUsageFiles borrows the Env, which must outlive it; a Hold owns its lock and
// file handle and releases both when destroyed. Thread-safety: QuotaUsageFiles is immutable
// after construction (share freely); a Hold belongs to one thread. Two Holds on one root,
// even in one thread, exclude each other (OFD locks): never take a root's lock while holding
// it, and take several roots' locks only in name order, with the namespace lock held.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "lib/base/result.h"
#include "lib/io/env.h"
#include "lib/io/file_lock.h"
#include "mailbox/quota_format.h"

namespace darius::mailbox {

inline constexpr std::string_view kQuotaUsageDirName = "darius.quota";

class QuotaUsageFiles {
 public:
  class Hold;

  // `dir` is <data_dir>/darius.quota (created by the Store). `boot` identifies this boot of
  // the machine (currentBoot()); tests pass their own to play a reboot.
  QuotaUsageFiles(io::Env& env, std::string dir, BootId boot)
      : env_(env), dir_(std::move(dir)), boot_(boot) {}

  // /proc/sys/kernel/random/boot_id. Where it cannot be read, a random id per process: every
  // process then recounts what another wrote, which is slow but never wrong.
  static BootId currentBoot();

  const BootId& boot() const { return boot_; }
  std::string pathOf(const std::string& root) const;

  // The root's record under its exclusive lock, waiting for any other holder.
  base::Result<Hold> lock(const std::string& root);
  // The record's usage if trusted, read without the lock: only a hint (LMTP's RCPT check),
  // since a holder may change it the next moment.
  std::optional<QuotaUsage> peek(const std::string& root);

 private:
  friend class Hold;
  std::optional<QuotaUsage> trust(const base::Result<QuotaUsageRecord>& r,
                                  const std::string& root) const;

  io::Env& env_;
  const std::string dir_;
  const BootId boot_;
};

class QuotaUsageFiles::Hold {
 public:
  Hold(Hold&&) = default;
  Hold& operator=(Hold&&) = default;
  ~Hold() = default;  // the lock is released; a pending record stays pending

  const std::string& root() const { return root_; }
  // The usage when the record can be trusted; nullopt: recount first.
  const std::optional<QuotaUsage>& trusted() const { return trusted_; }
  // The record as read (for recalc's report), when it decoded and names this root.
  const std::optional<QuotaUsageRecord>& stored() const { return stored_; }

  // Writes `after` with the pending flag: the change that reaches it begins now.
  base::Status begin(const QuotaUsage& after);
  // Writes `usage` as the trusted state: the change is durable (or undone).
  base::Status commit(const QuotaUsage& usage);

 private:
  friend class QuotaUsageFiles;
  Hold() = default;
  base::Status write(const QuotaUsage& usage, bool pending);

  QuotaUsageFiles* files_ = nullptr;
  std::string root_;
  std::string path_;
  io::FileLock lock_;
  std::unique_ptr<io::WritableFile> file_;
  bool exact_size_ = false;  // the file holds exactly one record of this root
  std::optional<QuotaUsage> trusted_;
  std::optional<QuotaUsageRecord> stored_;
};

}  // namespace darius::mailbox
