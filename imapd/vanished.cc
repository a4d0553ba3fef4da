#include "imapd/vanished.h"

#include <algorithm>

namespace darius::imapd {

base::Result<std::vector<proto::SeqRange>> vanishedSince(const mailbox::Mailbox& mailbox,
                                                         uint64_t since,
                                                         const proto::SequenceSet& within,
                                                         std::span<const uint32_t> view) {
  const uint32_t max = mailbox.index().uidnext - 1;
  std::vector<proto::SeqRange> out;
  if (max == 0) return out;
  if (since < mailbox.index().purged_modseq) {
    // Records at or below purged_modseq may be gone: every UID of the range not in the view.
    for (const proto::SeqRange& r : within.resolve(max)) {
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
  DARIUS_ASSIGN_OR_RETURN(auto gone, mailbox.expungedRecords());
  for (const mailbox::IndexRecord& r : gone) {
    if (r.modseq <= since || !within.contains(r.uid, max)) continue;
    if (!out.empty() && out.back().last + 1 == r.uid) {
      out.back().last = r.uid;
    } else {
      out.push_back({r.uid, r.uid});
    }
  }
  return out;
}

}  // namespace darius::imapd
