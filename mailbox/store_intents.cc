// Intent files of namespace operations and the directory moves they are made of
// (docs/formats/intents.md), and Store::recoverLocked(), which finishes the operations a crash
// cut short.
#include <sys/stat.h>
#include <unistd.h>

#include <set>
#include <string>
#include <vector>

#include "lib/io/atomic_file.h"
#include "lib/io/path.h"
#include "lib/log/log.h"
#include "mailbox/header_file.h"
#include "mailbox/mailbox.h"
#include "mailbox/mailbox_path.h"
#include "mailbox/reconstruct.h"
#include "mailbox/store.h"
#include "mailbox/store_internal.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

namespace internal {

namespace {

constexpr std::string_view kIntentMagic = "darius-intent 1";

}  // namespace

std::string_view intentOpName(Intent::Op op) {
  switch (op) {
    case Intent::Op::kCreate: return "create";
    case Intent::Op::kDelete: return "delete";
    case Intent::Op::kRename: return "rename";
    case Intent::Op::kUndelete: return "undelete";
  }
  return "?";
}

namespace {

bool sameFile(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  return ::lstat(a.c_str(), &sa) == 0 && ::lstat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

// rename(2), except that a cut rename may have left one file under both names, and rename(2)
// of two links of one inode does nothing: then the old name is dropped.
Status moveEntry(io::Env& env, const std::string& from, const std::string& to) {
  if (sameFile(from, to)) return env.removeFile(from);
  return env.renameFile(from, to);
}

bool hasControl(std::string_view s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t') return true;
  }
  return false;
}

}  // namespace

std::string encodeIntent(const Intent& in) {
  std::string out = std::string(kIntentMagic) + "\n";
  auto field = [&](std::string_view key, std::string_view value) {
    out += key;
    out += ' ';
    out += value;
    out += '\n';
  };
  field("op", intentOpName(in.op));
  field("name", in.name);
  if (in.op == Intent::Op::kRename) field("to", in.to);
  field("id", in.unique_id);
  if (in.op != Intent::Op::kRename) field("partition", in.partition);
  if (in.op == Intent::Op::kDelete) {
    field("target", in.target);
    field("own-files-only", in.own_files_only ? "yes" : "no");
  }
  if (in.op == Intent::Op::kUndelete) field("target", in.target);
  out += "end\n";
  return out;
}

Result<Intent> decodeIntent(std::string_view text) {
  auto bad = [](std::string why) { return Status::corruption("intent: " + why); };
  size_t nl = text.find('\n');
  if (nl == std::string_view::npos || text.substr(0, nl) != kIntentMagic) {
    return bad("not a darius intent file (version 1)");
  }
  text.remove_prefix(nl + 1);
  Intent in;
  std::set<std::string, std::less<>> seen;
  bool ended = false, has_op = false;
  while (!text.empty()) {
    nl = text.find('\n');
    if (nl == std::string_view::npos) return bad("truncated");
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl + 1);
    if (line == "end") {
      ended = true;
      break;
    }
    size_t sp = line.find(' ');
    if (sp == std::string_view::npos) return bad("line without a value");
    std::string_view key = line.substr(0, sp), value = line.substr(sp + 1);
    if (hasControl(value)) return bad("control character in " + std::string(key));
    if (!seen.insert(std::string(key)).second) return bad("repeated " + std::string(key));
    if (key == "op") {
      has_op = true;
      if (value == "create") {
        in.op = Intent::Op::kCreate;
      } else if (value == "delete") {
        in.op = Intent::Op::kDelete;
      } else if (value == "rename") {
        in.op = Intent::Op::kRename;
      } else if (value == "undelete") {
        in.op = Intent::Op::kUndelete;
      } else {
        return bad("unknown op '" + std::string(value) + "'");
      }
    } else if (key == "name") {
      in.name = value;
    } else if (key == "to") {
      in.to = value;
    } else if (key == "id") {
      in.unique_id = value;
    } else if (key == "partition") {
      in.partition = value;
    } else if (key == "target") {
      if (value.empty() || value.find('/') != std::string_view::npos || value[0] == '.') {
        return bad("bad target");
      }
      in.target = value;
    } else if (key == "own-files-only") {
      in.own_files_only = value == "yes";
    }
    // Unknown keys are ignored: a later version may add some.
  }
  if (!ended) return bad("no end line (torn)");
  if (!has_op || in.name.empty() || in.unique_id.empty()) return bad("missing fields");
  if (in.op == Intent::Op::kRename && in.to.empty()) return bad("rename without 'to'");
  if (in.op != Intent::Op::kRename && in.partition.empty()) return bad("missing partition");
  if ((in.op == Intent::Op::kDelete || in.op == Intent::Op::kUndelete) && in.target.empty()) {
    return bad(std::string(intentOpName(in.op)) + " without target");
  }
  return in;
}

