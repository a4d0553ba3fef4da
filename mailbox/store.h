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
// Quotas (RFC 9208; docs/formats/quota.md): every operation that changes what a quota root
// holds — append, copy, move, expunge, create, delete, rename — checks and changes the root's
// usage under the root's lock (quota_usage.h), so a change that would take a root over a limit
// fails with kOverQuota and changes nothing, however many threads and processes race for the
// last bytes. Limits live in quotas.db (quota_db.h); which root covers a mailbox is derived
// from its name and those records.
//
// Errors follow lib/base/status.h: kNotFound (no such mailbox), kExists, kInvalid,
// kNotSupported (a rename across partitions), kCorruption (a damaged list record), kIoError,
// kOverQuota.
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
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "db/db.h"
#include "lib/base/result.h"
#include "lib/io/env.h"
#include "lib/io/file_lock.h"
#include "mailbox/acl.h"
#include "mailbox/change_log.h"
#include "mailbox/deleted_area.h"
#include "mailbox/delivery_journal.h"
#include "mailbox/expire.h"
#include "mailbox/expire_policy_db.h"
#include "mailbox/mailbox.h"
#include "mailbox/mailbox_list.h"
#include "mailbox/mailbox_list_cache.h"
#include "mailbox/mailbox_name.h"
#include "mailbox/message_stage.h"
#include "mailbox/partition.h"
#include "mailbox/quota_db.h"
#include "mailbox/quota_format.h"
#include "mailbox/quota_usage.h"
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
  kFsync,    // file by file, in one round of concurrent syncs
  kSyncfs,   // one shared syncfs per partition (io::SyncBarrier); open fails if impossible
  kJournal,  // the partition's delivery journal (delivery_journal.h) in the process that
             // owns it (StoreOptions::own_journals); elsewhere as kAuto
  kAuto,     // kJournal in the owner; elsewhere kSyncfs where the partition qualifies
             // (Env::openFilesystemSync) and is the root of a filesystem of its own
             // (FilesystemSync::isRoot), else kFsync
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
  bool keep_expunged = true;  // expunge_mode: delayed (Mailbox::setKeepExpunged)
  bool keep_deleted = true;   // delete_mode: delayed (remove() keeps the folder to undelete)
  SyncMethod sync_method = SyncMethod::kFsync;
  // This process serves the store (dariusd): it owns each partition's delivery journal,
  // replaying it at open and writing it with kJournal/kAuto. Others (the tools) replay a
  // journal no live process owns, and never write one.
  bool own_journals = false;
  uint64_t journal_segment_bytes = 64ull << 20;
  int journal_checkpoint_ms = 5000;
  bool journal_background = true;        // JournalOptions::background
  bool journal_checkpoint_syncfs = true;  // false: checkpoints sync file by file
  // This boot's id for quota usage records (QuotaUsageFiles::currentBoot() when unset); tests
  // change it to play a reboot.
  std::optional<BootId> boot_id;
  db::Backend seen_backend = db::Backend::kSkiplist;  // seen.db (seen_db.h)
  SeenLimits seen_limits;
};

struct CopySources;  // store_append.cc

// One run of expire (Store::expire, mailbox/expire.h).
struct ExpireOptions {
  // The global default (ExpirePolicy::fromConfig); each owner's override in
  // expire_policies.db (Store::expirePolicies) is put over it unless `ignore_overrides`.
  ExpirePolicy policy;
  bool ignore_overrides = false;
  int64_t now = 0;          // seconds since the epoch: the expire's clock
  bool dry_run = false;     // plan and report, remove nothing
  bool everything = false;  // remove every expunged message, whatever the policy
  // With a scope: only the scope's own owner (expireOwnerOf), not the other shared mailboxes
  // below a shared one. The at-once run of expunge_vol_overflow is for one owner.
  bool owner_only = false;
  // Tidying in the same pass (issue 18): mailboxes whose live index still holds expunged
  // records are compacted (Mailbox::compact: the records move to darius.expunged and the
  // cache loses its dead space when it passes the compact policy). Never with dry_run.
  bool compact = true;
  // Asked between owners: true ends the run there (dariusd shutting down).
  std::function<bool()> stop;
  // expireDeleted(): the policy for deleted folders (deleted_vol_min, ...), each folder one
  // held item whose size is what its files take and whose time is the DELETE's; overrides
  // apply as for `policy`. `overflow_only`: only owners holding more than their
  // deleted_vol_overflow lose anything (dariusd's at-once run after a DELETE).
  ExpirePolicy deleted_policy;
  bool overflow_only = false;
};

