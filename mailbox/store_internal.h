// Pieces of the Store shared by its .cc files: the intent files of namespace operations
// (docs/formats/intents.md) and the directory moves they are made of. Internal to mailbox/.
//
// Ownership: plain values and functions. Thread-safety: callers hold the namespace lock.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lib/base/result.h"
#include "lib/io/env.h"
#include "lib/io/file_lock.h"

namespace darius::mailbox {
class Store;
}

namespace darius::mailbox::internal {

// One namespace operation, written down before it starts (docs/formats/intents.md).
struct Intent {
  enum class Op { kCreate, kDelete, kRename, kUndelete };
  Op op = Op::kCreate;
  std::string name;       // MailboxName::toString(); for a rename, the old name
  std::string to;         // kRename: the new name
  std::string unique_id;  // all
  std::string partition;  // kCreate, kDelete, kUndelete
  // kDelete: the entry name in the partition's deleted area it moves to; kUndelete: the one
  // it comes back from (to `name`).
  std::string target;
  bool own_files_only = false;  // kDelete: child mailboxes stay, only the files move
};

std::string_view intentOpName(Intent::Op op);  // "create", "delete", "rename", "undelete"
std::string encodeIntent(const Intent& intent);
// kCorruption naming what is wrong.
base::Result<Intent> decodeIntent(std::string_view text);

// Undelete's steps (store_deleted.cc), each repeatable: the directory moves back from the
// deleted area, its header takes the new name, and the list entry is made last.
// `recovering`: a target taken by another mailbox leaves the folder where it is (logged)
// instead of failing, so that an impossible intent cannot block every later operation.
base::Status finishUndelete(Store& store, const Intent& in, bool recovering);

// The deleted area (store_deleted.cc): the suffix of a folder being removed for good, and
// what a directory's files take, subdirectories included.
inline constexpr std::string_view kPurgingSuffix = ".purging";
uint64_t treeBytes(io::Env& env, const std::string& dir);

// Moves directory `from` to `to`: one rename(2) if `to` does not exist (its parents are
// created), else entry by entry, merging directories both have. Syncs what it changed. OK if
// `from` no longer exists (already moved: the step is repeatable).
base::Status mergeMove(io::Env& env, const std::string& from, const std::string& to);

// Moves the mailbox's own entries of `dir` (names with a '.', mailbox_path.h) into `to`,
// creating it; darius.header goes last, so a directory with a header still has everything.
base::Status moveOwnFiles(io::Env& env, const std::string& dir, const std::string& to);

// True if `dir` holds subdirectories that may be child mailboxes.
base::Result<bool> hasChildDirs(io::Env& env, const std::string& dir);

// Exclusive locks on the mailboxes in `dirs` that exist, in order, so that no writer is in the
// middle of a change while their directories move.
base::Result<std::vector<io::FileLock>> lockMailboxDirs(io::Env& env,
                                                        const std::vector<std::string>& dirs);

}  // namespace darius::mailbox::internal
