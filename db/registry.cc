// The one file that knows every backend (DESIGN.md §2).
#include <algorithm>

#include "db/berkeley/berkeley_db.h"
#include "db/db.h"
#include "db/flat/flat_db.h"
#include "db/skiplist/skiplist_db.h"

namespace darius::db {

using base::Result;
using base::Status;

std::string_view backendName(Backend backend) {
  switch (backend) {
    case Backend::kSkiplist: return "skiplist";
    case Backend::kBerkeley: return "berkeley";
    case Backend::kFlat: return "flat";
  }
  return "unknown";
}

std::ostream& operator<<(std::ostream& os, Backend backend) { return os << backendName(backend); }

Result<Backend> parseBackend(std::string_view name) {
  for (Backend b : {Backend::kSkiplist, Backend::kBerkeley, Backend::kFlat}) {
    if (name == backendName(b)) return b;
  }
  return Status::invalid("unknown database backend '" + std::string(name) +
                         "' (skiplist, berkeley, flat)");
}

Range Range::prefix(std::string_view p) {
  Range r;
  r.start = std::string(p);
  // The smallest string greater than every string with prefix p: drop trailing 0xff bytes,
  // then increment the last byte. An all-0xff (or empty) prefix has no upper bound.
  std::string end(p);
  while (!end.empty() && static_cast<unsigned char>(end.back()) == 0xff) end.pop_back();
  if (!end.empty()) {
    end.back() = static_cast<char>(static_cast<unsigned char>(end.back()) + 1);
    r.end = std::move(end);
  }
  return r;
}

bool Range::contains(std::string_view key) const {
  return key >= std::string_view(start) && (!end || key < std::string_view(*end));
}

Status validateRecord(std::string_view key, std::string_view value) {
  if (key.empty()) return Status::invalid("empty key");
  if (key.size() > kMaxKeySize) return Status::tooBig("key over " + std::to_string(kMaxKeySize) + " bytes");
  if (value.size() > kMaxValueSize) {
    return Status::tooBig("value over " + std::to_string(kMaxValueSize) + " bytes");
  }
  return Status::ok();
}

Result<std::unique_ptr<Database>> Database::open(const std::string& path, Backend backend,
                                                 const OpenOptions& options) {
  switch (backend) {
    case Backend::kSkiplist: return skiplist::openSkiplist(path, options);
    case Backend::kBerkeley: return berkeley::openBerkeley(path, options);
    case Backend::kFlat: return flat::openFlat(path, options);
  }
  return Status::invalid("unknown backend");
}

}  // namespace darius::db
