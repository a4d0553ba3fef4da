// Fuzzes the users file parser (disk input): arbitrary bytes must give a user map or a
// Corruption naming file and line, never a crash; what parses must serialise and re-parse to
// the same map.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "auth/user_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto users = darius::auth::parseUsersFile(in, "fuzz/users");
  if (!users.ok()) return 0;
  std::string again = darius::auth::serializeUsersFile(*users);
  auto reparsed = darius::auth::parseUsersFile(again, "fuzz/users");
  if (!reparsed.ok() || reparsed->size() != users->size()) std::abort();
  return 0;
}
