// MailboxList: the database of every mailbox of the store (DESIGN.md §3), `mailboxes.db` in
// data_dir, on any db/ backend. It maps a MailboxName to a MailboxEntry: the mailbox's unique
// id (which never changes, so a rename moves no data), partition, ACL, quota root,
// UIDVALIDITY, creation modseq, special-use and type flags. Key and value encodings, their
// versions and the crash-safety argument: docs/formats/mailbox-list.md.
//
// Keys sort so that a mailbox's whole subtree follows it directly: "children of X" and
// "rename X with everything below it" are one prefix range each. Every change goes through a
// db transaction, so a multi-record change (renameSubtree, a Transaction of several
// changes) is all-or-nothing across crashes. A damaged record is reported as kCorruption
// naming its key, never a crash; forEach() can also skip and collect such records for
// reconstruct.
//
// What is checked here: names are MailboxName-valid and at most max_name_length long on
// insert and rename (kTooBig); entries are field-valid (kInvalid) on the way in and
// (kCorruption) on the way out. What is not: the meaning of the ACL, the quota root, that
// unique ids are unique, that a parent exists — those belong to the callers.
//
// Ownership: a MailboxList owns its Database; a Transaction borrows the MailboxList, which
// must outlive it, and aborts in its destructor unless committed. Thread-safety: as
// db::Database: a MailboxList may be shared by threads (reads and begin() concurrently, each
// read a consistent snapshot; writers queue on the db's write lock, across processes too); a
// Transaction belongs to one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "db/db.h"
#include "lib/base/result.h"
#include "mailbox/mailbox_name.h"

namespace darius::config {
class Config;
}

namespace darius::mailbox {

struct MailboxEntry {
  // Type flags (a bit set; unknown bits on disk are kCorruption in format 1.0).
  static constexpr uint32_t kDeleted = 1u << 0;   // tombstone: deleted, kept for its id
  static constexpr uint32_t kNoSelect = 1u << 1;  // \Noselect container (deleted with children)
  static constexpr uint32_t kKnownFlags = kDeleted | kNoSelect;

  std::string unique_id;    // 1–128 bytes of [0-9A-Za-z_-], chosen by the caller; never changes
  std::string partition;    // 1–64 bytes of [0-9A-Za-z_-]
  std::string acl;          // Cyrus form "id\trights\t..." (UTF-8, no control but TAB); stored only
  std::string quota_root;   // may be empty (UTF-8, no controls, at most 4000 bytes)
  uint32_t uidvalidity = 0;
  uint64_t created_modseq = 0;
  std::string special_use;  // RFC 6154 attributes, e.g. "\Sent" (printable ASCII, may be empty)
  uint32_t flags = 0;

  bool operator==(const MailboxEntry&) const = default;
};

// The value encoding (format 1.0) and its inverse; decode names `key_for_errors` in its
// kCorruption messages. validateEntry() is the field check both apply.
base::Status validateEntry(const MailboxEntry& entry);
base::Result<std::string> encodeMailboxEntry(const MailboxEntry& entry);
base::Result<MailboxEntry> decodeMailboxEntry(std::string_view value,
                                              std::string_view key_for_errors);

// Return false to stop a listing early.
using MailboxListFn = std::function<bool(const MailboxName& name, const MailboxEntry& entry)>;

// A record forEach() could not decode (for reconstruct, which removes or rebuilds it).
struct DamagedRecord {
  std::string key;
  base::Status status;
};

struct RenamedMailbox {
  MailboxName from;
  MailboxName to;
  MailboxEntry entry;
};

struct MailboxListOptions {
  size_t max_name_length = kMaxMailboxNameLength;  // names inserted or renamed to
};

class MailboxList {
 public:
  class Transaction;