Status mergeMove(io::Env& env, const std::string& from, const std::string& to) {
  auto is_dir = env.isDirectory(from);
  if (!is_dir.ok()) return is_dir.status().code() == base::Code::kNotFound ? Status::ok() : is_dir.status();
  auto to_exists = env.fileExists(to);
  if (!to_exists.ok()) return to_exists.status();
  if (!*to_exists) {
    DARIUS_RETURN_IF_ERROR(io::createDirs(env, io::parentDir(to)));
    DARIUS_RETURN_IF_ERROR(env.renameFile(from, to));
    DARIUS_RETURN_IF_ERROR(env.syncDir(io::parentDir(to)));
    return env.syncDir(io::parentDir(from));
  }
  DARIUS_ASSIGN_OR_RETURN(auto entries, env.listDir(from));
  for (const std::string& e : entries) {
    std::string f = from + "/" + e, t = to + "/" + e;
    auto f_dir = env.isDirectory(f);
    auto t_dir = env.isDirectory(t);
    if (e == kLockFileName) {
      // Lock files are made by io::FileLock, outside the Env, and hold no data: the target
      // has or makes its own.
      ::unlink(f.c_str());
    } else if (f_dir.ok() && *f_dir && t_dir.ok() && *t_dir) {
      DARIUS_RETURN_IF_ERROR(mergeMove(env, f, t));
    } else {
      DARIUS_RETURN_IF_ERROR(moveEntry(env, f, t));
    }
  }
  DARIUS_RETURN_IF_ERROR(env.syncDir(to));
  DARIUS_RETURN_IF_ERROR(env.removeDir(from));
  return env.syncDir(io::parentDir(from));
}

Status moveOwnFiles(io::Env& env, const std::string& dir, const std::string& to) {
  DARIUS_RETURN_IF_ERROR(io::createDirs(env, to));
  auto entries = env.listDir(dir);
  if (!entries.ok()) {
    return entries.status().code() == base::Code::kNotFound ? Status::ok() : entries.status();
  }
  bool header = false;
  for (const std::string& e : *entries) {
    // The lock file stays: it holds no data, waiters may hold it, and a mailbox created here
    // again uses it.
    if (mayBeChildMailboxDir(e) || e == kLockFileName) continue;
    if (e == kHeaderFileName) {
      header = true;
      continue;
    }
    DARIUS_RETURN_IF_ERROR(moveEntry(env, dir + "/" + e, to + "/" + e));
  }
  if (header) {
    DARIUS_RETURN_IF_ERROR(env.syncDir(to));
    std::string h(kHeaderFileName);
    DARIUS_RETURN_IF_ERROR(moveEntry(env, dir + "/" + h, to + "/" + h));
  }
  DARIUS_RETURN_IF_ERROR(env.syncDir(to));
  return env.syncDir(dir);
}

Result<bool> hasChildDirs(io::Env& env, const std::string& dir) {
  auto entries = env.listDir(dir);
  if (!entries.ok()) {
    if (entries.status().code() == base::Code::kNotFound) return false;
    return entries.status();
  }
  for (const std::string& e : *entries) {
    if (!mayBeChildMailboxDir(e)) continue;
    auto d = env.isDirectory(dir + "/" + e);
    if (d.ok() && *d) return true;
  }
  return false;
}

Result<std::vector<io::FileLock>> lockMailboxDirs(io::Env& env,
                                                  const std::vector<std::string>& dirs) {
  std::vector<io::FileLock> locks;
  for (const std::string& d : dirs) {
    auto has = env.fileExists(d + "/" + std::string(kHeaderFileName));
    if (!has.ok() || !*has) continue;
    auto l = io::FileLock::acquire(d + "/" + std::string(kLockFileName), io::LockMode::kExclusive,
                                   /*wait=*/true);
    if (!l.ok()) return l.status();
    locks.push_back(std::move(*l));
  }
  return locks;
}

}  // namespace internal

using internal::Intent;

namespace {

// The unique id in `dir`'s header, or "" when it holds no readable mailbox header.
std::string headerId(io::Env& env, const std::string& dir) {
  auto h = readMailboxHeader(env, dir);
  return h.ok() ? h->unique_id : std::string();
}

}  // namespace

