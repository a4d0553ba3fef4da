// The deleted area of the Store (store.h, mailbox/deleted_area.h; docs/design/expunge.md):
// listing what DELETE kept, opening it read-only, bringing it back (undelete) and removing it
// for good (phase two). The area is each partition's darius.deleted/; every folder there is a
// whole mailbox directory whose darius.header says what it was.
#include <sys/stat.h>

#include <algorithm>
#include <tuple>

#include "lib/io/path.h"
#include "lib/log/log.h"
#include "mailbox/header_file.h"
#include "mailbox/mailbox_path.h"
#include "mailbox/store.h"
#include "mailbox/store_internal.h"

namespace darius::mailbox {

using base::Result;
using base::Status;
using internal::Intent;

uint64_t internal::treeBytes(io::Env& env, const std::string& dir) {
  uint64_t total = 0;
  auto entries = env.listDir(dir);
  if (!entries.ok()) return 0;
  for (const std::string& e : *entries) {
    std::string p = dir + "/" + e;
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      total += internal::treeBytes(env, p);
    } else if (S_ISREG(st.st_mode)) {
      total += static_cast<uint64_t>(st.st_size);
    }
  }
  return total;
}

Result<std::vector<DeletedMailbox>> Store::listDeleted(const std::optional<MailboxName>& scope) {
  std::vector<DeletedMailbox> out;
  for (const Partition& p : options_.partitions) {
    auto entries = env_.listDir(p.deletedDir());
    if (!entries.ok()) {
      if (entries.status().code() == base::Code::kNotFound) continue;
      return entries.status();
    }
    for (const std::string& e : *entries) {
      auto parsed = parseDeletedEntryName(e);
      if (!parsed) continue;
      std::string dir = p.deletedDir() + "/" + e;
      auto h = readMailboxHeader(env_, dir);
      if (!h.ok() || h->unique_id != parsed->unique_id) continue;
      auto name = MailboxName::parse(h->name);
      if (!name.ok()) {
        log::warning("deleted area: {}: bad name in its header: {}", dir,
                     name.status().toString());
        continue;
      }
      if (scope && !scope->contains(*name)) continue;
      DeletedMailbox d{.name = std::move(*name),
                       .partition = p.name,
                       .entry = e,
                       .dir = std::move(dir),
                       .unique_id = parsed->unique_id,
                       .deleted_at = parsed->deleted_at,
                       .deleted_ns = parsed->deleted_ns,
                       .uidvalidity = h->uidvalidity,
                       .acl = h->acl};
      out.push_back(std::move(d));
    }
  }
  std::sort(out.begin(), out.end(), [](const DeletedMailbox& a, const DeletedMailbox& b) {
    return std::tie(a.deleted_at, a.deleted_ns, a.unique_id) <
           std::tie(b.deleted_at, b.deleted_ns, b.unique_id);
  });
  // Ordinals count every folder of a name, whatever the scope: a scope is always a subtree,
  // which holds all folders of each name in it.
  numberDeleted(out);
  return out;
}

Result<OpenMailbox> Store::openDeleted(const DeletedMailbox& deleted, bool expunged_view) {
  auto h = readMailboxHeader(env_, deleted.dir);
  if (!h.ok() || h->unique_id != deleted.unique_id) {
    return Status::notFound(deleted.name.toString() + ": no longer in the deleted area");
  }
  // Opened as any mailbox first, so that a damaged index is rebuilt from the message files
  // (reconstruct) as it would be for a live one.
  DARIUS_RETURN_IF_ERROR(openDir(deleted.dir, deleted.partition).status());
  OpenMailbox out;
  out.entry.unique_id = deleted.unique_id;
  out.entry.partition = deleted.partition;
  out.entry.uidvalidity = h->uidvalidity;
  out.entry.acl = h->acl;
  if (expunged_view) {
    DARIUS_ASSIGN_OR_RETURN(out.mailbox, Mailbox::openExpungedView(env_, deleted.dir));
  } else {
    DARIUS_ASSIGN_OR_RETURN(out.mailbox, Mailbox::openReadOnly(env_, deleted.dir));
  }
  return out;
}

