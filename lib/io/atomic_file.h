// writeFileAtomic: replace a whole file so that a crash at any instant leaves either the
// complete old contents or the complete new ones under `path`, never a mix, a truncated file
// or no file (DESIGN.md §3: header files, rewritten index and cache files). The recipe:
// write a temporary file in the same directory, fsync it, rename it over `path`, fsync the
// directory. Rename is atomic on POSIX filesystems, and the temp file lives in the same
// directory so the rename never crosses a filesystem.
//
// Mapped readers of the old file keep a valid mapping of the old inode (no SIGBUS, see
// mapped_file.h); they notice the change by the generation number the caller put in the
// contents.
//
// Concurrent writers of one path must hold a lock: each uses its own temp name, so the last
// rename wins and no write is torn, but one writer's update is silently lost.
//
// A crash can leave a stray temporary file behind, named ".<basename>.tmp.<unique>" in the
// same directory; isAtomicTempName() recognises such names so a repair pass can delete them.
//
// Ownership: borrows the Env. Thread-safety: safe from any thread (unique temp names).
#pragma once

#include <string>
#include <string_view>

#include "lib/base/status.h"
#include "lib/io/env.h"

namespace darius::io {

// On OK the new contents are durable. On error `path` still holds its old contents (or is
// still absent) and the temporary file has been removed if the Env allowed it — except when
// only the final directory fsync failed: then `path` already shows the new contents, but a
// crash may still bring back the old ones. Either way, after a crash it is old or new.
// `mode` is applied to the temporary file before any data is written, so contents that must
// stay private (the users file's SCRAM keys) are never readable by others, even for a moment.
Status writeFileAtomic(Env& env, const std::string& path, std::string_view contents,
                       mode_t mode = 0640);

// writeFileAtomic in two halves, for a caller that syncs other files at the same time
// (Env::runConcurrently) and must rename only after all of them are durable:
// writeTempFile() writes and syncs a temporary file beside `path` (a name isAtomicTempName
// recognises) and returns its path; commitTempFile() renames it over `path` and syncs the
// directory. On an error either removes the temporary file (best effort).
Result<std::string> writeTempFile(Env& env, const std::string& path, std::string_view contents);
Status commitTempFile(Env& env, const std::string& tmp, const std::string& path);

// True for a directory entry name that writeFileAtomic uses for its temporary files.
bool isAtomicTempName(std::string_view name);

}  // namespace darius::io
