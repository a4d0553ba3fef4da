// The THREAD algorithms of RFC 5256 §3 (ORDEREDSUBJECT, REFERENCES) and REFS
// (draft-ietf-morg-inthread §4), as pure functions over values already read from the mailbox,
// and the THREAD response's thread-list syntax (RFC 5256 §4, §5).
//
// The inputs are computed by the caller (thread_inputs.h does it from the cache): normalised
// message ids (message_ids.h), the base subject as it is compared (RFC 5256 §2.1, folded so
// that equal strings mean equal subjects), whether the subject marks a reply or forward, and
// the sent date in UTC seconds (§2.2). The sequence-number tie-breaker of §2.2 is `id`, which
// is the message sequence number or the UID: both grow in mailbox order.
//
// REFS, as the draft and Dovecot define it: steps 1-3 of REFERENCES (message ids only), no
// subject grouping (step 5), siblings sorted by sent date as in step 6, and the threads sorted
// by the sent date of the newest message in each (the thread with the latest activity last).
//
// The tree is flat (nodes in one vector, children as indices), and every walk over it is a
// loop with an explicit stack, so neither building, sorting, formatting nor destroying it
// recurses: a 100,000-message reply chain costs memory, not stack. Reference loops, self
// references and duplicate message ids are handled as RFC 5256 §3 says (no link that would make
// a cycle; the first message of a duplicated id keeps it, the others get unique ones).
//
// Ownership: plain values. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace darius::imapd::thread {

struct ThreadMessage {
  uint32_t id = 0;  // message sequence number or UID; nonzero, ascending in mailbox order
  std::string message_id;               // normalised (message_ids.h); empty: none or invalid
  std::vector<std::string> references;  // References, or In-Reply-To when no valid References
  std::string base_subject;             // RFC 5256 §2.1, in its comparison form
  bool reply_or_fwd = false;            // the subject had Re:/Fwd:/(fwd)/[fwd: ...] (§3)
  int64_t sent_date = 0;                // UTC seconds (§2.2)
};

struct ThreadNode {
  uint32_t id = 0;                  // the message's id; 0 for a dummy
  std::vector<uint32_t> children;   // indices into ThreadTree::nodes, in order
  bool dummy() const { return id == 0; }
};

struct ThreadTree {
  std::vector<ThreadNode> nodes;
  std::vector<uint32_t> roots;  // indices into nodes, in order

  // The number of non-dummy nodes reachable from the roots (each message once).
  size_t messageCount() const;
};

enum class ThreadAlgorithm : uint8_t { kOrderedSubject, kReferences, kRefs };

// Messages may come in any order; ids must be distinct (a duplicate id is dropped).
ThreadTree threadOrderedSubject(const std::vector<ThreadMessage>& messages);
ThreadTree threadReferences(const std::vector<ThreadMessage>& messages);
ThreadTree threadRefs(const std::vector<ThreadMessage>& messages);
ThreadTree threadMessages(ThreadAlgorithm algorithm, const std::vector<ThreadMessage>& messages);

// The threads as the THREAD response carries them, without "* THREAD": "(1)(2 3 (4)(5))".
// Empty for an empty tree. A dummy at the top with several children is "((3)(5))" (§4).
std::string formatThreads(const ThreadTree& tree);

}  // namespace darius::imapd::thread