Result<MailboxEntry> Store::undelete(const DeletedMailbox& deleted, const MailboxName& to) {
  DARIUS_ASSIGN_OR_RETURN(io::FileLock ns, lockNamespace());
  DARIUS_RETURN_IF_ERROR(recoverLocked());
  auto h = readMailboxHeader(env_, deleted.dir);
  if (!h.ok() || h->unique_id != deleted.unique_id) {
    return Status::notFound(deleted.name.toString() + ": no longer in the deleted area");
  }
  auto existing = list_->lookup(to);
  if (existing.ok()) return Status::exists(to.toString() + ": mailbox exists");
  if (existing.status().code() != base::Code::kNotFound) return existing.status();
  if (to.length() > list_->options().max_name_length) {
    return Status::tooBig(to.toString() + ": mailbox name too long");
  }
  DARIUS_ASSIGN_OR_RETURN(const Partition* p, partition(deleted.partition));
  DARIUS_ASSIGN_OR_RETURN(std::string dir, mailboxDir(p->root, to));
  DARIUS_ASSIGN_OR_RETURN(bool taken, env_.fileExists(dir + "/" + std::string(kHeaderFileName)));
  if (taken) {
    return Status::exists(to.toString() + ": a mailbox directory exists at " + dir +
                          " but is not listed; run `darius reconstruct`");
  }
  // What it will charge its new quota root: opened (settled) as any count is.
  QuotaUsage charge;
  {
    DARIUS_ASSIGN_OR_RETURN(std::unique_ptr<Mailbox> m, openDir(deleted.dir, deleted.partition));
    charge = quotaCharge(m->index());
  }
  DARIUS_ASSIGN_OR_RETURN(std::optional<RootHold> held, lockRootOf(to, /*ns_held=*/true));
  if (held) {
    if (auto over = wouldExceed(held->limits, held->usage, charge)) {
      return Status::overQuota("quota root " + held->root.toString() + ": " +
                               std::string(quotaResourceName(*over)) + " limit reached");
    }
    DARIUS_RETURN_IF_ERROR(held->hold.begin(held->usage + charge));
  }
  Intent in;
  in.op = Intent::Op::kUndelete;
  in.name = to.toString();
  in.unique_id = deleted.unique_id;
  in.partition = deleted.partition;
  in.target = deleted.entry;
  DARIUS_ASSIGN_OR_RETURN(std::string intent, writeIntent(in));
  // Rolls forward like recovery would: a failed step stays in the intent for the next pass.
  DARIUS_RETURN_IF_ERROR(applyIntent(in, /*recovering=*/false));
  DARIUS_RETURN_IF_ERROR(removeIntent(intent));
  DARIUS_ASSIGN_OR_RETURN(MailboxEntry entry, list_->lookup(to));
  // For replication and IDLE the folder is new here: a create with its old unique id.
  ChangeRecord r;
  r.type = ChangeType::kCreate;
  r.mailbox_id = entry.unique_id;
  r.name = to.toString();
  logNamespaceChange(p->name, r);
  if (held) held->finish(true, false, held->usage + charge);
  log::notice("store: undeleted {} ({}) as {}", deleted.name.toString(), deleted.entry,
              to.toString());
  return entry;
}

