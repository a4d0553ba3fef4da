// Store-wide reconstruct (reconstruct_store.h): the mailbox list rebuilt from the partitions,
// then every mailbox directory found rebuilt by reconstructMailbox().
#include "mailbox/reconstruct_store.h"

#include <algorithm>
#include <map>
#include <set>

#include "lib/io/atomic_file.h"
#include "lib/io/file_lock.h"
#include "lib/io/path.h"
#include "mailbox/acl.h"
#include "mailbox/cache_fill.h"
#include "mailbox/header_file.h"
#include "mailbox/mailbox.h"
#include "mailbox/mailbox_path.h"
#include "mailbox/reconstruct.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

bool ReconstructScope::covers(const MailboxName& name) const {
  if (!root) return true;
  return recursive ? root->contains(name) : *root == name;
}

bool ReconstructScope::coversKey(std::string_view key) const {
  if (!root) return true;
  if (key == root->key()) return true;
  std::string prefix = root->subtreePrefix();
  return recursive && key.substr(0, prefix.size()) == prefix;
}

bool StoreReconstructReport::unresolved() const {
  return std::any_of(findings.begin(), findings.end(),
                     [](const StoreFinding& f) { return !f.fixable; });
}

namespace {

constexpr std::string_view kDamagedHeaderName = "darius.header.damaged";

// A directory of a partition that is, or once was, a mailbox.
struct OnDisk {
  MailboxName name;
  const Partition* partition = nullptr;
  std::string dir;
  std::optional<MailboxHeader> header;
  std::string header_error;  // why `header` is empty; "" when there is no header file
  size_t message_files = 0;
  bool has_index = false;
  bool handled = false;       // accounted for by a list entry (or left alone on purpose)
  bool write_failed = false;  // a planned header write failed: its list insert is dropped
};

std::string idOf(const OnDisk& d) {
  return d.header ? " (unique id " + d.header->unique_id + ")" : " (no usable header)";
}

std::string headerTrouble(const OnDisk& d) {
  return d.header_error.empty() ? "darius.header is missing"
                                : "darius.header is unreadable (" + d.header_error + ")";
}

struct Listed {
  MailboxName name;
  MailboxEntry entry;
};

struct HeaderWrite {
  OnDisk* target;
  MailboxHeader header;
  bool keep_damaged;  // copy the unreadable header aside before replacing it
};

struct ListChange {
  enum class Op { kRemoveKey, kRemove, kUpdate, kInsert };  // the order they are applied in
  Op op;
  std::string key;                  // kRemoveKey
  std::optional<MailboxName> name;  // the others
  MailboxEntry entry;
  const OnDisk* needs_header = nullptr;  // kInsert after a header write
};

class Run {
 public:
  Run(Store& store, const StoreReconstructOptions& o, StoreReconstructReport& r)
      : store_(store), env_(store.env()), o_(o), r_(r) {}

  Status checkNoIntents();
  Status listPhase();
  void mailboxPhase();
  bool foundNothing() const { return found_.empty() && listed_.empty() && damaged_.empty(); }
  // Hands the findings so far to on_finding, and every later one at once.
  void flush() {
    defer_ = false;
    for (; emitted_ < r_.findings.size(); ++emitted_) {
      if (o_.on_finding) o_.on_finding(r_.findings[emitted_]);
    }
  }

 private:
  // Findings of the list phase reach on_finding only after the namespace lock is let go: a
  // slow reader of our output must not hold up every CREATE on the server.
  void note(std::string mailbox, std::string text, bool fixable) {
    r_.findings.push_back({std::move(mailbox), std::move(text), fixable});
    if (!defer_) flush();
  }
  std::string did(std::string_view done, std::string_view would) const {
    return std::string(o_.dry_run ? would : done);
  }
  // A finding this run repairs (or, dry run, would): "<what>; <done|would>".
  void fix(const std::string& who, const std::string& what, std::string_view done,
           std::string_view would) {
    note(who, what + "; " + did(done, would), true);
  }
  void leave(const std::string& who, const std::string& what) {
    note(who, what + "; left alone", false);
  }

