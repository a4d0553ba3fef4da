#include "imapd/list/list_walk.h"

#include <algorithm>
#include <map>
#include <span>

#include "mailbox/acl.h"
#include "mailbox/acl_identifier.h"
#include "mailbox/mailbox_list.h"
#include "mailbox/mailbox_list_cache.h"
#include "mailbox/store.h"

namespace darius::imapd {

using base::Result;
using base::Status;
using mailbox::MailboxEntry;
using mailbox::MailboxName;

namespace {

// One external name: a visible mailbox, a subscribed name, or a level above either.
struct Node {
  std::string external;
  std::optional<MailboxName> name;  // of the visible mailbox
  bool visible = false;             // a listed mailbox with the lookup right
  bool selectable = false;          // ... that is not a \Noselect entry
  bool readable = false;            // ... with the read right
  mailbox::Rights rights = 0;       // ... the user's rights on it
  bool subscribed = false;
  std::string special_use;  // the user's own mailboxes only
  bool visible_below = false;             // some visible mailbox lies below
  bool visible_unmatched_below = false;   // ... one that no pattern matches
  bool criteria_unmatched_below = false;  // a name meeting the selection lies below, unmatched
  mutable std::optional<bool> matched;    // cache of Walker::matches()
};

// Where a namespace sorts: INBOX first, then the user's, other users', shared mailboxes.
char rankOf(std::string_view external, const mailbox::Namespace& ns) {
  const char sep = ns.separator();
  std::string_view first = external.substr(0, external.find(sep));
  if (isInboxRooted(external, sep)) return 0;
  if (ns.options().alt_namespace) {
    if (first == mailbox::Namespace::kOtherUsersPrefix) return 2;
    if (first == mailbox::Namespace::kSharedPrefix) return 3;
    return 1;
  }
  return first == mailbox::Namespace::kUserPrefix ? 2 : 3;
}

// The map key: rank, then the name with the separator as byte 00, so that a parent sorts
// right before its children ("a" < "a/b" < "a b") and an ancestor's key prefixes its
// descendants' keys.
std::string sortKey(std::string_view external, const mailbox::Namespace& ns) {
  std::string key(1, rankOf(external, ns));
  key += external;
  for (size_t i = 1; i < key.size(); ++i) {
    if (key[i] == ns.separator()) key[i] = '\0';
  }
  return key;
}

class Walker {
 public:
  Walker(mailbox::Store& store, const ListViewer& viewer, const ListQuery& query)
      : store_(store), viewer_(viewer), query_(query), ns_(*viewer.ns) {}

  Result<std::vector<ListedName>> run() {
    DARIUS_RETURN_IF_ERROR(scan());
    if (wantSubscriptions()) DARIUS_RETURN_IF_ERROR(addSubscriptions());
    propagate();
    return output();
  }

 private:
  bool wantSubscriptions() const {
    return query_.mode == ListMode::kLsub || query_.select_subscribed ||
           query_.return_subscribed;
  }

  bool isOwner(const MailboxName& name) const {
    return viewer_.owns_mailboxes && name.isPersonal() && name.owner() == viewer_.user.local &&
           name.domain() == viewer_.user.domain;
  }

  // The same rule as rightsOn() in imapd/mailbox_access.cc.
  mailbox::Rights rightsOf(const MailboxName& name, std::string_view acl) const {
    return mailbox::effectiveRights(acl, viewer_.owns_mailboxes ? viewer_.acl_id : "",
                                    isOwner(name), viewer_.administers(name.domain()));
  }

  Node& node(const std::string& external) {
    Node& n = nodes_[sortKey(external, ns_)];
    if (n.external.empty()) n.external = external;
    return n;
  }

  // A part of the mailbox list to read: a mailbox's whole subtree, the mailbox and its first
  // visible descendant (enough for a pattern without wildcards: every descendant is
  // unmatched, so one decides \HasChildren and the level rule), or the mailbox alone.
  struct Root {
    enum class Scope { kSubtree, kFirstDescendant, kSelf };
    MailboxName name;
    Scope scope = Scope::kSubtree;
  };