// What expire found and did for one owner (a user, or one shared mailbox).
struct ExpireOutcome {
  std::string owner;  // "alice", "alice@example.com", or a shared mailbox's printable name
  // expireOwnerOf() printed: the user's INBOX ("user/alice") or the shared mailbox; the key
  // of the owner's override and the scope of a run for this owner alone.
  std::string owner_name;
  ExpirePolicy policy;  // the effective policy applied (global overlaid by the override)
  size_t held_messages = 0;  // before the run
  uint64_t held_bytes = 0;
  size_t removed_messages = 0;  // with dry_run: what would go
  uint64_t removed_bytes = 0;
  struct PerMailbox {
    std::string mailbox;  // printable internal name
    size_t removed = 0;
    uint64_t bytes = 0;
  };
  std::vector<PerMailbox> mailboxes;  // those that lost something, in name order
  // expireDeleted(): the deleted folders removed ("<name> (<entry>)"), oldest first; the
  // counts above then count folders, and the bytes what their files took.
  std::vector<std::string> folders;
  size_t compacted_mailboxes = 0;      // ExpireOptions::compact
  // What is left held after the run (with dry_run: what would be).
  uint64_t remainingBytes() const { return held_bytes - removed_bytes; }
};

struct CreateOptions {
  std::string partition;  // empty: the nearest listed ancestor's, else the default
  std::string acl;
  // Copied into the entry for tools and reconstruct; quota accounting never reads it (the
  // covering root is derived, quota_db.h).
  std::string quota_root;
  std::string special_use;
};

// A quota root with its limits and its exact usage.
struct QuotaRootInfo {
  MailboxName root;
  QuotaLimits limits;
  QuotaUsage usage;
  bool has_record = false;  // set by an administrator (else a user's implicit root)
};

// One difference `darius quota recalc` found: what the usage record said, what the store holds.
struct QuotaDifference {
  MailboxName root;
  QuotaResource resource;
  uint64_t stored = 0;  // STORAGE in bytes
  uint64_t actual = 0;
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

// The flags a copy keeps: RFC 4314 §4 stores only those the user has the right to set in
// the target ("s" \Seen, "t" \Deleted, "w" the others and keywords). Everything by default.
struct CopyFlags {
  uint32_t system = ~0u;  // mask over the system flag bits (kFlagSeen, ...)
  bool keywords = true;
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
  // `serve`: StoreOptions::own_journals (dariusd).
  static base::Result<std::unique_ptr<Store>> open(const config::Config& config,
                                                   io::Env* env = nullptr, bool serve = false);
  // Creates data_dir's areas and the partitions' when missing, opens the list and the change
  // logs, cleans the stage directories and finishes interrupted namespace operations.
  static base::Result<std::unique_ptr<Store>> open(StoreOptions options);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  io::Env& env() { return env_; }
  MailboxList& list() { return *list_; }
  // Checkpoints every partition's delivery journal now (delivery_journal.h): what it holds
  // becomes durable in the mailboxes and its segments go. Nothing to do without journals.
  base::Status checkpointJournals();
  // Drops the journals as a killed process would (DeliveryJournal::abandon): for tests of the
  // replay. Appends after this sync file by file.
  void abandonJournals();
  // An in-memory copy of the list for whole-list readers (LIST); see mailbox_list_cache.h.
  MailboxListCache& listCache() { return *list_cache_; }
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
  // Child mailboxes stay: then only the mailbox's own files move (RFC 9051 §6.3.4). The
  // quota root is released of it at once. With delete_mode immediate (keep_deleted false)
  // the moved files are then removed for good.
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
  // Applies `change` to the rights of `identifier` (stored spelling, mailbox/acl_identifier.h)
  // in the mailbox's ACL; rights that end up empty remove the entry. Under the namespace
  // lock, durable (list and header copy) and logged as kAcl (store_acl.cc). Returns the new
  // ACL. kNotFound when the mailbox is not listed.
  base::Result<Acl> editAcl(const MailboxName& name, std::string_view identifier,
                            const RightsChange& change);

