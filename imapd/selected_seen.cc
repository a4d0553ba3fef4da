// SelectedMailbox, per-user \Seen (selected.h, mailbox/seen_db.h): the user's seen state as
// the view holds it, and \Seen changes through it.
#include <ctime>

#include "imapd/selected.h"

namespace darius::imapd {

using base::Result;
using base::Status;

Status SelectedMailbox::loadSeen() {
  if (seen_db_ == nullptr) return Status::ok();
  DARIUS_ASSIGN_OR_RETURN(seen_, seen_db_->get(seen_user_, mailbox_->header().unique_id));
  return Status::ok();
}

void SelectedMailbox::applyView(mailbox::IndexRecord& r) const {
  if (seen_db_ != nullptr) seen_.apply(r);
}

Result<mailbox::SeenUpdate> SelectedMailbox::storeSeen(std::span<const uint32_t> uids, bool seen,
                                                       const mailbox::SeenUpdateOptions& options) {
  if (seen_db_ == nullptr) return Status::invalid("\\Seen of this mailbox is in its index");
  mailbox::SeenUpdateOptions o = options;
  if (o.now == 0) o.now = static_cast<int64_t>(::time(nullptr));
  DARIUS_ASSIGN_OR_RETURN(mailbox::SeenUpdate u,
                          seen_db_->update(*mailbox_, seen_user_, uids, seen, o));
  // Read under the mailbox lock, so at least as new as the state the view had: taking it
  // only shows later changes earlier (the next refresh reports them as usual).
  seen_ = u.state;
  return u;
}

}  // namespace darius::imapd
