#include "imapd/vanished.h"

#include <algorithm>

namespace darius::imapd {

base::Result<std::vector<proto::SeqRange>> vanishedSince(const mailbox::Mailbox& mailbox,
                                                         uint64_t since,
                                                         const proto::SequenceSet& within,
                                                         std::span<const uint32_t> view,
                                                         uint32_t max) {
  std::vector<proto::SeqRange> out;
  if (max == 0) return out;
  // The records first, then purged_modseq as on disk: a purge raises it before it removes
  // records, so whatever this read missed, the range answer below covers.
  DARIUS_ASSIGN_OR_RETURN(auto gone, mailbox.expungedRecords());
  DARIUS_ASSIGN_OR_RETURN(uint64_t purged, mailbox.purgedModseqNow());
  if (since < purged) {
    // Records above `since` may be gone: every UID of the range not in the view, up to the
    // highest the session knows of (a message delivered since is not "vanished").
    for (proto::SeqRange r : within.resolve(max)) {
      if (r.first > max) continue;
      r.last = std::min(r.last, max);
      uint32_t next = r.first;
      auto it = std::lower_bound(view.begin(), view.end(), r.first);
      for (; it != view.end() && *it <= r.last; ++it) {
        if (*it > next) out.push_back({next, *it - 1});
        next = *it + 1;
      }
      if (next <= r.last && next != 0) out.push_back({next, r.last});
    }
    return out;
  }
  for (const mailbox::IndexRecord& r : gone) {
    if (r.modseq <= since || r.uid > max || !within.contains(r.uid, max)) continue;
    if (!out.empty() && out.back().last + 1 == r.uid) {
      out.back().last = r.uid;
    } else {
      out.push_back({r.uid, r.uid});
    }
  }
  return out;
}

}  // namespace darius::imapd
