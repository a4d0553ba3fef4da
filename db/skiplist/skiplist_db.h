// skiplist: the default database backend, an append-only skiplist in one mmap'd file in the
// spirit of Cyrus's skiplist/twoskip (format: docs/formats/skiplist.md).
//
// Ownership: openSkiplist() returns an owned Database. Thread-safety: see db/db.h.
#pragma once

#include <memory>
#include <string>

#include "db/db.h"
#include "lib/base/result.h"
#include "lib/io/env.h"

namespace darius::db::skiplist {

// Opens (or creates, if options.create) the skiplist database at `path`.
base::Result<std::unique_ptr<Database>> openSkiplist(const std::string& path,
                                                     const OpenOptions& options);

// Rebuilds the file at `path` from every intact committed record it still holds (for files
// that open() or check() report as damaged), writing a fresh file atomically in its place.
// Returns the number of keys kept. Takes the write lock. env null = posix.
base::Result<uint64_t> salvageSkiplist(const std::string& path, io::Env* env);

}  // namespace darius::db::skiplist
