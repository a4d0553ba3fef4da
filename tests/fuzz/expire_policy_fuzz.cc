// Fuzzes the decoder of an expire_policies.db value (disk input, docs/formats/expire_policy.md).
// Arbitrary bytes must decode or give kCorruption/kNotSupported, never a crash; version 1 has
// one spelling per record, so what decodes must encode to the same bytes, and no value may be
// over 2^63-1 or a timeout negative.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "lib/base/status.h"
#include "mailbox/expire_policy_db.h"

using namespace darius::mailbox;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto o = decodeExpireOverrides(in, "fuzz");
  if (!o.ok()) {
    auto c = o.status().code();
    if (c != darius::base::Code::kCorruption && c != darius::base::Code::kNotSupported) {
      std::abort();
    }
    return 0;
  }
  if (encodeExpireOverrides(*o) != in) std::abort();
  for (const ExpirePolicyOverride* p : {&o->expunged, &o->deleted}) {
    for (const auto* v : {&p->vol_min, &p->vol_max, &p->vol_overflow}) {
      if (*v && **v > static_cast<uint64_t>(INT64_MAX)) std::abort();
    }
    if (p->timeout_seconds && *p->timeout_seconds < 0) std::abort();
  }
  return 0;
}
