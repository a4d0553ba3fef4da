// ExpirePolicyDb: per-owner overrides of the expire policy (mailbox/expire.h), the file
// `expire_policies.db` in data_dir on the mailbox list's backend
// (docs/formats/expire_policy.md). Key: the owner's printable name — a user's INBOX
// ("user/alice", "example.com!user/bob") or a shared mailbox ("shared/news"), the same names
// Store::expire takes as a scope and quotas.db uses; value: the versioned text record below
// (encodeExpireOverrides). Overrides are admin data, so every change is one committed db
// transaction: a crash leaves either the old record or the new one, never a mix.
//
// An owner without a record, or a record without a value, uses the global default
// (expunge_* / deleted_* in the config) for what is not set.
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
#include "mailbox/expire.h"
#include "mailbox/mailbox_name.h"

namespace darius::mailbox {

inline constexpr std::string_view kExpirePolicyDbName = "expire_policies.db";

// Which of an owner's two policies.
enum class ExpireArea { kExpunged, kDeleted };

// Who holds what a mailbox expunges or deletes, for the policy: a personal mailbox's user
// (named by their INBOX), or a shared mailbox itself (each on its own).
MailboxName expireOwnerOf(const MailboxName& mailbox);

// The record, version 1 (docs/formats/expire_policy.md): "1", then " name=value" for each set
// value in a fixed order. kCorruption naming `key` for a damaged record, kNotSupported for a
// newer version.
std::string encodeExpireOverrides(const ExpireOverrides& overrides);
base::Result<ExpireOverrides> decodeExpireOverrides(std::string_view value, std::string_view key);

// The record's field names ("expunge_vol_min", ... "deleted_timeout"), which are also the
// config options they override, in the record's order. For the codec, the CLI and JSON.
struct ExpireOverrideField {
  std::string_view name;
  ExpireArea area;
  bool is_timeout;  // seconds; else bytes
};
inline constexpr ExpireOverrideField kExpireOverrideFields[] = {
    {"expunge_vol_min", ExpireArea::kExpunged, false},
    {"expunge_vol_max", ExpireArea::kExpunged, false},
    {"expunge_vol_overflow", ExpireArea::kExpunged, false},
    {"expunge_timeout", ExpireArea::kExpunged, true},
    {"deleted_vol_min", ExpireArea::kDeleted, false},
    {"deleted_vol_max", ExpireArea::kDeleted, false},
    {"deleted_vol_overflow", ExpireArea::kDeleted, false},
    {"deleted_timeout", ExpireArea::kDeleted, true},
};
// The field of `o` named by kExpireOverrideFields[i] (sizes as uint64_t, timeouts as int64_t
// seconds, which the caller tells apart by is_timeout).
std::optional<uint64_t>* overrideSize(ExpireOverrides& o, size_t i);      // null for timeouts
std::optional<int64_t>* overrideTimeout(ExpireOverrides& o, size_t i);   // null for sizes

// Return false to stop a scan early.
using ExpireOverridesFn =
    std::function<bool(const MailboxName& owner, const ExpireOverrides& overrides)>;

class ExpirePolicyDb {
 public:
  // Checks (or, in an empty writable db, writes) the format record "\xff" "format" =
  // "darius-expire-policy 1": kNotSupported for a newer format, kCorruption for a db with
  // records and none.
  static base::Result<std::unique_ptr<ExpirePolicyDb>> open(const std::string& path,
                                                            db::Backend backend,
                                                            const db::OpenOptions& options = {});

  db::Database& database() { return *db_; }

  // nullopt when `owner` has no record. `owner` should be expireOwnerOf() of some mailbox.
  base::Result<std::optional<ExpireOverrides>> get(const MailboxName& owner);
  // Replaces the owner's record; an empty `overrides` removes it.
  base::Status set(const MailboxName& owner, const ExpireOverrides& overrides);
  // Reads the record (empty when none), lets `change` edit it and writes the result, all in
  // one transaction (two admins changing different values of one owner both win). Returns the
  // record as written.
  base::Result<ExpireOverrides> update(const MailboxName& owner,
                                       const std::function<void(ExpireOverrides&)>& change);
  base::Status clear(const MailboxName& owner);  // OK when absent
  // Every record, in key order.
  base::Status list(const ExpireOverridesFn& fn);

  // The global default for `area` overlaid by the owner's override.
  base::Result<ExpirePolicy> effective(const MailboxName& owner, ExpireArea area,
                                       const ExpirePolicy& global);

 private:
  explicit ExpirePolicyDb(std::unique_ptr<db::Database> db) : db_(std::move(db)) {}
  std::unique_ptr<db::Database> db_;
};

}  // namespace darius::mailbox
