// APPEND (RFC 9051 §6.3.12) with MULTIAPPEND (RFC 3502), UIDPLUS's APPENDUID (RFC 4315 §3),
// APPENDLIMIT (RFC 7889) and BINARY's literal8 (RFC 3516 §4.4):
//   APPEND mailbox [flag-list] [date-time] (literal / "~" literal8) *(SP [flags] [date] literal)
//
// All messages of one command are staged, then appended in one batch: they get consecutive
// UIDs and are durable together before the OK (MULTIAPPEND's all-or-nothing, §1 of RFC 3502).
// Bare LF line ends of a literal are made CRLF (the store keeps canonical form); a literal8 is
// stored as sent, NULs and all, and read back exactly through BINARY[] (RFC 3516 §4.4).
// Needs the "i" right; flags the user may not set are dropped (RFC 4314 §4). A missing
// mailbox is NO [TRYCREATE]. \Seen appended to a mailbox the user does not own goes to their
// own seen state (issue 17, imapd/user_seen.h), as a second step after the messages are stored.
#include <ctime>

#include "imapd/commands/commands.h"
#include "imapd/mailbox_access.h"
#include "imapd/session.h"
#include "imapd/user_seen.h"

namespace darius::imapd {
namespace {

struct OneMessage {
  std::vector<proto::Flag> flags;
  std::optional<proto::DateTime> date;
  std::string bytes;
  // Sent as a literal8 (RFC 3516 §4.4): stored exactly as sent. Its line ends are left
  // alone too, since a binary part's bare LF is data, not a line end to repair.
  bool binary = false;
};

struct AppendArgs {
  std::string mailbox;
  std::vector<OneMessage> messages;
};

base::Result<OneMessage> parseMessage(ArgParser& p) {
  OneMessage m;
  if (p.peek('(')) {
    DARIUS_ASSIGN_OR_RETURN(m.flags, p.flagList({}));
    DARIUS_RETURN_IF_ERROR(p.space());
  }
  if (p.peek('"')) {
    DARIUS_ASSIGN_OR_RETURN(m.date, p.dateTime());
    DARIUS_RETURN_IF_ERROR(p.space());
  }
  if (p.peek('~')) {
    DARIUS_ASSIGN_OR_RETURN(m.bytes, p.literal8());
    m.binary = true;
  } else {
    DARIUS_ASSIGN_OR_RETURN(m.bytes, p.literal());
  }
  return m;
}

base::Result<AppendArgs> parseAppend(ArgParser& p) {
  AppendArgs a;
  DARIUS_RETURN_IF_ERROR(p.space());
  DARIUS_ASSIGN_OR_RETURN(a.mailbox, p.mailbox());
  do {
    DARIUS_RETURN_IF_ERROR(p.space());
    DARIUS_ASSIGN_OR_RETURN(OneMessage m, parseMessage(p));
    a.messages.push_back(std::move(m));
  } while (!p.atEnd());
  return a;
}

// Canonical CRLF: a lone LF becomes CRLF, a lone CR stays (it is data, if odd).
std::string canonical(std::string bytes) {
  size_t lone = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] == '\n' && (i == 0 || bytes[i - 1] != '\r')) ++lone;
  }
  if (lone == 0) return bytes;
  std::string out;
  out.reserve(bytes.size() + lone);
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] == '\n' && (i == 0 || bytes[i - 1] != '\r')) out += '\r';
    out += bytes[i];
  }
  return out;
}

uint32_t allowedFlags(const MailboxAccess& a, const std::vector<proto::Flag>& flags,
                      std::vector<std::string>* keywords) {
  uint32_t bits = 0;
  for (const proto::Flag& f : flags) {
    if (f.kind == proto::Flag::Kind::kKeyword) {
      if (a.has(mailbox::right::kWrite)) keywords->push_back(f.name);
      continue;
    }
    if (f.kind != proto::Flag::Kind::kSystem) continue;  // \Recent and extensions: not stored
    switch (f.system) {
      case proto::SystemFlag::kSeen:
        if (a.has(mailbox::right::kSeen)) bits |= mailbox::kFlagSeen;
        break;
      case proto::SystemFlag::kDeleted:
        if (a.has(mailbox::right::kDeleteMessage)) bits |= mailbox::kFlagDeleted;
        break;
      case proto::SystemFlag::kAnswered:
        if (a.has(mailbox::right::kWrite)) bits |= mailbox::kFlagAnswered;
        break;
      case proto::SystemFlag::kFlagged:
        if (a.has(mailbox::right::kWrite)) bits |= mailbox::kFlagFlagged;
        break;
      case proto::SystemFlag::kDraft:
        if (a.has(mailbox::right::kWrite)) bits |= mailbox::kFlagDraft;
        break;
    }
  }
  return bits;
}