  // --- The deleted area (store_deleted.cc, mailbox/deleted_area.h) ---
  // The folders DELETE kept whose old name is `scope` or below it (all when nullopt), on
  // every partition, oldest first (to the nanosecond the entry's name keeps), ordinals set. Entries that hold no
  // readable header (debris, a removal in progress) are skipped.
  base::Result<std::vector<DeletedMailbox>> listDeleted(const std::optional<MailboxName>& scope);
  // The deleted folder read-only (Mailbox::openReadOnly), or its expunged view. The entry is
  // made from its header (unique id, partition, UIDVALIDITY, ACL). kNotFound once it is gone.
  base::Result<OpenMailbox> openDeleted(const DeletedMailbox& deleted, bool expunged_view);
  // Brings `deleted` back as `to` with its unique id, UIDVALIDITY, UIDs, flags and expunged
  // messages (IMAP RENAME out of .DELETED, `darius undelete`): kExists when `to` is listed,
  // kNotFound when the folder is no longer in the area, kOverQuota when `to`'s quota root
  // cannot hold it. An intent like every namespace operation (docs/formats/intents.md).
  base::Result<MailboxEntry> undelete(const DeletedMailbox& deleted, const MailboxName& to);
  // Phase two: removes a deleted folder for good. The directory is first renamed to
  // "<entry>.purging" under the namespace lock (so an undelete either wins or finds nothing),
  // then emptied without it. Returns the bytes its files took. A ".purging" directory a crash
  // left is finished by the next expireDeleted().
  base::Result<uint64_t> purgeDeleted(const DeletedMailbox& deleted);
  // Expire of deleted folders (store_expire_deleted.cc), per owner as expire(), with
  // options.deleted_policy; `everything` removes every deleted folder in scope.
  base::Result<std::vector<ExpireOutcome>> expireDeleted(const std::optional<MailboxName>& scope,
                                                         const ExpireOptions& options);

  // --- Mailboxes ---
  // kNotFound if the name is not listed (or is a \Noselect level). A damaged index or cache
  // is rebuilt from the message files by reconstruct, then opened.
  base::Result<OpenMailbox> openMailbox(const MailboxName& name);
  // The expunged view of the listed mailbox `name` (Mailbox::openExpungedView): read-only,
  // for IMAP's `.EXPUNGED/<folder>`. The entry is the live mailbox's.
  base::Result<OpenMailbox> openExpungedView(const MailboxName& name);

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
  // Links the messages `uids` of `from` into `to` (the mailbox `to_name`) with their flags and
  // dates (hard links on one partition, copies across devices). UIDs not in `from` (expunged)
  // are left out. All or nothing against `to`'s quota (kOverQuota).
  // `keep` drops the flags the copier may not set in `to` (RFC 4314 §4).
  base::Result<CopyResult> copy(Mailbox& from, std::span<const uint32_t> uids,
                                const MailboxName& to_name, Mailbox& to,
                                const CopyFlags& keep = {});
  // Undelete (Cyrus's unexpunge; COPY out of .EXPUNGED): links the expunged messages `uids`
  // of `from` whose files expire has not removed into `to` with new UIDs, their dates and
  // their flags (less \Deleted, or the next EXPUNGE would take them again, and less what
  // `keep` drops), as copy() does, charging `to`'s quota root. The expunged records stay until
  // expire (the files are hard links: no space is used twice).
  base::Result<CopyResult> unexpunge(Mailbox& from, std::span<const uint32_t> uids,
                                     const MailboxName& to_name, Mailbox& to,
                                     const CopyFlags& keep = {});
  // copy(), then phase-1 expunge of the copied messages in `from` (RFC 6851). Within one
  // quota root the usage does not change, so no limit is checked.
  base::Result<CopyResult> move(const MailboxName& from_name, Mailbox& from,
                                std::span<const uint32_t> uids, const MailboxName& to_name,
                                Mailbox& to, const CopyFlags& keep = {});
  // Phase-1 expunge (Mailbox::expunge) of `mailbox`, the mailbox `name`, and the root's usage
  // with it. Every expunge of a listed mailbox goes through here. Returns the expunge modseq.
  base::Result<uint64_t> expunge(const MailboxName& name, Mailbox& mailbox,
                                 std::span<const uint32_t> uids);

