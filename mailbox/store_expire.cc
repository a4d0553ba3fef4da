// Store::expire (store.h, mailbox/expire.h): phase two of two-phase expunge over an owner's
// mailboxes. The plan needs every mailbox's expunged records at once (the policy is per
// owner), so they are read first, then each mailbox that loses something is purged on its
// own: at no time is more than one mailbox locked, and each only for its rename step.
//
// Each owner gets its own effective policy: the caller's global default overlaid by the
// owner's record in expire_policies.db. Tidying rides along: a mailbox whose live index still
// holds expunged records is compacted afterwards (their cache records are the cache's dead
// space), so the nightly pass leaves every mailbox it saw as small as the compact policy
// allows.
#include <map>

#include "lib/log/log.h"
#include "mailbox/store.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

namespace {

struct Owned {
  std::vector<MailboxName> mailboxes;
};

std::string ownerOf(const MailboxName& name) {
  return name.isPersonal() ? name.userId() : name.toString();
}

}  // namespace

Result<std::vector<ExpireOutcome>> Store::expire(const std::optional<MailboxName>& scope,
                                                 const ExpireOptions& options) {
  std::map<std::string, Owned> owners;
  std::optional<MailboxName> only;
  if (scope && options.owner_only) only = expireOwnerOf(*scope);
  auto add = [&](const MailboxName& name, const MailboxEntry& entry) {
    if ((entry.flags & (MailboxEntry::kDeleted | MailboxEntry::kNoSelect)) == 0 &&
        (!only || expireOwnerOf(name) == *only)) {
      owners[ownerOf(name)].mailboxes.push_back(name);
    }
    return true;
  };
  if (scope) {
    DARIUS_RETURN_IF_ERROR(list_->listSubtree(*scope, add));
  } else {
    DARIUS_RETURN_IF_ERROR(list_->forEach(add));
  }
  std::vector<ExpireOutcome> out;
  for (auto& [owner, owned] : owners) {
    if (options.stop && options.stop()) break;
    ExpireOutcome o;
    o.owner = owner;
    const MailboxName owner_name = expireOwnerOf(owned.mailboxes.front());
    o.owner_name = owner_name.toString();
    o.policy = options.policy;
    if (!options.ignore_overrides) {
      auto p = expire_policies_->effective(owner_name, ExpireArea::kExpunged, options.policy);
      if (p.ok()) {
        o.policy = *p;
      } else {
        // A damaged override must not stop the owner's expire; the default is documented.
        log::warning("expire: {}: policy override: {}; using the default", owner,
                     p.status().toString());
      }
    }
    std::vector<HeldMessage> held;
    std::vector<size_t> uncompacted;  // index still counts expunged records: worth compacting
    for (size_t i = 0; i < owned.mailboxes.size(); ++i) {
      auto m = openMailbox(owned.mailboxes[i]);
      if (!m.ok()) {
        log::warning("expire: {}: {}", owned.mailboxes[i].toString(), m.status().toString());
        continue;
      }
      if (m->mailbox->index().num_expunged > 0) uncompacted.push_back(i);
      auto records = m->mailbox->expungedRecords();
      if (!records.ok()) {
        log::warning("expire: {}: {}", owned.mailboxes[i].toString(),
                     records.status().toString());
        continue;
      }
      for (const IndexRecord& r : *records) {
        held.push_back({i, r.uid, r.size, r.expunged_at});
        o.held_messages += 1;
        o.held_bytes += r.size;
      }
    }
    std::vector<size_t> plan = planExpire(held, o.policy, options.now, options.everything);
    std::map<size_t, std::vector<uint32_t>> by_mailbox;
    for (size_t p : plan) by_mailbox[held[p].mailbox].push_back(held[p].uid);
    for (auto& [i, uids] : by_mailbox) {
      const MailboxName& name = owned.mailboxes[i];
      ExpireOutcome::PerMailbox pm{name.toString(), 0, 0};
      if (options.dry_run) {
        for (size_t p : plan) {
          if (held[p].mailbox == i) {
            pm.removed += 1;
            pm.bytes += held[p].size;
          }
        }
      } else {
        auto m = openMailbox(name);
        auto purged = m.ok() ? m->mailbox->purgeExpunged(uids)
                             : Result<Mailbox::Purged>(m.status());
        if (!purged.ok()) {
          log::warning("expire: {}: {}", name.toString(), purged.status().toString());
          continue;
        }
        pm.removed = purged->messages;
        pm.bytes = purged->bytes;
      }
      if (pm.removed == 0) continue;
      o.removed_messages += pm.removed;
      o.removed_bytes += pm.bytes;
      o.mailboxes.push_back(std::move(pm));
    }
    if (options.compact && !options.dry_run) {
      for (size_t i : uncompacted) {
        // The purge above may have compacted it already (its records were in the index).
        auto m = openMailbox(owned.mailboxes[i]);
        if (!m.ok() || m->mailbox->index().num_expunged == 0) continue;
        if (Status c = m->mailbox->compact(); !c.isOk()) {
          log::warning("expire: compacting {}: {}", owned.mailboxes[i].toString(), c.toString());
          continue;
        }
        o.compacted_mailboxes += 1;
      }
    }
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace darius::mailbox
