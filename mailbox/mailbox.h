// Mailbox: one open mailbox directory (DESIGN.md §3, docs/formats/index.md): its header file,
// its mmap'd index and cache, and its message files `UID.`. Reads come from the mappings;
// writes (append, flag changes, expunge, index rewrite) go through the Env under the mailbox's
// exclusive lock, so the crash tests can cut power anywhere in them.
//
// Consistency: a Mailbox works on a snapshot: the index header as of the last refresh().
// Records past the snapshot's count are not visible until the next refresh(); records inside
// it show their latest flags. Every write refreshes first (under the lock), so writers never
// work on a stale view. A change by another handle, thread or process becomes visible at the
// next refresh() — the change log wakes waiters (change_watcher.h).
//
// Locking: `darius.lock` in the directory, an OFD lock (lib/io/file_lock.h): shared for
// refresh(), exclusive for writes. Readers of records take no lock: a record being rewritten
// in place is detected by its CRC and re-read under the shared lock.
//
// Ownership: a Mailbox owns its fds and mappings; the Env must outlive it.
// Thread-safety: one Mailbox object is used by one thread at a time; open one per thread or
// session. Distinct objects on the same directory exclude each other through the lock.
#pragma once

#include <optional>

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "lib/base/result.h"
#include "lib/io/env.h"
#include "lib/io/fd.h"
#include "lib/io/file_lock.h"
#include "lib/io/mapped_file.h"
#include "lib/io/sync_barrier.h"
#include "mailbox/cache_format.h"
#include "mailbox/expunged_file.h"
#include "mailbox/header_file.h"
#include "mailbox/index_format.h"
#include "mailbox/journal_format.h"
#include "mailbox/message_stage.h"
#include "mailbox/quota_format.h"

namespace darius::mailbox {

class ChangeLog;
class DeliveryJournal;

// What Mailbox::applyJournalAppend found the disk had lost of one journaled append.
struct JournalReplay {
  size_t files_restored = 0;    // message files written again from the journal
  size_t records_restored = 0;  // index records written again
  size_t cache_restored = 0;    // cache records made again
  size_t skipped = 0;           // entries the mailbox no longer has (purged since)
  bool header_restored = false; // the index header did not count the append
};

inline constexpr std::string_view kIndexFileName = "darius.index";
inline constexpr std::string_view kCacheFileName = "darius.cache";
inline constexpr std::string_view kLockFileName = "darius.lock";
// Held across a whole purge (mailbox_purge.cc), so that two never overlap on one mailbox.
inline constexpr std::string_view kPurgeLockFileName = "darius.purge.lock";
// The UIDs whose files a purge is about to unlink (docs/formats/expunged.md, "Purge").
inline constexpr std::string_view kPurgeJournalFileName = "darius.purge.pending";

struct AppendRequest {
  const StagedMessage* message = nullptr;
  int64_t internal_date = 0;
  int16_t tz_offset_minutes = 0;
  uint32_t system_flags = 0;          // kFlagSeen etc.; kFlagExpunged is refused
  std::vector<std::string> keywords;  // user flags; new names are added to the header
};

struct Appended {
  uint32_t uid = 0;
  uint64_t modseq = 0;
};

struct FlagChange {
  enum class Op { kAdd, kRemove, kReplace };
  uint32_t uid = 0;
  Op op = Op::kAdd;
  uint32_t system_flags = 0;
  std::vector<std::string> keywords;
  uint64_t unchanged_since = 0;  // RFC 7162 UNCHANGEDSINCE; 0 = unconditional
  // kReplace: system flags left as the record has them (a non-owner's STORE FLAGS leaves the
  // owner's \Seen alone: theirs is in seen_db.h).
  uint32_t keep_system = 0;
};

struct FlagResult {
  uint32_t uid = 0;
  enum class Outcome { kChanged, kUnchanged, kModified, kGone } outcome = Outcome::kGone;
  IndexRecord record;  // the record after the change (or as found)
};

class Mailbox {
 public:
  ~Mailbox();
  Mailbox(const Mailbox&) = delete;
  Mailbox& operator=(const Mailbox&) = delete;

