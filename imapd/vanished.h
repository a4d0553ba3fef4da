// What VANISHED (EARLIER) reports (RFC 7162 §3.2.5.2 SELECT/EXAMINE QRESYNC, §3.2.6 FETCH
// CHANGEDSINCE … VANISHED): the expunged messages a client that knew the mailbox at `since`
// has not heard of. Exact while the mailbox still holds their records (docs/formats/
// expunged.md); once expire purged records above `since` (index purged_modseq), every UID in
// the range that is not in the session's view is reported: RFC 7162 §5.3's "single
// mod-sequence ... for all 'expired' expunged messages", below which the answer is §5.1's
// (every expunged UID of the set, whatever the modseq); a client removes only what it has.
//
// Thread-safety: reads the mailbox like any command; one session's thread.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "lib/base/result.h"
#include "lib/proto/sequence_set.h"
#include "mailbox/mailbox.h"

namespace darius::imapd {

// `within` (UIDs; "*" = `max`) limits the answer, and so does `max`, the highest UID the
// session has been told of (UIDNEXT - 1 of its view: a message delivered since is new, not
// vanished). `view` is the session's view (ascending UIDs), which the range answer leaves
// out (the exact answer names what has records). Sorted, merged ranges.
base::Result<std::vector<proto::SeqRange>> vanishedSince(const mailbox::Mailbox& mailbox,
                                                         uint64_t since,
                                                         const proto::SequenceSet& within,
                                                         std::span<const uint32_t> view,
                                                         uint32_t max);

}  // namespace darius::imapd
