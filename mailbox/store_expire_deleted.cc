// Store::expireDeleted (store.h, docs/design/expunge.md): phase two of two-phase delete. The
// same Hermes policy as for expunged messages, on the owner's deleted folders: each folder is
// one held item, its size what its files take on disk and its time the DELETE's. A folder is
// removed whole (Store::purgeDeleted), never in part.
#include <map>

#include "lib/io/path.h"
#include "lib/log/log.h"
#include "mailbox/store.h"
#include "mailbox/store_internal.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

namespace {

std::string ownerOf(const MailboxName& name) {
  return name.isPersonal() ? name.userId() : name.toString();
}

}  // namespace

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
        if (!s.isOk()) log::warning("expire: finishing the removal of {}: {}", dir, s.toString());
      }
    }
  }
  DARIUS_ASSIGN_OR_RETURN(std::vector<DeletedMailbox> all, listDeleted(scope));
  std::map<std::string, std::vector<const DeletedMailbox*>> owners;
  for (const DeletedMailbox& d : all) owners[ownerOf(d.name)].push_back(&d);
  std::vector<ExpireOutcome> out;
  for (auto& [owner, folders] : owners) {
    if (options.stop && options.stop()) break;
    ExpireOutcome o;
    o.owner = owner;
    std::vector<HeldMessage> held;
    for (size_t i = 0; i < folders.size(); ++i) {
      const uint64_t bytes = internal::treeBytes(env_, folders[i]->dir);
      // A DELETE is always timed (its entry's name): never 0, which means "age unknown".
      held.push_back({i, 0, bytes, std::max<int64_t>(folders[i]->deleted_at, 1)});
      o.held_messages += 1;
      o.held_bytes += bytes;
    }
    for (size_t p : planExpire(held, options.deleted_policy, options.now, options.everything)) {
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
