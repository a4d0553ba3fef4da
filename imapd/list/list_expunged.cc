#include "imapd/list/list_expunged.h"

#include <strings.h>

namespace darius::imapd {

bool namesExpungedArea(const ListPattern& pattern, const mailbox::Namespace& ns) {
  const std::string prefix = ns.expungedPrefix();
  const std::string& p = pattern.text();
  if (p.size() < prefix.size() || ::strncasecmp(p.data(), prefix.data(), prefix.size()) != 0) {
    return false;
  }
  return p.size() == prefix.size() || p[prefix.size()] == ns.separator();
}

base::Result<std::vector<ListedName>> listExpungedArea(mailbox::Store& store,
                                                       const ListViewer& viewer,
                                                       const ListQuery& query) {
  std::vector<ListedName> out;
  const std::string prefix = viewer.ns->expungedPrefix();
  // The area matches in any case: its part of the pattern is respelled as the area is.
  std::vector<ListPattern> naming;
  for (const ListPattern& p : query.patterns) {
    if (!namesExpungedArea(p, *viewer.ns)) continue;
    naming.emplace_back(prefix + p.text().substr(prefix.size()), viewer.ns->separator());
  }
  // Subscriptions and special uses belong to live folders: the area is never in them.
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
  DARIUS_ASSIGN_OR_RETURN(mailbox::MailboxName inbox, viewer.ns->inboxOf(viewer.user));
  std::vector<mailbox::MailboxName> own;
  DARIUS_RETURN_IF_ERROR(store.list().listSubtree(
      inbox, [&](const mailbox::MailboxName& name, const mailbox::MailboxEntry& entry) {
        if ((entry.flags & (mailbox::MailboxEntry::kDeleted | mailbox::MailboxEntry::kNoSelect)) ==
            0) {
          own.push_back(name);
        }
        return true;
      }));
  const std::string sep(1, viewer.ns->separator());
  // Every view that exists (a folder holding expunged messages), for the area's
  // \HasChildren; those the patterns match are listed.
  std::vector<ListedName> views;
  bool any = false;
  for (const mailbox::MailboxName& name : own) {
    auto external = viewer.ns->toExternal(name, viewer.user);
    if (!external.ok()) continue;
    std::string view = prefix + sep + *external;
    const bool listed = matches(view);
    if (!listed && any) continue;  // nothing more to learn from it
    auto opened = store.openMailbox(name);
    if (!opened.ok()) continue;  // gone meanwhile, or damaged: not worth failing the LIST
    auto held = opened->mailbox->expungedRecords();
    if (!held.ok() || held->empty()) continue;
    any = true;
    if (!listed) continue;
    ListedName n;
    n.external = std::move(view);
    n.has_children = false;  // a view has no views below it, whatever the folder has
    n.noinferiors = true;
    if (query.return_myrights) n.myrights = mailbox::right::kLookup | mailbox::right::kRead;
    views.push_back(std::move(n));
  }
  if (matches(prefix)) {
    ListedName area;
    area.external = prefix;
    area.select = query.nonexistent_attr ? ListedName::Select::kNonExistent
                                         : ListedName::Select::kNoselect;
    area.has_children = any;
    out.push_back(std::move(area));
  }
  for (ListedName& n : views) out.push_back(std::move(n));
  return out;
}

}  // namespace darius::imapd
