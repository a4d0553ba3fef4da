// Fuzzes the decoders of the quota formats (disk input, docs/formats/quota.md): a quotas.db
// value (decodeQuotaLimits) and a usage record file (decodeQuotaUsageRecord). Arbitrary bytes
// must decode or give kCorruption/kNotSupported, never a crash; version 1.0 has one spelling
// per value, so what decodes as 1.0 must encode to the same bytes. The first input byte picks
// the decoder, so one corpus serves both.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "mailbox/quota_format.h"

using namespace darius::mailbox;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0) {
    auto l = decodeQuotaLimits(in, "fuzz");
    if (!l.ok()) return 0;
    for (const auto& v : l->limit) {
      if (v && *v > kMaxQuotaLimit) std::abort();
    }
    if (in.size() > 1 && in[1] == 0 && encodeQuotaLimits(*l) != in) std::abort();
    // Checks against the decoded limits never overflow, whatever the usage.
    QuotaUsage all;
    for (auto& v : all.value) v = UINT64_MAX;
    (void)wouldExceed(*l, all, all);
    for (QuotaResource r : kQuotaResources) (void)usedPercent(*l, all, r);
  } else {
    auto r = decodeQuotaUsageRecord(in);
    if (!r.ok()) return 0;
    // A newer minor decodes too (docs/formats/quota.md, "Versioning") and is rewritten as 1.0;
    // only a 1.0 record must come back byte for byte.
    const bool v1_0 = in.size() > 11 && in[10] == 0 && in[11] == 0;
    if (v1_0 && encodeQuotaUsageRecord(*r) != in) std::abort();
  }
  return 0;
}