  // The roots the patterns confine matches to, or none (and *whole_domain) when some pattern
  // may match anywhere.
  std::vector<Root> plan(bool* whole_domain) const {
    std::vector<Root> roots;
    const bool alt = ns_.options().alt_namespace;
    auto inbox = ns_.inboxOf(viewer_.user);
    for (const ListPattern& p : query_.patterns) {
      if (p.matchesNothing()) continue;
      // Without wildcards the pattern names one mailbox. Under SPECIAL-USE selection the
      // criteria depend on every descendant's entry, so read them all then.
      if (p.text().find_first_of("*%") == std::string::npos) {
        auto n = ns_.toInternal(p.text(), viewer_.user);
        if (n.ok()) {
          Root::Scope scope = query_.select_special_use ? Root::Scope::kSubtree
                                                        : Root::Scope::kFirstDescendant;
          // INBOX has no children in the alternate namespace; its internal subtree is the
          // user's other mailboxes, which are its siblings there.
          if (alt && viewer_.owns_mailboxes && inbox.ok() && *n == *inbox) {
            scope = Root::Scope::kSelf;
          }
          roots.push_back({std::move(*n), scope});
          continue;
        }
      }
      if (!p.fixedParent().empty()) {
        auto n = ns_.toInternal(p.fixedParent(), viewer_.user);
        if (n.ok()) {
          roots.push_back({std::move(*n), Root::Scope::kSubtree});
          continue;
        }
      }
      // In the alternate namespace only "Other Users" and "Shared Folders" lead out of the
      // user's own mailboxes; "Sent*" or "I%" need no other user's list entries.
      if (alt && viewer_.owns_mailboxes && inbox.ok() &&
          !p.couldMatchWithPrefix(mailbox::Namespace::kOtherUsersPrefix) &&
          !p.couldMatchWithPrefix(mailbox::Namespace::kSharedPrefix)) {
        roots.push_back({*inbox, Root::Scope::kSubtree});
        continue;
      }
      *whole_domain = true;
      return {};
    }
    // Merge overlapping roots (key order puts an ancestor first): the ancestor's whole
    // subtree covers the others, unless both are the same limited read.
    std::sort(roots.begin(), roots.end(),
              [](const Root& a, const Root& b) { return a.name < b.name; });
    std::vector<Root> out;
    for (Root& r : roots) {
      if (!out.empty() && out.back().name.contains(r.name)) {
        if (!(out.back().name == r.name && out.back().scope == r.scope)) {
          out.back().scope = Root::Scope::kSubtree;
        }
        continue;
      }
      out.push_back(std::move(r));
    }
    return out;
  }

  // Records a listed mailbox if the user may see it; true if it was visible. Takes the
  // fields LIST needs, from a MailboxEntry or a MailboxListView item.
  bool add(const MailboxName& name, uint32_t flags, std::string_view acl,
           std::string_view special_use) {
    if ((flags & MailboxEntry::kDeleted) != 0) return false;
    mailbox::Rights rights = rightsOf(name, acl);
    if ((rights & mailbox::right::kLookup) == 0) return false;  // RFC 4314 §4: LIST needs l
    auto external = ns_.toExternal(name, viewer_.user);
    if (!external.ok()) return false;  // another domain: never visible
    Node& n = node(*external);
    n.name = name;
    n.visible = true;
    n.selectable = (flags & MailboxEntry::kNoSelect) == 0;
    n.readable = (rights & mailbox::right::kRead) != 0;
    n.rights = rights;
    if (isOwner(name)) n.special_use = special_use;
    return true;
  }
  bool add(const MailboxName& name, const MailboxEntry& entry) {
    return add(name, entry.flags, entry.acl, entry.special_use);
  }