// The \Seen of appended messages for a user who does not own the mailbox: into their seen
// state, after the append. The messages are durable by then, so a failure here is logged and
// costs the flag, not the APPEND (a NO would make the client store them twice).
void addUserSeen(Session& session, const mailbox::MailboxName& name, const std::string& user,
                 const std::vector<mailbox::Appended>& appended, const std::vector<bool>& seen) {
  std::vector<uint32_t> uids;
  for (size_t i = 0; i < appended.size() && i < seen.size(); ++i) {
    if (seen[i]) uids.push_back(appended[i].uid);
  }
  if (uids.empty()) return;
  auto m = session.store().openMailbox(name);
  base::Status s = m.status();
  if (m.ok()) {
    s = session.store()
            .seen()
            .update(*m->mailbox, user, uids, true, {.now = static_cast<int64_t>(::time(nullptr))})
            .status();
  }
  if (!s.isOk()) {
    log::warning(session.logContext(), "APPEND to {}: messages stored, their \\Seen not: {}",
                 name.toString(), s.toString());
  }
}

asio::awaitable<Reply> executeAppend(Session& session, AppendArgs args) {
  auto name = internalName(session, args.mailbox);
  if (!name.ok()) {
    // The reserved areas (docs/design/expunge.md) take nothing in, and cannot be created.
    auto area = areaNameOf(session, args.mailbox);
    if (!area.ok()) co_return Reply::no(area.status().message(), "CANNOT");
    if (*area) co_return Reply::no("The expunged and deleted areas are read-only", "CANNOT");
    co_return Reply::no("No such mailbox", "TRYCREATE");
  }
  auto access = findMailbox(session, *name);
  if (!access.ok()) {
    if (access.status().code() == base::Code::kNotFound) {
      co_return Reply::no("Mailbox does not exist", "TRYCREATE");
    }
    co_return replyFor(session, access.status(), "APPEND");
  }
  if (!access->has(mailbox::right::kInsert)) co_return Reply::no("Permission denied", "NOPERM");
  for (const OneMessage& m : args.messages) {
    if (m.bytes.size() > session.settings().max_append_size) {
      co_return Reply::no("Message too large", "TOOBIG");
    }
    if (m.bytes.empty()) co_return Reply::no("Empty message", "CANNOT");
  }
  const std::string seen_user = seenUser(session, *name);
  auto done = co_await session.blocking([&]() -> base::Result<std::vector<mailbox::Appended>> {
    DARIUS_ASSIGN_OR_RETURN(const mailbox::Partition* part,
                            session.store().partition(access->entry.partition));
    std::vector<mailbox::StagedMessage> staged;
    base::Status failed = base::Status::ok();
    for (OneMessage& m : args.messages) {
      // The stage file's fsync is left to the append (StageSync::kDeferred), which runs it in
      // the same round as its link, directory and cache syncs (or covers it with its
      // filesystem sync, sync_method syncfs): one flush latency per command instead of one
      // per message plus one, and the bytes are durable before the tagged OK, which still
      // means stored (RFC 9051 §6.3.12; RFC 3502 §1: a MULTIAPPEND commits all or none).
      std::string bytes = m.binary ? std::move(m.bytes) : canonical(std::move(m.bytes));
      auto s = session.store().stage(*part, std::move(bytes),
                                     mailbox::StageSync::kDeferred);
      if (!s.ok()) {
        failed = s.status();
        break;
      }
      staged.push_back(std::move(*s));
    }
    base::Result<std::vector<mailbox::Appended>> out = failed;
    if (failed.isOk()) {
      std::vector<mailbox::AppendRequest> q(staged.size());
      std::vector<bool> user_seen(staged.size(), false);
      int64_t now = static_cast<int64_t>(::time(nullptr));
      for (size_t i = 0; i < staged.size(); ++i) {
        q[i].message = &staged[i];
        q[i].internal_date = args.messages[i].date ? args.messages[i].date->epoch_seconds : now;
        q[i].tz_offset_minutes =
            static_cast<int16_t>(args.messages[i].date ? args.messages[i].date->zone_minutes : 0);
        q[i].system_flags = allowedFlags(*access, args.messages[i].flags, &q[i].keywords);
        if (!seen_user.empty() && (q[i].system_flags & mailbox::kFlagSeen)) {
          q[i].system_flags &= ~mailbox::kFlagSeen;
          user_seen[i] = true;
        }
      }
      out = session.store().append(*name, q);
      if (out.ok()) addUserSeen(session, *name, seen_user, *out, user_seen);
    }
    for (const mailbox::StagedMessage& s : staged) (void)session.store().unstage(s);
    return out;
  });
  if (!done.ok()) {
    Reply r = replyFor(session, done.status(), "APPEND");
    if (done.status().code() == base::Code::kTooBig) r.code = "LIMIT";
    co_return r;
  }
  std::vector<uint32_t> uids;
  for (const mailbox::Appended& a : *done) uids.push_back(a.uid);
  auto set = proto::SequenceSet::fromNumbers(uids);
  std::string code;
  if (set.ok()) {
    code = "APPENDUID " + std::to_string(access->entry.uidvalidity) + " " + set->format();
  }
  co_return Reply::ok("APPEND completed", code);
}

}  // namespace

CommandSpec appendCommand() {
  return makeCommand<AppendArgs, parseAppend, executeAppend>("APPEND", kAfterLogin);
}

}  // namespace darius::imapd
