// SelectedMailbox: the selected state of one IMAP session (RFC 9051 §3.3, §7.4–7.5): the open
// mailbox, the session's view of it (the UIDs in message sequence number order, which only
// changes when the session tells the client), \Recent for IMAP4rev1 sessions, and the untagged
// updates owed to the client when the mailbox changes under it (EXISTS, EXPUNGE or VANISHED,
// FETCH FLAGS).
//
// The view is the contract with the client: a message sequence number keeps meaning the same
// message until an EXPUNGE (or VANISHED) for it has been sent. Expunges by others are noticed
// at refresh() but kept in the view until writeUpdates() may report them, which it may not
// during FETCH, STORE and SEARCH by sequence number (RFC 9051 §7.5.1); their messages stay
// readable meanwhile, since phase-1 expunge keeps the files.
//
// Cost: a refresh that finds the index unchanged (same generation, record count and highest
// modseq) costs one shared lock and a header read; a changed one is one pass over the index
// records (no message file is opened).
//
// Per-user \Seen (issue 17, mailbox/seen_db.h): a session whose user does not own the
// mailbox sees \Seen from that user's seen state, and each message's modseq as the higher
// of its record's and the user's last \Seen change of it. The view keeps the state as of the
// index header it last read (reloaded whenever that changed: every \Seen change takes a
// modseq of the index, so another session's change is noticed like any flag change), and
// every record the view hands out (record(), the updates) is the user's.
//
// Ownership: owns its Mailbox handle; borrows the SeenDb. Thread-safety: belongs to one
// session (one strand).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "lib/base/result.h"
#include "lib/proto/sequence_set.h"
#include "mailbox/acl.h"
#include "mailbox/mailbox.h"
#include "mailbox/mailbox_list.h"
#include "mailbox/mailbox_name.h"
#include "mailbox/seen_db.h"
#include "mailbox/store.h"

namespace darius::imapd {

// How the session reports changes (set from its enabled extensions).
struct UpdateStyle {
  bool qresync = false;    // VANISHED instead of EXPUNGE (RFC 7162 §3.2.10)
  bool condstore = false;  // MODSEQ in FETCH responses (RFC 7162 §3.1.4)
  bool rev1 = true;        // RECENT responses and \Recent (RFC 3501); not after ENABLE IMAP4rev2
};

// Where others may add to the updates (search contexts, RFC 5267 §4.3): both are called by
// writeUpdates() with the output so far. Either may be empty.
struct UpdateHooks {
  // Right before the expunges of `gone` are reported; the view still holds them, so their
  // sequence numbers are still the client's.
  std::function<void(const std::set<uint32_t>& gone, std::string& out)> before_expunges;
  // After EXISTS and FETCH: the view is the client's.
  std::function<void(std::string& out)> after_updates;
};

class SelectedMailbox {
 public:
  // \Recent (RFC 3501 §2.3.2, IMAP4rev1 only): a SELECT claims the messages no session has
  // been shown as recent yet (each goes to exactly one session); an EXAMINE, or a SELECT
  // that opens read-only, shows them as recent without claiming them (§6.3.2); an IMAP4rev2
  // session has no \Recent at all.
  enum class Recent : uint8_t { kNone, kPeek, kClaim };

  // `seen_user` empty: \Seen is the index's (the owner); else that user's state in
  // `seen_db` (user_seen.h).
  static base::Result<std::unique_ptr<SelectedMailbox>> open(mailbox::OpenMailbox opened,
                                                             mailbox::MailboxName name,
                                                             mailbox::Rights rights,
                                                             bool read_only, Recent recent,
                                                             mailbox::SeenDb* seen_db = nullptr,
                                                             std::string seen_user = {});

  mailbox::Mailbox& mailbox() { return *mailbox_; }
  const mailbox::Mailbox& mailbox() const { return *mailbox_; }
  const mailbox::MailboxEntry& entry() const { return entry_; }
  const mailbox::MailboxName& name() const { return *name_; }
  mailbox::Rights rights() const { return rights_; }
  bool has(mailbox::Rights r) const { return (rights_ & r) == r; }
  bool readOnly() const { return read_only_; }

  // The view: message sequence numbers 1..count() map to uids()[msn - 1].
  uint32_t count() const { return static_cast<uint32_t>(uids_.size()); }
  const std::vector<uint32_t>& uids() const { return uids_; }
  uint32_t uidAt(uint32_t msn) const { return uids_[msn - 1]; }
  // 0 if the UID is not in the view.
  uint32_t msnOf(uint32_t uid) const;
  bool isRecent(uint32_t uid) const { return recent_.count(uid) != 0; }
  uint32_t recentCount() const { return static_cast<uint32_t>(recent_.size()); }
  // The UIDs of the view that `set` names: sequence numbers (`by_uid` false) or UIDs. "*" is
  // the last message; UIDs not in the view are left out (RFC 9051 §6.4.8). Ascending.
  std::vector<uint32_t> resolve(const proto::SequenceSet& set, bool by_uid) const;

  // The current index record of `uid` as this user sees it (applyView), or nullopt when it
  // has left the index (expunged and compacted). Records of messages expunged but not yet
  // reported are still returned.
  base::Result<std::optional<mailbox::IndexRecord>> record(uint32_t uid) const;

