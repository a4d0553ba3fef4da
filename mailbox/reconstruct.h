// Reconstruct of one mailbox directory (issue 4; Cyrus's `reconstruct`): rebuilds the index
// and the cache from the message files, keeping UIDs, UIDVALIDITY and flags wherever the old
// index (or darius.expunged) is still readable, and reports every difference it finds. With
// `dry_run` it only reports. The mailbox-list side (finding mailboxes on the partitions) is the
// caller's; this works on a directory.
//
// Crash safety: the new cache and index are written with writeFileAtomic under new
// generations; the index names the cache generation it refers to, so a crash between the two
// renames leaves an index whose cache is ignored (and rebuilt by the next reconstruct), never
// one that points into the wrong cache. Message files are never changed, and removed only when
// they are debris of an append that never committed (see ReconstructReport::debris).
//
// Ownership: plain values. Thread-safety: takes the mailbox's exclusive lock for the rebuild.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/result.h"
#include "lib/io/env.h"
#include "mailbox/cache_format.h"

namespace darius::mailbox {

// Fills the cache entry of a message from its bytes (lib/mime does this in the store).
using CacheFiller = std::function<CacheEntry(std::string_view message)>;

struct ReconstructOptions {
  bool dry_run = false;
  CacheFiller fill_cache;  // empty: cache entries stay empty
};

struct ReconstructReport {
  std::vector<std::string> problems;  // one line each, for the operator
  size_t messages = 0;                // live messages in the rebuilt index
  bool changed = false;               // something was (or, dry run, would be) rewritten
  // Message files above UIDNEXT of an intact index: linked by an append that crashed before
  // its commit (never acknowledged). Removed unless dry run; not counted as a repair.
  std::vector<std::string> debris;
};

// The UID of a message file name `123.`; 0 for anything else (metadata, temp files, child
// mailboxes). The store-wide reconstruct uses it to tell orphaned mail from empty levels.
uint32_t uidOfMessageFileName(std::string_view name);

// `dir` must hold a readable darius.header (without it the unique id and UIDVALIDITY are
// lost; the caller decides whether to make a new mailbox of the files).
base::Result<ReconstructReport> reconstructMailbox(io::Env& env, const std::string& dir,
                                                   const ReconstructOptions& options);

}  // namespace darius::mailbox
