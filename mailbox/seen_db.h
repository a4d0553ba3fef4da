// SeenDb: per-user \Seen on mailboxes the user does not own (issue 17; Cyrus's seen.db), in
// `<data_dir>/seen.db` on any db/ backend (`seen_db_backend`). The owner of a personal
// mailbox keeps \Seen in the index; everyone else (every user, on a shared mailbox) has a
// SeenState (seen_state.h) here, so Alice reading Bob's folder never marks it read for Bob.
//
// Key: <user id> 00 <mailbox unique id>. The unique id never changes (not even by RENAME),
// so the state follows the mailbox, and a user's states are one prefix range (removeUser).
// Value: SeenState::encode(). Format record "\x01format" = "darius-seen 1".
// docs/formats/seen.md has the format, the modseq design and the crash-safety argument.
//
// Modseqs: a change takes the mailbox's next modseq through Mailbox::updatePrivate(), which
// makes it durable in the index header before the state that uses it is committed, all under
// the mailbox's exclusive lock. So HIGHESTMODSEQ stays the one counter every user's view is
// measured against, a session that sees the new HIGHESTMODSEQ (refresh() takes the lock
// shared) finds the committed state, and index records never change for other users.
//
// Ownership: owns its Database; update() borrows the Mailbox for the call. Thread-safety: as
// db::Database (share freely); update() serialises on the mailbox lock, then the db's.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "db/db.h"
#include "lib/base/result.h"
#include "mailbox/mailbox.h"
#include "mailbox/seen_state.h"

namespace darius::mailbox {

inline constexpr std::string_view kSeenDbName = "seen.db";

struct SeenUpdateOptions {
  // RFC 7162 §3.1.3 UNCHANGEDSINCE (0: unconditional): a message whose modseq in the user's
  // view is above it is left alone and reported kModified.
  uint64_t unchanged_since = 0;
  // False: the caller's own index STORE of this command already checked (and perhaps moved)
  // the record's modseq, so only the user's \Seen modseq is compared.
  bool check_record_modseq = true;
  int64_t now = 0;  // seconds, stored as the state's last change
};

struct SeenUpdate {
  uint64_t modseq = 0;  // the change's modseq; 0 when nothing changed
  // One per requested UID, in order; `record` as the user sees it after the change (kGone:
  // not in the index, or expunged).
  std::vector<FlagResult> results;
  SeenState state;  // the user's whole state after the change
};

// The key of a state: <user id> 00 <mailbox unique id>.
std::string seenKey(std::string_view user, std::string_view mailbox_id);

class SeenDb {
 public:
  static base::Result<std::unique_ptr<SeenDb>> open(const std::string& path, db::Backend backend,
                                                    const db::OpenOptions& options = {},
                                                    SeenLimits limits = {});

  const SeenLimits& limits() const { return limits_; }
  db::Database& database() { return *db_; }

  // The state of `user` in the mailbox with unique id `mailbox_id`; empty when there is none.
  // kCorruption (naming the key) for a value that does not decode.
  base::Result<SeenState> get(std::string_view user, std::string_view mailbox_id);

  // Sets \Seen of `uids` (ascending) to `seen` for `user` in `mailbox`, as one change with one
  // new modseq (none if nothing changes). Durable when it returns. kTooBig when the state
  // would pass seen_max_size.
  base::Result<SeenUpdate> update(Mailbox& mailbox, std::string_view user,
                                  std::span<const uint32_t> uids, bool seen,
                                  const SeenUpdateOptions& options = {});

  // Removes every state of `user` (their account is gone: a new account of the same name
  // must not inherit what they had read).
  base::Status removeUser(std::string_view user);

 private:
  SeenDb(std::unique_ptr<db::Database> db, SeenLimits limits)
      : db_(std::move(db)), limits_(limits) {}
  std::unique_ptr<db::Database> db_;
  const SeenLimits limits_;
};

}  // namespace darius::mailbox
