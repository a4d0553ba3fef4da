// Store: the whole mail store of one data_dir (DESIGN.md §3), as the services and the tools
// use it: the partitions, the mailbox list, each partition's change log, and the operations
// that span more than one mailbox directory — create, delete, rename, staging, group-committed
// delivery, copy and move. One Mailbox (mailbox.h) is one directory; the Store is everything
// around it.
//
// Namespace operations (create, delete, rename) change a directory tree and the mailbox list,
// which no single fsync or transaction covers. Each is written down first as an intent file in
// <data_dir>/darius.intents/ and then carried out step by step; every step can be repeated. A
// crash leaves the intent behind, and whoever next takes the namespace lock
// (<data_dir>/darius.nslock, an OFD lock held through every namespace operation) finishes it
// before doing anything else: Store::open does, and so does each namespace operation. So after
// a crash a mailbox is either where the list says or its operation is completed at the next
// open, never half moved. Format and argument: docs/formats/intents.md.
//
// Delivery group commit: concurrent append() calls for one mailbox queue; the first becomes the
// leader, takes every request queued at that moment, links them all under one mailbox lock and
// commits them with one round of syncs (docs/formats/index.md "Commit"), then wakes the others
// with their own UIDs. So N concurrent deliveries into one mailbox cost one round, and each
// caller returns only once its own message is durable. With SyncMethod::kSyncfs the round is
// one syncfs of the partition's filesystem, itself group-committed (io::SyncBarrier) with
// every other mailbox's appends in flight.
//
// Errors follow lib/base/status.h: kNotFound (no such mailbox), kExists, kInvalid,
// kNotSupported (a rename across partitions), kCorruption (a damaged list record), kIoError.
// A mailbox whose index or cache is damaged is repaired by reconstruct when it is opened.
//
// Ownership: a Store owns its MailboxList and ChangeLogs; it borrows the Env, which must
// outlive it, and Mailbox handles it returns borrow the Store's Env and change log, so the
// Store must outlive them. Thread-safety: every method may be called from any thread at once
// (namespace operations serialise on the namespace lock, which also excludes other processes);
// a returned Mailbox belongs to its caller's thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "db/db.h"
#include "lib/base/result.h"
#include "lib/io/env.h"
#include "lib/io/file_lock.h"
#include "mailbox/change_log.h"
#include "mailbox/mailbox.h"
#include "mailbox/mailbox_list.h"
#include "mailbox/mailbox_name.h"
#include "mailbox/message_stage.h"
#include "mailbox/partition.h"
#include "mailbox/seen_db.h"
#include "mailbox/subscriptions.h"

namespace darius::config {
class Config;
}

