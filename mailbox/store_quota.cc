// Store: quota roots and their usage (docs/formats/quota.md). Root locks with trusted usage,
// recounts, the administration calls (quota, setQuota, listQuotas, recalcQuota, quotaHint),
// and rename's share of the accounting. Append, copy and expunge use lockRootOf() in
// store_append.cc; create and delete in store_namespace.cc.
//
// Lock order, everywhere: the namespace lock, then root locks (several only under the
// namespace lock, in name order), then mailbox locks. Appends, copies and expunges hold one
// root's lock and never take the namespace lock while they do; a recount needs the namespace
// lock (so that no namespace operation is half done under it), so lockRoot() lets the root go,
// takes the namespace lock and the root again.
#include <algorithm>
#include <map>

#include "lib/log/log.h"
#include "mailbox/header_file.h"
#include "mailbox/store.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

namespace {

bool selectable(const MailboxEntry& e) {
  return (e.flags & (MailboxEntry::kDeleted | MailboxEntry::kNoSelect)) == 0;
}

Status overQuotaOf(const MailboxName& root, QuotaResource r) {
  return Status::overQuota("quota root " + root.toString() + ": " +
                           std::string(quotaResourceName(r)) + " limit reached");
}

std::vector<QuotaLimit> changeLimits(const QuotaLimits& limits) {
  std::vector<QuotaLimit> out;
  for (QuotaResource r : kQuotaResources) {
    out.push_back({std::string(quotaResourceName(r)),
                   limits[r] ? static_cast<int64_t>(*limits[r]) : int64_t{-1}});
  }
  return out;
}

}  // namespace

void Store::RootHold::finish(bool ok, bool clean, const QuotaUsage& after) {
  Status s = Status::ok();
  if (ok) {
    s = hold.commit(after);
    usage = after;
  } else if (clean) {
    s = hold.commit(usage);
  } else {
    return;  // left pending: the next holder recounts
  }
  if (!s.isOk()) {
    log::warning("quota root {}: usage record not written ({}); it will be recounted",
                 root.toString(), s.toString());
  }
}

Result<Store::RootHold> Store::lockRoot(const MailboxName& root, bool ns_held) {
  const std::string key = root.toString();
  io::FileLock ns;  // taken here when a recount needs it and the caller does not hold it
  for (;;) {
    DARIUS_ASSIGN_OR_RETURN(QuotaUsageFiles::Hold hold, usage_->lock(key));
    DARIUS_ASSIGN_OR_RETURN(std::optional<QuotaLimits> limits, quotas_->get(root));
    bool stale;
    {
      std::lock_guard<std::mutex> g(stale_mu_);
      stale = stale_roots_.count(key) > 0;
    }
    if (hold.trusted() && !stale) {
      QuotaUsage u = *hold.trusted();
      return RootHold{root, limits.value_or(QuotaLimits{}), u, std::move(hold)};
    }
    if (!ns_held && !ns.held()) {
      // The namespace lock comes before any root's: let the root go, take both in order.
      { QuotaUsageFiles::Hold drop = std::move(hold); }
      DARIUS_ASSIGN_OR_RETURN(ns, lockNamespace());
      DARIUS_RETURN_IF_ERROR(recoverLocked());
      continue;  // someone may have recounted meanwhile
    }
    DARIUS_ASSIGN_OR_RETURN(QuotaUsage u, recountLocked(root));
    {
      std::lock_guard<std::mutex> g(stale_mu_);
      stale_roots_.erase(key);
    }
    DARIUS_RETURN_IF_ERROR(hold.commit(u));
    log::info("quota root {}: usage recounted ({} bytes, {} messages, {} mailboxes)", key,
              u[QuotaResource::kStorage], u[QuotaResource::kMessage], u[QuotaResource::kMailbox]);
    return RootHold{root, limits.value_or(QuotaLimits{}), u, std::move(hold)};
  }
}

Result<std::optional<Store::RootHold>> Store::lockRootOf(const MailboxName& name, bool ns_held) {
  for (;;) {
    DARIUS_ASSIGN_OR_RETURN(std::optional<MailboxName> root, quotas_->coveringRoot(name));
    if (!root) return std::optional<RootHold>();
    DARIUS_ASSIGN_OR_RETURN(RootHold h, lockRoot(*root, ns_held));
    // Coverage changes only under the old and the new root's locks (setQuota, rename), so
    // what holds now holds until we let go.
    DARIUS_ASSIGN_OR_RETURN(std::optional<MailboxName> again, quotas_->coveringRoot(name));
    if (again == root) return std::optional<RootHold>(std::move(h));
  }
}