  // <data_dir>/mailboxes.db with the mailboxes_db_backend backend; max_mailbox_name applies.
  static base::Result<std::unique_ptr<MailboxList>> open(const config::Config& config,
                                                         const db::OpenOptions& db_options = {});
  static base::Result<std::unique_ptr<MailboxList>> open(const std::string& path,
                                                         db::Backend backend,
                                                         const db::OpenOptions& db_options = {},
                                                         MailboxListOptions options = {});
  // Over an already open database. Checks the format record, writing it into an empty
  // writable database; kNotSupported for a list written by a newer format, kCorruption for
  // records without a format record.
  static base::Result<std::unique_ptr<MailboxList>> attach(std::unique_ptr<db::Database> db,
                                                           MailboxListOptions options = {});

  db::Database& database() { return *db_; }
  const MailboxListOptions& options() const { return options_; }

  // Reads: each a consistent snapshot of the committed list.
  base::Result<MailboxEntry> lookup(const MailboxName& name);  // kNotFound
  // `root` (if listed) and everything below it, in key order.
  base::Status listSubtree(const MailboxName& root, const MailboxListFn& fn);
  // The mailboxes one level below `parent` (whether or not `parent` itself is listed).
  base::Status listChildren(const MailboxName& parent, const MailboxListFn& fn);
  // Every mailbox of one domain ("" = the default domain), in key order.
  base::Status forEachInDomain(std::string_view domain, const MailboxListFn& fn);
  // Every mailbox. With `damaged` null a damaged record stops the scan with kCorruption;
  // otherwise it is skipped and appended to *damaged.
  base::Status forEach(const MailboxListFn& fn, std::vector<DamagedRecord>* damaged = nullptr);

  // Writes, each one committed transaction (see Transaction for the semantics).
  base::Status insert(const MailboxName& name, const MailboxEntry& entry);
  base::Status update(const MailboxName& name, const MailboxEntry& entry);
  base::Status remove(const MailboxName& name);
  base::Result<std::vector<RenamedMailbox>> renameSubtree(const MailboxName& from,
                                                          const MailboxName& to);

  // Several changes in one transaction; waits for the database's write lock.
  base::Result<std::unique_ptr<Transaction>> begin();

 private:
  MailboxList(std::unique_ptr<db::Database> db, MailboxListOptions options)
      : db_(std::move(db)), options_(options) {}

  std::unique_ptr<db::Database> db_;
  MailboxListOptions options_;
};

class MailboxList::Transaction {
 public:
  ~Transaction() = default;  // the db::Txn aborts unless committed
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  // Reads see this transaction's own writes.
  base::Result<MailboxEntry> lookup(const MailboxName& name);
  base::Status listSubtree(const MailboxName& root, const MailboxListFn& fn);
  base::Status listChildren(const MailboxName& parent, const MailboxListFn& fn);

  base::Status insert(const MailboxName& name, const MailboxEntry& entry);  // kExists
  base::Status update(const MailboxName& name, const MailboxEntry& entry);  // kNotFound
  base::Status remove(const MailboxName& name);                             // kNotFound
  // Removes a record by its raw key (a DamagedRecord's); kNotFound if absent, kInvalid for
  // the format record.
  base::Status removeKey(std::string_view key);

  // Moves `from` and every mailbox below it to the same place below `to` ("a.b.c" under
  // "a.b" renamed to "x" becomes "x.c"), entries unchanged. kNotFound if nothing is at or
  // below `from`; kInvalid if `to` is `from` or below it; kExists (and no change) if `to` or
  // any target name is taken by a mailbox that is not itself moving; kTooBig if a target name
  // is over max_name_length. Returns the moves in key order of their old names. Directories
  // are the caller's: a mailbox and its sub-folders on one partition move by one rename(2).
  base::Result<std::vector<RenamedMailbox>> renameSubtree(const MailboxName& from,
                                                          const MailboxName& to);

  base::Status commit();
  void abort();

 private:
  friend class MailboxList;
  Transaction(std::unique_ptr<db::Txn> txn, MailboxListOptions options)
      : txn_(std::move(txn)), options_(options) {}

  std::unique_ptr<db::Txn> txn_;
  MailboxListOptions options_;
};

}  // namespace darius::mailbox
