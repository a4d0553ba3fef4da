#include "imapd/selected.h"

#include <algorithm>

namespace darius::imapd {

using base::Result;
using base::Status;
using mailbox::IndexRecord;

Result<std::unique_ptr<SelectedMailbox>> SelectedMailbox::open(mailbox::OpenMailbox opened,
                                                               mailbox::MailboxName name,
                                                               mailbox::Rights rights,
                                                               bool read_only, Recent recent,
                                                               mailbox::SeenDb* seen_db,
                                                               std::string seen_user) {
  std::unique_ptr<SelectedMailbox> s(new SelectedMailbox());
  s->mailbox_ = std::move(opened.mailbox);
  if (seen_db != nullptr && !seen_user.empty()) {
    s->seen_db_ = seen_db;
    s->seen_user_ = std::move(seen_user);
  }
  s->entry_ = std::move(opened.entry);
  s->name_ = std::move(name);
  s->rights_ = rights;
  s->read_only_ = read_only;
  s->recent_mode_ = read_only && recent == Recent::kClaim ? Recent::kPeek : recent;
  DARIUS_RETURN_IF_ERROR(s->mailbox_->refresh());
  const mailbox::Mailbox& m = *s->mailbox_;
  s->uids_.reserve(m.index().num_records - m.index().num_expunged);
  for (size_t i = 0; i < m.recordCount(); ++i) {
    DARIUS_ASSIGN_OR_RETURN(IndexRecord r, m.record(i));
    if (r.live()) s->uids_.push_back(r.uid);
  }
  // What this view saw, taken before the claim below: as a write, it may settle a crashed
  // append and so show records the view does not hold; the next refresh() must see a change.
  const mailbox::IndexHeader h = m.index();
  s->opened_ = h;
  s->seen_generation_ = h.generation;
  s->seen_records_ = h.num_records;
  s->seen_modseq_ = h.highest_modseq;
  s->reported_modseq_ = s->seen_modseq_;
  s->announced_flags_ = m.header().user_flags.size();
  DARIUS_RETURN_IF_ERROR(s->loadSeen());  // as of `h` or later (docs/formats/seen.md)
  DARIUS_ASSIGN_OR_RETURN(uint32_t above, s->recentFloor(h.uidnext - 1, h.recent_uid));
  for (uint32_t uid : s->uids_) {
    if (uid > above && uid < h.uidnext) s->recent_.insert(uid);
  }
  s->exists_sent_ = s->count();
  s->recent_sent_ = s->recentCount();
  return s;
}

Result<uint32_t> SelectedMailbox::recentFloor(uint32_t up_to, uint32_t peeked) {
  switch (recent_mode_) {
    case Recent::kNone:
      return UINT32_MAX;
    case Recent::kPeek:
      return peeked;
    case Recent::kClaim:
      return mailbox_->claimRecent(up_to);
  }
  return UINT32_MAX;
}

uint32_t SelectedMailbox::msnOf(uint32_t uid) const {
  auto it = std::lower_bound(uids_.begin(), uids_.end(), uid);
  if (it == uids_.end() || *it != uid) return 0;
  return static_cast<uint32_t>(it - uids_.begin()) + 1;
}

std::vector<uint32_t> SelectedMailbox::resolve(const proto::SequenceSet& set, bool by_uid) const {
  std::vector<uint32_t> out;
  if (uids_.empty()) return out;
  if (!by_uid) {
    for (const proto::SeqRange& r : set.resolve(count())) {
      for (uint32_t msn = r.first; msn <= std::min(r.last, count()); ++msn) {
        out.push_back(uids_[msn - 1]);
        if (msn == UINT32_MAX) break;
      }
    }
    return out;
  }
  for (const proto::SeqRange& r : set.resolve(uids_.back())) {
    auto lo = std::lower_bound(uids_.begin(), uids_.end(), r.first);
    auto hi = std::upper_bound(lo, uids_.end(), r.last);
    out.insert(out.end(), lo, hi);
  }
  return out;
}

Result<std::optional<IndexRecord>> SelectedMailbox::record(uint32_t uid) const {
  DARIUS_ASSIGN_OR_RETURN(int64_t pos, mailbox_->findUid(uid));
  if (pos < 0) return std::optional<IndexRecord>();
  DARIUS_ASSIGN_OR_RETURN(IndexRecord r, mailbox_->record(static_cast<size_t>(pos)));
  applyView(r);
  return std::optional<IndexRecord>(r);
}

std::string SelectedMailbox::flagNames() const {
  std::string out = "\\Answered \\Flagged \\Deleted \\Seen \\Draft";
  for (const std::string& k : mailbox_->header().user_flags) out += " " + k;
  return out;
}

std::string SelectedMailbox::flagsOf(const IndexRecord& r, bool with_recent) const {
  std::string out;
  auto add = [&](std::string_view f) {
    if (!out.empty()) out += ' ';
    out += f;
  };
  if (r.system_flags & mailbox::kFlagAnswered) add("\\Answered");
  if (r.system_flags & mailbox::kFlagFlagged) add("\\Flagged");
  if (r.system_flags & mailbox::kFlagDeleted) add("\\Deleted");
  if (r.system_flags & mailbox::kFlagSeen) add("\\Seen");
  if (r.system_flags & mailbox::kFlagDraft) add("\\Draft");
  const auto& names = mailbox_->header().user_flags;
  for (size_t i = 0; i < names.size(); ++i) {
    if (r.hasUserFlag(static_cast<int>(i))) add(names[i]);
  }
  if (with_recent && isRecent(r.uid)) add("\\Recent");
  return out;
}

std::string SelectedMailbox::permanentFlags() const {
  std::string perm;
  auto add = [&](std::string_view f) {
    if (!perm.empty()) perm += ' ';
    perm += f;
  };
  if (has(mailbox::right::kWrite)) {
    add("\\Answered \\Flagged \\Draft");
    for (const std::string& k : mailbox_->header().user_flags) add(k);
  }
  if (has(mailbox::right::kDeleteMessage)) add("\\Deleted");
  if (has(mailbox::right::kSeen)) add("\\Seen");
  if (has(mailbox::right::kWrite)) add("\\*");
  return perm;
}

void SelectedMailbox::announceFlags(std::string& out) {
  const size_t names = mailbox_->header().user_flags.size();
  if (names == announced_flags_) return;
  announced_flags_ = names;
  out += "* FLAGS (" + flagNames() + ")\r\n";
  // A read-only session keeps the empty PERMANENTFLAGS its SELECT/EXAMINE sent.
  if (!read_only_) out += "* OK [PERMANENTFLAGS (" + permanentFlags() + ")] Flags permitted\r\n";
}

Status SelectedMailbox::refresh() {
  DARIUS_RETURN_IF_ERROR(mailbox_->refresh());
  const mailbox::IndexHeader& h = mailbox_->index();
  if (h.generation == seen_generation_ && h.num_records == seen_records_ &&
      h.highest_modseq == seen_modseq_) {
    return Status::ok();
  }
  // The user's \Seen changes take modseqs of this index, so a state read after this header
  // holds every one up to its HIGHESTMODSEQ.
  DARIUS_RETURN_IF_ERROR(loadSeen());
  // One append since the last pass (the common case: a delivery, or this session's own
  // APPEND): every write takes exactly one new modseq, so if the only new one is carried by
  // the new records, no older record changed, and only the new ones need merging. A full
  // pass costs O(mailbox) per delivery.
  if (h.generation == seen_generation_ && h.num_records > seen_records_ &&
      h.highest_modseq == seen_modseq_ + 1) {
    bool only_appended = true;
    std::vector<IndexRecord> added;
    for (size_t i = seen_records_; i < h.num_records && only_appended; ++i) {
      DARIUS_ASSIGN_OR_RETURN(IndexRecord r, mailbox_->record(i));
      only_appended = r.modseq == h.highest_modseq;
      added.push_back(r);
    }
    if (only_appended) return mergeAppended(added);
  }
  return rescan();
}

Status SelectedMailbox::mergeAppended(const std::vector<IndexRecord>& added) {
  uint32_t last_known = fresh_.empty() ? (uids_.empty() ? 0 : uids_.back()) : fresh_.back();
  std::vector<uint32_t> fresh;
  for (const IndexRecord& r : added) {
    if (r.uid > last_known && r.live()) fresh.push_back(r.uid);
  }
  return endPass(fresh);
}

// One merge pass of the index (ascending UIDs) against the view (ascending UIDs).
Status SelectedMailbox::rescan() {
  const mailbox::Mailbox& m = *mailbox_;
  uint32_t last_known = fresh_.empty() ? (uids_.empty() ? 0 : uids_.back()) : fresh_.back();
  size_t j = 0;
  std::vector<uint32_t> fresh;
  for (size_t i = 0; i < m.recordCount(); ++i) {
    DARIUS_ASSIGN_OR_RETURN(IndexRecord r, m.record(i));
    applyView(r);
    while (j < uids_.size() && uids_[j] < r.uid) gone_.insert(uids_[j++]);  // left the index
    if (j < uids_.size() && uids_[j] == r.uid) {
      ++j;
      if (!r.live()) {
        gone_.insert(r.uid);
      } else if (r.modseq > seen_modseq_) {
        touched_.push_back(r.uid);
        auto own = reported_.find(r.uid);
        if (own == reported_.end() || own->second != r.modseq) changed_.push_back(r.uid);
      }
    } else if (r.uid > last_known && r.live()) {
      fresh.push_back(r.uid);
    }
  }
  while (j < uids_.size()) gone_.insert(uids_[j++]);
  // New messages that were already expunged again before we reported them stay unknown, and
  // so are not counted in RECENT either.
  fresh_.erase(std::remove_if(fresh_.begin(), fresh_.end(),
                              [&](uint32_t uid) {
                                auto pos = m.findUid(uid);
                                bool gone = !pos.ok() || *pos < 0;
                                if (!gone) {
                                  auto r = m.record(static_cast<size_t>(*pos));
                                  gone = !r.ok() || !r->live();
                                }
                                if (gone) recent_.erase(uid);
                                return gone;
                              }),
               fresh_.end());
  return endPass(fresh);
}

Status SelectedMailbox::endPass(const std::vector<uint32_t>& fresh) {
  // What this pass saw, taken before claimRecent(): as a write, it may settle a crashed
  // append (mailbox_tail.cc) and so show records this pass did not merge; the next refresh()
  // must see a change and merge them.
  const mailbox::IndexHeader h = mailbox_->index();
  seen_generation_ = h.generation;
  seen_records_ = h.num_records;
  seen_modseq_ = h.highest_modseq;
  if (!fresh.empty()) {
    // Claimed up to the last UID this pass saw, and no further: a message delivered after
    // the pass is left for whichever session sees it first (RFC 3501 §2.3.2: exactly one).
    DARIUS_ASSIGN_OR_RETURN(uint32_t above, recentFloor(fresh.back(), h.recent_uid));
    for (uint32_t uid : fresh) {
      if (uid > above) recent_.insert(uid);
    }
  }
  fresh_.insert(fresh_.end(), fresh.begin(), fresh.end());
  reported_.clear();
  return Status::ok();
}

std::vector<uint32_t> SelectedMailbox::pendingChecks() const {
  std::vector<uint32_t> out = touched_;
  out.insert(out.end(), fresh_.begin(), fresh_.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  out.erase(std::remove_if(out.begin(), out.end(), [&](uint32_t uid) { return gone_.count(uid) != 0; }),
            out.end());
  return out;
}

Status SelectedMailbox::writeUpdates(bool allow_expunge, const UpdateStyle& style,
                                     std::string& out, const UpdateHooks* hooks) {
  announceFlags(out);
  if (allow_expunge && !gone_.empty()) {
    if (hooks != nullptr && hooks->before_expunges) hooks->before_expunges(gone_, out);
    if (style.qresync) {
      auto set = proto::SequenceSet::fromNumbers({gone_.begin(), gone_.end()});
      if (set.ok()) out += "* VANISHED " + set->format() + "\r\n";
    } else {
      // Highest first, so each number is still the one the client has.
      for (auto it = gone_.rbegin(); it != gone_.rend(); ++it) {
        uint32_t msn = msnOf(*it);
        if (msn != 0) out += "* " + std::to_string(msn) + " EXPUNGE\r\n";
      }
    }
    std::vector<uint32_t> kept;
    kept.reserve(uids_.size());
    for (uint32_t uid : uids_) {
      if (!gone_.count(uid)) kept.push_back(uid);
    }
    exists_sent_ -= static_cast<uint32_t>(uids_.size() - kept.size());
    uids_ = std::move(kept);
    for (uint32_t uid : gone_) recent_.erase(uid);
    gone_.clear();
  }
  if (!fresh_.empty()) {
    uids_.insert(uids_.end(), fresh_.begin(), fresh_.end());
    fresh_.clear();
  }
  if (count() != exists_sent_) {
    out += "* " + std::to_string(count()) + " EXISTS\r\n";
    exists_sent_ = count();
  }
  if (style.rev1 && recentCount() != recent_sent_) {
    out += "* " + std::to_string(recentCount()) + " RECENT\r\n";
    recent_sent_ = recentCount();
  }
  std::sort(changed_.begin(), changed_.end());
  changed_.erase(std::unique(changed_.begin(), changed_.end()), changed_.end());
  for (uint32_t uid : changed_) {
    uint32_t msn = msnOf(uid);
    if (msn == 0 || gone_.count(uid)) continue;
    DARIUS_ASSIGN_OR_RETURN(auto r, record(uid));
    if (!r || !r->live()) continue;
    out += "* " + std::to_string(msn) + " FETCH (UID " + std::to_string(uid) + " FLAGS (" +
           flagsOf(*r, style.rev1) + ")";
    if (style.condstore) out += " MODSEQ (" + std::to_string(r->modseq) + ")";
    out += ")\r\n";
  }
  changed_.clear();
  touched_.clear();
  if (hooks != nullptr && hooks->after_updates) hooks->after_updates(out);
  if (gone_.empty()) reported_modseq_ = seen_modseq_;
  return Status::ok();
}

}  // namespace darius::imapd
