// Reconstruct of a whole store, or of one part of it (issue 4; Cyrus's `reconstruct`): what
// `darius reconstruct` runs. Two passes:
//
// 1. The mailbox list against the partitions, under the namespace lock. Every partition's
//    user/, shared/ and domain/ trees are walked (the store's own darius.* areas are not), and
//    each directory holding a readable darius.header is a mailbox. Compared with the list:
//    - a mailbox directory that is not listed gets its entry back: unique id, UIDVALIDITY and
//      ACL from the header, the partition it was found on, the owner's INBOX as quota root;
//    - an entry whose directory is missing, or holds another unique id, goes (the report says
//      whether its files are in a partition's darius.deleted/); an entry whose directory has
//      lost its header but not its files keeps the entry and gets the header back from it;
//    - a damaged list record is removed (a header on disk then brings the mailbox back);
//    - a directory with message files `N.` but no header is an orphan: reported, and made a
//      mailbox with a new unique id and UIDVALIDITY only with `adopt_orphans`, as Cyrus does;
//    - the header's copies of the name and the ACL follow the list; UIDVALIDITY follows the
//      header (the index takes it from there).
//    Nothing is guessed: two directories claiming one name or one unique id, an entry on an
//    unknown partition, or a partition that looks unmounted (no user/, shared/ or domain/
//    while the list has entries on it) are reported and left alone.
// 2. Each mailbox directory found: reconstructMailbox() (reconstruct.h), cache filled with
//    lib/mime, without the namespace lock (each mailbox's own lock is enough).
//
// With `dry_run` both passes only report. Otherwise headers are written first and the list
// changes then go in one transaction, so a crash in between leaves headers that the next run
// turns into the same list changes.
//
// Namespace operations interrupted by a crash leave intents (docs/formats/intents.md) that
// only Store::open finishes. A run that finds one after taking the namespace lock changes
// nothing and returns kTemporary: the caller opens the Store again (which finishes them) and
// retries. While the lock is held no create, delete or rename can start, in any process.
//
// Ownership: plain values; the Store is borrowed for the call. Thread-safety: one run at a
// time per Store object; other processes (dariusd) may keep working on the store meanwhile.
// Never call it while holding the namespace lock: it takes it itself.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/result.h"
#include "mailbox/mailbox_name.h"
#include "mailbox/store.h"

namespace darius::mailbox {

// The part of the store a run covers.
struct ReconstructScope {
  std::optional<MailboxName> root;  // none: every mailbox on every partition
  bool recursive = false;           // with a root: its sub-mailboxes too

  bool covers(const MailboxName& name) const;
  bool coversKey(std::string_view list_key) const;  // for list records that do not decode
};

struct StoreFinding {
  std::string mailbox;  // the printable internal name, or "mailbox list key <escaped key>"
  std::string text;     // what is wrong and what was (or, dry run, would be) done
  // True when a run without dry_run repairs it (and, unless dry run, this run did); false
  // when it is left for the operator.
  bool fixable = true;
};

struct StoreReconstructOptions {
  std::string data_dir;  // the Store's: darius.nslock and darius.intents/ are there
  ReconstructScope scope;
  bool dry_run = false;
  bool adopt_orphans = false;
  // Called for each finding as it is made (the report keeps them too), and for progress
  // through the per-mailbox pass. Either may be empty.
  std::function<void(const StoreFinding&)> on_finding;
  std::function<void(size_t done, size_t total)> on_progress;
};

struct StoreReconstructReport {
  std::vector<StoreFinding> findings;
  size_t mailboxes = 0;  // mailbox directories checked by the per-mailbox pass
  size_t repaired = 0;   // mailboxes with at least one fixable finding
  size_t messages = 0;   // live messages in their (rebuilt) indexes
  size_t list_added = 0, list_removed = 0, list_updated = 0, headers_written = 0;

  bool clean() const { return findings.empty(); }
  bool unresolved() const;  // some finding is not fixable
};

// kTemporary when interrupted namespace operations are pending (see above); kNotFound for a
// scope with a root that is neither listed nor on any partition. Problems with single
// mailboxes are findings, not errors.
base::Result<StoreReconstructReport> reconstructStore(Store& store,
                                                      const StoreReconstructOptions& options);

}  // namespace darius::mailbox