  Status walk();
  void walkRoots(const Partition& p, const std::string& prefix);
  void visit(const Partition& p, const std::string& rel, bool recursive);
  Status readList();
  void compareListed();
  void syncEntry(const Listed& l, OnDisk& d);
  void compareUnlisted();
  void addEntry(OnDisk& d, const MailboxHeader& h, bool announce);
  std::string deletedLocation(const std::string& unique_id);
  Status apply();

  Store& store_;
  io::Env& env_;
  const StoreReconstructOptions& o_;
  StoreReconstructReport& r_;
  std::map<std::string, std::vector<OnDisk>> found_;  // by list key, so in list order
  std::map<std::string, Listed> listed_;              // in scope, by key
  std::vector<DamagedRecord> damaged_;                // in scope
  std::map<std::string, std::string> ids_;  // unique id -> name: the whole list, as planned
  std::set<std::string> has_trees_;         // partitions with user/, shared/ or domain/
  std::optional<std::map<std::string, std::string>> deleted_;  // unique id -> where
  std::vector<HeaderWrite> headers_;
  std::vector<ListChange> changes_;
  bool defer_ = true;
  size_t emitted_ = 0;
};

Status Run::checkNoIntents() {
  auto files = env_.listDir(io::joinPath(o_.data_dir, kIntentDirName));
  if (!files.ok()) return files.status().isNotFound() ? Status::ok() : files.status();
  size_t pending = std::count_if(files->begin(), files->end(),
                                 [](const std::string& f) { return !io::isAtomicTempName(f); });
  if (pending == 0) return Status::ok();
  return Status::temporary(std::to_string(pending) +
                           " interrupted namespace operation(s) in darius.intents/; opening the "
                           "store again finishes them");
}

Status Run::listPhase() {
  DARIUS_RETURN_IF_ERROR(walk());
  DARIUS_RETURN_IF_ERROR(readList());
  for (const DamagedRecord& d : damaged_) {
    auto n = MailboxName::fromKey(d.key);
    fix(n.ok() ? n->toString() : "mailbox list key " + printableBytes(d.key),
        "damaged list record (" + d.status.message() + ")", "removed", "would remove it");
    changes_.push_back({ListChange::Op::kRemoveKey, d.key, std::nullopt, {}});
  }
  compareListed();
  compareUnlisted();
  return apply();
}

Status Run::walk() {
  for (const Partition& p : store_.partitions()) {
    for (std::string_view top : {kUserDirName, kSharedDirName, kDomainDirName}) {
      auto d = env_.isDirectory(p.root + "/" + std::string(top));
      if (d.ok() && *d) has_trees_.insert(p.name);
    }
    if (o_.scope.root) {
      DARIUS_ASSIGN_OR_RETURN(std::string rel, mailboxRelativeDir(*o_.scope.root));
      auto d = env_.isDirectory(p.root + "/" + rel);
      if (d.ok() && *d) visit(p, rel, o_.scope.recursive);
      continue;
    }
    walkRoots(p, "");
    auto domains = env_.listDir(p.root + "/" + std::string(kDomainDirName));
    if (!domains.ok()) continue;
    for (const std::string& d : *domains) {
      std::string rel = std::string(kDomainDirName) + "/" + d;
      if (d.empty() || !validateDomain(d).isOk()) {
        note("partition " + p.name + ": " + printableBytes(rel), "not a domain directory; skipped",
             false);
        continue;
      }
      walkRoots(p, rel + "/");
    }
  }
  return Status::ok();
}

// <prefix>user/<owner>/... and <prefix>shared/<component>/...
void Run::walkRoots(const Partition& p, const std::string& prefix) {
  for (std::string_view kind : {kUserDirName, kSharedDirName}) {
    std::string rel = prefix + std::string(kind);
    auto entries = env_.listDir(p.root + "/" + rel);
    if (!entries.ok()) continue;
    for (const std::string& e : *entries) visit(p, rel + "/" + e, true);
  }
}

void Run::visit(const Partition& p, const std::string& rel, bool recursive) {
  std::string dir = p.root + "/" + rel;
  auto name = mailboxNameFromRelativeDir(rel);
  if (!name.ok()) {
    note("partition " + p.name + ": " + printableBytes(rel), name.status().message() + "; skipped",
         false);
    return;
  }
  auto entries = env_.listDir(dir);
  if (!entries.ok()) {
    note(name->toString(), "cannot list " + dir + ": " + entries.status().message(), false);
    return;
  }
  OnDisk d{*name, &p, dir, std::nullopt, std::string()};
  bool header_file = false;
  std::vector<std::string> children;
  for (const std::string& e : *entries) {
    if (e == kHeaderFileName) {
      header_file = true;
    } else if (e == kIndexFileName) {
      d.has_index = true;
    } else if (uidOfMessageFileName(e) != 0) {
      ++d.message_files;
    } else if (mayBeChildMailboxDir(e)) {
      children.push_back(e);
    }
  }
  if (header_file) {
    auto h = readMailboxHeader(env_, dir);
    if (h.ok()) {
      d.header = std::move(*h);
    } else {
      d.header_error = h.status().message();
    }
  }
  if (header_file || d.message_files > 0 || d.has_index) found_[name->key()].push_back(d);
  if (!recursive) return;
  for (const std::string& c : children) {
    auto is_dir = env_.isDirectory(dir + "/" + c);
    if (is_dir.ok() && *is_dir) {
      visit(p, rel + "/" + c, true);
    } else {
      leave(name->toString(), "stray file '" + printableBytes(c) + "' in " + dir +
                                  " (a mailbox's files have a '.' in their names)");
    }
  }
}

Status Run::readList() {
  std::vector<DamagedRecord> damaged;
  DARIUS_RETURN_IF_ERROR(store_.list().forEach(
      [&](const MailboxName& n, const MailboxEntry& e) {
        bool in_scope = o_.scope.covers(n);
        auto [it, fresh] = ids_.emplace(e.unique_id, n.toString());
        if (!fresh && in_scope) {
          leave(n.toString(),
                "its unique id " + e.unique_id + " is listed for " + it->second + " too");
        }
        if (in_scope) listed_.emplace(n.key(), Listed{n, e});
        return true;
      },
      &damaged));
  for (DamagedRecord& d : damaged) {
    if (o_.scope.coversKey(d.key)) damaged_.push_back(std::move(d));
  }
  return Status::ok();
}

void Run::compareListed() {
  for (auto& [key, l] : listed_) {
    const std::string who = l.name.toString();
    auto fit = found_.find(key);
    std::vector<OnDisk> none;
    std::vector<OnDisk>& cands = fit == found_.end() ? none : fit->second;
    if ((l.entry.flags & (MailboxEntry::kDeleted | MailboxEntry::kNoSelect)) != 0) {
      for (OnDisk& c : cands) {
        c.handled = true;
        if (c.header) {
          leave(who, "listed as deleted or \\Noselect, but partition " + c.partition->name +
                         " holds a mailbox directory for it (unique id " + c.header->unique_id +
                         ")");
        }
      }
      continue;
    }
    OnDisk* match = nullptr;
    OnDisk* home = nullptr;  // the directory on the entry's partition
    for (OnDisk& c : cands) {
      if (c.partition->name == l.entry.partition) home = &c;
      if (c.header && c.header->unique_id == l.entry.unique_id &&
          (match == nullptr || c.partition->name == l.entry.partition)) {
        match = &c;
      }
    }
    if (match != nullptr) {
      for (OnDisk& c : cands) {
        c.handled = true;
        if (&c == match) continue;
        leave(who, "another directory for it on partition " + c.partition->name + idOf(c));
      }
      syncEntry(l, *match);
      continue;
    }
    if (home != nullptr && !home->header) {
      // The header is gone or damaged, the files are not: the list still knows what it said.
      home->handled = true;
      MailboxHeader h;
      h.unique_id = l.entry.unique_id;
      h.name = who;
      h.uidvalidity = l.entry.uidvalidity;
      h.acl = l.entry.acl;
      fix(who, headerTrouble(*home), "rebuilt from the mailbox list (keyword names are lost)",
          "would rebuild it from the mailbox list");
      headers_.push_back({home, h, !home->header_error.empty()});
      continue;
    }
    auto part = store_.partition(l.entry.partition);
    if (!part.ok() || has_trees_.count(l.entry.partition) == 0) {
      // Removing entries of a partition that is not there (not configured, not mounted) would
      // lose every mailbox on it; that is the operator's call.
      for (OnDisk& c : cands) c.handled = true;
      leave(who, "listed on partition " + l.entry.partition +
                     (!part.ok() ? ", which is not configured"
                                 : ", which holds no user/, shared/ or domain/ (not mounted?)"));
      continue;
    }
    std::string where = deletedLocation(l.entry.unique_id);
    std::string why = !where.empty() ? "was deleted (its files are in " + where + ")"
                      : home != nullptr
                          ? "its directory holds another mailbox" + idOf(*home)
                          : "partition " + l.entry.partition + " has no mailbox directory for it";
    fix(who, "listed, but " + why, "entry removed", "entry would be removed");
    changes_.push_back({ListChange::Op::kRemove, "", l.name, l.entry});
    auto id = ids_.find(l.entry.unique_id);
    if (id != ids_.end() && id->second == who) ids_.erase(id);
    // Directories of this name with other ids stay unhandled: compareUnlisted adds them.
  }
}

void Run::syncEntry(const Listed& l, OnDisk& d) {
  const std::string who = l.name.toString();
  MailboxEntry e = l.entry;
  if (d.partition->name != e.partition) {
    fix(who, "listed on partition " + e.partition + ", found on " + d.partition->name,
        "entry updated", "entry would be updated");
    e.partition = d.partition->name;
  }
  if (d.header->uidvalidity != e.uidvalidity) {
    // The index takes UIDVALIDITY from the header, so that is what clients have seen.
    fix(who,
        "UIDVALIDITY " + std::to_string(e.uidvalidity) + " in the list, " +
            std::to_string(d.header->uidvalidity) + " in darius.header",
        "entry updated", "entry would be updated");
    e.uidvalidity = d.header->uidvalidity;
  }
  if (!(e == l.entry)) changes_.push_back({ListChange::Op::kUpdate, "", l.name, e});
  MailboxHeader h = *d.header;
  if (h.name != who) {
    fix(who, "darius.header names it " + printableBytes(h.name), "header updated",
        "header would be updated");
    h.name = who;
  }
  if (h.acl != e.acl) {
    // The list is the ACL's home; the header keeps a copy for the day the list is lost.
    fix(who, "darius.header's copy of the ACL differs from the list", "header updated",
        "header would be updated");
    h.acl = e.acl;
  }
  if (!(h == *d.header)) headers_.push_back({&d, h, false});
}

void Run::compareUnlisted() {
  for (auto& [key, cands] : found_) {
    std::vector<OnDisk*> usable, unusable;
    for (OnDisk& c : cands) {
      if (c.handled) continue;
      if (c.header) {
        usable.push_back(&c);
      } else if (!c.header_error.empty() || c.message_files > 0) {
        unusable.push_back(&c);  // an index alone without a header is debris of a create
      }
    }
    if (usable.empty() && unusable.empty()) continue;
    const std::string who = cands.front().name.toString();
    if (usable.size() + unusable.size() > 1) {
      std::string where;
      for (const OnDisk* c : usable) where += " " + c->partition->name + idOf(*c);
      for (const OnDisk* c : unusable) where += " " + c->partition->name + idOf(*c);
      leave(who, "not in the mailbox list, and directories on more than one partition claim it:" +
                     where);
      continue;
    }
    if (!usable.empty()) {
      addEntry(*usable.front(), *usable.front()->header, true);
      continue;
    }
    OnDisk& c = *unusable.front();
    std::string what = !c.header_error.empty() ? headerTrouble(c)
                                               : std::to_string(c.message_files) +
                                                     " message files but no darius.header";
    if (!o_.adopt_orphans) {
      leave(who, what + ", and it is not listed (--adopt makes it a mailbox)");
      continue;
    }
    MailboxHeader h;
    h.unique_id = store_.newUniqueId();
    h.name = who;
    // A dry run writes nothing, not even the store's UIDVALIDITY counter.
    auto uidvalidity = o_.dry_run ? Result<uint32_t>(0) : store_.newUidValidity();
    if (!uidvalidity.ok()) {
      leave(who, what + ", and no UIDVALIDITY could be allocated: " +
                     uidvalidity.status().toString());
      continue;
    }
    h.uidvalidity = *uidvalidity;
    // What a new INBOX gets (Store::ensureInbox): all rights for the owner.
    if (c.name.isPersonal()) h.acl = Acl::ownerDefault(c.name.userId()).toString();
    fix(who, what, "adopted as a new mailbox (new unique id and UIDVALIDITY)",
        "would adopt it as a new mailbox");
    headers_.push_back({&c, h, !c.header_error.empty()});
    addEntry(c, h, false);
  }
}

void Run::addEntry(OnDisk& d, const MailboxHeader& h, bool announce) {
  const std::string who = d.name.toString();
  d.handled = true;
  auto dup = ids_.find(h.unique_id);
  if (dup != ids_.end()) {
    leave(who, "not in the mailbox list, but its unique id " + h.unique_id + " is listed for " +
                   dup->second);
    return;
  }
  MailboxEntry e;
  e.unique_id = h.unique_id;
  e.partition = d.partition->name;
  e.acl = h.acl;
  e.uidvalidity = h.uidvalidity;
  e.created_modseq = 1;
  if (d.name.isPersonal()) {
    auto inbox = MailboxName::personal(d.name.domain(), d.name.owner());
    if (inbox.ok()) e.quota_root = inbox->toString();
  }
  Status valid = validateEntry(e);
  if (valid.isOk() && d.name.length() > store_.list().options().max_name_length) {
    valid = Status::tooBig("name longer than max_mailbox_name");
  }
  if (!valid.isOk()) {
    leave(who, "not in the mailbox list, and darius.header makes no valid entry (" +
                   valid.message() + ")");
    return;
  }
  if (announce) {
    fix(who, "not in the mailbox list", "entry added from darius.header",
        "entry would be added from darius.header");
    if (h.name != who) {
      fix(who, "darius.header names it " + printableBytes(h.name), "header updated",
          "header would be updated");
      MailboxHeader fixed = h;
      fixed.name = who;
      headers_.push_back({&d, fixed, false});
    }
  }
  ids_.emplace(e.unique_id, who);
  ListChange c{ListChange::Op::kInsert, "", d.name, e};
  c.needs_header = announce ? nullptr : &d;
  changes_.push_back(std::move(c));
}

// Where a deleted mailbox's files went: "<partition>:darius.deleted/<time>-<id>[.uncreated]".
std::string Run::deletedLocation(const std::string& unique_id) {
  if (!deleted_) {
    deleted_.emplace();
    for (const Partition& p : store_.partitions()) {
      auto entries = env_.listDir(p.deletedDir());
      if (!entries.ok()) continue;
      for (const std::string& e : *entries) {
        size_t dash = e.find('-');
        if (dash == std::string::npos) continue;
        std::string id = e.substr(dash + 1);
        if (size_t dot = id.find('.'); dot != std::string::npos) id.resize(dot);
        (*deleted_)[id] = p.name + ":" + std::string(kDeletedDirName) + "/" + e;
      }
    }
  }
  auto it = deleted_->find(unique_id);
  return it == deleted_->end() ? std::string() : it->second;
}

Status Run::apply() {
  if (o_.dry_run) return Status::ok();
  // Headers first: a crash before the list commit leaves headers the next run lists again.
  for (HeaderWrite& w : headers_) {
    OnDisk& d = *w.target;
    auto lock = io::FileLock::acquire(d.dir + "/" + std::string(kLockFileName),
                                      io::LockMode::kExclusive, /*wait=*/true);
    Status s = lock.ok() ? Status::ok() : lock.status();
    if (s.isOk() && w.keep_damaged) {
      auto old = env_.readFile(d.dir + "/" + std::string(kHeaderFileName));
      if (old.ok()) {
        s = io::writeFileAtomic(env_, d.dir + "/" + std::string(kDamagedHeaderName), *old);
      }
    }
    if (s.isOk()) s = writeMailboxHeader(env_, d.dir, w.header);
    if (!s.isOk()) {
      d.write_failed = true;
      note(d.name.toString(), "could not write darius.header: " + s.toString(), false);
      continue;
    }
    d.header = w.header;
    ++r_.headers_written;
  }
  std::vector<ListChange> todo;
  for (ListChange& c : changes_) {
    if (c.needs_header == nullptr || !c.needs_header->write_failed) todo.push_back(c);
  }
  if (todo.empty()) return Status::ok();
  std::stable_sort(todo.begin(), todo.end(),
                   [](const ListChange& a, const ListChange& b) { return a.op < b.op; });
  DARIUS_ASSIGN_OR_RETURN(auto txn, store_.list().begin());
  for (const ListChange& c : todo) {
    switch (c.op) {
      case ListChange::Op::kRemoveKey:
        DARIUS_RETURN_IF_ERROR(txn->removeKey(c.key));
        break;
      case ListChange::Op::kRemove:
        DARIUS_RETURN_IF_ERROR(txn->remove(*c.name));
        break;
      case ListChange::Op::kUpdate:
        DARIUS_RETURN_IF_ERROR(txn->update(*c.name, c.entry));
        break;
      case ListChange::Op::kInsert:
        DARIUS_RETURN_IF_ERROR(txn->insert(*c.name, c.entry));
        break;
    }
  }
  DARIUS_RETURN_IF_ERROR(txn->commit());
  for (const ListChange& c : todo) {
    if (c.op == ListChange::Op::kUpdate) ++r_.list_updated;
    if (c.op == ListChange::Op::kInsert) ++r_.list_added;
    if (c.op == ListChange::Op::kRemove || c.op == ListChange::Op::kRemoveKey) ++r_.list_removed;
    // Replication follows the list through the change log, as for CREATE and DELETE.
    if (c.op != ListChange::Op::kInsert && c.op != ListChange::Op::kRemove) continue;
    ChangeLog* log = store_.changeLog(c.entry.partition);
    if (log == nullptr) continue;
    ChangeRecord rec;
    rec.type = c.op == ListChange::Op::kInsert ? ChangeType::kCreate : ChangeType::kDelete;
    rec.mailbox_id = c.entry.unique_id;
    rec.name = c.name->toString();
    (void)log->append(rec);  // a hint for consumers, as in Store; the list is the truth
  }
  return Status::ok();
}

void Run::mailboxPhase() {
  std::vector<OnDisk*> todo;
  for (auto& [key, cands] : found_) {
    for (OnDisk& c : cands) {
      if (c.header) todo.push_back(&c);
    }
  }
  ReconstructOptions ro;
  ro.dry_run = o_.dry_run;
  ro.fill_cache = buildCacheEntry;
  for (size_t i = 0; i < todo.size(); ++i) {
    if (o_.on_progress) o_.on_progress(i, todo.size());
    const OnDisk& d = *todo[i];
    const std::string who = d.name.toString();
    auto rep = reconstructMailbox(env_, d.dir, ro);
    if (!rep.ok()) {
      // Renamed or deleted since the walk (the namespace lock is no longer held): not ours.
      if (rep.status().isNotFound()) continue;
      ++r_.mailboxes;
      note(who, "reconstruct failed: " + rep.status().toString(), false);
      continue;
    }
    ++r_.mailboxes;
    r_.messages += rep->messages;
    for (const std::string& p : rep->problems) note(who, p, true);
    for (const std::string& p : rep->debris) {
      fix(who, "debris of an append that never committed: " + io::baseName(p), "removed",
          "would be removed");
    }
  }
  if (o_.on_progress) o_.on_progress(todo.size(), todo.size());
}

}  // namespace

Result<StoreReconstructReport> reconstructStore(Store& store,
                                                const StoreReconstructOptions& options) {
  if (options.data_dir.empty()) return Status::invalid("reconstruct: no data_dir");
  StoreReconstructReport report;
  Run run(store, options, report);
  {
    // The Store's own namespace lock (store.h): no create, delete or rename starts, in any
    // process, while the list and the partitions are compared and the list is rewritten.
    DARIUS_ASSIGN_OR_RETURN(
        io::FileLock ns, io::FileLock::acquire(io::joinPath(options.data_dir, kNamespaceLockName),
                                               io::LockMode::kExclusive, /*wait=*/true));
    DARIUS_RETURN_IF_ERROR(run.checkNoIntents());
    DARIUS_RETURN_IF_ERROR(run.listPhase());
  }
  run.flush();
  if (options.scope.root && run.foundNothing()) {
    return Status::notFound(options.scope.root->toString() +
                            ": not listed and not on any partition");
  }
  run.mailboxPhase();
  std::set<std::string> touched;
  for (const StoreFinding& f : report.findings) {
    if (f.fixable) touched.insert(f.mailbox);
  }
  report.repaired = touched.size();
  return report;
}

}  // namespace darius::mailbox