  // Creates the mailbox in `dir` (whose parent must exist) with an empty index and cache and
  // the given header. `dir` may already exist as a plain directory (the container of child
  // mailboxes, or debris of a create that crashed before its header was written); kExists if
  // it already holds a mailbox header. Durable when it returns.
  static base::Result<std::unique_ptr<Mailbox>> create(io::Env& env, const std::string& dir,
                                                       const MailboxHeader& header);
  // kNotFound if there is no mailbox in `dir`; kCorruption (with the file and offset) if its
  // files are damaged beyond what open repairs by itself.
  // `journal`: the partition's delivery journal when this process owns it; a tail an append
  // of this process is committing through it is left to that append (not settled here).
  static base::Result<std::unique_ptr<Mailbox>> open(io::Env& env, const std::string& dir,
                                                     DeliveryJournal* journal = nullptr);
  // The mailbox's expunged messages as a read-only mailbox (the IMAP `.EXPUNGED/<folder>`
  // view, docs/design/expunge.md; mailbox_view.cc): its records are those
  // expungedRecords() returns, shown live (the expunged bit cleared, expunged_at kept), with
  // the live mailbox's UIDVALIDITY, UIDNEXT, HIGHESTMODSEQ and keyword names; cache() reads
  // the expunged cache (or the live one, for records still marked in the index). Every
  // write returns kPermission. refresh() re-reads the view.
  static base::Result<std::unique_ptr<Mailbox>> openExpungedView(io::Env& env,
                                                                 const std::string& dir);
  bool isExpungedView() const { return live_ != nullptr; }
  // A deleted folder as IMAP's `.DELETED/<folder>-<time>` shows it (docs/design/expunge.md):
  // open(), with every write refused (kPermission). Opening may still settle a tail a
  // killed writer left, as any open does.
  static base::Result<std::unique_ptr<Mailbox>> openReadOnly(io::Env& env,
                                                             const std::string& dir);
  bool isReadOnly() const { return read_only_ || live_ != nullptr; }
  // A handle for one append() and nothing else (Store's delivery path): it reads nothing
  // until append() takes the exclusive lock, which loads, settles and checks everything
  // open() would (kCorruption from there means "open() it to repair"), and the append leaves
  // its index unmapped afterwards. Saves a delivery the shared-lock pass, the header read and
  // a mapping that open() does first. kNotFound if `dir` holds no mailbox header.
  static base::Result<std::unique_ptr<Mailbox>> openForAppend(io::Env& env,
                                                              const std::string& dir);
  // Whether the last append() got as far as writing index records: if it then failed, its
  // tail may still be settled later, so the caller must not simply append it again.
  bool appendWroteIndex() const { return wrote_; }

  const std::string& dir() const { return dir_; }
  io::Env& env() const { return env_; }

  // Every change committed through this handle is then appended to `log` (its partition's
  // change log): other sessions' IDLE and replication learn of it there. Null (the default)
  // logs nothing: tools that repair a mailbox in place. The log must outlive the handle.
  void setChangeLog(ChangeLog* log) { change_log_ = log; }
  // Set: an append commits with one filesystem-wide sync through `barrier` (shared by every
  // writer of the partition, so concurrent appends to any mailboxes share its flush) instead
  // of a round of per-file syncs. The barrier must cover the filesystem of this mailbox, of
  // the stage files appended from, and of the change log; it must outlive the handle.
  void setSyncBarrier(io::SyncBarrier* barrier) { barrier_ = barrier; }
  // Set: an append of messages staged into `journal` (StagedMessage::journal) commits with an
  // append record there and one shared fdatasync of it, and syncs none of the mailbox's files
  // (delivery_journal.h); other appends sync file by file, also the files they link, which
  // may be journaled deliveries not yet checkpointed. `relative_dir` is this directory below
  // the partition root. The journal must outlive the handle.
  void setJournal(DeliveryJournal* journal, std::string relative_dir) {
    journal_ = journal;
    journal_dir_ = std::move(relative_dir);
  }
  // The replay of a journaled append after a crash (mailbox_journal.cc): restores and syncs
  // what the disk lost of it in the mailbox at `dir`, under the exclusive lock, before anyone
  // opens it. `bytes_of(i)` gives entry i's message bytes from the journal.
  static base::Result<JournalReplay> applyJournalAppend(
      io::Env& env, const std::string& dir, const JournalAppend& a,
      const std::function<base::Result<std::string_view>(size_t)>& bytes_of);
  const MailboxHeader& header() const { return header_; }
  const IndexHeader& index() const { return index_; }