Result<QuotaUsage> Store::chargeOfLocked(const MailboxName& name, const MailboxEntry& entry) {
  if (!selectable(entry)) return QuotaUsage{};
  DARIUS_ASSIGN_OR_RETURN(std::string dir, directoryOf(name, entry));
  // Opening settles a tail a killed writer left, so the header counted is the committed one.
  DARIUS_ASSIGN_OR_RETURN(std::unique_ptr<Mailbox> m, openDir(dir, entry.partition));
  return quotaCharge(m->index());
}

Result<QuotaUsage> Store::recountLocked(const MailboxName& root) {
  QuotaUsage total;
  DARIUS_ASSIGN_OR_RETURN(std::optional<QuotaLimits> record, quotas_->get(root));
  if (!record && !root.isInbox()) return total;  // not a root: it covers nothing
  std::vector<MailboxName> deeper;  // roots below this one take their subtrees
  DARIUS_RETURN_IF_ERROR(quotas_->scanSubtree(root, /*strict=*/true,
                                              [&](const MailboxName& n, const QuotaLimits&) {
                                                deeper.push_back(n);
                                                return true;
                                              }));
  std::vector<std::pair<MailboxName, MailboxEntry>> covered;
  DARIUS_RETURN_IF_ERROR(list_->listSubtree(root, [&](const MailboxName& n, const MailboxEntry& e) {
    for (const MailboxName& d : deeper) {
      if (d.contains(n)) return true;
    }
    if (selectable(e)) covered.emplace_back(n, e);
    return true;
  }));
  for (const auto& [n, e] : covered) {
    DARIUS_ASSIGN_OR_RETURN(QuotaUsage c, chargeOfLocked(n, e));
    total += c;
  }
  return total;
}

void Store::noteRepaired(const std::string& dir) {
  auto h = readMailboxHeader(env_, dir);
  auto name = h.ok() ? MailboxName::parse(h->name) : Result<MailboxName>(h.status());
  auto root = name.ok() ? quotas_->coveringRoot(*name) : Result<std::optional<MailboxName>>(name.status());
  if (!root.ok() || !*root) return;
  std::lock_guard<std::mutex> g(stale_mu_);
  stale_roots_.insert((*root)->toString());
}

Result<std::optional<MailboxName>> Store::quotaRootOf(const MailboxName& name) {
  return quotas_->coveringRoot(name);
}

Result<QuotaRootInfo> Store::quota(const MailboxName& root) {
  DARIUS_ASSIGN_OR_RETURN(std::optional<QuotaLimits> record, quotas_->get(root));
  if (!record) {
    if (!root.isInbox()) return Status::notFound(root.toString() + ": no such quota root");
    DARIUS_RETURN_IF_ERROR(list_->lookup(root).status());  // a user without an INBOX: none
  }
  DARIUS_ASSIGN_OR_RETURN(RootHold h, lockRoot(root, /*ns_held=*/false));
  return QuotaRootInfo{root, h.limits, h.usage, record.has_value()};
}