// Rolls a create back unless its list entry was committed: the CREATE was never acknowledged,
// and nothing can have been delivered into a mailbox the list does not show.
static Status finishCreate(Store& store, const Intent& in, const MailboxName& name) {
  auto entry = store.list().lookup(name);
  if (entry.ok() && entry->unique_id == in.unique_id) return Status::ok();
  if (!entry.ok() && entry.status().code() != base::Code::kNotFound) return entry.status();
  DARIUS_ASSIGN_OR_RETURN(const Partition* p, store.partition(in.partition));
  DARIUS_ASSIGN_OR_RETURN(std::string dir, mailboxDir(p->root, name));
  if (headerId(store.env(), dir) != in.unique_id) {
    // The header never made it; debris of the index and cache is replaced by the next create.
    return Status::ok();
  }
  // An unfinished create has never received mail (nothing delivers to an unlisted name). A
  // mailbox with messages is a finished create whose list entry was lost since (a damaged or
  // restored list): it stays where it is, for `darius reconstruct` to list again.
  DARIUS_ASSIGN_OR_RETURN(std::vector<std::string> names, store.env().listDir(dir));
  for (const std::string& n : names) {
    if (uidOfMessageFileName(n) != 0) {
      log::warning("mailbox {} ({}) holds messages but is not listed; left for reconstruct",
                   in.name, dir);
      return Status::ok();
    }
  }
  std::string debris = p->deletedDir() + "/" + std::to_string(::time(nullptr)) + "-" +
                       in.unique_id + ".uncreated";
  return internal::moveOwnFiles(store.env(), dir, debris);
}

static Status finishDelete(Store& store, const Intent& in, const MailboxName& name) {
  auto entry = store.list().lookup(name);
  if (entry.ok() && entry->unique_id == in.unique_id) {
    DARIUS_RETURN_IF_ERROR(store.list().remove(name));
  } else if (!entry.ok() && entry.status().code() != base::Code::kNotFound) {
    return entry.status();
  }
  // A quota root set on the mailbox goes with it once nothing is left below it, as Cyrus
  // removes a deleted user's root (repeatable: the record is simply gone the second time).
  if (!entry.ok() || entry->unique_id == in.unique_id) {
    bool left = false;
    DARIUS_RETURN_IF_ERROR(store.list().listSubtree(name, [&](const MailboxName&,
                                                              const MailboxEntry&) {
      left = true;
      return false;
    }));
    if (!left) DARIUS_RETURN_IF_ERROR(store.quotas().remove(name));
  }
  DARIUS_ASSIGN_OR_RETURN(const Partition* p, store.partition(in.partition));
  DARIUS_ASSIGN_OR_RETURN(std::string dir, mailboxDir(p->root, name));
  std::string target = p->deletedDir() + "/" + in.target;
  auto target_exists = store.env().fileExists(target);
  if (!target_exists.ok()) return target_exists.status();
  if (headerId(store.env(), dir) != in.unique_id && !*target_exists) return Status::ok();
  DARIUS_ASSIGN_OR_RETURN(auto locks, internal::lockMailboxDirs(store.env(), {dir}));
  if (in.own_files_only) return internal::moveOwnFiles(store.env(), dir, target);
  if (headerId(store.env(), dir) != in.unique_id) return Status::ok();  // moved already
  // One rename(2) when the target is free; merged entry by entry when a cut rename left both
  // names (the deleted area's entry was synced first, so never neither).
  return internal::mergeMove(store.env(), dir, target);
}

