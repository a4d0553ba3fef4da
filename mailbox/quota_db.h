// QuotaDb: the quota roots that an administrator named and their limits, `quotas.db` in
// data_dir on the mailbox list's backend (docs/formats/quota.md). Key: the root's printable
// internal name (MailboxName::toString(), "user/alice", "example.com!user/bob/Archive",
// "shared/news"); value: its limits (quota_format.h). Limits are admin data, so every change
// is one committed db transaction; usage lives elsewhere (quota_usage.h).
//
// Which root covers a mailbox is derived, never stored: the deepest name with a record at or
// above the mailbox, else — for a user's mailbox — the user's INBOX, every user's implicit
// root (no record needed, no limits until one is set). A SETQUOTA or a rename therefore
// changes coverage by changing records only, atomically. (MailboxEntry::quota_root is a copy
// made at creation for tools and reconstruct; nothing here reads it.)
//
// Ownership: owns its Database. Thread-safety: as db::Database: share freely; every read is a
// consistent snapshot, every write one transaction (writers queue on the db's lock, across
// processes too).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "db/db.h"
#include "lib/base/result.h"
#include "mailbox/mailbox_name.h"
#include "mailbox/quota_format.h"

namespace darius::mailbox {

inline constexpr std::string_view kQuotaDbName = "quotas.db";

// Return false to stop a scan early.
using QuotaRootFn = std::function<bool(const MailboxName& root, const QuotaLimits& limits)>;

class QuotaDb {
 public:
  // Checks (or, in an empty writable db, writes) the format record "\xff" "format" =
  // "darius-quota 1": kNotSupported for a newer format, kCorruption for a db with records and
  // none.
  static base::Result<std::unique_ptr<QuotaDb>> open(const std::string& path,
                                                     db::Backend backend,
                                                     const db::OpenOptions& options = {});

  db::Database& database() { return *db_; }

  // nullopt when `root` has no record (an implicit user root, or no root at all).
  base::Result<std::optional<QuotaLimits>> get(const MailboxName& root);
  base::Status put(const MailboxName& root, const QuotaLimits& limits);
  base::Status remove(const MailboxName& root);  // OK when absent
  // Records at `root` and below it (strictly below with `strict`), in key order.
  base::Status scanSubtree(const MailboxName& root, bool strict, const QuotaRootFn& fn);
  // Records whose printable name starts with `prefix` ("" for all), in key order.
  base::Status scanPrefix(std::string_view prefix, const QuotaRootFn& fn);
  // The records at and below `from` move to the same places below `to`, in one transaction
  // (a rename takes its roots along, as Cyrus renames a user's root). Repeatable: nothing is
  // left at `from` afterwards, so a second run does nothing.
  base::Status renameSubtree(const MailboxName& from, const MailboxName& to);

  // The root that covers `name` (see above); nullopt for a shared mailbox with no root above.
  base::Result<std::optional<MailboxName>> coveringRoot(const MailboxName& name);

 private:
  explicit QuotaDb(std::unique_ptr<db::Database> db) : db_(std::move(db)) {}
  std::unique_ptr<db::Database> db_;
};

}  // namespace darius::mailbox
