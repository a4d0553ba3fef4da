#include "imapd/user_seen.h"

#include <algorithm>
#include <ctime>

#include "imapd/mailbox_access.h"
#include "imapd/selected.h"
#include "imapd/session.h"

namespace darius::imapd {

using base::Result;
using base::Status;

std::string seenUser(const Session& session, const mailbox::MailboxName& name) {
  if (isOwner(session, name)) return {};
  // A login that owns no mailboxes still has its own state under its login name.
  return session.userName() != nullptr ? session.userName()->userId() : session.user();
}

Result<std::vector<uint32_t>> copiedSeen(const SelectedMailbox& sel,
                                         std::span<const uint32_t> uids) {
  std::vector<uint32_t> out;
  for (uint32_t uid : uids) {
    DARIUS_ASSIGN_OR_RETURN(auto r, sel.record(uid));  // the user's view (selected.h)
    if (r && (r->system_flags & mailbox::kFlagSeen)) out.push_back(uid);
  }
  return out;
}

Status placeCopiedSeen(Session& session, SelectedMailbox& sel,
                       const mailbox::MailboxName& target, const std::vector<uint32_t>& seen_src,
                       const mailbox::CopyResult& copied, bool may_seen) {
  const std::string user = seenUser(session, target);
  if (!sel.perUserSeen() && user.empty()) return Status::ok();  // index to index: as copied
  if (copied.uids.empty()) return Status::ok();
  std::vector<uint32_t> seen_to;  // ascending: target UIDs follow source order
  std::vector<mailbox::FlagChange> index;
  for (const mailbox::CopiedUid& c : copied.uids) {
    bool seen = may_seen && std::binary_search(seen_src.begin(), seen_src.end(), c.from);
    if (seen) seen_to.push_back(c.to);
    mailbox::FlagChange f;
    f.uid = c.to;
    // The copier's index: exactly what they saw. Someone else's: the store copied the source
    // index's \Seen, which the target's owner never had.
    f.op = seen && user.empty() ? mailbox::FlagChange::Op::kAdd
                                : mailbox::FlagChange::Op::kRemove;
    f.system_flags = mailbox::kFlagSeen;
    index.push_back(std::move(f));
  }
  std::optional<mailbox::OpenMailbox> opened;
  mailbox::Mailbox* to = &sel.mailbox();
  if (target != sel.name()) {
    DARIUS_ASSIGN_OR_RETURN(opened, session.store().openMailbox(target));
    to = opened->mailbox.get();
  }
  DARIUS_RETURN_IF_ERROR(to->store(index).status());
  if (user.empty() || seen_to.empty()) return Status::ok();
  return session.store()
      .seen()
      .update(*to, user, seen_to, true, {.now = static_cast<int64_t>(::time(nullptr))})
      .status();
}

}  // namespace darius::imapd