Status internal::finishUndelete(Store& store, const Intent& in, bool recovering) {
  DARIUS_ASSIGN_OR_RETURN(MailboxName to, MailboxName::parse(in.name));
  DARIUS_ASSIGN_OR_RETURN(const Partition* p, store.partition(in.partition));
  const std::string from = p->deletedDir() + "/" + in.target;
  DARIUS_ASSIGN_OR_RETURN(std::string dir, mailboxDir(p->root, to));
  auto idAt = [&](const std::string& d) {
    auto h = readMailboxHeader(store.env(), d);
    return h.ok() ? h->unique_id : std::string();
  };
  // (1) The directory comes back: one rename(2) when nothing is at the target, else its
  // files are moved into the plain directory that holds the children it left, darius.header
  // last, so that wherever the header is, everything before it has moved.
  if (idAt(from) == in.unique_id) {
    const std::string there = idAt(dir);
    if (!there.empty() && there != in.unique_id) {
      if (!recovering) return Status::exists(in.name + ": another mailbox is in " + dir);
      // Only a hand edit or reconstruct gets here (every writer finishes intents first): the
      // folder stays in the deleted area rather than block every namespace operation.
      log::error("undelete of {} as {}: another mailbox is in {}; left in the deleted area",
                 in.target, in.name, dir);
      return Status::ok();
    }
    // Its lock is held so that no reader of the deleted view is half-way through a read of a
    // file that moves.
    DARIUS_ASSIGN_OR_RETURN(auto locks, internal::lockMailboxDirs(store.env(), {from}));
    DARIUS_ASSIGN_OR_RETURN(bool target_exists, store.env().fileExists(dir));
    if (!target_exists) {
      DARIUS_RETURN_IF_ERROR(internal::mergeMove(store.env(), from, dir));
    } else {
      DARIUS_RETURN_IF_ERROR(internal::moveOwnFiles(store.env(), from, dir));
    }
  }
  if (idAt(dir) != in.unique_id) return Status::ok();  // gone before it started: nothing to do
  // What moveOwnFiles leaves: the emptied directory (a lock file at most, which a reader of
  // the view may have made again).
  DARIUS_ASSIGN_OR_RETURN(bool left, store.env().fileExists(from));
  if (left) {
    DARIUS_RETURN_IF_ERROR(io::removeTree(store.env(), from));
    DARIUS_RETURN_IF_ERROR(store.env().syncDir(p->deletedDir()));
  }
  // (2) Its header takes the new name (reconstruct lists it from there).
  {
    DARIUS_ASSIGN_OR_RETURN(auto locks, internal::lockMailboxDirs(store.env(), {dir}));
    DARIUS_ASSIGN_OR_RETURN(MailboxHeader h, readMailboxHeader(store.env(), dir));
    if (h.name != in.name) {
      h.name = in.name;
      DARIUS_RETURN_IF_ERROR(writeMailboxHeader(store.env(), dir, h));
    }
  }
  // (3) The list entry, last: until it is there no session can reach the folder.
  auto listed = store.list().lookup(to);
  if (listed.ok()) return Status::ok();
  if (listed.status().code() != base::Code::kNotFound) return listed.status();
  DARIUS_ASSIGN_OR_RETURN(MailboxHeader h, readMailboxHeader(store.env(), dir));
  MailboxEntry e;
  e.unique_id = in.unique_id;
  e.partition = in.partition;
  e.acl = h.acl;
  e.uidvalidity = h.uidvalidity;
  e.created_modseq = 1;
  if (to.isInbox()) e.quota_root = to.toString();
  return store.list().insert(to, e);
}

Result<uint64_t> Store::purgeDeleted(const DeletedMailbox& deleted) {
  const std::string purging = deleted.dir + std::string(internal::kPurgingSuffix);
  {
    // Under the namespace lock: an undelete of the same folder either finished first (the
    // header is gone from here) or finds nothing.
    DARIUS_ASSIGN_OR_RETURN(io::FileLock ns, lockNamespace());
    // An undelete a failure cut short is finished first: its folder is wanted back.
    DARIUS_RETURN_IF_ERROR(recoverLocked());
    auto h = readMailboxHeader(env_, deleted.dir);
    if (!h.ok() || h->unique_id != deleted.unique_id) {
      return Status::notFound(deleted.name.toString() + ": no longer in the deleted area");
    }
    DARIUS_RETURN_IF_ERROR(env_.renameFile(deleted.dir, purging));
    DARIUS_RETURN_IF_ERROR(env_.syncDir(io::parentDir(deleted.dir)));
  }
  const uint64_t bytes = internal::treeBytes(env_, purging);
  DARIUS_RETURN_IF_ERROR(io::removeTree(env_, purging));
  DARIUS_RETURN_IF_ERROR(env_.syncDir(io::parentDir(purging)));
  return bytes;
}

}  // namespace darius::mailbox
