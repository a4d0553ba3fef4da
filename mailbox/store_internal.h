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

namespace darius::mailbox::internal {

// One namespace operation, written down before it starts (docs/formats/intents.md).
struct Intent {
  enum class Op { kCreate, kDelete, kRename };
  Op op = Op::kCreate;
  std::string name;       // MailboxName::toString(); for a rename, the old name
  std::string to;         // kRename: the new name
  std::string unique_id;  // kCreate, kDelete
  std::string partition;  // kCreate, kDelete
  std::string target;     // kDelete: the entry name in the partition's deleted area
  bool own_files_only = false;  // kDelete: child mailboxes stay, only the files move
};

std::string_view intentOpName(Intent::Op op);  // "create", "delete", "rename"
std::string encodeIntent(const Intent& intent);
// kCorruption naming what is wrong.
base::Result<Intent> decodeIntent(std::string_view text);

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
