// The flat backend: the whole database is one sorted text file (docs/formats/flat.md) that
// every commit replaces atomically (io::writeFileAtomic). Meant for tiny databases, where
// rewriting everything per commit costs nothing and a human-readable file is worth having.
//
// Ownership: openFlat() returns an owned Database; its Txns borrow it.
// Thread-safety: the Database may be shared by threads; one writer at a time across threads
// and processes through an exclusive OFD lock on "<path>.lock", held by the Txn. begin() and
// compact() wait for that lock, so a thread that holds a Txn must not call them (it would wait
// for itself); open() never waits for it.
// I/O: every mutation goes through OpenOptions::env (crash tests pass a FaultyEnv); reads use
// plain stat/open/read, which change nothing a crash could lose.
#pragma once

#include <memory>
#include <string>

#include "db/db.h"
#include "lib/base/result.h"

namespace darius::db::flat {

base::Result<std::unique_ptr<Database>> openFlat(const std::string& path,
                                                 const OpenOptions& options);

}  // namespace darius::db::flat