  // Picks up changes made through other handles since the last refresh(): the index, and the
  // header's keyword names when the index changed.
  base::Status refresh();

  // Records of the snapshot, expunged-in-place ones included (check IndexRecord::live()).
  size_t recordCount() const { return index_.num_records; }
  base::Result<IndexRecord> record(size_t i) const;
  // Position of `uid` among the records, or -1 (binary search: UIDs ascend; the probes read
  // the uid field alone, the record found is decoded and checked).
  base::Result<int64_t> findUid(uint32_t uid) const;
  base::Result<CacheEntry> cache(const IndexRecord& r) const;
  std::string messagePath(uint32_t uid) const;

  // Links each staged message into the mailbox with the next UIDs; durable when it returns.
  base::Result<std::vector<Appended>> append(std::span<const AppendRequest> requests);
  // One modseq for the whole call (RFC 7162 §3.2 allows it); results in `changes` order.
  base::Result<std::vector<FlagResult>> store(std::span<const FlagChange> changes);
  // Per-user state kept outside the index that shares its modseqs (per-user \Seen,
  // seen_db.h). Takes the exclusive lock, loads and settles the index, and calls
  // `update(modseq, reserve)` with the modseq a change would get (HIGHESTMODSEQ + 1); the
  // callback may read records (findUid(), record()). When it has something to change, it calls
  // reserve(), which makes HIGHESTMODSEQ = modseq durable in the index header, before it
  // commits its own state, and returns the UIDs it changed (logged as a kFlags change, which
  // wakes other sessions' IDLE like any flag change). Records are not touched,
  // so other users' views of them do not change. Returns the modseq used, or 0 if reserve()
  // was not called.
  using PrivateUpdate = std::function<base::Result<std::vector<uint32_t>>(
      uint64_t modseq, const std::function<base::Status()>& reserve)>;
  base::Result<uint64_t> updatePrivate(const PrivateUpdate& update);
  // Phase-1 expunge: the records are marked expunged (and leave the index at the next
  // rewrite, for darius.expunged); the files stay. Returns the expunge modseq. `removed`
  // (if set) gets what left the live messages, which quota accounting takes off the root:
  // call it through Store::expunge for a listed mailbox.
  base::Result<uint64_t> expunge(std::span<const uint32_t> uids, QuotaUsage* removed = nullptr);
  // Rewrites the index without expunged records (they are appended to darius.expunged first)
  // under a new generation. Runs by itself when expunged records pass a threshold.
  base::Status compact();

  // IMAP4rev1 \Recent (RFC 3501 §2.3.2): moves the index's recent_uid up to `up_to` (the
  // last UID the caller has seen; never past the last UID given out) and returns its old
  // value. The UIDs in (old value, up_to] are recent to this caller alone: a claim is atomic
  // under the lock, so two sessions never both get a UID, and a UID that arrives after the
  // caller looked is left for the next claim. A SELECT claims, an EXAMINE does not.
  base::Result<uint32_t> claimRecent(uint32_t up_to);
  // Records of the snapshot with a UID above `uid` (STATUS RECENT counts those above
  // recent_uid); O(log n + the count).
  base::Result<size_t> countAbove(uint32_t uid) const;

