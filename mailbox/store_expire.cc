// Store::expire (store.h, mailbox/expire.h): phase two of two-phase expunge over an owner's
// mailboxes. The plan needs every mailbox's expunged records at once (the policy is per
// owner), so they are read first, then each mailbox that loses something is purged on its
// own: at no time is more than one mailbox locked, and each only for its rename step.
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
  auto add = [&](const MailboxName& name, const MailboxEntry& entry) {
    if ((entry.flags & (MailboxEntry::kDeleted | MailboxEntry::kNoSelect)) == 0) {
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
    std::vector<HeldMessage> held;
    for (size_t i = 0; i < owned.mailboxes.size(); ++i) {
      auto m = openMailbox(owned.mailboxes[i]);
      if (!m.ok()) {
        log::warning("expire: {}: {}", owned.mailboxes[i].toString(), m.status().toString());
        continue;
      }
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
    std::vector<size_t> plan = planExpire(held, options.policy, options.now, options.everything);
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
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace darius::mailbox