namespace darius::mailbox {

namespace internal {
struct Intent;
}

inline constexpr std::string_view kIntentDirName = "darius.intents";
inline constexpr std::string_view kNamespaceLockName = "darius.nslock";
inline constexpr std::string_view kUidValidityFileName = "darius.uidvalidity";

// How appends are made durable (the `sync_method` option; Mailbox::setSyncBarrier).
enum class SyncMethod {
  kFsync,   // file by file, in one round of concurrent syncs
  kSyncfs,  // one shared syncfs per partition (io::SyncBarrier); open fails if impossible
  kAuto,    // kSyncfs where the partition qualifies (Env::openFilesystemSync) and is the root
            // of a filesystem of its own (FilesystemSync::isRoot), else kFsync
};

struct StoreOptions {
  io::Env* env = nullptr;  // null: io::Env::posix()
  std::string data_dir;    // holds mailboxes.db, darius.intents/, darius.nslock
  std::vector<Partition> partitions;
  std::string default_partition;  // empty: the first partition
  db::Backend list_backend = db::Backend::kSkiplist;
  MailboxListOptions list_options;
  bool change_log = true;  // keep a change log per partition (tests may switch it off)
  Mailbox::CompactPolicy compact_policy;  // when an index rewrite also rewrites the cache
  SyncMethod sync_method = SyncMethod::kFsync;
  db::Backend seen_backend = db::Backend::kSkiplist;  // seen.db (seen_db.h)
  SeenLimits seen_limits;
};

struct CreateOptions {
  std::string partition;  // empty: the nearest listed ancestor's, else the default
  std::string acl;
  std::string quota_root;
  std::string special_use;
};

// An open mailbox and the list entry it was opened from.
struct OpenMailbox {
  MailboxEntry entry;
  std::unique_ptr<Mailbox> mailbox;
};

struct CopiedUid {
  uint32_t from = 0;  // UID in the source
  uint32_t to = 0;    // UID in the target
};

struct CopyResult {
  uint32_t target_uidvalidity = 0;
  std::vector<CopiedUid> uids;  // in source UID order; UIDs that were gone are left out
};

// What open() found and finished on the way (for logs and tests).
struct RecoveryReport {
  std::vector<std::string> finished;  // one line per intent completed
};

class Store {
 public:
  // From the config: data_dir, partitions, default_partition, mailboxes_db_backend,
  // max_mailbox_name.
  static base::Result<std::unique_ptr<Store>> open(const config::Config& config,
                                                   io::Env* env = nullptr);
  // Creates data_dir's areas and the partitions' when missing, opens the list and the change
  // logs, cleans the stage directories and finishes interrupted namespace operations.
  static base::Result<std::unique_ptr<Store>> open(StoreOptions options);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  io::Env& env() { return env_; }
  MailboxList& list() { return *list_; }
  // Per-user subscriptions, <data_dir>/subscriptions.db (same backend as the list).
  Subscriptions& subscriptions() { return *subscriptions_; }
  // Per-user \Seen of non-owners, <data_dir>/seen.db (seen_db_backend).
  SeenDb& seen() { return *seen_; }
  const std::vector<Partition>& partitions() const { return options_.partitions; }
  base::Result<const Partition*> partition(std::string_view name) const;
  const Partition& defaultPartition() const;
  // Null when change logs are off.
  ChangeLog* changeLog(std::string_view partition);
  const RecoveryReport& recovery() const { return recovery_; }

  // The directory of a listed mailbox.
  base::Result<std::string> directoryOf(const MailboxName& name, const MailboxEntry& entry) const;

  // --- Namespace operations (each durable when it returns) ---
  // kExists if the name is listed. Parent mailboxes are not created (a parent without an entry
  // is only a level of the hierarchy).
  base::Result<MailboxEntry> create(const MailboxName& name, const CreateOptions& options = {});
  // A user's INBOX is made the first time it is needed (login, delivery), as Cyrus's
  // autocreate does: creates `inbox` unless it is listed. The owner gets all rights.
  base::Status ensureInbox(const MailboxName& inbox);
  // Moves the mailbox's directory into its partition's deleted area and removes the entry.
  // Child mailboxes stay: then only the mailbox's own files move (RFC 9051 §6.3.4).
  base::Status remove(const MailboxName& name);
  // Renames `from` and every mailbox below it (mailbox_list.h renameSubtree) and moves their
  // directories on every partition. A user's INBOX is renamed like any other mailbox here;
  // the IMAP rule for INBOX is renameInbox().
  base::Result<std::vector<RenamedMailbox>> rename(const MailboxName& from,
                                                   const MailboxName& to);
  // RFC 9051 §6.3.6: renaming INBOX moves its messages into a new mailbox `to` and leaves
  // INBOX empty; sub-folders stay. Returns the new mailbox's entry.
  base::Result<MailboxEntry> renameInbox(const MailboxName& inbox, const MailboxName& to);
  // Replaces the entry's mutable fields (acl, quota_root, special_use) and copies the ACL
  // into the mailbox header for reconstruct.
  base::Status updateEntry(const MailboxName& name, const MailboxEntry& entry);

