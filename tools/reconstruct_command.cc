#include "tools/reconstruct_command.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <optional>

#include "mailbox/namespace.h"
#include "mailbox/reconstruct_store.h"
#include "mailbox/store.h"
#include "tools/cli_common.h"
#include "tools/progress.h"
#include "tools/search_command.h"

namespace darius::tools {

using base::Result;
using base::Status;

const char* reconstructHelpFooter() {
  return "MAILBOX is an internal name: user/alice, user/alice/Sent, example.com!user/bob, "
         "shared/news.\n"
         "Each problem is one line on standard output, \"<mailbox>: <problem>\"; a summary goes "
         "to standard error.\n"
         "Exit codes: 0 nothing to repair; 1 problems found and repaired (with -n: found, all "
         "repairable);\n"
         "2 usage; 3 problems left for the operator (orphans without --adopt, conflicts, a "
         "partition that looks unmounted);\n"
         "4 the store could not be checked.";
}

namespace {

Result<mailbox::ReconstructScope> scopeOf(const config::Config& config,
                                          const ReconstructCommand& cmd) {
  mailbox::ReconstructScope scope;
  if (!cmd.user.empty()) {
    DARIUS_ASSIGN_OR_RETURN(mailbox::Namespace ns, mailbox::Namespace::fromConfig(config));
    DARIUS_ASSIGN_OR_RETURN(mailbox::UserName user, ns.parseUser(cmd.user));
    DARIUS_ASSIGN_OR_RETURN(mailbox::MailboxName inbox, ns.inboxOf(user));
    scope.root = inbox;
    scope.recursive = true;
  } else if (!cmd.mailbox.empty()) {
    DARIUS_ASSIGN_OR_RETURN(mailbox::MailboxName root, mailbox::MailboxName::parse(cmd.mailbox));
    scope.root = root;
    scope.recursive = cmd.recursive;
  }
  return scope;
}

void printSummary(const mailbox::StoreReconstructReport& r, bool dry_run) {
  size_t open = 0;
  for (const auto& f : r.findings) open += f.fixable ? 0 : 1;
  std::fprintf(stderr, "reconstruct: %zu mailboxes checked, %zu messages; %zu mailboxes %s",
               r.mailboxes, r.messages, r.repaired, dry_run ? "to repair" : "repaired");
  if (!dry_run) {
    std::fprintf(stderr,
                 " (mailbox list: %zu added, %zu removed, %zu updated; %zu headers written)",
                 r.list_added, r.list_removed, r.list_updated, r.headers_written);
  }
  if (open > 0) std::fprintf(stderr, "; %zu problems left for the operator", open);
  std::fprintf(stderr, "%s\n", dry_run ? " (dry run: nothing changed)" : "");
}

}  // namespace

int runReconstruct(const std::string& config_path, const ReconstructCommand& cmd) {
  if (static_cast<int>(!cmd.mailbox.empty()) + static_cast<int>(!cmd.user.empty()) +
          static_cast<int>(cmd.all) !=
      1) {
    std::fprintf(stderr, "darius: reconstruct: give exactly one of MAILBOX, -u USER or --all\n");
    return kExitUsage;
  }
  auto config = loadConfig(config_path);
  if (!config.ok()) {
    std::fprintf(stderr, "darius: %s\n", config.status().message().c_str());
    return kExitConfig;
  }
  auto scope = scopeOf(*config, cmd);
  if (!scope.ok()) {
    std::fprintf(stderr, "darius: reconstruct: %s\n", scope.status().toString().c_str());
    return kExitUsage;
  }

  const bool tty = isatty(STDERR_FILENO) == 1;
  std::optional<ProgressBar> bar;
  if (cmd.all) bar.emplace("reconstruct");
  mailbox::StoreReconstructOptions o;
  o.data_dir = config->getPath("data_dir");
  o.scope = *scope;
  o.dry_run = cmd.dry_run;
  o.adopt_orphans = cmd.adopt;
  o.on_finding = [tty](const mailbox::StoreFinding& f) {
    if (tty) std::fputs("\r\033[K", stderr);  // clear the progress bar's line first
    std::printf("%s: %s\n", f.mailbox.c_str(), f.text.c_str());
    std::fflush(stdout);
  };
  if (bar) o.on_progress = [&bar](size_t done, size_t total) { bar->update(done, total); };

  // Interrupted namespace operations are finished only by opening the store (store.h); a
  // crash in another process between our open and our lock leaves one, so open again.
  for (int attempt = 0;; ++attempt) {
    auto store = mailbox::Store::open(*config);
    if (!store.ok()) {
      std::fprintf(stderr, "darius: reconstruct: cannot open the store: %s\n",
                   store.status().toString().c_str());
      if (store.status().isCorruption()) {
        std::fprintf(stderr,
                     "darius: if the mailbox list itself is unreadable: stop dariusd, move %s/"
                     "mailboxes.db aside and run `darius reconstruct --all` to rebuild it from "
                     "the partitions\n",
                     o.data_dir.c_str());
      }
      return kReconstructError;
    }
    auto report = mailbox::reconstructStore(**store, o);
    if (!report.ok() && report.status().code() == base::Code::kTemporary && attempt < 3) continue;
    if (!report.ok()) {
      std::fprintf(stderr, "darius: reconstruct: %s\n", report.status().toString().c_str());
      return kReconstructError;
    }
    bar.reset();  // ends the bar's line before the summary
    printSummary(*report, cmd.dry_run);
    if (!cmd.dry_run) {
      // A repaired mailbox lost its search index (mailbox/reconstruct.cc): build it again now
      // rather than leave every SEARCH there to read all messages until dariusd catches up.
      std::vector<std::string> repaired;
      for (const auto& f : report->findings) {
        if (f.fixable && std::find(repaired.begin(), repaired.end(), f.mailbox) == repaired.end()) {
          repaired.push_back(f.mailbox);
        }
      }
      if (!repaired.empty()) {
        size_t n = reindexMailboxes(**store, repaired);
        std::fprintf(stderr, "reconstruct: search index rebuilt for repaired mailboxes: %zu messages\n", n);
      }
    }
    if (report->clean()) return kReconstructClean;
    return report->unresolved() ? kReconstructUnresolved : kReconstructFound;
  }
}

}  // namespace darius::tools
