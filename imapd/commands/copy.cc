// COPY, MOVE and their UID forms (RFC 9051 §6.4.7, §6.4.8; MOVE RFC 6851; COPYUID RFC 4315
// §3): messages are hard-linked into the target (mailbox/store.h), keeping flags and dates.
//
// Rights (RFC 4314 §4): "r" on the source (it is selected), "i" on the target; MOVE also
// needs "t" and "e" on the source. A copy keeps only the flags the user may set in the target
// (§4: "s" \Seen, "t" \Deleted, "w" the rest) and never fails for the others. A missing
// target, and one the user may not know of, is NO [TRYCREATE] (§6.4.7); a visible one
// without "i" is NO [NOPERM]. MOVE reports COPYUID in an untagged OK before the EXPUNGE (or VANISHED)
// responses (RFC 6851 §4.3); COPY puts it in the tagged OK. \Seen follows the copier's view
// into the copier's own \Seen of the target (issue 17, imapd/user_seen.h).
#include "imapd/commands/commands.h"
#include "imapd/mailbox_access.h"
#include "imapd/session.h"
#include "imapd/user_seen.h"

namespace darius::imapd {
namespace {

struct CopyArgs {
  bool by_uid = false;
  bool move = false;
  proto::SequenceSet set;
  std::string mailbox;
};

template <bool kUid, bool kMove>
base::Result<CopyArgs> parseCopy(ArgParser& p) {
  CopyArgs a;
  a.by_uid = kUid;
  a.move = kMove;
  DARIUS_RETURN_IF_ERROR(p.space());
  DARIUS_ASSIGN_OR_RETURN(a.set, p.sequenceSet({}));
  DARIUS_RETURN_IF_ERROR(p.space());
  DARIUS_ASSIGN_OR_RETURN(a.mailbox, p.mailbox());
  return a;
}

asio::awaitable<Reply> executeCopy(Session& session, CopyArgs args) {
  SelectedMailbox& sel = *session.selected();
  const char* what = args.move ? "MOVE" : "COPY";
  if (!args.by_uid && args.set.largest(sel.count()) > sel.count()) {
    co_return Reply::bad("Message sequence number out of range");
  }
  if (args.move && (sel.readOnly() || !sel.has(mailbox::right::kDeleteMessage |
                                                mailbox::right::kExpunge))) {
    co_return Reply::no("Permission denied on the source", "NOPERM");
  }
  auto target = internalName(session, args.mailbox);
  if (!target.ok()) {
    // The reserved areas (docs/design/expunge.md) take nothing in, and cannot be created.
    auto area = areaNameOf(session, args.mailbox);
    if (!area.ok()) co_return Reply::no(area.status().message(), "CANNOT");
    if (*area) co_return Reply::no("The expunged and deleted areas are read-only", "CANNOT");
    co_return Reply::no("No such mailbox", "TRYCREATE");
  }
  auto access = findMailbox(session, *target);
  if (!access.ok()) {
    if (access.status().code() == base::Code::kNotFound) {
      // Only offer to create what the user could create: otherwise "does not exist" alone.
      co_return Reply::no("Mailbox does not exist", "TRYCREATE");
    }
    co_return replyFor(session, access.status(), what);
  }
  if (!access->has(mailbox::right::kInsert)) co_return Reply::no("Permission denied", "NOPERM");
  proto::SequenceSet set = args.set.substituteLastResult(session.savedResult());
  std::vector<uint32_t> uids = sel.resolve(set, args.by_uid);
  if (uids.empty()) co_return Reply::ok(std::string(what) + " completed (nothing to do)");

  // Per-user \Seen (issue 17, imapd/user_seen.h): the copies are \Seen as the copier saw the
  // originals, read before a MOVE expunges them.
  const bool seen_moves = sel.perUserSeen() || !seenUser(session, *target).empty();
  std::vector<uint32_t> seen_src;
  if (seen_moves) {
    auto s = co_await session.blocking([&] { return copiedSeen(sel, uids); });
    if (!s.ok()) co_return replyFor(session, s.status(), what);
    seen_src = std::move(*s);
  }
  auto copied = co_await session.blocking([&]() -> base::Result<mailbox::CopyResult> {
    // Copying into the selected mailbox itself uses its own handle; out of its expunged
    // view (undelete, docs/design/expunge.md) the live folder is opened as any target.
    mailbox::CopyFlags keep = settableFlags(access->rights);
    // An undeleted message comes back without \Deleted, or the next EXPUNGE takes it again.
    if (sel.mailbox().isExpungedView()) keep.system &= ~mailbox::kFlagDeleted;
    if (access->entry.unique_id == sel.entry().unique_id && !sel.mailbox().isExpungedView()) {
      return args.move ? session.store().move(sel.name(), sel.mailbox(), uids, *target,
                                              sel.mailbox(), keep)
                       : session.store().copy(sel.mailbox(), uids, *target, sel.mailbox(), keep);
    }
    DARIUS_ASSIGN_OR_RETURN(mailbox::OpenMailbox dst, session.store().openMailbox(*target));
    return args.move ? session.store().move(sel.name(), sel.mailbox(), uids, *target,
                                            *dst.mailbox, keep)
                     : session.store().copy(sel.mailbox(), uids, *target, *dst.mailbox, keep);
  });
  if (!copied.ok()) co_return replyFor(session, copied.status(), what);
  if (seen_moves) {
    // The copies are durable: a failure here costs their \Seen, not the COPY (a NO would
    // make the client copy them twice).
    base::Status placed = co_await session.blocking([&] {
      return placeCopiedSeen(session, sel, *target, seen_src, *copied,
                             access->has(mailbox::right::kSeen));
    });
    if (!placed.isOk()) {
      log::warning(session.logContext(), "{} to {}: messages copied, their \\Seen not: {}", what,
                   target->toString(), placed.toString());
    }
  }
  std::string code;
  if (!copied->uids.empty()) {
    std::vector<uint32_t> from, to;
    for (const mailbox::CopiedUid& c : copied->uids) {
      from.push_back(c.from);
      to.push_back(c.to);
    }
    // COPYUID lists the UIDs in matching order; both sets ascend together since append
    // assigns target UIDs in source order.
    auto fs = proto::SequenceSet::fromNumbers(from);
    auto ts = proto::SequenceSet::fromNumbers(to);
    if (fs.ok() && ts.ok()) {
      code = "COPYUID " + std::to_string(copied->target_uidvalidity) + " " + fs->format() + " " +
             ts->format();
    }
  }
  if (args.move) {
    if (!code.empty()) session.writeUntagged("OK [" + code + "] Moved");
    co_return Reply::ok("MOVE completed");
  }
  co_return Reply::ok("COPY completed", code);
}

}  // namespace

CommandSpec copyCommand() {
  return makeCommand<CopyArgs, parseCopy<false, false>, executeCopy>("COPY",
                                                                     stateBit(State::kSelected));
}

CommandSpec moveCommand() {
  return makeCommand<CopyArgs, parseCopy<false, true>, executeCopy>("MOVE",
                                                                    stateBit(State::kSelected));
}

base::Result<std::unique_ptr<PreparedCommand>> parseUidCopy(ArgParser& p) {
  return internal::parseAndBind<CopyArgs, parseCopy<true, false>, executeCopy>(p);
}

base::Result<std::unique_ptr<PreparedCommand>> parseUidMove(ArgParser& p) {
  return internal::parseAndBind<CopyArgs, parseCopy<true, true>, executeCopy>(p);
}

}  // namespace darius::imapd
