// db/berkeley: the Berkeley DB 5.3 backend of db::Database (a btree in a transactional
// environment; format and crash-safety in docs/formats/berkeley.md).
//
// Ownership: openBerkeley returns an owned Database. Thread-safety: as db.h says (a Database
// may be shared by threads; a Txn belongs to one thread).
#pragma once

#include <memory>
#include <string>

#include "db/db.h"

namespace darius::db::berkeley {

// `path` is a directory holding the environment and its one database file.
base::Result<std::unique_ptr<Database>> openBerkeley(const std::string& path,
                                                     const OpenOptions& options);

}  // namespace darius::db::berkeley
