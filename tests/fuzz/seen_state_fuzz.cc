// Fuzzes the decoder of a per-user seen state (disk input: a seen.db value,
// docs/formats/seen.md): arbitrary bytes must decode or give kCorruption/kNotSupported, never a
// crash. Format 1 has one spelling per state, so what decodes must encode to the same bytes;
// and the state must stay canonical through a change (setSeen, noteChange with merging), which
// is what the next write would store.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "mailbox/seen_state.h"

using darius::mailbox::SeenLimits;
using darius::mailbox::SeenState;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  SeenLimits limits;
  limits.max_value_bytes = 1 << 16;  // the limit is checked first: keep inputs interesting
  limits.max_modseq_runs = 4;
  auto state = SeenState::decode(in, limits);
  if (!state.ok()) return 0;
  if (state->encode() != in) std::abort();  // canonical form only
  // Queries over the UIDs the input names (bounded: a few per range end).
  std::vector<uint32_t> uids;
  for (const auto& r : state->seen()) {
    uids.push_back(r.first);
    if (r.last != r.first) uids.push_back(r.last);
  }
  for (uint32_t u : uids) {
    if (!state->isSeen(u)) std::abort();
    (void)state->modseqOf(u);
  }
  (void)state->countSeen(uids);
  // A change keeps it canonical and readable; merging keeps runs within the limit.
  SeenState changed = *state;
  std::vector<uint32_t> flip;
  for (uint32_t u : uids) {
    if (flip.empty() || flip.back() < u) flip.push_back(u);
  }
  changed.setSeen(flip, false);
  for (uint32_t u : flip) {
    if (changed.isSeen(u)) std::abort();
  }
  uint64_t next = changed.highestModseq() + 1;
  if (next <= darius::mailbox::kMaxSeenModseq) {
    changed.noteChange(flip, next, limits.max_modseq_runs);
    if (changed.runs().size() > limits.max_modseq_runs) std::abort();
  }
  SeenLimits roomy = limits;
  roomy.max_value_bytes = 1 << 20;
  auto again = SeenState::decode(changed.encode(), roomy);
  if (!again.ok() || !(*again == changed)) std::abort();
  return 0;
}
