// SELECT and EXAMINE (RFC 9051 §6.3.2, §6.3.3), with the CONDSTORE and QRESYNC select
// parameters (RFC 7162 §3.1.8, §3.2.5).
//
// Responses: EXISTS, FLAGS, PERMANENTFLAGS, UIDVALIDITY, UIDNEXT, HIGHESTMODSEQ (always: we
// advertise CONDSTORE, RFC 7162 §3.1.2.1), the LIST response IMAP4rev2 requires, and for
// IMAP4rev1 sessions RECENT and UNSEEN. A SELECT that fails leaves no mailbox selected
// (§6.3.2), and a previously selected one is announced closed with OK [CLOSED] (RFC 7162
// §3.2.11, RFC 9051 §7.1). Without the read right it is NO [NOPERM] (NONEXISTENT for a user
// with no right that reveals it, imapd/mailbox_access.h); without any right to change it,
// SELECT opens it read-only (RFC 4314 §4, §5.2: READ-ONLY unless i, e or a flag right).
#include <algorithm>

#include "imapd/commands/commands.h"
#include "imapd/mailbox_access.h"
#include "imapd/session.h"
#include "imapd/user_seen.h"
#include "imapd/vanished.h"
#include "lib/proto/chars.h"

namespace darius::imapd {
namespace {

struct QresyncParams {
  uint32_t uidvalidity = 0;
  uint64_t modseq = 0;
  std::optional<proto::SequenceSet> known_uids;
};

struct SelectArgs {
  std::string mailbox;
  bool examine = false;
  bool condstore = false;
  std::optional<QresyncParams> qresync;
};

base::Result<QresyncParams> parseQresync(ArgParser& p) {
  // QRESYNC (uidvalidity mod-sequence-value [known-uids [seq-match-data]])
  QresyncParams q;
  DARIUS_RETURN_IF_ERROR(p.space());
  if (!p.skipIf('(')) return base::Status::invalid("QRESYNC needs a parenthesised list");
  DARIUS_ASSIGN_OR_RETURN(q.uidvalidity, p.nzNumber());
  DARIUS_RETURN_IF_ERROR(p.space());
  DARIUS_ASSIGN_OR_RETURN(q.modseq, p.nzNumber64());
  if (p.skipIf(' ')) {
    proto::SequenceSetOptions so;
    so.allow_last_result = false;
    DARIUS_ASSIGN_OR_RETURN(q.known_uids, p.sequenceSet(so));
    if (p.skipIf(' ')) {
      // seq-match-data: accepted, not used. Exact answers come from the expunged records;
      // below the index's purged_modseq the answer is every UID of known-uids that is not
      // live (imapd/vanished.cc), which the client's sample could narrow (RFC 7162 §3.2.5.2):
      // a possible saving, not needed for a correct answer.
      DARIUS_ASSIGN_OR_RETURN(proto::Value ignored, p.value({}));
      (void)ignored;
    }
  }
  if (!p.skipIf(')')) return base::Status::invalid("QRESYNC list not closed");
  return q;
}

template <bool kExamine>
base::Result<SelectArgs> parseSelect(ArgParser& p) {
  SelectArgs a;
  a.examine = kExamine;
  DARIUS_RETURN_IF_ERROR(p.space());
  DARIUS_ASSIGN_OR_RETURN(a.mailbox, p.mailbox());
  if (!p.skipIf(' ')) return a;
  if (!p.skipIf('(')) return base::Status::invalid("Select parameters must be a list");
  while (!p.skipIf(')')) {
    if (p.atEnd()) return base::Status::invalid("Select parameters not closed");
    DARIUS_ASSIGN_OR_RETURN(std::string_view name, p.atom());
    std::string upper = proto::asciiUpper(name);
    if (upper == "CONDSTORE") {
      a.condstore = true;
    } else if (upper == "QRESYNC" && !a.qresync) {
      DARIUS_ASSIGN_OR_RETURN(a.qresync, parseQresync(p));
    } else {
      return base::Status::invalid("Unknown select parameter " + upper);
    }
    p.skipIf(' ');
  }
  return a;
}

constexpr mailbox::Rights kAnyWrite = mailbox::right::kSeen | mailbox::right::kWrite |
                                      mailbox::right::kInsert | mailbox::right::kDeleteMessage |
                                      mailbox::right::kExpunge;

// QRESYNC (RFC 7162 §3.2.5.2): what changed since the client's modseq, as this user sees it
// (sel.record() carries a non-owner's own \Seen and its modseqs, issue 17).
base::Status writeResync(Session& session, SelectedMailbox& sel, const QresyncParams& q,
                         std::string& out) {
  if (q.uidvalidity != sel.entry().uidvalidity) return base::Status::ok();  // full resync
  // RFC 7162 §3.2.5.1: without known UIDs, 1:<UIDNEXT-1>, as of the view just opened.
  const uint32_t max = sel.openedIndex().uidnext - 1;
  proto::SequenceSet within;
  if (q.known_uids) {
    within = *q.known_uids;
  } else if (max > 0) {
    DARIUS_RETURN_IF_ERROR(within.add(1, max));
  }
  DARIUS_ASSIGN_OR_RETURN(auto vanished,
                          vanishedSince(sel.mailbox(), q.modseq, within, sel.uids(), max));
  if (!vanished.empty()) {
    auto set = proto::SequenceSet::fromRanges(std::move(vanished));
    if (set.ok()) out += "* VANISHED (EARLIER) " + set->format() + "\r\n";
  }
  bool rev1 = session.updateStyle().rev1;
  for (uint32_t msn = 1; msn <= sel.count(); ++msn) {
    DARIUS_ASSIGN_OR_RETURN(auto r, sel.record(sel.uidAt(msn)));
    if (!r || r->modseq <= q.modseq) continue;
    out += "* " + std::to_string(msn) + " FETCH (UID " + std::to_string(r->uid) + " FLAGS (" +
           sel.flagsOf(*r, rev1) + ") MODSEQ (" + std::to_string(r->modseq) + "))\r\n";
  }
  return base::Status::ok();
}

// RFC 9051 §7.1 ALERT when the mailbox's quota root uses quota_warn_percent or more of a
// limit (issue 17; Cyrus's quotawarn), so the user hears before a delivery bounces. From the
// root's usage record: a hint, never worth failing a SELECT for.
std::string quotaAlert(Session& session, const mailbox::MailboxName& name) {
  const int warn = session.settings().quota_warn_percent;
  if (warn <= 0) return {};
  auto root = session.store().quotaRootOf(name);
  if (!root.ok() || !*root) return {};
  auto q = session.store().quota(**root);
  if (!q.ok()) return {};
  for (mailbox::QuotaResource r : mailbox::kQuotaResources) {
    uint64_t pct = mailbox::usedPercent(q->limits, q->usage, r);
    if (q->limits[r] && pct >= static_cast<uint64_t>(warn)) {
      return "* OK [ALERT] Quota warning: " + std::string(mailbox::quotaResourceName(r)) +
             " at " + std::to_string(pct) + "% of the limit\r\n";
    }
  }
  return {};
}

asio::awaitable<Reply> executeSelect(Session& session, SelectArgs args) {
  const char* what = args.examine ? "EXAMINE" : "SELECT";
  if (args.qresync && !session.isEnabled("QRESYNC")) {
    co_return Reply::bad("QRESYNC must be enabled first");  // RFC 7162 §3.2.5
  }
  // Deselect first: a failed SELECT leaves nothing selected (RFC 9051 §6.3.2).
  if (session.selected() != nullptr) {
    session.unselect();
    session.writeUntagged("OK [CLOSED] Previous mailbox is now closed");
  }
  // The reserved areas (docs/design/expunge.md): `.EXPUNGED/<folder>`, `.DELETED/<folder>-<time>`
  // and `.EXPUNGED/.DELETED/...`, always read-only.
  auto area = areaNameOf(session, args.mailbox);
  if (!area.ok()) co_return noSuchMailbox();
  const bool bin = area->has_value();
  auto name = bin ? base::Result<mailbox::MailboxName>((*area)->name)
                  : internalName(session, args.mailbox);
  if (!name.ok()) co_return noSuchMailbox();
  base::Result<MailboxAccess> access = base::Status::ok();
  std::optional<AreaView> view;
  if (bin) {
    auto v = co_await session.blocking([&] { return areaViewAccess(session, **area, mailbox::right::kRead); });
    if (!v.ok()) co_return replyFor(session, v.status(), what);
    access = v->access;
    view = std::move(*v);
  } else {
    // RFC 4314 §4: "r"; a user who may only know of the mailbox gets [NOPERM].
    access = requireRights(session, *name, mailbox::right::kRead);
  }
  if (!access.ok()) co_return replyFor(session, access.status(), what);
  bool read_only = bin || args.examine || (access->rights & kAnyWrite) == 0;
  bool rev1 = session.updateStyle().rev1;
  auto opened = co_await session.blocking([&]() -> base::Result<std::unique_ptr<SelectedMailbox>> {
    using Recent = SelectedMailbox::Recent;
    if (view) {
      // The owner's flags as the records hold them; nothing in the areas is \Recent.
      DARIUS_ASSIGN_OR_RETURN(mailbox::OpenMailbox m, openAreaView(session, *view));
      return SelectedMailbox::open(std::move(m), *name, access->rights, true, Recent::kNone);
    }
    DARIUS_ASSIGN_OR_RETURN(mailbox::OpenMailbox m, session.store().openMailbox(*name));
    Recent recent = !rev1 ? Recent::kNone : args.examine ? Recent::kPeek : Recent::kClaim;
    return SelectedMailbox::open(std::move(m), *name, access->rights, read_only, recent,
                                 &session.store().seen(), seenUser(session, *name));
  });
  if (!opened.ok()) co_return replyFor(session, opened.status(), what);
  SelectedMailbox& sel = **opened;
  if (args.condstore || args.qresync) session.useCondstore();

  std::string alert;  // (not a ?: around co_await: GCC 12 miscompiles that)
  if (!bin) alert = co_await session.blocking([&]() { return quotaAlert(session, *name); });
  std::string out;
  const mailbox::IndexHeader& h = sel.openedIndex();
  out += "* " + std::to_string(sel.count()) + " EXISTS\r\n";
  if (rev1) out += "* " + std::to_string(sel.recentCount()) + " RECENT\r\n";
  out += "* FLAGS (" + sel.flagNames() + ")\r\n";
  if (read_only) {
    out += "* OK [PERMANENTFLAGS ()] Read-only mailbox\r\n";
  } else {
    out += "* OK [PERMANENTFLAGS (" + sel.permanentFlags() + ")] Flags permitted\r\n";
  }
  out += "* OK [UIDVALIDITY " + std::to_string(sel.entry().uidvalidity) + "] UIDs valid\r\n";
  out += "* OK [UIDNEXT " + std::to_string(h.uidnext) + "] Predicted next UID\r\n";
  out += "* OK [HIGHESTMODSEQ " + std::to_string(h.highest_modseq) + "] Highest\r\n";
  // OBJECTID (RFC 8474 §4.1): the mailbox's unique id, which survives RENAME.
  out += "* OK [MAILBOXID (" + sel.entry().unique_id + ")] Ok\r\n";
  out += alert;
  if (rev1) {
    // The first unseen message (RFC 3501 §6.3.1), when there is one.
    for (uint32_t msn = 1; msn <= sel.count(); ++msn) {
      auto r = sel.record(sel.uidAt(msn));
      if (r.ok() && *r && ((*r)->system_flags & mailbox::kFlagSeen) == 0) {
        out += "* OK [UNSEEN " + std::to_string(msn) + "] First unseen\r\n";
        break;
      }
    }
  } else {
    auto wire = bin ? base::Result<std::string>(proto::quoteString(args.mailbox))
                    : wireName(session, *name);
    if (wire.ok()) {
      out += "* LIST () \"" + std::string(1, session.ns().separator()) + "\" " + *wire + "\r\n";
    }
  }
  if (args.qresync) {
    base::Status s = writeResync(session, sel, *args.qresync, out);
    if (!s.isOk()) co_return replyFor(session, s, what);
  }
  session.connection().write(out);
  session.select(std::move(*opened));
  co_return Reply::ok(std::string(what) + " completed", read_only ? "READ-ONLY" : "READ-WRITE");
}

}  // namespace

CommandSpec selectCommand() {
  return makeCommand<SelectArgs, parseSelect<false>, executeSelect>("SELECT", kAfterLogin,
                                                                    kExclusive);
}

CommandSpec examineCommand() {
  return makeCommand<SelectArgs, parseSelect<true>, executeSelect>("EXAMINE", kAfterLogin,
                                                                   kExclusive);
}

}  // namespace darius::imapd
