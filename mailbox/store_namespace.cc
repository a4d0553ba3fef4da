// Store namespace operations: create, delete, rename and entry updates. Each runs under the
// namespace lock, after finishing whatever a crash left (store.h), and is written down as an
// intent before its first step (docs/formats/intents.md).
#include <ctime>
#include <functional>
#include <vector>

#include "lib/io/path.h"
#include "lib/log/log.h"
#include "mailbox/acl.h"
#include "mailbox/header_file.h"
#include "mailbox/mailbox_path.h"
#include "mailbox/store.h"
#include "mailbox/store_internal.h"

namespace darius::mailbox {

using base::Result;
using base::Status;
using internal::Intent;

Result<const Partition*> Store::partitionFor(const MailboxName& name,
                                             const CreateOptions& options) {
  if (!options.partition.empty()) return partition(options.partition);
  // A child lives with its nearest listed ancestor, so that a user's folders share the
  // INBOX's partition and a rename of the user moves one directory tree.
  for (auto up = name.parent(); up; up = up->parent()) {
    auto e = list_->lookup(*up);
    if (e.ok()) return partition(e->partition);
    if (e.status().code() != base::Code::kNotFound) return e.status();
  }
  return &defaultPartition();
}

Result<MailboxEntry> Store::create(const MailboxName& name, const CreateOptions& options) {
  DARIUS_ASSIGN_OR_RETURN(io::FileLock ns, lockNamespace());
  DARIUS_RETURN_IF_ERROR(recoverLocked());
  auto existing = list_->lookup(name);
  if (existing.ok()) return Status::exists(name.toString() + ": mailbox exists");
  if (existing.status().code() != base::Code::kNotFound) return existing.status();
  if (name.length() > list_->options().max_name_length) {
    return Status::tooBig(name.toString() + ": mailbox name too long");
  }
  DARIUS_ASSIGN_OR_RETURN(const Partition* p, partitionFor(name, options));
  DARIUS_ASSIGN_OR_RETURN(std::string dir, mailboxDir(p->root, name));

  // RFC 9208 §5.3: a new mailbox counts against its root's MAILBOX limit, checked and counted
  // under the root's lock; a crash before finish() leaves the record pending (recounted).
  DARIUS_ASSIGN_OR_RETURN(std::optional<RootHold> held, lockRootOf(name, /*ns_held=*/true));
  QuotaUsage one;
  one[QuotaResource::kMailbox] = 1;
  if (held) {
    if (auto over = wouldExceed(held->limits, held->usage, one)) {
      return Status::overQuota("quota root " + held->root.toString() + ": " +
                               std::string(quotaResourceName(*over)) + " limit reached");
    }
    DARIUS_RETURN_IF_ERROR(held->hold.begin(held->usage + one));
  }

  MailboxEntry entry;
  entry.unique_id = newUniqueId();
  entry.partition = p->name;
  entry.acl = options.acl;
  entry.quota_root = options.quota_root;
  entry.special_use = options.special_use;
  entry.created_modseq = 1;
  DARIUS_RETURN_IF_ERROR(validateEntry(entry));

  Intent in;
  in.op = Intent::Op::kCreate;
  in.name = name.toString();
  in.unique_id = entry.unique_id;
  in.partition = p->name;
  // The new UIDVALIDITY and the intent are independent files, each durable before anything
  // uses it: their flushes run at once.
  std::string intent;
  std::vector<std::function<Status()>> first = {
      [&] {
        auto v = newUidValidity();
        if (!v.ok()) return v.status();
        entry.uidvalidity = *v;
        return Status::ok();
      },
      [&] {
        auto written = writeIntent(in);
        if (!written.ok()) return written.status();
        intent = std::move(*written);
        return Status::ok();
      },
  };
  if (Status s = env_.runConcurrently(first); !s.isOk()) {
    if (!intent.empty()) (void)removeIntent(intent);
    return s;
  }
  // Roll back (as recovery would) and forget the intent when a step fails.
  auto fail = [&](Status why) -> Status {
    Status undo = applyIntent(in, /*recovering=*/true);
    if (undo.isOk()) undo = removeIntent(intent);
    return undo.isOk() ? why : Status(why.code(), why.message() + "; undo: " + undo.message());
  };

  Status s = io::createDirs(env_, io::parentDir(dir));
  if (!s.isOk()) return fail(s);
  MailboxHeader header;
  header.unique_id = entry.unique_id;
  header.name = name.toString();
  header.uidvalidity = entry.uidvalidity;
  header.acl = entry.acl;
  auto m = Mailbox::create(env_, dir, header);
  if (!m.ok()) {
    if (m.status().code() == base::Code::kExists) {
      // A mailbox directory the list does not know: the list lost it. Reconstruct finds it.
      (void)removeIntent(intent);
      return Status::exists(name.toString() + ": a mailbox directory exists at " + dir +
                            " but is not listed; run `darius reconstruct`");
    }
    return fail(m.status());
  }
  s = list_->insert(name, entry);
  if (!s.isOk()) return fail(s);
  // No directory sync for this removal: a create intent that outlives a crash finds its
  // mailbox listed under its unique id and does nothing (finishCreate), whatever came after.
  DARIUS_RETURN_IF_ERROR(removeIntent(intent, /*durable=*/false));
  ChangeRecord r;
  r.type = ChangeType::kCreate;
  r.mailbox_id = entry.unique_id;
  r.name = name.toString();
  logNamespaceChange(p->name, r);
  if (held) held->finish(true, false, held->usage + one);
  return entry;
}

Status Store::ensureInbox(const MailboxName& inbox) {
  if (!inbox.isInbox()) return Status::invalid(inbox.toString() + " is not an INBOX");
  auto e = list_->lookup(inbox);
  if (e.ok()) return Status::ok();
  if (e.status().code() != base::Code::kNotFound) return e.status();
  CreateOptions o;
  o.acl = Acl::ownerDefault(inbox.userId()).toString();
  o.quota_root = inbox.toString();
  auto made = create(inbox, o);
  if (!made.ok() && made.status().code() != base::Code::kExists) return made.status();
  return Status::ok();
}

Status Store::remove(const MailboxName& name) {
  DARIUS_ASSIGN_OR_RETURN(std::optional<DeletedMailbox> kept, removeLocked(name));
  if (!kept) return Status::ok();
  if (options_.keep_deleted) {
    if (delete_observer_) delete_observer_(name);
    return Status::ok();
  }
  // delete_mode immediate: phase two at once, out of the namespace lock (a big folder takes a
  // while to unlink). A cut here leaves the folder in the area for the next expire.
  auto gone = purgeDeleted(*kept);
  if (!gone.ok()) {
    log::warning("store: delete of {}: removing its files: {}", name.toString(),
                 gone.status().toString());
  }
  return Status::ok();
}

Result<std::optional<DeletedMailbox>> Store::removeLocked(const MailboxName& name) {
  DARIUS_ASSIGN_OR_RETURN(io::FileLock ns, lockNamespace());
  DARIUS_RETURN_IF_ERROR(recoverLocked());
  DARIUS_ASSIGN_OR_RETURN(MailboxEntry entry, list_->lookup(name));
  DARIUS_ASSIGN_OR_RETURN(const Partition* p, partition(entry.partition));
  DARIUS_ASSIGN_OR_RETURN(std::string dir, mailboxDir(p->root, name));
  DARIUS_ASSIGN_OR_RETURN(bool children, internal::hasChildDirs(env_, dir));
  // The mailbox and its messages leave its root (DESIGN.md §3: the deleted area is out of
  // quota). Nothing can change them meanwhile: appends and expunges need the root's lock.
  DARIUS_ASSIGN_OR_RETURN(std::optional<RootHold> held, lockRootOf(name, /*ns_held=*/true));
  QuotaUsage gone;
  if (held) {
    DARIUS_ASSIGN_OR_RETURN(gone, chargeOfLocked(name, entry));
    DARIUS_RETURN_IF_ERROR(held->hold.begin(held->usage - gone));
  }

  Intent in;
  in.op = Intent::Op::kDelete;
  in.name = name.toString();
  in.unique_id = entry.unique_id;
  in.partition = p->name;
  // Unique id and time: the same name deleted twice in one second gets two places (DESIGN.md
  // §8), and `darius expire` can tell the age from the name.
  struct timespec now {};
  ::clock_gettime(CLOCK_REALTIME, &now);
  in.target = deletedEntryName(now.tv_sec, now.tv_nsec, entry.unique_id);
  in.own_files_only = children;
  {
    // Undelete restores the ACL from the header's copy: make sure it is the list's (a crash
    // between updateEntry's two writes may have left it older).
    DARIUS_ASSIGN_OR_RETURN(auto locks, internal::lockMailboxDirs(env_, {dir}));
    auto h = readMailboxHeader(env_, dir);
    if (h.ok() && h->acl != entry.acl) {
      h->acl = entry.acl;
      DARIUS_RETURN_IF_ERROR(writeMailboxHeader(env_, dir, *h));
    }
  }
  DARIUS_ASSIGN_OR_RETURN(std::string intent, writeIntent(in));
  DARIUS_RETURN_IF_ERROR(applyIntent(in, /*recovering=*/false));
  DARIUS_RETURN_IF_ERROR(removeIntent(intent));
  ChangeRecord r;
  r.type = ChangeType::kDelete;
  r.mailbox_id = entry.unique_id;
  r.name = name.toString();
  logNamespaceChange(p->name, r);
  if (held) held->finish(true, false, held->usage - gone);
  auto parsed = parseDeletedEntryName(in.target);
  DeletedMailbox kept{.name = name,
                      .partition = p->name,
                      .entry = in.target,
                      .dir = p->deletedDir() + "/" + in.target,
                      .unique_id = entry.unique_id,
                      .deleted_at = parsed ? parsed->deleted_at : 0,
                      .deleted_ns = parsed ? parsed->deleted_ns : 0,
                      .uidvalidity = entry.uidvalidity,
                      .acl = entry.acl};
  return std::optional<DeletedMailbox>(std::move(kept));
}

Result<std::vector<RenamedMailbox>> Store::rename(const MailboxName& from, const MailboxName& to) {
  DARIUS_ASSIGN_OR_RETURN(io::FileLock ns, lockNamespace());
  DARIUS_RETURN_IF_ERROR(recoverLocked());
  if (from == to || from.contains(to)) {
    return Status::invalid("cannot rename " + from.toString() + " into itself");
  }
  DARIUS_ASSIGN_OR_RETURN(MailboxEntry entry, list_->lookup(from));
  auto at_to = list_->lookup(to);
  if (at_to.ok()) return Status::exists(to.toString() + ": mailbox exists");
  if (at_to.status().code() != base::Code::kNotFound) return at_to.status();

  // Everything that moves, and a check that each new name and directory can exist, before
  // the first step: a step that cannot succeed would otherwise be retried by every recovery.
  std::vector<RenamedMailbox> moves;
  Status inner = Status::ok();
  DARIUS_RETURN_IF_ERROR(list_->listSubtree(from, [&](const MailboxName& n,
                                                      const MailboxEntry& e) {
    auto nn = n.rebased(from, to);
    if (!nn.ok()) {
      inner = nn.status();
      return false;
    }
    if (nn->length() > list_->options().max_name_length) {
      inner = Status::tooBig(nn->toString() + ": mailbox name too long");
      return false;
    }
    auto dir = directoryOf(*nn, e);
    if (!dir.ok()) {
      inner = dir.status();
      return false;
    }
    moves.push_back({n, *nn, e});
    return true;
  }));
  DARIUS_RETURN_IF_ERROR(inner);
  for (const RenamedMailbox& m : moves) {
    auto clash = list_->lookup(m.to);
    if (clash.ok()) return Status::exists(m.to.toString() + ": mailbox exists");
  }
  // Across quota roots: every root involved locked, the move checked against the roots it
  // enters, all pending until recounted after the move (store_quota.cc).
  DARIUS_ASSIGN_OR_RETURN(std::vector<RootHold> roots, lockRootsForRename(from, to, moves));

  Intent in;
  in.op = Intent::Op::kRename;
  in.name = from.toString();
  in.to = to.toString();
  in.unique_id = entry.unique_id;
  DARIUS_ASSIGN_OR_RETURN(std::string intent, writeIntent(in));
  DARIUS_RETURN_IF_ERROR(applyIntent(in, /*recovering=*/false));
  DARIUS_RETURN_IF_ERROR(removeIntent(intent));
  recountAfterRename(roots);
  for (const RenamedMailbox& m : moves) {
    ChangeRecord r;
    r.type = ChangeType::kRename;
    r.mailbox_id = m.entry.unique_id;
    r.old_name = m.from.toString();
    r.name = m.to.toString();
    logNamespaceChange(m.entry.partition, r);
  }
  return moves;
}

Status Store::updateEntry(const MailboxName& name, const MailboxEntry& entry) {
  DARIUS_ASSIGN_OR_RETURN(io::FileLock ns, lockNamespace());
  DARIUS_ASSIGN_OR_RETURN(MailboxEntry old, list_->lookup(name));
  if (old.unique_id != entry.unique_id || old.partition != entry.partition ||
      old.uidvalidity != entry.uidvalidity) {
    return Status::invalid(name.toString() + ": unique id, partition and UIDVALIDITY are fixed");
  }
  DARIUS_RETURN_IF_ERROR(list_->update(name, entry));
  if (old.acl == entry.acl) return Status::ok();
  // The header keeps a copy of the ACL so reconstruct can rebuild the list.
  DARIUS_ASSIGN_OR_RETURN(std::string dir, directoryOf(name, entry));
  DARIUS_ASSIGN_OR_RETURN(auto locks, internal::lockMailboxDirs(env_, {dir}));
  DARIUS_ASSIGN_OR_RETURN(MailboxHeader h, readMailboxHeader(env_, dir));
  h.acl = entry.acl;
  return writeMailboxHeader(env_, dir, h);
}

}  // namespace darius::mailbox
