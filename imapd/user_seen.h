// Per-user \Seen in the IMAP commands (issue 17; mailbox/seen_db.h): whose \Seen a session
// reads and writes in a mailbox. The owner of a personal mailbox uses the index's \Seen;
// anyone else (another user's folder, every shared mailbox) has their own seen state, so
// Alice reading Bob's folder never marks it read for Bob. SELECT, STATUS, LIST-STATUS,
// APPEND and COPY/MOVE ask here; the selected mailbox keeps the answer (selected.h).
//
// Thread-safety: functions of one session's strand; copiedSeen() and placeCopiedSeen() block
// (run them on the session's blocking pool).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "lib/base/status.h"
#include "mailbox/mailbox_name.h"
#include "mailbox/store.h"

namespace darius::imapd {

class Session;
class SelectedMailbox;

// The user whose seen state holds this session's \Seen of `name`, or "" when it is the
// index's (the session's user owns the mailbox).
std::string seenUser(const Session& session, const mailbox::MailboxName& name);

// COPY and MOVE: the UIDs among `uids` (ascending) that the session's user sees as \Seen in
// the selected mailbox, read before the copy (a MOVE expunges the originals).
base::Result<std::vector<uint32_t>> copiedSeen(const SelectedMailbox& sel,
                                               std::span<const uint32_t> uids);

// After a COPY or MOVE into `target`: the copies' \Seen is what the copier saw (`seen_src`,
// from copiedSeen()), kept where the copier's \Seen of the target lives — the target's index
// when they own it, else their seen state, the index copies then losing the \Seen the store
// copied from the source (which was the source owner's, not the target owner's). Nothing to
// do when both are the copier's index. `may_seen`: the copier has "s" on the target (RFC
// 4314 §4), else no copy is \Seen for them.
base::Status placeCopiedSeen(Session& session, SelectedMailbox& sel,
                             const mailbox::MailboxName& target,
                             const std::vector<uint32_t>& seen_src,
                             const mailbox::CopyResult& copied, bool may_seen);

}  // namespace darius::imapd