  // The whole domain from the in-memory copy of the list. Only mailboxes that can give the
  // viewer the lookup right are read: those whose ACL names the viewer or `anyone`, the
  // viewer's own tree (implicit owner rights), or all of them for an admin of the domain. So
  // a LIST costs what the user may see, not what the store holds.
  Status scanView(const mailbox::MailboxListView& view) {
    const std::string& domain = viewer_.user.domain;
    const mailbox::MailboxListView::Range in_domain = view.domain(domain);
    const std::string domain_prefix = domain + '\0';
    for (const mailbox::DamagedRecord& d : view.damaged()) {
      if (d.key.starts_with(domain_prefix)) return d.status;  // as reading the list would
    }
    auto visit = [&](size_t at) -> Status {
      mailbox::MailboxListView::Item item = view.at(at);
      DARIUS_ASSIGN_OR_RETURN(MailboxName name, MailboxName::fromKey(item.key));
      add(name, item.flags, item.acl, item.special_use);
      return Status::ok();
    };
    if (viewer_.administers(domain)) {
      for (size_t at = in_domain.begin; at < in_domain.end; ++at) {
        DARIUS_RETURN_IF_ERROR(visit(at));
      }
      return Status::ok();
    }
    std::vector<uint32_t> positions;
    auto take = [&](std::span<const uint32_t> naming) {
      auto from = std::lower_bound(naming.begin(), naming.end(), in_domain.begin);
      auto to = std::lower_bound(from, naming.end(), in_domain.end);
      positions.insert(positions.end(), from, to);
    };
    take(view.naming(mailbox::kAnyone));
    if (viewer_.owns_mailboxes) {
      if (!viewer_.acl_id.empty()) take(view.naming(viewer_.acl_id));
      auto inbox = ns_.inboxOf(viewer_.user);
      if (inbox.ok()) {
        mailbox::MailboxListView::Range own = view.subtree(inbox->key());
        for (size_t at = own.begin; at < own.end; ++at) positions.push_back(uint32_t(at));
      }
    }
    std::sort(positions.begin(), positions.end());
    positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
    for (uint32_t at : positions) DARIUS_RETURN_IF_ERROR(visit(at));
    return Status::ok();
  }

  Status scan() {
    bool whole_domain = false;
    std::vector<Root> roots = plan(&whole_domain);
    mailbox::MailboxList& list = store_.list();
    if (whole_domain) {
      // The copy covers the whole store; if it cannot be read (or would not hold still) the
      // domain's own range is read as before, so other domains' trouble never fails a LIST.
      auto view = store_.listCache().view();
      if (view.ok() && *view) return scanView(**view);
      return list.forEachInDomain(viewer_.user.domain, [&](const auto& name, const auto& entry) {
        add(name, entry);
        return true;
      });
    }
    for (const Root& root : roots) {
      if (root.scope == Root::Scope::kSelf) {
        auto entry = list.lookup(root.name);
        if (entry.ok()) {
          add(root.name, *entry);
        } else if (!entry.status().isNotFound()) {
          return entry.status();
        }
        continue;
      }
      DARIUS_RETURN_IF_ERROR(list.listSubtree(root.name, [&](const auto& name, const auto& entry) {
        const bool visible = add(name, entry);
        // Stop at the first visible descendant when that is all the pattern needs.
        return !(root.scope == Root::Scope::kFirstDescendant && visible && !(name == root.name));
      }));
    }
    return Status::ok();
  }

  Status addSubscriptions() {
    DARIUS_ASSIGN_OR_RETURN(std::vector<MailboxName> names,
                            store_.subscriptions().list(viewer_.acl_id));
    for (const MailboxName& name : names) {
      auto external = ns_.toExternal(name, viewer_.user);
      if (external.ok()) node(*external).subscribed = true;
    }
    return Status::ok();
  }

  bool matches(const Node& n) const {
    if (!n.matched) {
      n.matched = std::any_of(query_.patterns.begin(), query_.patterns.end(),
                              [&](const ListPattern& p) { return p.matches(n.external); });
    }
    return *n.matched;
  }

  // Whether a node meets the selection criteria (RFC 5258 §3.1).
  bool meetsCriteria(const Node& n) const {
    if (query_.mode == ListMode::kLsub) return n.subscribed;
    bool ok = query_.select_subscribed ? n.subscribed : n.visible;
    if (query_.select_special_use) ok = ok && n.visible && !n.special_use.empty();
    return ok;
  }

