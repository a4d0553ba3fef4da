#include "tools/search_command.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <vector>

#include "lib/io/fd.h"
#include "lib/io/file_lock.h"
#include "lib/io/mapped_file.h"
#include "mailbox/mailbox.h"
#include "mailbox/namespace.h"
#include "mailbox/search_grams.h"
#include "mailbox/search_index.h"
#include "mailbox/store.h"
#include "tools/cli_common.h"
#include "tools/progress.h"

namespace darius::tools {

using base::Result;
using base::Status;
using mailbox::MailboxName;

const char* searchHelpFooter() {
  return "MAILBOX is an internal name: user/alice, user/alice/Sent, shared/news.\n"
         "index prints one line: indexed N messages (X.Y MB) in S.SS s: R msg/s; index Z.Z MB\n"
         "check prints one line per difference, \"<mailbox>: <what differs>\".\n"
         "Exit codes: 0 ok; 1 a mailbox failed (index) or the index differs (check); 2 usage;\n"
         "4 the store (or, for check, a mailbox) could not be read; 78 config.";
}

namespace {

constexpr double kMB = 1024.0 * 1024.0;

struct Target {
  MailboxName name;
  std::string dir;
};

// The selectable mailboxes in scope, in list order.
Result<std::vector<Target>> targetsOf(const config::Config& config, mailbox::Store& store,
                                      const SearchCommand& cmd) {
  std::vector<Target> out;
  Status inner = Status::ok();
  auto add = [&](const MailboxName& name, const mailbox::MailboxEntry& entry) {
    if ((entry.flags & (mailbox::MailboxEntry::kDeleted | mailbox::MailboxEntry::kNoSelect)) != 0) {
      return true;
    }
    auto dir = store.directoryOf(name, entry);
    if (!dir.ok()) {
      inner = dir.status();
      return false;
    }
    out.push_back({name, *dir});
    return true;
  };
  if (cmd.all) {
    DARIUS_RETURN_IF_ERROR(store.list().forEach(add));
  } else if (!cmd.user.empty()) {
    DARIUS_ASSIGN_OR_RETURN(mailbox::Namespace ns, mailbox::Namespace::fromConfig(config));
    DARIUS_ASSIGN_OR_RETURN(mailbox::UserName user, ns.parseUser(cmd.user));
    DARIUS_ASSIGN_OR_RETURN(MailboxName inbox, ns.inboxOf(user));
    DARIUS_RETURN_IF_ERROR(store.list().listSubtree(inbox, add));
  } else {
    DARIUS_ASSIGN_OR_RETURN(MailboxName name, MailboxName::parse(cmd.mailbox));
    DARIUS_ASSIGN_OR_RETURN(mailbox::MailboxEntry entry, store.list().lookup(name));
    add(name, entry);
  }
  DARIUS_RETURN_IF_ERROR(inner);
  return out;
}

void problem(bool tty, const MailboxName& name, const std::string& what) {
  if (tty) std::fputs("\r\033[K", stderr);  // clear the progress bar's line first
  std::fprintf(stderr, "%s: %s\n", name.toString().c_str(), what.c_str());
}

int runIndex(const std::vector<Target>& targets, mailbox::Store& store, bool rebuild) {
  const bool tty = isatty(STDERR_FILENO) == 1;
  ProgressBar bar("search index");
  const auto start = std::chrono::steady_clock::now();
  size_t indexed = 0, failed = 0;
  uint64_t bytes_read = 0, index_bytes = 0;
  for (size_t t = 0; t < targets.size(); ++t) {
    const Target& target = targets[t];
    auto mb = mailbox::Mailbox::open(store.env(), target.dir);
    if (!mb.ok()) {
      problem(tty, target.name, "cannot open: " + mb.status().toString());
      ++failed;
      continue;
    }
    if (rebuild) {
      // Under the writers' lock, so that dariusd's indexer is not halfway through replacing
      // the file we remove (its rename would bring the old segments back).
      Status removed = Status::ok();
      auto lock = io::FileLock::acquire(
          target.dir + "/" + std::string(mailbox::kSearchIndexLockName), io::LockMode::kExclusive,
          true);
      if (!lock.ok()) removed = lock.status();
      else removed = mailbox::removeSearchIndex(target.dir);
      if (!removed.ok()) {
        problem(tty, target.name, "cannot remove the index: " + removed.toString());
        ++failed;
        continue;
      }
    }
    mailbox::SearchUpdateOptions o;
    // One mailbox: its messages make the bar; several: the mailboxes do.
    if (targets.size() == 1) o.progress = [&bar](size_t d, size_t n) { bar.update(d, n); };
    auto r = mailbox::updateSearchIndex(**mb, o);
    if (targets.size() > 1) bar.update(t + 1, targets.size());
    if (!r.ok()) {
      problem(tty, target.name, "cannot index: " + r.status().toString());
      ++failed;
      continue;
    }
    indexed += r->indexed;
    bytes_read += r->bytes_read;
    index_bytes += r->after.bytes;
    if (r->unreadable > 0) {
      problem(tty, target.name,
              std::to_string(r->unreadable) + " message files could not be read (left unindexed)");
    }
    if (r->rebuilt) problem(tty, target.name, "the index was damaged and has been rebuilt");
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (tty) std::fputs("\r\033[K", stderr);
  std::printf("indexed %zu messages (%.1f MB) in %.2f s: %.0f msg/s; index %.1f MB\n", indexed,
              static_cast<double>(bytes_read) / kMB, secs,
              secs > 0 ? static_cast<double>(indexed) / secs : 0.0,
              static_cast<double>(index_bytes) / kMB);
  std::fflush(stdout);
  return failed > 0 ? kExitFailed : 0;
}

// One mailbox's comparison: differences (errors) and notes (informational).
struct CheckResult {
  std::vector<std::string> differences;
  std::vector<std::string> notes;
  size_t documents = 0;
  uint32_t last_uid = 0;
  uint64_t bytes = 0;
  bool unchecked = false;
};

std::optional<std::vector<mailbox::TaggedGram>> gramsOfFile(const std::string& path) {
  auto fd = io::openFile(path, O_RDONLY);
  if (!fd.ok()) return std::nullopt;
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) return std::nullopt;
  if (st.st_size == 0) return mailbox::messageGrams("");
  auto m = io::MappedFile::map(fd->get(), static_cast<size_t>(st.st_size), false);
  if (!m.ok()) return std::nullopt;
  return mailbox::messageGrams(m->view());
}

std::string gramDifference(const std::vector<mailbox::TaggedGram>& index,
                           const std::vector<mailbox::TaggedGram>& file) {
  size_t missing = 0, extra = 0, tag = 0, i = 0, j = 0;
  while (i < index.size() || j < file.size()) {
    if (j == file.size() || (i < index.size() && mailbox::gramOf(index[i]) < mailbox::gramOf(file[j]))) {
      ++extra, ++i;
    } else if (i == index.size() || mailbox::gramOf(file[j]) < mailbox::gramOf(index[i])) {
      ++missing, ++j;
    } else {
      tag += index[i] != file[j] ? 1 : 0;
      ++i, ++j;
    }
  }
  return "index has " + std::to_string(index.size()) + " grams, the message " +
         std::to_string(file.size()) + " (" + std::to_string(missing) + " missing, " +
         std::to_string(extra) + " extra, " + std::to_string(tag) + " with another body tag)";
}

CheckResult checkMailbox(const mailbox::Mailbox& mb) {
  CheckResult out;
  auto index = mailbox::SearchIndex::open(mb.dir(), mb.index().uidvalidity);
  const mailbox::SearchIndexStats st = index->stats();
  out.documents = st.documents;
  out.last_uid = st.last_uid;
  out.bytes = st.bytes;
  if (st.damaged) {
    out.differences.push_back("the index file is damaged after " +
                              std::to_string(index->segmentCount()) + " valid segments (" +
                              std::to_string(st.bytes) + " bytes)");
  }
  std::vector<uint32_t> live;
  size_t not_indexed = 0;
  for (size_t i = 0; i < mb.recordCount(); ++i) {
    auto r = mb.record(i);
    if (!r.ok()) {
      out.differences.push_back("cannot read record " + std::to_string(i) + ": " +
                                r.status().toString());
      out.unchecked = true;
      return out;
    }
    if (!r->live()) continue;
    live.push_back(r->uid);
    if (r->uid > st.last_uid) ++not_indexed;
  }
  size_t expunged = 0, unreadable = 0;
  std::vector<uint32_t> documents;
  for (size_t s = 0; s < index->segmentCount(); ++s) {
    const mailbox::SegmentView& seg = index->segment(s);
    auto docs = index->segmentDocuments(s);
    if (!docs.ok()) {
      out.differences.push_back("segment " + std::to_string(s) + " (UIDs " +
                                std::to_string(seg.firstUid()) + ":" +
                                std::to_string(seg.lastUid()) +
                                ") does not decode: " + docs.status().toString());
      continue;
    }
    for (size_t d = 0; d < seg.documentCount(); ++d) {
      const uint32_t uid = seg.documentUid(d);
      documents.push_back(uid);
      if (!std::binary_search(live.begin(), live.end(), uid)) {
        ++expunged;
        continue;
      }
      auto grams = gramsOfFile(mb.messagePath(uid));
      if (!grams) {
        ++unreadable;
        continue;
      }
      if (*grams != (*docs)[d]) {
        out.differences.push_back("UID " + std::to_string(uid) + ": " +
                                  gramDifference((*docs)[d], *grams));
      }
    }
  }
  std::sort(documents.begin(), documents.end());
  size_t skipped = 0;  // live, within the indexed range, yet no document (unreadable then)
  for (uint32_t uid : live) {
    if (uid <= st.last_uid && !std::binary_search(documents.begin(), documents.end(), uid)) {
      ++skipped;
    }
  }
  if (expunged > 0) {
    out.notes.push_back(std::to_string(expunged) +
                        " expunged messages still indexed (dropped by a later merge)");
  }
  if (not_indexed > 0) {
    out.notes.push_back(std::to_string(not_indexed) + " messages above UID " +
                        std::to_string(st.last_uid) + " not yet indexed");
  }
  if (skipped > 0) {
    out.notes.push_back(std::to_string(skipped) +
                        " messages unreadable when indexed (searched without the index)");
  }
  if (unreadable > 0) {
    out.notes.push_back(std::to_string(unreadable) + " indexed messages cannot be read now");
  }
  return out;
}

std::string jsonList(const std::vector<std::string>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + jsonString(v[i]);
  return s + "]";
}

int runCheck(const std::vector<Target>& targets, mailbox::Store& store, bool json) {
  bool differ = false, unchecked = false;
  std::string out = "[";
  for (size_t t = 0; t < targets.size(); ++t) {
    const Target& target = targets[t];
    const std::string name = target.name.toString();
    CheckResult r;
    auto mb = mailbox::Mailbox::open(store.env(), target.dir);
    if (!mb.ok()) {
      r.unchecked = true;
      r.differences.push_back("cannot open: " + mb.status().toString());
    } else {
      r = checkMailbox(**mb);
    }
    unchecked = unchecked || r.unchecked;
    differ = differ || (!r.unchecked && !r.differences.empty());
    if (json) {
      out += (t ? ",\n " : "") + std::string("{\"mailbox\": ") + jsonString(name) +
             ", \"checked\": " + (r.unchecked ? "false" : "true") +
             ", \"documents\": " + std::to_string(r.documents) +
             ", \"last_uid\": " + std::to_string(r.last_uid) +
             ", \"bytes\": " + std::to_string(r.bytes) +
             ", \"differences\": " + jsonList(r.differences) +
             ", \"notes\": " + jsonList(r.notes) + "}";
      continue;
    }
    for (const std::string& d : r.differences) std::printf("%s: %s\n", name.c_str(), d.c_str());
    for (const std::string& n : r.notes) std::printf("%s: note: %s\n", name.c_str(), n.c_str());
  }
  if (json) std::printf("%s]\n", out.c_str());
  if (differ) return kExitFailed;
  return unchecked ? kSearchCannotCheck : 0;
}

}  // namespace

size_t reindexMailboxes(mailbox::Store& store, const std::vector<std::string>& names) {
  size_t indexed = 0;
  for (const std::string& printable : names) {
    auto name = MailboxName::parse(printable);
    if (!name.ok()) continue;  // "mailbox list key ...": not a mailbox
    auto entry = store.list().lookup(*name);
    if (!entry.ok() ||
        (entry->flags & (mailbox::MailboxEntry::kDeleted | mailbox::MailboxEntry::kNoSelect)) != 0) {
      continue;  // removed by the reconstruct, or not selectable
    }
    Status failed = Status::ok();
    if (auto dir = store.directoryOf(*name, *entry); !dir.ok()) {
      failed = dir.status();
    } else if (auto mb = mailbox::Mailbox::open(store.env(), *dir); !mb.ok()) {
      failed = mb.status();
    } else if (auto r = mailbox::updateSearchIndex(**mb); !r.ok()) {
      failed = r.status();
    } else {
      indexed += r->indexed;
    }
    if (!failed.ok()) {
      std::fprintf(stderr, "%s: search index: %s\n", printable.c_str(), failed.toString().c_str());
    }
  }
  return indexed;
}

int runSearchCommand(const std::string& config_path, const SearchCommand& cmd) {
  if (static_cast<int>(!cmd.mailbox.empty()) + static_cast<int>(!cmd.user.empty()) +
          static_cast<int>(cmd.all) !=
      1) {
    std::fprintf(stderr, "darius: search %s: give exactly one of MAILBOX, -u USER or --all\n",
                 cmd.action.c_str());
    return kExitUsage;
  }
  if (cmd.action != "index" && cmd.action != "check") return kExitUsage;
  auto config = loadConfig(config_path);
  if (!config.ok()) {
    std::fprintf(stderr, "darius: %s\n", config.status().message().c_str());
    return kExitConfig;
  }
  auto store = mailbox::Store::open(*config);
  if (!store.ok()) {
    std::fprintf(stderr, "darius: search %s: cannot open the store: %s\n", cmd.action.c_str(),
                 store.status().toString().c_str());
    return kSearchCannotCheck;
  }
  auto targets = targetsOf(*config, **store, cmd);
  if (!targets.ok()) {
    std::fprintf(stderr, "darius: search %s: %s\n", cmd.action.c_str(),
                 targets.status().toString().c_str());
    const base::Code c = targets.status().code();
    return c == base::Code::kInvalid || c == base::Code::kNotFound ? kExitUsage
                                                                   : kSearchCannotCheck;
  }
  if (cmd.action == "index") return runIndex(*targets, **store, cmd.rebuild);
  return runCheck(*targets, **store, cmd.json);
}

}  // namespace darius::tools
