// Building a message's cache entry (docs/formats/cache.md) with lib/mime: what FETCH needs
// without opening the message file. Done once per message, when it is staged (and by
// reconstruct), never per FETCH.
//
// Ownership: plain values. Thread-safety: pure functions, safe from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/result.h"
#include "mailbox/cache_format.h"

namespace darius::mailbox {

// Fields left out of the cached header block: trace and signature fields that are large and
// that clients do not display (Cyrus's "cache most" leaves out the same kind).
bool isUncachedHeaderField(std::string_view name);

CacheEntry buildCacheEntry(std::string_view message);

// The part table of tag 5 ("sections"): for each MIME part in document order, its byte
// ranges and tree links, so that BODY[1.2], HEADER, MIME and TEXT are seeks.
struct SectionRecord {
  uint64_t header_offset = 0, header_size = 0, body_offset = 0, body_size = 0, body_lines = 0;
  uint32_t parent = UINT32_MAX, first_child = UINT32_MAX, next_sibling = UINT32_MAX;
  uint8_t kind = 0;         // 0 leaf, 1 multipart, 2 message (lib/mime's PartKind)
  bool is_message = false;  // has an RFC 5322 header of its own
  bool operator==(const SectionRecord&) const = default;
};
std::string encodeSections(const std::vector<SectionRecord>& parts);
base::Result<std::vector<SectionRecord>> decodeSections(std::string_view bytes);

// RFC 8970 PREVIEW: up to 200 characters of the first text part, decoded to UTF-8, with runs
// of white space collapsed; HTML tags are dropped. Empty when there is no text part.
std::string previewText(std::string_view message);

}  // namespace darius::mailbox
