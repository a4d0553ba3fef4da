// LIST of the expunged area (docs/design/expunge.md): `.EXPUNGED<sep><folder>` for each of
// the user's own folders that holds expunged messages, and the area itself as a \Noselect
// level above them. Only for a pattern that names the area literally (".EXPUNGED/*",
// ".EXPUNGED/%", "^EXPUNGED.INBOX" in '.' mode, in any case): "*" never reaches into it, so a
// client that syncs every folder does not download the bin.
//
// Ownership: values; borrows the Store for the call. Thread-safety: blocking reads (each own
// folder is opened to see whether it holds anything); run on the session's blocking pool.
#pragma once

#include <vector>

#include "imapd/list/list_walk.h"
#include "lib/base/result.h"

namespace darius::imapd {

// Whether `pattern` names the expunged area: its first bytes are the area's name (any case),
// with no wildcard among them, followed by the separator or nothing.
bool namesExpungedArea(const ListPattern& pattern, const mailbox::Namespace& ns);

// The names of the area that the query's patterns match, in the order of the user's folders.
base::Result<std::vector<ListedName>> listExpungedArea(mailbox::Store& store,
                                                       const ListViewer& viewer,
                                                       const ListQuery& query);

}  // namespace darius::imapd