  // Tells every level above each node what lies below it, creating the levels.
  void propagate() {
    const char sep = ns_.separator();
    std::vector<const Node*> work;  // the nodes that have something to tell (map nodes are stable)
    for (const auto& [key, n] : nodes_) {
      if (n.visible || meetsCriteria(n)) work.push_back(&n);
    }
    for (const Node* d : work) {
      const std::string& external = d->external;
      const bool visible = d->visible;
      const bool criteria = meetsCriteria(*d);
      const bool unmatched = !matches(*d);
      for (size_t at = external.find(sep); at != std::string::npos;
           at = external.find(sep, at + 1)) {
        Node& a = node(external.substr(0, at));
        if (visible) {
          a.visible_below = true;
          if (unmatched) a.visible_unmatched_below = true;
        }
        if (criteria && unmatched) a.criteria_unmatched_below = true;
      }
    }
  }

  std::vector<ListedName> output() const {
    const bool plain_list = query_.mode == ListMode::kList && !query_.select_subscribed &&
                            !query_.select_special_use;
    const bool lsub = query_.mode == ListMode::kLsub;
    std::vector<ListedName> out;
    for (const auto& [key, n] : nodes_) {
      if (!matches(n)) continue;
      const bool criteria = meetsCriteria(n);
      const bool childinfo = query_.recursive_match && n.criteria_unmatched_below;
      // A level shown for what lies below it: for LIST a name without a visible mailbox
      // (RFC 9051 §6.3.9 "%"), for LSUB a name not subscribed itself (RFC 3501 §6.3.9).
      bool level = false;
      if (plain_list) level = !n.visible && n.visible_unmatched_below;
      if (lsub) level = !criteria && n.criteria_unmatched_below;
      if (!criteria && !childinfo && !level) continue;
      out.push_back(listed(n, criteria, childinfo));
    }
    return out;
  }

  ListedName listed(const Node& n, bool criteria, bool childinfo) const {
    ListedName l;
    l.external = n.external;
    if (!n.visible) {
      l.select = query_.mode == ListMode::kList && query_.nonexistent_attr
                     ? ListedName::Select::kNonExistent
                     : ListedName::Select::kNoselect;
    } else if (!n.selectable || (query_.return_status && !n.readable) ||
               (query_.mode == ListMode::kLsub && !criteria)) {
      l.select = ListedName::Select::kNoselect;
    }
    if (query_.mode == ListMode::kList) {
      // RFC 9051 §7.3.1 \Noinferiors: nothing can exist below INBOX in the alternate
      // namespace (Namespace refuses "INBOX/x" there).
      l.noinferiors = n.visible && ns_.options().alt_namespace &&
                      n.external == mailbox::Namespace::kInbox;
      l.has_children = n.visible_below;
      l.subscribed = query_.return_subscribed && n.subscribed;
      if (query_.return_special_use && n.visible) l.special_use = n.special_use;
      l.childinfo_subscribed = childinfo;
      // RFC 9051 §6.3.9.8 example 11: no STATUS for a name listed only for its children.
      if (query_.return_status && criteria && l.select == ListedName::Select::kSelectable) {
        l.status_mailbox = n.name;
      }
      if (query_.return_myrights && criteria && n.visible) l.myrights = n.rights;
    }
    return l;
  }

  mailbox::Store& store_;
  const ListViewer& viewer_;
  const ListQuery& query_;
  const mailbox::Namespace& ns_;
  std::map<std::string, Node> nodes_;  // by sortKey()
};

}  // namespace

std::string ListedName::attributes() const {
  std::string out;
  auto add = [&](std::string_view a) {
    if (a.empty()) return;
    if (!out.empty()) out += ' ';
    out += a;
  };
  if (select == Select::kNonExistent) add("\\NonExistent");
  if (select == Select::kNoselect) add("\\Noselect");
  if (noinferiors) add("\\Noinferiors");
  if (has_children) add(*has_children ? "\\HasChildren" : "\\HasNoChildren");
  if (subscribed) add("\\Subscribed");
  add(special_use);
  return out;
}

Result<std::vector<ListedName>> walkList(mailbox::Store& store, const ListViewer& viewer,
                                         const ListQuery& query) {
  return Walker(store, viewer, query).run();
}

std::string canonicalPattern(std::string_view reference, std::string_view pattern, char sep) {
  std::string out(reference);
  if (!out.empty() && out.back() == sep && !pattern.empty() && pattern.front() == sep) {
    out.pop_back();
  }
  out += pattern;
  return out;
}

}  // namespace darius::imapd
