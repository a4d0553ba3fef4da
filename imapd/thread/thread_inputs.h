// The inputs of the THREAD algorithms (thread_algorithms.h) for the messages a THREAD's search
// matched, read from the mailbox's cache (mailbox/cache_format.h: the cached header block holds
// Message-ID, References, In-Reply-To, Subject and Date), never from the message files.
//
//   message id   the first valid msg-id of the last Message-ID field (message_ids.h)
//   references   References, else In-Reply-To's first id (RFC 5256 §3)
//   base subject RFC 5256 §2.1 (imapd/sort/base_subject.h), compared in its folded form
//   sent date    RFC 5256 §2.2 (imapd/sort/sent_time.h), the INTERNALDATE when the Date
//                field is missing or unreadable
//
// A message whose cache entry cannot be read still takes part, with no id, no references, an
// empty subject and its internal date: it is a thread of its own rather than missing from the
// answer (the search matched it), and it is counted for the log.
//
// Ownership: plain values; readThreadInputs borrows the mailbox for the call. Thread-safety:
// threadMessageFromHeader is pure; readThreadInputs uses the Mailbox, which the caller must
// not use elsewhere meanwhile (the session runs it on the blocking pool).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "imapd/search/search_eval.h"
#include "imapd/thread/thread_algorithms.h"
#include "lib/base/result.h"
#include "mailbox/mailbox.h"

namespace darius::imapd::sort {
class SortKeyCache;
}

namespace darius::imapd::thread {

// From a header block (the cache's, or any RFC 5322 header).
ThreadMessage threadMessageFromHeader(uint32_t id, std::string_view header_block,
                                      int64_t internal_date);

struct ThreadInputs {
  std::vector<ThreadMessage> messages;
  size_t unreadable = 0;  // messages whose cache entry could not be read
};

// One ThreadMessage per match, `id` its UID when by_uid, else its sequence number. With
// `cache` (imapd/sort/sort_key_cache.h), inputs read before come from it and those read now
// are added (not a message's whose cache entry could not be read).
base::Result<ThreadInputs> readThreadInputs(const mailbox::Mailbox& mailbox,
                                            std::span<const search::SearchMatch> matches,
                                            bool by_uid, sort::SortKeyCache* cache = nullptr);

}  // namespace darius::imapd::thread