  // --- Mailboxes ---
  // kNotFound if the name is not listed (or is a \Noselect level). A damaged index or cache
  // is rebuilt from the message files by reconstruct, then opened.
  base::Result<OpenMailbox> openMailbox(const MailboxName& name);

  // --- Messages ---
  // Writes `bytes` (canonical CRLF) once to the partition's stage directory and fsyncs it;
  // unstage() removes it after it has been linked into every target.
  base::Result<StagedMessage> stage(const Partition& partition, std::string_view bytes);
  // The same with the fsync left to the append that links it (StageSync::kDeferred), where it
  // runs at the same time as the append's own syncs: what LMTP delivery does.
  base::Result<StagedMessage> stage(const Partition& partition, std::string_view bytes,
                                    StageSync sync);
  base::Status unstage(const StagedMessage& message);

  // Appends to the mailbox `name` with group commit (see above). Each request's message must be
  // staged on the mailbox's partition (or is copied across).
  base::Result<std::vector<Appended>> append(const MailboxName& name,
                                             std::span<const AppendRequest> requests);
  // Links the messages `uids` of `from` into `to` with their flags and dates (hard links on
  // one partition, copies across devices). UIDs not in `from` (expunged) are left out.
  base::Result<CopyResult> copy(Mailbox& from, std::span<const uint32_t> uids, Mailbox& to);
  // copy(), then phase-1 expunge of the copied messages in `from` (RFC 6851).
  base::Result<CopyResult> move(Mailbox& from, std::span<const uint32_t> uids, Mailbox& to);

  // Unique ids and UIDVALIDITY values for new mailboxes. UIDVALIDITY never repeats in the
  // store, across processes and restarts (kept in <data_dir>/darius.uidvalidity).
  std::string newUniqueId();
  base::Result<uint32_t> newUidValidity();

 private:
  struct AppendQueue;
  class NamespaceLock;

  Store(StoreOptions options, io::Env& env);

  base::Status init();
  base::Result<io::FileLock> lockNamespace();
  // Finishes every intent left in darius.intents/. Called with the namespace lock held.
  base::Status recoverLocked();
  // Carries out the steps of an intent that are still to do (each repeatable).
  base::Status applyIntent(const internal::Intent& intent, bool recovering);
  base::Result<std::string> writeIntent(const internal::Intent& intent);  // returns its path
  // `durable`: the removal is synced (its directory), as every intent but a create needs.
  base::Status removeIntent(const std::string& path, bool durable = true);
  base::Result<const Partition*> partitionFor(const MailboxName& name,
                                              const CreateOptions& options);
  void logNamespaceChange(const std::string& partition, const ChangeRecord& record);
  base::Result<std::unique_ptr<Mailbox>> openDir(const std::string& dir,
                                                 const std::string& partition);
  // The partition's shared filesystem sync, null when it syncs file by file.
  io::SyncBarrier* syncBarrier(std::string_view partition);
  // The same for a mailbox directory of the partition: null when `dir` is on another
  // filesystem.
  io::SyncBarrier* barrierFor(std::string_view partition, const std::string& dir);
  base::Result<std::vector<Appended>> appendNow(const MailboxName& name,
                                                std::span<const AppendRequest> requests);

  StoreOptions options_;
  io::Env& env_;
  std::unique_ptr<MailboxList> list_;
  std::unique_ptr<Subscriptions> subscriptions_;
  std::unique_ptr<SeenDb> seen_;
  std::map<std::string, std::unique_ptr<ChangeLog>, std::less<>> change_logs_;
  std::map<std::string, std::unique_ptr<io::SyncBarrier>, std::less<>> barriers_;
  RecoveryReport recovery_;

  std::mutex queues_mu_;
  std::map<std::string, std::shared_ptr<AppendQueue>> queues_;  // by internal name key

  std::mutex ids_mu_;
  uint32_t last_uidvalidity_ = 0;  // guarded by ids_mu_; a floor under the file's value
};

}  // namespace darius::mailbox
