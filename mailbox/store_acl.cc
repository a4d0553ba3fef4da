// Store::editAcl: the one way an ACL entry changes after a mailbox is created (IMAP SETACL
// and DELETEACL, `darius acl`). Runs under the namespace lock, so two editors in any two
// processes never lose each other's change (each reads the ACL the other wrote); the list
// entry and the header's copy are written before it returns, and the change is appended to
// the partition's change log as kAcl (identifier, new rights, "" when removed), which is how
// replicas and other processes learn of it. IMAP sessions read the list entry at every
// command, so they see the new rights at once; a selected mailbox keeps the rights it was
// selected with (RFC 4314 §5.1.1 allows that).
#include <algorithm>

#include "lib/log/log.h"
#include "mailbox/acl.h"
#include "mailbox/header_file.h"
#include "mailbox/store.h"
#include "mailbox/store_internal.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

Result<Acl> Store::editAcl(const MailboxName& name, std::string_view identifier,
                           const RightsChange& change) {
  if (identifier.empty() || identifier == "-" ||
      identifier.find_first_of(std::string_view("\t\r\n\0", 4)) != std::string_view::npos) {
    return Status::invalid("invalid ACL identifier");
  }
  DARIUS_ASSIGN_OR_RETURN(io::FileLock ns, lockNamespace());
  DARIUS_RETURN_IF_ERROR(recoverLocked());
  DARIUS_ASSIGN_OR_RETURN(MailboxEntry entry, list_->lookup(name));
  if ((entry.flags & MailboxEntry::kDeleted) != 0) {
    return Status::notFound(name.toString() + ": no such mailbox");
  }
  // A damaged ACL grants only the implicit rights (effectiveRights); an edit replaces it
  // with what the edit leaves, which grants no more than the edit says.
  auto parsed = Acl::parse(entry.acl);
  if (!parsed.ok()) {
    log::warning("ACL of {} is damaged ({}); the edit starts from an empty ACL",
                 name.toString(), parsed.status().toString());
  }
  Acl acl = parsed.ok() ? std::move(*parsed) : Acl();
  const Rights before = acl.get(identifier);
  const Rights after = change.applyTo(before);
  const bool present = std::any_of(acl.entries().begin(), acl.entries().end(),
                                   [&](const AclEntry& e) { return e.identifier == identifier; });
  if (parsed.ok() && before == after && (present || after == 0)) return acl;  // nothing to do
  acl.set(identifier, after);
  entry.acl = acl.toString();
  DARIUS_RETURN_IF_ERROR(validateEntry(entry));
  DARIUS_RETURN_IF_ERROR(list_->update(name, entry));
  // The header keeps a copy of the ACL so reconstruct can rebuild the list (updateEntry's
  // rule). A crash between the two writes leaves the list's newer ACL in force and the
  // header's older copy, which only a reconstruct from scratch would read.
  DARIUS_ASSIGN_OR_RETURN(std::string dir, directoryOf(name, entry));
  {
    DARIUS_ASSIGN_OR_RETURN(auto locks, internal::lockMailboxDirs(env_, {dir}));
    DARIUS_ASSIGN_OR_RETURN(MailboxHeader h, readMailboxHeader(env_, dir));
    h.acl = entry.acl;
    DARIUS_RETURN_IF_ERROR(writeMailboxHeader(env_, dir, h));
  }
  ChangeRecord r;
  r.type = ChangeType::kAcl;
  r.mailbox_id = entry.unique_id;
  r.identifier = std::string(identifier);
  r.rights = rightsToString(after);
  logNamespaceChange(entry.partition, r);
  return acl;
}

}  // namespace darius::mailbox