  // --- Expire (store_expire.cc) ---
  // Phase two for the owner of `scope` (a user's INBOX: every mailbox of theirs; a shared
  // mailbox: its subtree, each shared mailbox its own owner), or for every owner when
  // nullopt. Per owner: gathers what every mailbox holds expunged, plans with planExpire(),
  // then purges mailbox by mailbox (Mailbox::purgeExpunged, whose lock is held for
  // milliseconds). A mailbox that cannot be opened or purged is logged and skipped, and the
  // run goes on; the outcome counts only what went.
  base::Result<std::vector<ExpireOutcome>> expire(const std::optional<MailboxName>& scope,
                                                  const ExpireOptions& options);
  // Per-owner overrides of the expire policies, <data_dir>/expire_policies.db (on the mailbox
  // list's backend; expire_policy_db.h).
  ExpirePolicyDb& expirePolicies() { return *expire_policies_; }
  // Told after every phase-1 expunge that left messages held (Store::expunge, and move()'s
  // source side; not with expunge_mode: immediate, which holds nothing): the mailbox and the
  // bytes that became expunged. dariusd's expire scheduler keeps each owner's held volume with
  // it (expunge_vol_overflow). Set once, before the Store is shared between threads. Called
  // on the expunging thread after the expunge is durable and its locks are released: it must
  // be cheap and must not call back into the Store.
  using ExpungeObserver = std::function<void(const MailboxName& mailbox, uint64_t bytes)>;
  void setExpungeObserver(ExpungeObserver observer) { expunge_observer_ = std::move(observer); }
  // Told of each DELETE that kept a folder (delete_mode delayed), after the namespace lock is
  // released: dariusd's scheduler checks the owner's deleted_vol_overflow. Same rules as the
  // expunge observer.
  using DeleteObserver = std::function<void(const MailboxName& mailbox)>;
  void setDeleteObserver(DeleteObserver observer) { delete_observer_ = std::move(observer); }
  // Called with the mailbox's directory after messages were appended to it (delivery,
  // APPEND, COPY, MOVE, undelete): dariusd's search indexer (server/search_indexer.h) indexes
  // them a moment later. Set before sharing the Store, as the others.
  using AppendObserver = std::function<void(const std::string& dir)>;
  void setAppendObserver(AppendObserver observer) { append_observer_ = std::move(observer); }
  // Asks the same observer to index `dir` (a SEARCH that left a backlog to the background).
  void requestSearchIndex(const std::string& dir) const {
    if (append_observer_) append_observer_(dir);
  }

  // --- Quotas (store_quota.cc) ---
  QuotaDb& quotas() { return *quotas_; }
  QuotaUsageFiles& quotaUsage() { return *usage_; }
  // The root covering `name` (QuotaDb::coveringRoot): nullopt for none.
  base::Result<std::optional<MailboxName>> quotaRootOf(const MailboxName& name);
  // A root's limits and exact usage (recounted first when its record is not trusted).
  // kNotFound when `root` is no root: it has no record and is not a listed user's INBOX.
  base::Result<QuotaRootInfo> quota(const MailboxName& root);
  // Replaces the limits of `root`, making it a root if it was not one: the mailboxes at and
  // below it leave the root that covered them, and both roots are recounted. kInvalid when
  // `root` is neither a listed mailbox nor a user's INBOX; limits over kMaxQuotaLimit too.
  base::Status setQuota(const MailboxName& root, const QuotaLimits& limits);
  // Every root whose printable name starts with `prefix`, records and implicit user roots,
  // in name order.
  base::Result<std::vector<QuotaRootInfo>> listQuotas(std::string_view prefix);
  // Recounts `roots` from the mailboxes (Cyrus's `quota -f`), returns where the usage record
  // disagreed, and rewrites each record unless `dry_run`.
  base::Result<std::vector<QuotaDifference>> recalcQuota(const std::vector<MailboxName>& roots,
                                                         bool dry_run);
  // Whether a message of `size` octets (0: unknown) would take the root covering `name` over a
  // limit, from the usage record read without its lock: LMTP's early check at RCPT. nullopt
  // when it fits, when there are no limits, or when the record cannot be trusted now; the
  // append itself decides.
  base::Result<std::optional<QuotaResource>> quotaHint(const MailboxName& name, uint64_t size);

  // Unique ids and UIDVALIDITY values for new mailboxes. UIDVALIDITY never repeats in the
  // store, across processes and restarts (kept in <data_dir>/darius.uidvalidity).
  std::string newUniqueId();
  base::Result<uint32_t> newUidValidity();

 private:
  struct AppendQueue;
  class NamespaceLock;
  // The append half of copy() and unexpunge(): all or nothing against `to`'s quota root.
  base::Result<CopyResult> appendCopies(CopySources& src, const MailboxName& to_name,
                                        Mailbox& to);
  // Tells the expunge observer, if any (setExpungeObserver).
  void noteExpunged(const MailboxName& name, const QuotaUsage& removed);

