// Fuzzes the readers of the expunged index and its cache (disk input, docs/formats/expunged.md):
// parseExpungedIndex over `darius.expunged`, and cacheRecordAt over `darius.expunged.cache` at
// each record's cache offset and at an offset taken from the input. Arbitrary bytes must parse
// or give kCorruption, never a crash; what parses must be consistent (whole records up to
// `end`, UIDs ascending and unique, no cache offsets from a 1.0 file) and must parse the same
// after the C++ encoder has written it again; a cache record found must be the bytes at its
// offset and must decode as its message's entry.
//
// Input: u64 probe offset, u32 length of the index part, the index part, then the cache (all
// little-endian; a length past the end takes the rest). The seeds in
// tests/fuzz/corpus/expunged_index/ are the golden files of tests/data/formats/expunged/ in
// that layout, and variants with a torn tail, a damaged record and a repeated UID.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "lib/base/status.h"
#include "mailbox/cache_format.h"
#include "mailbox/expunged_file.h"
#include "mailbox/index_format.h"

using namespace darius::mailbox;

namespace {

uint64_t getLe(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}

// A record cacheRecordAt returns must be the one at `offset`, whole, and the message's own.
void checkFound(std::string_view cache, uint64_t offset, std::string_view guid) {
  std::string found = cacheRecordAt(cache, offset, guid);
  if (found.empty()) return;
  if (offset < kCacheHeaderSize || offset > cache.size() ||
      cache.substr(offset, found.size()) != found || found.size() < kCacheRecordOverhead) {
    std::abort();
  }
  if (!decodeCacheRecordOf(found, guid).ok()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 12) return 0;
  const uint64_t probe = getLe(data, 8);
  const uint64_t index_len = getLe(data + 8, 4);
  std::string_view rest(reinterpret_cast<const char*>(data) + 12, size - 12);
  std::string_view index = rest.substr(0, index_len);
  std::string_view cache = rest.substr(index.size());

  auto e = parseExpungedIndex(index);
  if (!e.ok()) {
    if (e.status().code() != darius::base::Code::kCorruption) std::abort();
    checkFound(cache, probe, std::string_view("\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 20));
    return 0;
  }
  // Whole records from the header to `end`, each either kept, damaged or a repeated UID.
  if (e->end < kExpungedHeaderSize || e->end > index.size() ||
      (e->end - kExpungedHeaderSize) % kIndexRecordSize != 0) {
    std::abort();
  }
  const uint64_t slots = (e->end - kExpungedHeaderSize) / kIndexRecordSize;
  if (e->records.size() + e->damaged.size() > slots) std::abort();
  uint64_t last_damaged = 0;
  for (uint64_t at : e->damaged) {
    if (at < kExpungedHeaderSize || at + kIndexRecordSize > e->end || at <= last_damaged ||
        (at - kExpungedHeaderSize) % kIndexRecordSize != 0) {
      std::abort();
    }
    last_damaged = at;
  }
  uint32_t last_uid = 0;
  for (const IndexRecord& r : e->records) {
    if (r.uid <= last_uid) std::abort();
    last_uid = r.uid;
    if (e->minor == 0 && r.cache_offset != 0) std::abort();
    checkFound(cache, r.cache_offset, guidBytes(r.guid));
  }
  checkFound(cache, probe,
             e->records.empty() ? std::string_view("\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 20)
                                : guidBytes(e->records.front().guid));

  // Written again by the C++ encoder, the records read back as they are, with nothing torn.
  std::string again = expungedFileHeader(e->minor);
  for (const IndexRecord& r : e->records) again += encodeIndexRecord(r);
  auto back = parseExpungedIndex(again);
  if (!back.ok() || back->records != e->records || !back->damaged.empty() ||
      back->end != again.size() || back->minor != e->minor) {
    std::abort();
  }
  return 0;
}
