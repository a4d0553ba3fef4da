// MailboxListCache: an in-memory copy of the mailbox list, for the one reader that needs the
// whole list at once: LIST "" "*" (imapd/list/list_walk.cc). Without it that LIST decodes every
// record of mailboxes.db to find the few the user may see, so its cost grows with the store
// (about 1 µs a mailbox: 100 ms for a user who sees 1,000 of 100,000). With it, a LIST reads
// only the mailboxes whose ACL names the user or `anyone`, and the user's own tree.
//
// A MailboxListView is an immutable copy of every record's key, flags, ACL and special-use,
// in key order, packed into one buffer (about 110 bytes a mailbox), with an index from each
// ACL identifier (without its "-") to the mailboxes whose ACL names it. It holds no other
// field: callers that need an entry's partition, id or quota root look the entry up.
//
// Freshness: the cache keeps the view with the db::CommitStamp it was read at and re-reads the
// list when the stamp has moved, so a commit by this process or any other (the darius CLI) is
// seen by the next view() — the same guarantee as reading the db directly. A view is read
// between two equal stamps, so it is one committed state; when commits keep moving the stamp
// during two reads, the caller gets no view (nullptr) and reads the list as before, as it does
// on backends without a stamp (Berkeley DB, flat). Any commit re-reads the whole list (about
// 100 ms at 100,000 mailboxes): right for a list that changes by namespace operations and
// ACL edits, not by mail flow, which never writes it.
//
// Ownership: the cache borrows the MailboxList, which must outlive it; views are shared_ptrs
// that stay valid after the cache moves on. Thread-safety: view() may be called from any
// thread; one thread re-reads at a time while the others wait for its result. A view is
// immutable and may be read by any number of threads.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "db/db.h"
#include "lib/base/result.h"
#include "mailbox/mailbox_list.h"

namespace darius::mailbox {

class MailboxListView {
 public:
  struct Item {
    std::string_view key;  // MailboxName::key()
    uint32_t flags = 0;    // MailboxEntry::flags
    std::string_view acl;
    std::string_view special_use;
  };
  // [begin, end) positions in key order.
  struct Range {
    size_t begin = 0;
    size_t end = 0;
  };

  size_t size() const { return items_.size(); }
  Item at(size_t i) const;
  // The mailbox with key `key` and every one below it (`key` + 00 ...).
  Range subtree(std::string_view key) const;
  // Every mailbox of one domain ("" = the default domain).
  Range domain(std::string_view domain) const;
  // Positions, ascending, of the mailboxes whose ACL has an entry for `identifier` or its
  // negative "-identifier". An ACL that does not parse grants nothing and is in no list.
  std::span<const uint32_t> naming(std::string_view identifier) const;
  // The records the list could not decode (a LIST that covers one fails, as reading the db
  // directly would).
  const std::vector<DamagedRecord>& damaged() const { return damaged_; }

 private:
  friend class MailboxListCache;
  struct Packed {
    size_t key_at;
    size_t acl_at;
    size_t special_use_at;
    uint32_t key_len;
    uint32_t acl_len;
    uint32_t special_use_len;
    uint32_t flags;
  };
  size_t lowerBound(std::string_view key) const;
  void add(std::string_view key, const MailboxEntry& entry);

  std::string text_;
  std::vector<Packed> items_;
  std::unordered_map<std::string, std::vector<uint32_t>> by_identifier_;
  std::vector<DamagedRecord> damaged_;
};

class MailboxListCache {
 public:
  explicit MailboxListCache(MailboxList& list) : list_(list) {}
  MailboxListCache(const MailboxListCache&) = delete;
  MailboxListCache& operator=(const MailboxListCache&) = delete;

  // The list as last committed; nullptr when the backend has no commit stamp or the list would
  // not hold still for a read.
  base::Result<std::shared_ptr<const MailboxListView>> view();

  uint64_t reads() const;  // how many times the list was read whole (for tests and stats)

 private:
  base::Result<std::shared_ptr<const MailboxListView>> readWhole();

  MailboxList& list_;
  std::mutex read_mu_;  // one re-read at a time
  mutable std::mutex mu_;
  std::shared_ptr<const MailboxListView> current_;  // guarded by mu_
  db::CommitStamp stamp_;                           // guarded by mu_: current_'s
  uint64_t reads_ = 0;                              // guarded by mu_
};

}  // namespace darius::mailbox