Status Store::setQuota(const MailboxName& root, const QuotaLimits& limits) {
  for (const auto& l : limits.limit) {
    if (l && *l > kMaxQuotaLimit) return Status::invalid("quota limit over 2^63-1");
  }
  DARIUS_ASSIGN_OR_RETURN(io::FileLock ns, lockNamespace());
  DARIUS_RETURN_IF_ERROR(recoverLocked());
  auto entry = list_->lookup(root);
  if (!entry.ok() && !(entry.status().isNotFound() && root.isInbox())) {
    return entry.status().isNotFound()
               ? Status::invalid(root.toString() + ": a quota root must be a mailbox or an INBOX")
               : entry.status();
  }
  DARIUS_ASSIGN_OR_RETURN(std::optional<MailboxName> before, quotas_->coveringRoot(root));
  if (before && *before == root) {
    // Already a root: only the limits change, under its lock, so that a change in flight
    // finishes against the old limits and every later one sees the new.
    DARIUS_ASSIGN_OR_RETURN(RootHold h, lockRoot(root, /*ns_held=*/true));
    DARIUS_RETURN_IF_ERROR(quotas_->put(root, limits));
  } else {
    // A new root takes the mailboxes at and below it from the root that covered them: both
    // are locked and pending from before the record exists until both are recounted.
    std::vector<MailboxName> names = {root};
    if (before) names.push_back(*before);
    std::sort(names.begin(), names.end(), [](const MailboxName& a, const MailboxName& b) {
      return a.toString() < b.toString();
    });
    std::vector<RootHold> holds;
    for (const MailboxName& n : names) {
      DARIUS_ASSIGN_OR_RETURN(RootHold h, lockRoot(n, /*ns_held=*/true));
      holds.push_back(std::move(h));
    }
    for (RootHold& h : holds) DARIUS_RETURN_IF_ERROR(h.hold.begin(h.usage));
    DARIUS_RETURN_IF_ERROR(quotas_->put(root, limits));
    for (RootHold& h : holds) {
      DARIUS_ASSIGN_OR_RETURN(QuotaUsage u, recountLocked(h.root));
      h.finish(true, false, u);
    }
  }
  ChangeRecord r;
  r.type = ChangeType::kQuota;
  r.mailbox_id = entry.ok() ? entry->unique_id : std::string();
  r.quota_root = root.toString();
  r.limits = changeLimits(limits);
  logNamespaceChange(entry.ok() ? entry->partition : defaultPartition().name, r);
  return Status::ok();
}

Result<std::vector<QuotaRootInfo>> Store::listQuotas(std::string_view prefix) {
  std::map<std::string, MailboxName> roots;
  DARIUS_RETURN_IF_ERROR(quotas_->scanPrefix(prefix, [&](const MailboxName& n, const QuotaLimits&) {
    roots.emplace(n.toString(), n);
    return true;
  }));
  DARIUS_RETURN_IF_ERROR(list_->forEach([&](const MailboxName& n, const MailboxEntry& e) {
    if (n.isInbox() && selectable(e) && n.toString().starts_with(prefix)) {
      roots.emplace(n.toString(), n);
    }
    return true;
  }));
  std::vector<QuotaRootInfo> out;
  for (const auto& [key, root] : roots) {
    auto info = quota(root);
    if (info.ok()) {
      out.push_back(std::move(*info));
    } else if (!info.status().isNotFound()) {  // gone meanwhile: not listed
      return info.status();
    }
  }
  return out;
}

Result<std::vector<QuotaDifference>> Store::recalcQuota(const std::vector<MailboxName>& roots,
                                                        bool dry_run) {
  DARIUS_ASSIGN_OR_RETURN(io::FileLock ns, lockNamespace());
  DARIUS_RETURN_IF_ERROR(recoverLocked());
  std::vector<QuotaDifference> out;
  for (const MailboxName& root : roots) {
    // The record as it stands, trusted or not: that is what recalc reports on.
    DARIUS_ASSIGN_OR_RETURN(QuotaUsageFiles::Hold hold, usage_->lock(root.toString()));
    DARIUS_ASSIGN_OR_RETURN(QuotaUsage actual, recountLocked(root));
    if (hold.stored()) {
      for (QuotaResource r : kQuotaResources) {
        if (hold.stored()->usage[r] != actual[r]) {
          out.push_back({root, r, hold.stored()->usage[r], actual[r]});
        }
      }
    }
    if (dry_run) continue;
    DARIUS_RETURN_IF_ERROR(hold.commit(actual));
    std::lock_guard<std::mutex> g(stale_mu_);
    stale_roots_.erase(root.toString());
  }
  return out;
}

Result<std::optional<QuotaResource>> Store::quotaHint(const MailboxName& name, uint64_t size) {
  DARIUS_ASSIGN_OR_RETURN(std::optional<MailboxName> root, quotas_->coveringRoot(name));
  if (!root) return std::optional<QuotaResource>();
  DARIUS_ASSIGN_OR_RETURN(std::optional<QuotaLimits> limits, quotas_->get(*root));
  if (!limits || !limits->any()) return std::optional<QuotaResource>();
  {
    // A root repaired by reconstruct is recounted before it is trusted (lockRoot).
    std::lock_guard<std::mutex> g(stale_mu_);
    if (stale_roots_.count(root->toString()) > 0) return std::optional<QuotaResource>();
  }
  std::optional<QuotaUsage> now = usage_->peek(root->toString());
  if (!now) return std::optional<QuotaResource>();
  QuotaUsage add;
  add[QuotaResource::kStorage] = std::max<uint64_t>(size, 1);  // any message needs a byte
  add[QuotaResource::kMessage] = 1;
  return wouldExceed(*limits, *now, add);
}

