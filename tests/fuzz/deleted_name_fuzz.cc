// Fuzzes the names of the deleted area (mailbox/deleted_area.h): a client's
// `.DELETED/<folder>-<YYYYMMDD-HH:MM:SS>[-N]` (parseDeletedDisplayName, network input) and an
// entry of a partition's darius.deleted/ (parseDeletedEntryName, disk input). Arbitrary bytes
// must parse or be refused, never crash; what parses as a display name must print back to the
// same bytes (one spelling per name), and an entry's id must be non-empty.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "mailbox/deleted_area.h"

using namespace darius::mailbox;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  if (auto d = parseDeletedDisplayName(in)) {
    if (d->ordinal < 1) std::abort();
    if (d->folder + deletedSuffix(d->deleted_at, d->ordinal) != in) std::abort();
  }
  if (auto e = parseDeletedEntryName(in)) {
    if (e->unique_id.empty() || e->deleted_at < 0) std::abort();
  }
  return 0;
}