  // Per-user \Seen (selected_seen.cc). perUserSeen(): this session's \Seen is its user's
  // seen state, not the index's.
  bool perUserSeen() const { return seen_db_ != nullptr; }
  // The state the view uses (null for the owner), e.g. for SEARCH.
  const mailbox::SeenState* seenState() const { return perUserSeen() ? &seen_ : nullptr; }
  // `r` (a raw index record) as this user sees it: \Seen and modseq from the seen state.
  void applyView(mailbox::IndexRecord& r) const;
  // Per-user only: sets \Seen of `uids` (ascending) for the user, one new modseq for all;
  // the results' records are as the user sees them, and the view takes the new state.
  // Blocking (the mailbox lock, two fsyncs): run it on the blocking pool.
  base::Result<mailbox::SeenUpdate> storeSeen(std::span<const uint32_t> uids, bool seen,
                                              const mailbox::SeenUpdateOptions& options);
  // The mailbox's flag names for FLAGS and PERMANENTFLAGS, and one record's flags, in wire
  // form ("\Seen \Flagged $Junk"; \Recent added for an IMAP4rev1 session when recent).
  std::string flagNames() const;
  std::string flagsOf(const mailbox::IndexRecord& r, bool with_recent) const;
  // PERMANENTFLAGS for a read-write mailbox, by the session's rights (RFC 4314 §4): the
  // keywords and \* need "w", \Deleted "t", \Seen "s".
  std::string permanentFlags() const;
  // A keyword must be announced in FLAGS (and PERMANENTFLAGS) before any FETCH shows it
  // (RFC 9051 §7.3.5, RFC 3501 §7.2.6). Appends those two responses to `out` when the
  // mailbox has keyword names the client has not been told yet; whoever writes FETCH FLAGS
  // calls it first (writeUpdates does, and so do STORE's and FETCH's own responses).
  void announceFlags(std::string& out);

  // Reloads the index and notes what changed (cheap when nothing did). The session calls it
  // after every command (and IDLE on every change), right before writeUpdates(); a command
  // runs on the view as the previous one left it. Between refreshes, a write through this
  // handle (STORE, the \Seen of a FETCH) may read keyword names from disk that the client
  // has not had, hence announceFlags() before such a command's own FETCH responses.
  base::Status refresh();
  // Appends the untagged responses owed to the client to `out`, in the order RFC 9051 wants
  // (expunges, EXISTS/RECENT, then FETCH FLAGS), and makes them part of the view. Expunges
  // are held back when `allow_expunge` is false.
  base::Status writeUpdates(bool allow_expunge, const UpdateStyle& style, std::string& out,
                            const UpdateHooks* hooks = nullptr);
  // The messages whose result in a search may have changed since the last writeUpdates():
  // new ones (EXISTS still owed) and live ones whose flags changed, by anyone, this session
  // included; not those expunged. Ascending UIDs, for the search contexts to re-check.
  std::vector<uint32_t> pendingChecks() const;
  // The session itself just reported the flags of `uid` at `modseq` (STORE): no update for
  // that change. (A session's own EXPUNGE needs nothing like it: it refreshes and reports
  // its expunges through writeUpdates like anyone else's.)
  void noteReported(uint32_t uid, uint64_t modseq) { reported_[uid] = modseq; }

  uint64_t highestModseq() const { return mailbox_->index().highest_modseq; }
  // The index header the view was built from at open(): SELECT reports its UIDNEXT and
  // HIGHESTMODSEQ, since the \Recent claim that follows the read may load a newer one.
  const mailbox::IndexHeader& openedIndex() const { return opened_; }
  // The highest modseq up to which the client has been told every change (flags, new
  // messages, expunges): a HIGHESTMODSEQ sent in the middle of a session may not be higher,
  // or a client resynchronising from it would miss what is still pending.
  uint64_t reportedModseq() const { return reported_modseq_; }

 private:
  SelectedMailbox() = default;
  base::Status rescan();
  // Per-user: reads the user's state again (after the index header was read).
  base::Status loadSeen();
  // refresh()'s fast path: `added` are the records after seen_records_, all of one append.
  base::Status mergeAppended(const std::vector<mailbox::IndexRecord>& added);
  // The end of either merge: records what the pass saw, claims \Recent for `fresh` (new
  // UIDs this pass found), and queues them for EXISTS.
  base::Status endPass(const std::vector<uint32_t>& fresh);
  // The UID above which messages up to `up_to` are recent to this session: claimed
  // (kClaim), as the index had it at the last refresh (kPeek, `peeked`), or none (kNone).
  base::Result<uint32_t> recentFloor(uint32_t up_to, uint32_t peeked);

  std::unique_ptr<mailbox::Mailbox> mailbox_;
  mailbox::IndexHeader opened_;
  mailbox::MailboxEntry entry_;
  std::optional<mailbox::MailboxName> name_;
  mailbox::Rights rights_ = 0;
  bool read_only_ = false;
  Recent recent_mode_ = Recent::kNone;
  size_t announced_flags_ = 0;      // keyword names the client has had in FLAGS
  mailbox::SeenDb* seen_db_ = nullptr;  // null: \Seen is the index's
  std::string seen_user_;
  mailbox::SeenState seen_;          // the user's state, as of seen_modseq_ or later

  std::vector<uint32_t> uids_;       // the view
  std::set<uint32_t> recent_;        // UIDs recent to this session
  std::set<uint32_t> gone_;          // in the view, expunged, not yet reported
  std::vector<uint32_t> fresh_;      // new messages, not yet in the view (no EXISTS yet)
  std::vector<uint32_t> changed_;    // UIDs whose flags changed since the last report
  std::vector<uint32_t> touched_;    // changed_ and this session's own changes (pendingChecks)
  std::map<uint32_t, uint64_t> reported_;  // own STORE results not to echo again
  uint64_t seen_generation_ = 0;
  uint32_t seen_records_ = 0;
  uint64_t seen_modseq_ = 0;        // flag changes up to this modseq are known
  uint32_t exists_sent_ = 0;        // the EXISTS count the client has
  uint32_t recent_sent_ = 0;
  uint64_t reported_modseq_ = 0;    // reportedModseq()
};

}  // namespace darius::imapd