static Status finishRename(Store& store, const Intent& in, const MailboxName& from,
                           const MailboxName& to) {
  auto at_from = store.list().lookup(from);
  if (at_from.ok() && at_from->unique_id == in.unique_id) {
    auto moved = store.list().renameSubtree(from, to);
    if (!moved.ok()) return moved.status();
  } else if (!at_from.ok() && at_from.status().code() != base::Code::kNotFound) {
    return at_from.status();
  }
  auto at_to = store.list().lookup(to);
  if (!at_to.ok() || at_to->unique_id != in.unique_id) {
    return Status::ok();  // the list was never renamed; nothing moved on disk either
  }
  // Quota roots at and below the old name go with it (repeatable: none are left there).
  DARIUS_RETURN_IF_ERROR(store.quotas().renameSubtree(from, to));
  // Lock every mailbox under the old directories, then move each partition's directory.
  std::vector<std::string> from_dirs;
  for (const Partition& p : store.partitions()) {
    DARIUS_ASSIGN_OR_RETURN(std::string d, mailboxDir(p.root, from));
    from_dirs.push_back(d);
  }
  std::vector<std::string> lock_dirs;
  DARIUS_RETURN_IF_ERROR(store.list().listSubtree(to, [&](const MailboxName& n,
                                                          const MailboxEntry& e) {
    auto old_name = n.rebased(to, from);
    auto p = store.partition(e.partition);
    if (old_name.ok() && p.ok()) {
      auto d = mailboxDir((*p)->root, *old_name);
      if (d.ok()) lock_dirs.push_back(*d);
    }
    return true;
  }));
  DARIUS_ASSIGN_OR_RETURN(auto locks, internal::lockMailboxDirs(store.env(), lock_dirs));
  for (size_t i = 0; i < store.partitions().size(); ++i) {
    DARIUS_ASSIGN_OR_RETURN(std::string to_dir, mailboxDir(store.partitions()[i].root, to));
    DARIUS_RETURN_IF_ERROR(internal::mergeMove(store.env(), from_dirs[i], to_dir));
  }
  locks.clear();
  // Header files keep the name for reconstruct; bring them up to date (under each lock, as a
  // keyword added at the same moment rewrites the header too).
  std::vector<std::pair<std::string, std::string>> renamed;  // dir, new name
  DARIUS_RETURN_IF_ERROR(store.list().listSubtree(to, [&](const MailboxName& n,
                                                          const MailboxEntry& e) {
    auto d = store.directoryOf(n, e);
    if (d.ok()) renamed.emplace_back(*d, n.toString());
    return true;
  }));
  for (const auto& [dir, name] : renamed) {
    DARIUS_ASSIGN_OR_RETURN(auto l, internal::lockMailboxDirs(store.env(), {dir}));
    auto h = readMailboxHeader(store.env(), dir);
    if (!h.ok() || h->name == name) continue;
    h->name = name;
    DARIUS_RETURN_IF_ERROR(writeMailboxHeader(store.env(), dir, *h));
  }
  return Status::ok();
}

Status Store::recoverLocked() {
  std::string intents = io::joinPath(options_.data_dir, kIntentDirName);
  DARIUS_ASSIGN_OR_RETURN(auto files, env_.listDir(intents));
  for (const std::string& f : files) {
    std::string path = intents + "/" + f;
    if (io::isAtomicTempName(f)) {
      // An intent that was never fully written: its operation never started.
      DARIUS_RETURN_IF_ERROR(env_.removeFile(path));
      continue;
    }
    DARIUS_ASSIGN_OR_RETURN(std::string text, env_.readFile(path));
    auto in = internal::decodeIntent(text);
    if (!in.ok()) {
      return Status::corruption(path + ": " + in.status().message() +
                                " (inspect it; remove it to go on without it)");
    }
    DARIUS_RETURN_IF_ERROR(applyIntent(*in, /*recovering=*/true));
    DARIUS_RETURN_IF_ERROR(env_.removeFile(path));
    DARIUS_RETURN_IF_ERROR(env_.syncDir(intents));
    std::string line = std::string(internal::intentOpName(in->op)) + " " + in->name +
                       (in->to.empty() ? "" : " -> " + in->to);
    log::notice("store: finished an interrupted {}", line);
    recovery_.finished.push_back(line);
  }
  return Status::ok();
}

Status Store::applyIntent(const Intent& in, bool recovering) {
  DARIUS_ASSIGN_OR_RETURN(MailboxName name, MailboxName::parse(in.name));
  switch (in.op) {
    case Intent::Op::kCreate:
      // Recovery rolls a create back; the live path rolls it forward itself (create()).
      return recovering ? finishCreate(*this, in, name) : Status::ok();
    case Intent::Op::kDelete:
      return finishDelete(*this, in, name);
    case Intent::Op::kRename: {
      DARIUS_ASSIGN_OR_RETURN(MailboxName to, MailboxName::parse(in.to));
      return finishRename(*this, in, name, to);
    }
    case Intent::Op::kUndelete:
      // Rolls forward: the folder is wanted back, and each step is repeatable.
      return internal::finishUndelete(*this, in, recovering);
  }
  return Status::invalid("unknown intent");
}

Result<std::string> Store::writeIntent(const Intent& in) {
  std::string path = io::joinPath(options_.data_dir, kIntentDirName) + "/" + newUniqueId() +
                     ".intent";
  DARIUS_RETURN_IF_ERROR(io::writeFileAtomic(env_, path, internal::encodeIntent(in)));
  return path;
}

Status Store::removeIntent(const std::string& path, bool durable) {
  DARIUS_RETURN_IF_ERROR(env_.removeFile(path));
  // Durable before the next operation: replaying a finished rename after a later create of
  // the old name would move the new mailbox.
  return durable ? env_.syncDir(io::parentDir(path)) : Status::ok();
}

}  // namespace darius::mailbox
