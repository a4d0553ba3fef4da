#include "lmtpd/delivery.h"

#include <algorithm>
#include <future>
#include <map>
#include <optional>
#include <system_error>

#include "lmtpd/message_data.h"
#include "mailbox/acl.h"

namespace darius::lmtpd {

using base::Result;
using base::Status;
using mailbox::MailboxEntry;
using mailbox::MailboxName;

namespace {

using Kind = DeliveryOutcome::Kind;

// Mailboxes a multi-recipient message is appended to at once (see storeInto).
constexpr size_t kFanOut = 8;

DeliveryOutcome failure(const Status& s, std::string mailbox = {}) {
  DeliveryOutcome o;
  switch (s.code()) {
    case base::Code::kOverQuota:
      o.kind = Kind::kOverQuota;
      break;
    case base::Code::kInvalid:
    case base::Code::kPermission:
      o.kind = Kind::kNoMailbox;
      break;
    default:
      o.kind = Kind::kTemporary;
  }
  o.mailbox = std::move(mailbox);
  o.status = s;
  return o;
}

bool deliverable(const MailboxEntry& e) {
  return (e.flags & (MailboxEntry::kDeleted | MailboxEntry::kNoSelect)) == 0;
}

// RFC 4314 'p': whether `user` (the folder's owner) may post into it. A folder made without
// any ACL (Store::create's default) restricts nothing; an ACL that does not parse grants
// nothing, so the message falls back to INBOX rather than being refused.
bool ownerMayPost(const MailboxEntry& e, const mailbox::UserName& user) {
  if (e.acl.empty()) return true;
  auto acl = mailbox::Acl::parse(e.acl);
  return acl.ok() && (acl->rightsOf(user.userId(), /*is_owner=*/true) & mailbox::right::kPost);
}

}  // namespace

// One target mailbox of the message, shared by every recipient that resolved to it.
struct Deliverer::Slot {
  MailboxName name;
  MailboxEntry entry;
  bool claimed = false;  // holds a duplicate-suppression claim to confirm or release
  DeliveryOutcome outcome;
};

Result<MailboxName> Deliverer::inboxFor(std::string_view user) const {
  DARIUS_ASSIGN_OR_RETURN(mailbox::UserName u, ns_.parseUser(user));
  return ns_.inboxOf(u);
}

bool Deliverer::certainlyOverQuota(const MailboxName& inbox, uint64_t size) {
  auto over = store_.quotaHint(inbox, size);
  return over.ok() && over->has_value();
}

Result<MailboxName> Deliverer::folderFor(const mailbox::UserName& user,
                                         std::string_view detail) const {
  // The folder as the user names it: a child of INBOX in the standard namespace, a sibling
  // of INBOX with altnamespace. Namespace does the separator and '^' rules.
  std::string external = ns_.options().alt_namespace
                             ? std::string(detail)
                             : std::string(mailbox::Namespace::kInbox) + ns_.separator() +
                                   std::string(detail);
  DARIUS_ASSIGN_OR_RETURN(MailboxName name, ns_.toInternal(external, user));
  // toInternal also reaches other users' and shared folders by prefix ("user.bob.x" with
  // altnamespace); "+detail" only ever means one's own folders.
  if (!name.isPersonal() || name.owner() != user.local || name.domain() != user.domain) {
    return Status::permission("subaddress names a folder of someone else");
  }
  return name;
}

DeliveryOutcome Deliverer::resolve(const DeliveryTarget& target,
                                   std::optional<MailboxName>* name, MailboxEntry* entry) {
  auto user = ns_.parseUser(target.user);
  if (!user.ok()) return failure(user.status());
  auto inbox = ns_.inboxOf(*user);
  if (!inbox.ok()) return failure(inbox.status());
  if (!target.detail.empty()) {
    auto folder = folderFor(*user, target.detail);
    if (folder.ok()) {
      auto e = store_.list().lookup(*folder);
      if (e.ok() && deliverable(*e) && ownerMayPost(*e, *user)) {
        *name = std::move(*folder);
        *entry = std::move(*e);
        return DeliveryOutcome{Kind::kDelivered, (*name)->toString(), Status::ok()};
      }
      if (!e.ok() && !e.status().isNotFound()) return failure(e.status(), folder->toString());
    }
    // No such folder (or not a folder name at all): INBOX, as Cyrus does.
  }
  auto e = store_.list().lookup(*inbox);
  if (!e.ok() && e.status().isNotFound()) {
    Status made = store_.ensureInbox(*inbox);
    if (!made.isOk()) return failure(made, inbox->toString());
    e = store_.list().lookup(*inbox);
  }
  if (!e.ok()) return failure(e.status(), inbox->toString());
  if (!deliverable(*e)) return failure(Status::notFound("INBOX is not selectable"));
  *name = std::move(*inbox);
  *entry = std::move(*e);
  return DeliveryOutcome{Kind::kDelivered, (*name)->toString(), Status::ok()};
}

std::vector<DeliveryOutcome> Deliverer::deliver(std::string_view message,
                                                std::span<const DeliveryTarget> targets,
                                                int64_t internal_date) {
  std::vector<DeliveryOutcome> out(targets.size());
  std::vector<Slot> slots;
  std::vector<std::optional<size_t>> slot_of(targets.size());
  std::map<std::string, size_t> by_key;
  for (size_t i = 0; i < targets.size(); ++i) {
    std::optional<MailboxName> name;
    MailboxEntry entry;
    DeliveryOutcome r = resolve(targets[i], &name, &entry);
    if (r.kind != Kind::kDelivered) {
      out[i] = std::move(r);
      continue;
    }
    auto [it, fresh] = by_key.emplace(name->key(), slots.size());
    if (fresh) slots.push_back(Slot{std::move(*name), std::move(entry), false, std::move(r)});
    slot_of[i] = it->second;
  }

  // Duplicates: claimed per mailbox, so one check covers every recipient of that mailbox.
  const std::string message_id =
      duplicates_ && duplicates_->enabled() ? extractMessageId(message) : std::string();
  if (!message_id.empty()) {
    for (Slot& s : slots) {
      auto fresh = duplicates_->claim(message_id, s.entry.unique_id, internal_date);
      if (!fresh.ok()) {
        s.outcome = failure(fresh.status(), s.name.toString());
      } else if (!*fresh) {
        s.outcome.kind = Kind::kDuplicate;
      } else {
        s.claimed = true;
      }
    }
  }

  // Stage once per partition (single-instance store), then link into each mailbox there.
  std::map<std::string, bool> partitions;
  for (const Slot& s : slots) {
    if (s.outcome.kind == Kind::kDelivered) partitions[s.entry.partition] = true;
  }
  for (const auto& [partition, _] : partitions) storeInto(message, slots, partition, internal_date);

  for (Slot& s : slots) {
    if (!s.claimed) continue;
    if (s.outcome.kind == Kind::kDelivered) {
      duplicates_->confirm(message_id, s.entry.unique_id);
    } else {
      duplicates_->release(message_id, s.entry.unique_id);
    }
  }
  for (size_t i = 0; i < targets.size(); ++i) {
    if (slot_of[i]) out[i] = slots[*slot_of[i]].outcome;
  }
  return out;
}

void Deliverer::storeInto(std::string_view message, std::vector<Slot>& slots,
                          const std::string& partition, int64_t internal_date) {
  auto mine = [&](const Slot& s) {
    return s.outcome.kind == Kind::kDelivered && s.entry.partition == partition;
  };
  auto fail_all = [&](const Status& st) {
    for (Slot& s : slots) {
      if (mine(s)) s.outcome = failure(st, s.name.toString());
    }
  };
  auto part = store_.partition(partition);
  if (!part.ok()) return fail_all(part.status());
  // The stage file's fsync is left to the appends (StageSync::kDeferred): the first one runs
  // it in its own round of syncs (or its filesystem sync covers it, sync_method syncfs), so
  // the message is durable before any recipient's 250, for one flush latency instead of two.
  auto staged = store_.stage(**part, message, mailbox::StageSync::kDeferred);
  if (!staged.ok()) return fail_all(staged.status());
  mailbox::AppendRequest req;
  req.message = &*staged;
  req.internal_date = internal_date;
  std::vector<Slot*> todo;
  for (Slot& s : slots) {
    if (mine(s)) todo.push_back(&s);
  }
  auto appendTo = [&](Slot* s) {
    auto appended = store_.append(s->name, std::span<const mailbox::AppendRequest>(&req, 1));
    if (!appended.ok()) s->outcome = failure(appended.status(), s->name.toString());
  };
  // Each mailbox's append waits for its own fsyncs; done one after another, a message for N
  // mailboxes would take N times as long. So up to kFanOut appends run at once (their change
  // log records then share fsyncs too), this thread taking one of each wave.
  for (size_t first = 0; first < todo.size(); first += kFanOut) {
    const size_t end = std::min(todo.size(), first + kFanOut);
    std::vector<std::future<void>> others;
    for (size_t i = first + 1; i < end; ++i) {
      try {
        others.push_back(std::async(std::launch::async, appendTo, todo[i]));
      } catch (const std::system_error&) {
        appendTo(todo[i]);  // no thread to be had: this one does it
      }
    }
    appendTo(todo[first]);
    for (auto& f : others) f.get();
  }
  // Every link is durable; the stage file is only a name now. A failed unlink leaves it for
  // the next open's cleanStageDir.
  (void)store_.unstage(*staged);
}

}  // namespace darius::lmtpd
