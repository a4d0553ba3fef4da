// What VANISHED (EARLIER) reports (RFC 7162 §3.2.5.2 SELECT/EXAMINE QRESYNC, §3.2.6 FETCH
// CHANGEDSINCE … VANISHED): the expunged messages a client that knew the mailbox at `since`
// has not heard of. Exact while the mailbox still holds their records (docs/formats/
// expunged.md); once expire purged records above `since` (index purged_modseq), every UID in
// the range that is not in the session's view is reported, which the RFC allows (a client
// removes what it does not have anyway).
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

// `within` (UIDs; "*" = the highest UID given out) limits the answer; `view` is the
// session's view (ascending UIDs), which the range answer leaves out (the exact answer
// names what has records, as before). Sorted, merged ranges.
base::Result<std::vector<proto::SeqRange>> vanishedSince(const mailbox::Mailbox& mailbox,
                                                         uint64_t since,
                                                         const proto::SequenceSet& within,
                                                         std::span<const uint32_t> view);

}  // namespace darius::imapd