  // When an index rewrite also rewrites the cache (docs/formats/cache.md, "Dead space"): once
  // dead bytes are at least `min_dead_bytes` and `dead_ratio` of the file.
  struct CompactPolicy {
    uint64_t min_dead_bytes = 64 * 1024;
    double dead_ratio = 0.25;
  };
  void setCompactPolicy(CompactPolicy p) { compact_policy_ = p; }

  // Every expunged record the mailbox still holds, ascending by UID: those in darius.expunged
  // and those marked in the index since the last rewrite (for QRESYNC VANISHED, .EXPUNGED,
  // undelete and expire). The latter have cache_offset 0; the former point into the
  // expunged cache (expungedCache()).
  base::Result<std::vector<IndexRecord>> expungedRecords() const;

  // expunge_mode (config.md): true (delayed, the default) keeps expunged messages, their
  // records and their files until expire; false (immediate) removes each message file once
  // its expunge is durable, and the next rewrite drops the records (raising purged_modseq).
  void setKeepExpunged(bool keep) { keep_expunged_ = keep; }
  // The wall clock, in seconds since the epoch, that stamps expunged_at; tests set their own.
  void setClock(std::function<int64_t()> clock) { clock_ = std::move(clock); }

  // Phase 2 (mailbox/expire.h): removes the expunged messages `uids` for good. Records still
  // in the index are moved out first (a rewrite); then darius.expunged and its cache are
  // rewritten without them, index.purged_modseq is raised to the highest of their modseqs,
  // and their files are unlinked. The new files are written outside the lock, which is held
  // only to pick up what was appended meanwhile and to rename them in (so a session on the
  // mailbox waits milliseconds, not for the whole rewrite). UIDs that are live or unknown are
  // left alone. Returns what was removed.
  struct Purged {
    size_t messages = 0;
    uint64_t bytes = 0;
    std::vector<uint32_t> uids;
  };
  base::Result<Purged> purgeExpunged(std::span<const uint32_t> uids);
  // The index header's purged_modseq as on disk now, not as of the last refresh(): QRESYNC
  // reads it after the expunged records (imapd/vanished.cc), since a purge raises it before
  // it removes records. 0 for an expunged view.
  base::Result<uint64_t> purgedModseqNow() const;

 private:
  Mailbox(io::Env& env, std::string dir) : env_(env), dir_(std::move(dir)) {}
  std::string path(std::string_view name) const { return dir_ + "/" + std::string(name); }
  base::Status lock(io::LockMode mode, io::FileLock* out) const;
  base::Status remapIndex();
  base::Status remapCache(uint64_t need) const;
  base::Status loadIndexHeader();
  // Reads the header file into header_ unless it is the one last read (header_stamp_).
  base::Status reloadHeaderIfReplaced();
  base::Status loadIndexHeaderForAppend(io::WritableFile& index_file);
  // Before any write, and in open(): a torn last append is rolled back, an unsettled one
  // (its round of syncs perhaps unfinished) verified and settled or rolled back.
  base::Status settleTail();
  base::Status repairTornAppend();
  bool tailUnsettled() const { return unsettled_.has_value(); }
  // Part of compact(): copies the live cache records to a new cache generation when the dead
  // space passes the policy, updating `live`'s offsets and `h`'s cache generation.
  base::Status rewriteCacheIfSparse(std::vector<IndexRecord>& live, IndexHeader& h);
  base::Status writeIndexHeader(io::WritableFile& f, IndexHeader h, bool sync = true);
  // Closes the index after a write is durable: an error is logged, not returned, since a
  // caller told "failed" would retry (and an append would be stored twice).
  void closeAfterCommit(io::WritableFile& index);
  // Releases `held` (the exclusive lock) and then flushes the index: a store or expunge
  // whose records and header are written, so nobody waits for its flush (mailbox_write.cc).
  base::Status syncAfterUnlock(io::FileLock& held, io::WritableFile& index);
  base::Status syncFileAt(const std::string& file);
  // The UID file of a journaled message (StagedMessage::bytes), unsynced.
  base::Status writeMessageFile(const StagedMessage& m, const std::string& target);
  // After a journaled round: the tail is still this append's to settle (or roll back); another
  // handle settled it meanwhile; or the lock could not be taken again (hands off the index).
  enum class JournalTail { kOurs, kSettledByOther, kUnlocked };
  base::Status commitToJournal(const IndexHeader& h, const std::vector<IndexRecord>& records,
                               std::span<const AppendRequest> requests,
                               io::FileLock& held, io::WritableFile& index_file,
                               JournalTail* tail);
  // Record i's bytes in the mapped index (valid until the next refresh()).
  base::Result<std::string_view> recordBytes(size_t i) const;
  // Appends a change record after a commit; a failure is logged, not returned: the change
  // itself is durable, and consumers of the log treat it as a hint, not as the truth.
  // `synced` false: the log record is written but left for the caller's SyncBarrier.
  void noteChange(int type, std::span<const std::pair<uint32_t, uint64_t>> uids,
                  bool synced = true);
  base::Result<int> userFlagBit(const std::string& keyword, MailboxHeader& h, bool create);

