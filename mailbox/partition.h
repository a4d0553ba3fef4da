// Partitions (DESIGN.md §3): the configured directories that hold mailbox directories. Each
// partition root also holds the store's own areas, named with a '.' so that they can never be
// taken for a mailbox (mailbox_path.h):
//
//   <root>/darius.stage/       messages written and fsync'd once before they are linked
//   <root>/darius.deleted/     mailboxes removed by DELETE, until `darius expire`
//   <root>/darius.changelog/   the partition's change log (change_log.h)
//   <root>/darius.journal/     the partition's delivery journal (delivery_journal.h)
//
// The `partitions` option lists them as `name:path` (relative paths are below data_dir);
// `default_partition` names the one new users' mailboxes go to.
//
// Ownership: plain values. Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lib/base/result.h"

namespace darius::mailbox {

inline constexpr std::string_view kStageDirName = "darius.stage";
inline constexpr std::string_view kDeletedDirName = "darius.deleted";
inline constexpr std::string_view kJournalDirName = "darius.journal";

struct Partition {
  std::string name;  // 1–64 bytes of [0-9A-Za-z_-] (MailboxEntry::partition)
  std::string root;  // absolute, normalised

  std::string stageDir() const { return root + "/" + std::string(kStageDirName); }
  std::string deletedDir() const { return root + "/" + std::string(kDeletedDirName); }
  std::string changeLogDir() const;
  std::string journalDir() const { return root + "/" + std::string(kJournalDirName); }
};

// Parses the `partitions` entries ("name:path"); kInvalid naming the bad entry (an empty
// list, a bad or repeated name, an empty path, two partitions on one root).
base::Result<std::vector<Partition>> parsePartitions(const std::vector<std::string>& entries,
                                                     std::string_view data_dir);

bool isValidPartitionName(std::string_view name);

}  // namespace darius::mailbox
