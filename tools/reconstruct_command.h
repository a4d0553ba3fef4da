// `darius reconstruct [-n] [-r] [--adopt] [MAILBOX | -u USER | --all]`: Cyrus's reconstruct.
// Rebuilds the mailbox list from the partitions and each mailbox's index and cache from its
// message files (mailbox/reconstruct_store.h does the work), printing one line per problem,
// "<mailbox>: <problem>", on standard output, and a summary on standard error. Works on a live
// store: namespace operations wait while the list is compared, each mailbox is locked while
// it is rebuilt.
//
// Exit codes (documented in README.md and `--help`), in the spirit of fsck's:
//   0  nothing to repair
//   1  problems found: repaired (or, with -n, all of them repairable by a run without -n)
//   2  usage error
//   3  problems left for the operator (orphans without --adopt, conflicting directories, an
//      unmounted partition, a mailbox that could not be rebuilt); the others were repaired
//   4  the store could not be checked (config, mailbox list or lock unusable, no such mailbox)
//
// Thread-safety: single-threaded CLI code.
#pragma once

#include <string>

namespace darius::tools {

inline constexpr int kReconstructClean = 0;
inline constexpr int kReconstructFound = 1;
inline constexpr int kReconstructUnresolved = 3;
inline constexpr int kReconstructError = 4;

struct ReconstructCommand {
  std::string mailbox;  // internal printable name: user/alice/Sent, example.com!user/bob, shared/x
  std::string user;     // -u: the user's INBOX and everything below it
  bool all = false;
  bool dry_run = false;
  bool recursive = false;
  bool adopt = false;
};

// The text of `darius reconstruct --help` after the options.
const char* reconstructHelpFooter();

int runReconstruct(const std::string& config_path, const ReconstructCommand& cmd);

}  // namespace darius::tools
