// `darius search index` and `darius search check`: the admin side of the persistent search
// index (mailbox/search_index.h, docs/formats/search-index.md), after Cyrus's squatter.
//
//   darius search index [MAILBOX | -u USER | --all] [--rebuild]
//     brings each mailbox's darius.search up to date (mailbox::updateSearchIndex; with
//     --rebuild the file is removed first), draws a progress bar when standard error is a
//     terminal, and prints one summary line on standard output, which benchmarks parse:
//       indexed N messages (X.Y MB) in S.SS s: R msg/s; index Z.Z MB
//     (MB = 2^20 bytes: of message files read, and of the darius.search files in scope after
//     the run). Problems go to standard error as "<mailbox>: <problem>".
//     Exit codes: 0 ok, 1 some mailbox failed, 2 usage, 4 the store could not be opened,
//     78 config.
//   darius search check [MAILBOX | -u USER | --all] [--json]
//     compares each index with the messages: the grams of every indexed document against
//     messageGrams() of its file, and the file's damage. One line per finding on standard
//     output, "<mailbox>: <what>"; notes (expunged messages still indexed, messages not yet
//     indexed) are informational. Exit codes: 0 the indexes agree, 1 a difference, 2 usage,
//     4 something could not be checked, 78 config.
//
// Both are safe beside a running dariusd: writers of an index serialise on its lock file,
// readers take no lock (search_index.h).
//
// Thread-safety: single-threaded CLI code.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace darius::mailbox {
class Store;
}

namespace darius::tools {

inline constexpr int kSearchCannotCheck = 4;

struct SearchCommand {
  std::string action;   // "index" or "check"
  std::string mailbox;  // internal name: user/alice/Sent, example.com!user/bob, shared/x
  std::string user;     // -u: the user's INBOX and everything below it
  bool all = false;
  bool rebuild = false;  // index: remove each file first
  bool json = false;     // check: print JSON
};

const char* searchHelpFooter();

int runSearchCommand(const std::string& config_path, const SearchCommand& cmd);

// For `darius reconstruct`: indexes again the listed mailboxes named (printable internal
// names; others are skipped), whose index reconstruct removed. Problems go to standard error
// as "<mailbox>: search index: <problem>"; returns the messages indexed.
size_t reindexMailboxes(mailbox::Store& store, const std::vector<std::string>& names);

}  // namespace darius::tools
