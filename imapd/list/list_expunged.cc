#include "imapd/list/list_expunged.h"

#include <strings.h>

namespace darius::imapd {

namespace {

using mailbox::MailboxEntry;
using mailbox::MailboxName;

// An area level (\Noselect, or \NonExistent where the client takes that).
ListedName areaLevel(std::string name, bool has_children, const ListQuery& query) {
  ListedName n;
  n.external = std::move(name);
  n.select = query.nonexistent_attr ? ListedName::Select::kNonExistent
                                    : ListedName::Select::kNoselect;
  n.has_children = has_children;
  return n;
}

ListedName view(std::string name, const ListQuery& query) {
  ListedName n;
  n.external = std::move(name);
  n.has_children = false;  // a view has no views below it, whatever the folder has
  n.noinferiors = true;
  if (query.return_myrights) n.myrights = mailbox::right::kLookup | mailbox::right::kRead;
  return n;
}

bool holdsExpunged(mailbox::OpenMailbox& m) {
  auto held = m.mailbox->expungedRecords();
  return held.ok() && !held->empty();
}

}  // namespace

bool namesArea(const ListPattern& pattern, const mailbox::Namespace& ns, const std::string& prefix) {
  const std::string& p = pattern.text();
  if (p.size() < prefix.size() || ::strncasecmp(p.data(), prefix.data(), prefix.size()) != 0) {
    return false;
  }
  return p.size() == prefix.size() || p[prefix.size()] == ns.separator();
}

base::Result<std::vector<ListedName>> listReservedAreas(mailbox::Store& store,
                                                        const ListViewer& viewer,
                                                        const ListQuery& query) {
  std::vector<ListedName> out;
  const mailbox::Namespace& ns = *viewer.ns;
  const std::string bin = ns.expungedPrefix();
  const std::string kept = ns.deletedPrefix();
  const std::string sep(1, ns.separator());
  // The areas match in any case: their part of a pattern is respelled as the area is.
  std::vector<ListPattern> naming;
  bool names_bin = false, names_kept = false;
  for (const ListPattern& p : query.patterns) {
    for (const std::string* area : {&bin, &kept}) {
      if (!namesArea(p, ns, *area)) continue;
      std::string text = *area + p.text().substr(area->size());
      // `.EXPUNGED/.DELETED...`: the inner area is respelled too.
      const size_t inner_end = bin.size() + 1 + kept.size();
      if (area == &bin && text.size() >= inner_end &&
          ::strncasecmp(text.data() + bin.size() + 1, kept.data(), kept.size()) == 0 &&
          (text.size() == inner_end || text[inner_end] == ns.separator())) {
        text.replace(bin.size() + 1, kept.size(), kept);
      }
      naming.emplace_back(text, ns.separator());
      (area == &bin ? names_bin : names_kept) = true;
    }
  }
  // Subscriptions and special uses belong to live folders: the areas are never in them.
  if (naming.empty() || query.mode != ListMode::kList || query.select_subscribed ||
      query.select_special_use || !viewer.owns_mailboxes) {
    return out;
  }
  auto matches = [&](const std::string& name) {
    for (const ListPattern& p : naming) {
      if (p.matches(name)) return true;
    }
    return false;
  };
  DARIUS_ASSIGN_OR_RETURN(MailboxName inbox, ns.inboxOf(viewer.user));

  // The expunged views of live folders. Every view that exists (a folder holding expunged
  // messages) counts for the area's \HasChildren; those the patterns match are listed.
  std::vector<ListedName> views;
  bool any_bin = false;
  if (names_bin) {
    std::vector<MailboxName> own;
    DARIUS_RETURN_IF_ERROR(store.list().listSubtree(
        inbox, [&](const MailboxName& name, const MailboxEntry& entry) {
          if ((entry.flags & (MailboxEntry::kDeleted | MailboxEntry::kNoSelect)) == 0) {
            own.push_back(name);
          }
          return true;
        }));
    for (const MailboxName& name : own) {
      auto external = ns.toExternal(name, viewer.user);
      if (!external.ok()) continue;
      std::string v = bin + sep + *external;
      const bool listed = matches(v);
      if (!listed && any_bin) continue;  // nothing more to learn from it
      auto opened = store.openMailbox(name);
      if (!opened.ok()) continue;  // gone meanwhile, or damaged: not worth failing the LIST
      if (!holdsExpunged(*opened)) continue;
      any_bin = true;
      if (listed) views.push_back(view(std::move(v), query));
    }
  }

  // The deleted folders, and the expunged views of those that hold expunged messages.
  std::vector<ListedName> deleted, deleted_views;
  bool any_deleted = false, any_deleted_bin = false;
  const std::string bin_of_kept = bin + sep + kept;
  if (names_kept || names_bin) {
    DARIUS_ASSIGN_OR_RETURN(std::vector<mailbox::DeletedMailbox> own, store.listDeleted(inbox));
    any_deleted = !own.empty();
    for (const mailbox::DeletedMailbox& d : own) {
      auto external = ns.toExternal(d.name, viewer.user);
      if (!external.ok()) continue;
      std::string name = *external + mailbox::deletedSuffix(d.deleted_at, d.ordinal);
      std::string k = kept + sep + name;
      if (matches(k)) deleted.push_back(view(std::move(k), query));
      if (!names_bin) continue;
      std::string v = bin_of_kept + sep + name;
      const bool listed = matches(v);
      if (!listed && any_deleted_bin) continue;
      auto opened = store.openDeleted(d, /*expunged_view=*/false);
      if (!opened.ok() || !holdsExpunged(*opened)) continue;
      any_deleted_bin = true;
      if (listed) deleted_views.push_back(view(std::move(v), query));
    }
  }

  if (matches(bin)) out.push_back(areaLevel(bin, any_bin || any_deleted_bin, query));
  for (ListedName& n : views) out.push_back(std::move(n));
  if (any_deleted_bin && matches(bin_of_kept)) {
    out.push_back(areaLevel(bin_of_kept, true, query));
  }
  for (ListedName& n : deleted_views) out.push_back(std::move(n));
  if (matches(kept)) out.push_back(areaLevel(kept, any_deleted, query));
  for (ListedName& n : deleted) out.push_back(std::move(n));
  return out;
}

}  // namespace darius::imapd
