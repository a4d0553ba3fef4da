// LIST of the reserved areas of two-phase expunge and delete (docs/design/expunge.md):
//   `.EXPUNGED<sep><folder>`                      each own folder that holds expunged messages
//   `.DELETED<sep><folder>-<YYYYMMDD-HH:MM:SS>`   each own folder DELETE kept
//   `.EXPUNGED<sep>.DELETED<sep><folder>-<...>`   each of those that holds expunged messages
// and the areas themselves (`.EXPUNGED`, `.DELETED`, `.EXPUNGED<sep>.DELETED`) as \Noselect
// levels above them. Only for a pattern that names an area literally (".EXPUNGED/*",
// ".DELETED/%", "^EXPUNGED.INBOX" in '.' mode, in any case): "*" never reaches into them, so
// a client that syncs every folder does not download the bin.
//
// Ownership: values; borrows the Store for the call. Thread-safety: blocking reads (each own
// folder is opened to see whether it holds anything); run on the session's blocking pool.
#pragma once

#include <vector>

#include "imapd/list/list_walk.h"
#include "lib/base/result.h"

namespace darius::imapd {

// Whether `pattern` names the area `prefix` (Namespace::expungedPrefix or deletedPrefix): its
// first bytes are the area's name (any case), with no wildcard among them, followed by the
// separator or nothing.
bool namesArea(const ListPattern& pattern, const mailbox::Namespace& ns, const std::string& prefix);

// The names in the areas that the query's patterns match: the expunged area first, in the
// order of the user's folders, then the deleted area, oldest first.
base::Result<std::vector<ListedName>> listReservedAreas(mailbox::Store& store,
                                                        const ListViewer& viewer,
                                                        const ListQuery& query);

}  // namespace darius::imapd