  io::Env& env_;
  std::string dir_;
  MailboxHeader header_;
  // Which header file header_ was read from: its inode, change time (ns) and size.
  struct HeaderStamp {
    uint64_t ino = 0;
    int64_t ctime_ns = -1;
    uint64_t size = 0;
    bool operator==(const HeaderStamp&) const = default;
  };
  HeaderStamp header_stamp_;
  // The index (generation, highest modseq) as of the last header check in refresh().
  struct IndexState {
    uint64_t generation = 0;
    uint64_t modseq = UINT64_MAX;  // never a real modseq: the first refresh() checks
    bool operator==(const IndexState&) const = default;
  };
  IndexState header_checked_;
  IndexHeader index_;
  bool tail_suspect_ = false;  // the last append's records did not match its header
  // Set: the header as on disk, whose last append is unsettled; index_ is then the view
  // before that append (hidden until settleTail() decides).
  std::optional<IndexHeader> unsettled_;
  io::UniqueFd index_fd_;
  uint64_t index_ino_ = 0;
  io::MappedFile index_map_;
  mutable io::UniqueFd cache_fd_;
  mutable io::MappedFile cache_map_;
  ChangeLog* change_log_ = nullptr;
  io::SyncBarrier* barrier_ = nullptr;
  DeliveryJournal* journal_ = nullptr;
  std::string journal_dir_;
  bool append_only_ = false;  // openForAppend()
  bool wrote_ = false;        // the last append() wrote index records (appendWroteIndex())
  CompactPolicy compact_policy_;
  bool keep_expunged_ = true;
  bool read_only_ = false;  // openReadOnly()
  std::function<int64_t()> clock_;

  // The expunged view (openExpungedView): the live mailbox it shows, its records, and the
  // expunged cache's bytes as of the last refresh.
  base::Result<Purged> purgeOnce(const std::set<uint32_t>& drop);
  base::Status finishPendingPurge();
  base::Status refreshView();
  base::Result<CacheEntry> viewCache(const IndexRecord& r) const;
  static base::Status viewIsReadOnly();
  std::unique_ptr<Mailbox> live_;
  std::vector<IndexRecord> view_records_;
  std::string view_cache_;
  // What the view was built from: the live index's generation and HIGHESTMODSEQ, and the
  // (inode, size) of darius.expunged and its cache.
  struct ViewStamp {
    uint64_t generation = 0;
    uint64_t modseq = 0;
    std::pair<uint64_t, uint64_t> index_file, cache_file;
    bool operator==(const ViewStamp&) const = default;
  };
  std::optional<ViewStamp> view_stamp_;
};

}  // namespace darius::mailbox
