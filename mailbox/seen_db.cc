#include "mailbox/seen_db.h"

#include <algorithm>

namespace darius::mailbox {

using base::Result;
using base::Status;

namespace {

constexpr std::string_view kSeenFormatKey =
    "\x01"
    "format";
constexpr std::string_view kSeenFormatValue = "darius-seen 1";

Status checkSeenUser(std::string_view user) {
  if (user.empty() || user.find('\0') != std::string_view::npos || user[0] == '\x01') {
    return Status::invalid("seen state: bad user id");
  }
  return Status::ok();
}

Status checkMailboxId(std::string_view id) {
  if (id.empty() || id.find('\0') != std::string_view::npos) {
    return Status::invalid("seen state: bad mailbox id");
  }
  return Status::ok();
}

std::string seenUserPrefix(std::string_view user) {
  std::string k(user);
  k += '\0';
  return k;
}

Result<SeenState> decodeAt(std::string_view user, std::string_view mailbox_id,
                           std::string_view value, const SeenLimits& limits) {
  auto s = SeenState::decode(value, limits);
  if (!s.ok()) {
    return Status(s.status().code(), "seen.db record of " + std::string(user) + " for mailbox " +
                                         std::string(mailbox_id) + ": " + s.status().message());
  }
  return s;
}

}  // namespace

std::string seenKey(std::string_view user, std::string_view mailbox_id) {
  return seenUserPrefix(user) + std::string(mailbox_id);
}

Result<std::unique_ptr<SeenDb>> SeenDb::open(const std::string& path, db::Backend backend,
                                             const db::OpenOptions& options, SeenLimits limits) {
  DARIUS_ASSIGN_OR_RETURN(auto db, db::Database::open(path, backend, options));
  auto format = db->get(kSeenFormatKey);
  if (format.ok()) {
    if (*format != kSeenFormatValue) {
      if (format->starts_with("darius-seen ")) {
        return Status::notSupported(path + ": seen format '" + *format + "' is newer");
      }
      return Status::corruption(path + ": not a seen database ('" + *format + "')");
    }
  } else if (format.status().isNotFound() && !options.read_only) {
    // Checked again inside the transaction: two processes opening at once agree.
    DARIUS_ASSIGN_OR_RETURN(auto txn, db->begin());
    auto again = txn->get(kSeenFormatKey);
    if (again.status().isNotFound()) {
      DARIUS_RETURN_IF_ERROR(txn->put(kSeenFormatKey, kSeenFormatValue));
      DARIUS_RETURN_IF_ERROR(txn->commit());
    } else if (!again.ok()) {
      return again.status();
    }
  } else if (!format.status().isNotFound()) {
    return format.status();
  }
  return std::unique_ptr<SeenDb>(new SeenDb(std::move(db), limits));
}

Result<SeenState> SeenDb::get(std::string_view user, std::string_view mailbox_id) {
  DARIUS_RETURN_IF_ERROR(checkSeenUser(user));
  DARIUS_RETURN_IF_ERROR(checkMailboxId(mailbox_id));
  auto v = db_->get(seenKey(user, mailbox_id));
  if (v.status().isNotFound()) return SeenState();
  if (!v.ok()) return v.status();
  return decodeAt(user, mailbox_id, *v, limits_);
}

Result<SeenUpdate> SeenDb::update(Mailbox& mailbox, std::string_view user,
                                  std::span<const uint32_t> uids, bool seen,
                                  const SeenUpdateOptions& options) {
  DARIUS_RETURN_IF_ERROR(checkSeenUser(user));
  SeenUpdate out;
  // The records as read under the lock (before the view is applied), by request.
  std::vector<IndexRecord> raw(uids.size());
  auto used = mailbox.updatePrivate(
      [&](uint64_t modseq,
          const std::function<Status()>& reserve) -> Result<std::vector<uint32_t>> {
        const std::string& mailbox_id = mailbox.header().unique_id;
        DARIUS_RETURN_IF_ERROR(checkMailboxId(mailbox_id));
        const std::string key = seenKey(user, mailbox_id);
        // Read inside the write transaction: under the mailbox lock and the db's, nobody
        // else changes this state until we commit.
        DARIUS_ASSIGN_OR_RETURN(auto txn, db_->begin());
        SeenState state;
        auto v = txn->get(key);
        if (v.ok()) {
          DARIUS_ASSIGN_OR_RETURN(state, decodeAt(user, mailbox_id, *v, limits_));
        } else if (!v.status().isNotFound()) {
          return v.status();
        }
        out.results.assign(uids.size(), FlagResult{});
        std::vector<uint32_t> candidates;
        for (size_t i = 0; i < uids.size(); ++i) {
          FlagResult& res = out.results[i];
          res.uid = uids[i];
          DARIUS_ASSIGN_OR_RETURN(int64_t pos, mailbox.findUid(uids[i]));
          if (pos < 0) continue;  // kGone
          DARIUS_ASSIGN_OR_RETURN(raw[i], mailbox.record(static_cast<size_t>(pos)));
          res.record = raw[i];
          state.apply(res.record);
          if (!raw[i].live()) continue;
          const uint64_t since = options.unchanged_since;
          if (since != 0 && ((options.check_record_modseq && raw[i].modseq > since) ||
                             state.modseqOf(uids[i]) > since)) {
            res.outcome = FlagResult::Outcome::kModified;
            continue;
          }
          res.outcome = FlagResult::Outcome::kUnchanged;
          candidates.push_back(uids[i]);
        }
        std::sort(candidates.begin(), candidates.end());
        std::vector<uint32_t> changed = state.setSeen(candidates, seen);
        if (changed.empty()) {
          out.state = std::move(state);
          return changed;  // the transaction aborts; no modseq is used
        }
        state.noteChange(changed, modseq, limits_.max_modseq_runs);
        state.setLastChange(options.now);
        std::string value = state.encode();
        if (value.size() > limits_.max_value_bytes) {
          return Status::tooBig("the seen state of this mailbox would pass seen_max_size (" +
                                std::to_string(limits_.max_value_bytes) + " bytes)");
        }
        DARIUS_RETURN_IF_ERROR(txn->put(key, value));
        // The modseq is durable in the index header before any state that uses it: a crash
        // between the two leaves a HIGHESTMODSEQ with no change behind it, never a user's
        // modseq above the mailbox's (docs/formats/seen.md, "Crash safety").
        DARIUS_RETURN_IF_ERROR(reserve());
        DARIUS_RETURN_IF_ERROR(txn->commit());
        for (size_t i = 0; i < uids.size(); ++i) {
          FlagResult& res = out.results[i];
          if (res.outcome != FlagResult::Outcome::kUnchanged) continue;
          if (std::binary_search(changed.begin(), changed.end(), res.uid)) {
            res.outcome = FlagResult::Outcome::kChanged;
          }
          res.record = raw[i];
          state.apply(res.record);
        }
        out.modseq = modseq;
        out.state = std::move(state);
        return changed;
      });
  if (!used.ok()) return used.status();
  return out;
}

Status SeenDb::removeUser(std::string_view user) {
  DARIUS_RETURN_IF_ERROR(checkSeenUser(user));
  DARIUS_ASSIGN_OR_RETURN(auto txn, db_->begin());
  std::vector<std::string> keys;
  DARIUS_RETURN_IF_ERROR(txn->scan(db::Range::prefix(seenUserPrefix(user)),
                                   [&](std::string_view key, std::string_view) {
                                     keys.emplace_back(key);
                                     return true;
                                   }));
  if (keys.empty()) return Status::ok();
  for (const std::string& k : keys) DARIUS_RETURN_IF_ERROR(txn->remove(k));
  return txn->commit();
}

}  // namespace darius::mailbox
