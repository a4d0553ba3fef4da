#include "pop3d/maildrop.h"

#include "lib/io/env.h"
#include "lib/io/path.h"

namespace darius::pop3d {

using base::Result;
using base::Status;

Result<UidlFormat> parseUidlFormat(std::string_view name) {
  if (name == "uidvalidity.uid") return UidlFormat::kUidvalidityUid;
  if (name == "uid") return UidlFormat::kUid;
  if (name == "guid") return UidlFormat::kGuid;
  return Status::invalid("pop3_uidl_format: unknown format '" + std::string(name) + "'");
}

Result<std::unique_ptr<Maildrop>> Maildrop::open(mailbox::Store& store,
                                                 const mailbox::MailboxName& inbox,
                                                 const std::string& lock_dir, UidlFormat uidl) {
  std::unique_ptr<Maildrop> d(new Maildrop());
  d->uidl_ = uidl;
  DARIUS_RETURN_IF_ERROR(io::createDirs(*io::Env::posix(), lock_dir));
  // Keys hold NULs and may be long; their SHA-1 is a short, safe file name.
  const std::string lock_path =
      io::joinPath(lock_dir, mailbox::guidHex(mailbox::sha1Of(inbox.key())));
  auto lock = io::FileLock::acquire(lock_path, io::LockMode::kExclusive, /*wait=*/false);
  if (!lock.ok()) {
    if (lock.status().code() == base::Code::kLocked) {
      return Status::locked("maildrop of " + inbox.toString() + " is in use");
    }
    return lock.status();
  }
  d->lock_ = std::move(*lock);
  DARIUS_RETURN_IF_ERROR(store.ensureInbox(inbox));
  DARIUS_ASSIGN_OR_RETURN(mailbox::OpenMailbox opened, store.openMailbox(inbox));
  d->box_ = std::move(opened.mailbox);
  d->store_ = &store;
  d->inbox_ = inbox;
  // POP3 only ever opens the login's own INBOX: the owner's rights, admin or not (an admin's
  // implicit l and a say nothing about reading mail).
  d->rights_ = mailbox::effectiveRights(opened.entry.acl, inbox.userId(), /*is_owner=*/true,
                                        /*is_admin=*/false);
  d->uidvalidity_ = d->box_->index().uidvalidity;
  const size_t n = d->box_->recordCount();
  d->messages_.reserve(n - std::min<size_t>(n, d->box_->index().num_expunged));
  for (size_t i = 0; i < n; ++i) {
    DARIUS_ASSIGN_OR_RETURN(mailbox::IndexRecord r, d->box_->record(i));
    if (!r.live() || (r.system_flags & mailbox::kFlagDeleted) != 0) continue;
    d->messages_.push_back(Message{r.uid, r.size, r.guid, false});
    ++d->live_count_;
    d->live_size_ += r.size;
  }
  return d;
}

const Maildrop::Message* Maildrop::message(uint32_t msgno) const {
  if (msgno == 0 || msgno > messages_.size()) return nullptr;
  return &messages_[msgno - 1];
}

std::string Maildrop::uidl(const Message& m) const {
  switch (uidl_) {
    case UidlFormat::kUidvalidityUid:
      return std::to_string(uidvalidity_) + "." + std::to_string(m.uid);
    case UidlFormat::kUid:
      return std::to_string(m.uid);
    case UidlFormat::kGuid:
      return mailbox::guidHex(m.guid);
  }
  return std::to_string(m.uid);
}

bool Maildrop::dele(uint32_t msgno) {
  if (msgno == 0 || msgno > messages_.size()) return false;
  Message& m = messages_[msgno - 1];
  if (m.deleted) return false;
  m.deleted = true;
  --live_count_;
  live_size_ -= m.size;
  return true;
}

void Maildrop::rset() {
  for (Message& m : messages_) {
    if (!m.deleted) continue;
    m.deleted = false;
    ++live_count_;
    live_size_ += m.size;
  }
}

Result<size_t> Maildrop::commit() {
  std::vector<uint32_t> uids;
  for (const Message& m : messages_) {
    if (m.deleted) uids.push_back(m.uid);
  }
  if (uids.empty()) return size_t{0};
  auto expunged = store_->expunge(*inbox_, *box_, uids);
  if (!expunged.ok()) return expunged.status();
  return uids.size();
}

}  // namespace darius::pop3d