  Store(StoreOptions options, io::Env& env);
  // remove()'s namespace operation; returns what went into the deleted area.
  base::Result<std::optional<DeletedMailbox>> removeLocked(const MailboxName& name);

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
  // store_journal.cc: replays each partition's journal and, in the owner, opens it.
  base::Status openJournals();
  base::Status replayJournal(const Partition& p, const std::string& dir);
  void relogJournaledAppend(const Partition& p, const JournalAppend& a);
  // The partition's journal when appends commit through it, else null.
  DeliveryJournal* journal(std::string_view partition);
  // Mailbox::setJournal for a handle on a mailbox of `partition`, if it has a journal.
  void attachJournal(Mailbox& m, std::string_view partition);
  struct Waiter;
  // The leader's half of append(): quota admission per waiter, one Mailbox::append for the
  // admitted ones; sets each waiter's result.
  void appendGroup(const MailboxName& name, std::span<Waiter* const> group);
  // One append through an append-only handle; *retry: it failed before writing anything with
  // kNotFound or kCorruption, which openMailbox() may cure.
  base::Result<std::vector<Appended>> appendOnce(const MailboxName& name,
                                                 std::span<const AppendRequest> requests,
                                                 bool* wrote, bool* retry);

  // Quota internals (store_quota.cc). A locked root with trusted usage.
  struct RootHold {
    MailboxName root;
    QuotaLimits limits;
    QuotaUsage usage;
    QuotaUsageFiles::Hold hold;
    // After a change that began with hold.begin(): the new usage when `ok`, the old when it
    // failed before touching anything (`clean`); else the record stays pending (recounted).
    void finish(bool ok, bool clean, const QuotaUsage& after);
  };
  // `root`'s usage record under its lock, trusted: recounted first when it is not (which
  // takes the namespace lock unless `ns_held`). Never call it holding a root's lock.
  base::Result<RootHold> lockRoot(const MailboxName& root, bool ns_held);
  // The root covering `name`, locked, re-derived under its lock (a SETQUOTA or rename may have
  // moved coverage meanwhile); nullopt when no root covers it.
  base::Result<std::optional<RootHold>> lockRootOf(const MailboxName& name, bool ns_held);
  // Sum of quotaCharge() over the mailboxes `root` covers. Namespace and root lock held.
  base::Result<QuotaUsage> recountLocked(const MailboxName& root);
  // What one mailbox charges now (opened; settled). Namespace lock held.
  base::Result<QuotaUsage> chargeOfLocked(const MailboxName& name, const MailboxEntry& entry);
  // Rename's share: locks every root that covers an old, intermediate or new name (in name
  // order), refuses with kOverQuota a move that a target root cannot hold, and marks them all
  // pending; recountAfterRename() recounts and commits them.
  base::Result<std::vector<RootHold>> lockRootsForRename(const MailboxName& from,
                                                         const MailboxName& to,
                                                         const std::vector<RenamedMailbox>& moves);
  void recountAfterRename(std::vector<RootHold>& holds);
  // An index rebuilt by reconstruct at open: its root's record is recounted at its next use.
  void noteRepaired(const std::string& dir);

  StoreOptions options_;
  io::Env& env_;
  std::unique_ptr<MailboxList> list_;
  std::unique_ptr<MailboxListCache> list_cache_;
  std::unique_ptr<Subscriptions> subscriptions_;
  std::unique_ptr<QuotaDb> quotas_;
  std::unique_ptr<QuotaUsageFiles> usage_;
  std::mutex stale_mu_;
  // Roots of mailboxes this process repaired by reconstruct at open (noteRepaired): their
  // records are recounted before they are trusted again. Guarded by stale_mu_.
  std::set<std::string> stale_roots_;
  std::unique_ptr<SeenDb> seen_;
  std::unique_ptr<ExpirePolicyDb> expire_policies_;
  ExpungeObserver expunge_observer_;  // set before sharing; read-only afterwards
  DeleteObserver delete_observer_;    // the same
  AppendObserver append_observer_;    // the same
  std::map<std::string, std::unique_ptr<ChangeLog>, std::less<>> change_logs_;
  std::map<std::string, std::unique_ptr<io::SyncBarrier>, std::less<>> barriers_;
  // Declared after change_logs_: destroyed first (a journal's last checkpoint at shutdown).
  std::map<std::string, std::unique_ptr<DeliveryJournal>, std::less<>> journals_;
  RecoveryReport recovery_;

  std::mutex queues_mu_;
  std::map<std::string, std::shared_ptr<AppendQueue>> queues_;  // by internal name key

  std::mutex ids_mu_;
  uint32_t last_uidvalidity_ = 0;  // guarded by ids_mu_; a floor under the file's value
};

}  // namespace darius::mailbox
