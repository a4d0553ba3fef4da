// Store::expireDeleted (store.h, docs/design/expunge.md): phase two of two-phase delete. The
// same Hermes policy as for expunged messages, on the owner's deleted folders: each folder is
// one held item, its size what its files take on disk and its time the DELETE's. A folder is
// removed whole (Store::purgeDeleted), never in part.
#include <algorithm>
#include <map>

#include "lib/io/path.h"
#include "lib/log/log.h"
#include "mailbox/store.h"
#include "mailbox/store_internal.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

Result<std::vector<ExpireOutcome>> Store::expireDeleted(const std::optional<MailboxName>& scope,
                                                        const ExpireOptions& options) {
  if (!options.dry_run) {
    // Removals a crash cut short: their folders were already given up.
    for (const Partition& p : options_.partitions) {
      auto entries = env_.listDir(p.deletedDir());
      if (!entries.ok()) continue;
      for (const std::string& e : *entries) {
        if (!e.ends_with(internal::kPurgingSuffix)) continue;
        std::string dir = p.deletedDir() + "/" + e;
        Status s = io::removeTree(env_, dir);
        if (s.isOk()) s = env_.syncDir(p.deletedDir());
        // Another run (dariusd's and `darius expire`) may be removing it at the same time.
        if (!s.isOk() && s.code() != base::Code::kNotFound) log::warning("expire: finishing the removal of {}: {}", dir, s.toString());
      }
    }
  }
  DARIUS_ASSIGN_OR_RETURN(std::vector<DeletedMailbox> all, listDeleted(scope));
  std::map<std::string, std::vector<const DeletedMailbox*>> owners;
  for (const DeletedMailbox& d : all) owners[expireOwnerOf(d.name).toString()].push_back(&d);
  std::vector<ExpireOutcome> out;
  for (auto& [key, folders] : owners) {
    if (options.stop && options.stop()) break;
    const MailboxName owner = expireOwnerOf(folders[0]->name);
    ExpireOutcome o;
    o.owner = owner.isPersonal() ? owner.userId() : key;
    o.owner_name = key;
    o.policy = options.deleted_policy;
    if (!options.ignore_overrides) {
      auto effective = expirePolicies().effective(owner, ExpireArea::kDeleted,
                                                  options.deleted_policy);
      if (effective.ok()) {
        o.policy = *effective;
      } else {
        log::warning("expire: {}: its policy override: {}; the defaults apply", key,
                     effective.status().toString());
      }
    }
    std::vector<HeldMessage> held;
    for (size_t i = 0; i < folders.size(); ++i) {
      const uint64_t bytes = internal::treeBytes(env_, folders[i]->dir);
      // A DELETE is always timed (its entry's name): never 0, which means "age unknown".
      held.push_back({i, 0, bytes, std::max<int64_t>(folders[i]->deleted_at, 1)});
      o.held_messages += 1;
      o.held_bytes += bytes;
    }
    if (options.overflow_only && !options.everything && !o.policy.overflows(o.held_bytes)) {
      out.push_back(std::move(o));
      continue;
    }
    for (size_t p : planExpire(held, o.policy, options.now, options.everything)) {
      const DeletedMailbox& d = *folders[held[p].mailbox];
      uint64_t bytes = held[p].size;
      if (!options.dry_run) {
        auto gone = purgeDeleted(d);
        if (!gone.ok()) {
          log::warning("expire: deleted folder {} ({}): {}", d.name.toString(), d.entry,
                       gone.status().toString());
          continue;
        }
        bytes = *gone;
      }
      o.removed_messages += 1;
      o.removed_bytes += bytes;
      o.folders.push_back(d.name.toString() + " (" + d.partition + ":" + d.entry + ")");
    }
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace darius::mailbox