// --- Rename ---

Result<std::vector<Store::RootHold>> Store::lockRootsForRename(
    const MailboxName& from, const MailboxName& to, const std::vector<RenamedMailbox>& moves) {
  // Records at and below `from` move with their mailboxes (QuotaDb::renameSubtree, done by
  // the rename intent after the list's rename, so "list renamed, records not yet" is a state
  // appenders may see: the roots of that state are locked too).
  std::vector<MailboxName> moving;
  DARIUS_RETURN_IF_ERROR(quotas_->scanSubtree(from, /*strict=*/false,
                                              [&](const MailboxName& n, const QuotaLimits&) {
                                                moving.push_back(n);
                                                return true;
                                              }));
  std::vector<std::string> moved_to;  // the new names of the moving records
  for (const MailboxName& n : moving) {
    DARIUS_ASSIGN_OR_RETURN(MailboxName nn, n.rebased(from, to));
    moved_to.push_back(nn.toString());
  }
  auto is_moved_record = [&](const MailboxName& n) {
    return std::find(moved_to.begin(), moved_to.end(), n.toString()) != moved_to.end();
  };
  // The root covering `n` once the records have moved.
  auto after = [&](const MailboxName& n) -> Result<std::optional<MailboxName>> {
    for (std::optional<MailboxName> a = n; a; a = a->parent()) {
      if (is_moved_record(*a)) return a;
      if (from.contains(*a)) continue;  // moved away
      DARIUS_ASSIGN_OR_RETURN(std::optional<QuotaLimits> rec, quotas_->get(*a));
      if (rec) return a;
    }
    if (!n.isPersonal()) return std::optional<MailboxName>();
    DARIUS_ASSIGN_OR_RETURN(MailboxName inbox, MailboxName::personal(n.domain(), n.owner()));
    return std::optional<MailboxName>(std::move(inbox));
  };
  std::map<std::string, MailboxName> roots;
  std::vector<std::optional<MailboxName>> old_root(moves.size()), new_root(moves.size());
  for (size_t i = 0; i < moves.size(); ++i) {
    DARIUS_ASSIGN_OR_RETURN(old_root[i], quotas_->coveringRoot(moves[i].from));
    DARIUS_ASSIGN_OR_RETURN(std::optional<MailboxName> mid, quotas_->coveringRoot(moves[i].to));
    DARIUS_ASSIGN_OR_RETURN(new_root[i], after(moves[i].to));
    for (const auto* r : {&old_root[i], &mid, &new_root[i]}) {
      if (*r) roots.emplace((*r)->toString(), **r);
    }
  }
  for (const MailboxName& n : moving) roots.emplace(n.toString(), n);  // their old records
  std::vector<RootHold> holds;
  if (roots.size() <= 1 && moving.empty()) return holds;  // one root before, between, after
  for (const auto& [key, root] : roots) {  // name order
    DARIUS_ASSIGN_OR_RETURN(RootHold h, lockRoot(root, /*ns_held=*/true));
    holds.push_back(std::move(h));
  }
  // A root the moved mailboxes enter must hold them (a moving record takes its usage along).
  std::map<std::string, QuotaUsage> entering;
  for (size_t i = 0; i < moves.size(); ++i) {
    if (!new_root[i] || new_root[i] == old_root[i] || is_moved_record(*new_root[i])) continue;
    DARIUS_ASSIGN_OR_RETURN(QuotaUsage c, chargeOfLocked(moves[i].from, moves[i].entry));
    entering[new_root[i]->toString()] += c;
  }
  for (RootHold& h : holds) {
    auto it = entering.find(h.root.toString());
    if (it == entering.end()) continue;
    if (auto over = wouldExceed(h.limits, h.usage, it->second)) return overQuotaOf(h.root, *over);
  }
  for (RootHold& h : holds) DARIUS_RETURN_IF_ERROR(h.hold.begin(h.usage));
  return holds;
}

void Store::recountAfterRename(std::vector<RootHold>& holds) {
  for (RootHold& h : holds) {
    auto u = recountLocked(h.root);
    if (!u.ok()) {
      log::warning("quota root {}: recount after rename failed ({}); left pending",
                   h.root.toString(), u.status().toString());
      continue;
    }
    h.finish(true, false, *u);
  }
}

}  // namespace darius::mailbox
