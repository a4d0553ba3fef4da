// STORE and UID STORE (RFC 9051 §6.4.6, §6.4.9) with CONDSTORE's UNCHANGEDSINCE
// (RFC 7162 §3.1.3): "STORE set [(UNCHANGEDSINCE n)] [+|-]FLAGS[.SILENT] flags".
//
// Rights (RFC 4314 §4): \Seen needs "s", \Deleted needs "t", every other flag and keyword "w";
// flags the user may not change are left alone, and a STORE that could change nothing is NO.
// \Seen of a user who does not own the mailbox is their own (issue 17, imapd/selected.h): it
// goes to their seen state, with a modseq of its own after the index part's, if any.
// A read-only mailbox refuses STORE. Replies: one FETCH per message unless .SILENT (with UID
// for UID STORE, UID and MODSEQ once CONDSTORE is on); messages UNCHANGEDSINCE refused go in the
// MODIFIED response code. Expunges are held back after a STORE by sequence number (§7.5.1).
#include "imapd/commands/commands.h"
#include "imapd/mailbox_access.h"
#include "imapd/session.h"
#include "lib/proto/chars.h"

namespace darius::imapd {
namespace {

struct StoreArgs {
  bool by_uid = false;
  proto::SequenceSet set;
  uint64_t unchanged_since = 0;
  bool has_unchanged_since = false;
  mailbox::FlagChange::Op op = mailbox::FlagChange::Op::kReplace;
  bool silent = false;
  std::vector<proto::Flag> flags;
};

base::Result<StoreArgs> parseArgs(ArgParser& p, bool by_uid) {
  StoreArgs a;
  a.by_uid = by_uid;
  DARIUS_RETURN_IF_ERROR(p.space());
  DARIUS_ASSIGN_OR_RETURN(a.set, p.sequenceSet({}));
  DARIUS_RETURN_IF_ERROR(p.space());
  if (p.skipIf('(')) {
    DARIUS_ASSIGN_OR_RETURN(std::string_view m, p.atom());
    if (proto::asciiUpper(m) != "UNCHANGEDSINCE") return base::Status::invalid("Unknown STORE modifier");
    DARIUS_RETURN_IF_ERROR(p.space());
    DARIUS_ASSIGN_OR_RETURN(a.unchanged_since, p.number64());
    a.has_unchanged_since = true;
    if (!p.skipIf(')')) return base::Status::invalid("STORE modifiers not closed");
    DARIUS_RETURN_IF_ERROR(p.space());
  }
  if (p.skipIf('+')) {
    a.op = mailbox::FlagChange::Op::kAdd;
  } else if (p.skipIf('-')) {
    a.op = mailbox::FlagChange::Op::kRemove;
  }
  DARIUS_ASSIGN_OR_RETURN(std::string_view item, p.atom());
  std::string upper = proto::asciiUpper(item);
  if (upper == "FLAGS.SILENT") {
    a.silent = true;
  } else if (upper != "FLAGS") {
    return base::Status::invalid("STORE takes FLAGS or FLAGS.SILENT");
  }
  DARIUS_RETURN_IF_ERROR(p.space());
  DARIUS_ASSIGN_OR_RETURN(a.flags, p.flagListOrFlags({}));
  return a;
}

base::Result<StoreArgs> parseStore(ArgParser& p) { return parseArgs(p, false); }
base::Result<StoreArgs> parseUidStoreArgs(ArgParser& p) { return parseArgs(p, true); }

uint32_t systemBit(proto::SystemFlag f) {
  switch (f) {
    case proto::SystemFlag::kAnswered: return mailbox::kFlagAnswered;
    case proto::SystemFlag::kFlagged: return mailbox::kFlagFlagged;
    case proto::SystemFlag::kDeleted: return mailbox::kFlagDeleted;
    case proto::SystemFlag::kSeen: return mailbox::kFlagSeen;
    case proto::SystemFlag::kDraft: return mailbox::kFlagDraft;
  }
  return 0;
}

// The per-user \Seen part of a STORE (after its index part, whose results are `index`, one
// per UID, or empty when it had none): the UIDs the index part did not find modified or gone
// get \Seen = `seen` in the user's state. Returns one result per UID as the user sees it.
asio::awaitable<base::Result<std::vector<mailbox::FlagResult>>> storeUserSeen(
    Session& session, SelectedMailbox& sel, const std::vector<uint32_t>& uids,
    std::vector<mailbox::FlagResult> index, bool seen, uint64_t unchanged_since) {
  using Outcome = mailbox::FlagResult::Outcome;
  std::vector<uint32_t> todo;
  for (size_t i = 0; i < uids.size(); ++i) {
    if (index.empty() || (i < index.size() && index[i].outcome != Outcome::kModified &&
                          index[i].outcome != Outcome::kGone)) {
      todo.push_back(uids[i]);
    }
  }
  if (todo.empty()) {
    for (mailbox::FlagResult& r : index) sel.applyView(r.record);
    co_return index;
  }
  mailbox::SeenUpdateOptions o;
  o.unchanged_since = unchanged_since;
  // The index part compared the records' modseqs already, and may have moved them itself.
  o.check_record_modseq = index.empty();
  auto u = co_await session.blocking([&] { return sel.storeSeen(todo, seen, o); });
  if (!u.ok()) co_return u.status();
  std::vector<mailbox::FlagResult> out;
  out.reserve(uids.size());
  size_t k = 0;  // position in todo / u->results, which follow uids' order
  for (size_t i = 0; i < uids.size(); ++i) {
    mailbox::FlagResult r = index.empty() ? mailbox::FlagResult{} : index[i];
    r.uid = uids[i];
    if (k < todo.size() && todo[k] == uids[i]) {
      const mailbox::FlagResult& s = u->results[k++];
      r.record = s.record;  // read after the index part: the user's view of both
      if (index.empty() || s.outcome == Outcome::kModified || s.outcome == Outcome::kGone ||
          (s.outcome == Outcome::kChanged && r.outcome == Outcome::kUnchanged)) {
        r.outcome = s.outcome;
      }
    } else {
      sel.applyView(r.record);
    }
    out.push_back(std::move(r));
  }
  co_return out;
}

asio::awaitable<Reply> executeStore(Session& session, StoreArgs args) {
  SelectedMailbox& sel = *session.selected();
  Reply held;
  held.hold_expunges = !args.by_uid;
  if (sel.readOnly()) {
    Reply r = Reply::no("Mailbox is read-only", "READ-ONLY");
    r.hold_expunges = held.hold_expunges;
    co_return r;
  }
  if (!args.by_uid && args.set.largest(sel.count()) > sel.count()) {
    co_return Reply::bad("Message sequence number out of range");
  }
  proto::SequenceSet set = args.set.substituteLastResult(session.savedResult());
  std::vector<uint32_t> uids = sel.resolve(set, args.by_uid);
  if (args.has_unchanged_since) session.useCondstore();

  // What this user may change (RFC 4314 §4).
  uint32_t system = 0;
  std::vector<std::string> keywords;
  bool refused = false;
  for (const proto::Flag& f : args.flags) {
    if (f.kind == proto::Flag::Kind::kSystem) {
      uint32_t bit = systemBit(f.system);
      mailbox::Rights need = bit == mailbox::kFlagSeen      ? mailbox::right::kSeen
                             : bit == mailbox::kFlagDeleted ? mailbox::right::kDeleteMessage
                                                            : mailbox::right::kWrite;
      if (sel.has(need)) {
        system |= bit;
      } else {
        refused = true;
      }
    } else if (f.kind == proto::Flag::Kind::kKeyword) {
      if (sel.has(mailbox::right::kWrite)) {
        keywords.push_back(f.name);
      } else {
        refused = true;
      }
    }
    // \Recent and other \-extensions cannot be stored (RFC 9051 §2.3.2); ignored.
  }
  if (refused && system == 0 && keywords.empty()) {
    Reply r = Reply::no("Permission denied", "NOPERM");
    r.hold_expunges = held.hold_expunges;
    co_return r;
  }
  // Per-user \Seen (issue 17): a user who does not own the mailbox changes \Seen in their own
  // seen state; the index keeps the owner's \Seen, even through FLAGS (replace).
  const bool per_user = sel.perUserSeen();
  uint32_t index_system = per_user ? system & ~mailbox::kFlagSeen : system;
  bool seen_part = false;
  bool seen_value = false;
  if (per_user && args.op == mailbox::FlagChange::Op::kReplace) {
    seen_part = sel.has(mailbox::right::kSeen);
    seen_value = (system & mailbox::kFlagSeen) != 0;
  } else if (per_user) {
    seen_part = (system & mailbox::kFlagSeen) != 0;
    seen_value = args.op == mailbox::FlagChange::Op::kAdd;
  }
  const bool index_part = !per_user || args.op == mailbox::FlagChange::Op::kReplace ||
                          index_system != 0 || !keywords.empty();
  std::vector<mailbox::FlagChange> changes;
  changes.reserve(uids.size());
  for (uint32_t uid : uids) {
    mailbox::FlagChange c;
    c.uid = uid;
    c.op = args.op;
    c.system_flags = index_system;
    c.keywords = keywords;
    c.unchanged_since = args.has_unchanged_since ? args.unchanged_since : 0;
    if (per_user) c.keep_system = mailbox::kFlagSeen;
    changes.push_back(std::move(c));
  }
  // UNCHANGEDSINCE 0 can never hold (RFC 7162 §3.1.3): every message is "modified".
  bool impossible = args.has_unchanged_since && args.unchanged_since == 0;
  base::Result<std::vector<mailbox::FlagResult>> results = std::vector<mailbox::FlagResult>{};
  const bool run_index = index_part && !impossible && !changes.empty();
  if (run_index) {
    results = co_await session.blocking([&] { return sel.mailbox().store(changes); });
  }
  if (results.ok() && seen_part && !impossible && !uids.empty()) {
    results = co_await storeUserSeen(session, sel, uids, std::move(*results), seen_value,
                                     args.has_unchanged_since ? args.unchanged_since : 0);
  } else if (results.ok() && per_user) {
    for (mailbox::FlagResult& r : *results) sel.applyView(r.record);
  }
  if (!results.ok()) {
    Reply r = replyFor(session, results.status(), "STORE");
    if (results.status().code() == base::Code::kTooBig) r.code = "LIMIT";
    r.hold_expunges = held.hold_expunges;
    co_return r;
  }
  std::vector<uint32_t> modified;
  if (impossible) modified = uids;
  UpdateStyle style = session.updateStyle();
  std::string out;
  // A keyword this STORE created (or that the store just read from another session's
  // write) is announced before the FETCH responses that show it (RFC 9051 §7.3.5).
  sel.announceFlags(out);
  for (const mailbox::FlagResult& res : *results) {
    if (res.outcome == mailbox::FlagResult::Outcome::kModified) {
      modified.push_back(args.by_uid ? res.uid : sel.msnOf(res.uid));
      continue;
    }
    if (res.outcome == mailbox::FlagResult::Outcome::kGone) continue;
    if (res.outcome == mailbox::FlagResult::Outcome::kChanged) {
      sel.noteReported(res.uid, res.record.modseq);
    }
    // .SILENT still reports the new MODSEQ under CONDSTORE when it changed (RFC 7162 §3.1.3).
    bool report = !args.silent ||
                  (style.condstore && res.outcome == mailbox::FlagResult::Outcome::kChanged &&
                   args.has_unchanged_since);
    if (!report) continue;
    out += "* " + std::to_string(sel.msnOf(res.uid)) + " FETCH (";
    bool first = true;
    if (!args.silent) {
      out += "FLAGS (" + sel.flagsOf(res.record, style.rev1) + ")";
      first = false;
    }
    // RFC 7162 §3.2.4 (binding on a server that offers QRESYNC): once CONDSTORE is on,
    // every FETCH a STORE causes carries both UID and MODSEQ.
    if (args.by_uid || style.condstore) {
      out += std::string(first ? "" : " ") + "UID " + std::to_string(res.uid);
      first = false;
    }
    if (style.condstore) {
      out += std::string(first ? "" : " ") + "MODSEQ (" + std::to_string(res.record.modseq) + ")";
    }
    out += ")\r\n";
  }
  session.connection().write(out);
  Reply r = Reply::ok("STORE completed");
  if (!modified.empty()) {
    auto set_out = proto::SequenceSet::fromNumbers(modified);
    if (set_out.ok()) {
      r = Reply::ok("Some messages were modified meanwhile", "MODIFIED " + set_out->format());
    }
  }
  r.hold_expunges = held.hold_expunges;
  co_return r;
}

}  // namespace

CommandSpec storeCommand() {
  return makeCommand<StoreArgs, parseStore, executeStore>("STORE", stateBit(State::kSelected));
}

base::Result<std::unique_ptr<PreparedCommand>> parseUidStore(ArgParser& p) {
  return internal::parseAndBind<StoreArgs, parseUidStoreArgs, executeStore>(p);
}

}  // namespace darius::imapd
