#include "lib/proto/flag.h"

#include "lib/proto/chars.h"

namespace darius::proto {

using base::Result;
using base::Status;

namespace {

constexpr std::string_view kSystemNames[] = {"\\Answered", "\\Flagged", "\\Deleted", "\\Seen",
                                             "\\Draft"};

bool isAtom(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!isAtomChar(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

std::string_view systemFlagName(SystemFlag f) { return kSystemNames[static_cast<int>(f)]; }

Flag systemFlag(SystemFlag f) {
  return Flag{Flag::Kind::kSystem, f, std::string(systemFlagName(f))};
}

Result<Flag> parseFlag(std::string_view token, const FlagOptions& options) {
  if (token == "\\*") {
    if (!options.allow_wildcard) return Status::invalid("\\* is not a flag here");
    return Flag{Flag::Kind::kWildcard, SystemFlag::kSeen, "\\*"};
  }
  if (!token.empty() && token[0] == '\\') {
    std::string_view name = token.substr(1);
    if (!isAtom(name)) return Status::invalid("Invalid flag");
    // RFC 9051 §9: the earlier alternative wins, so "\Seen" is the system flag, not a
    // flag-extension; and system flags are case-insensitive like the rest of the grammar.
    for (int i = 0; i < 5; ++i) {
      if (equalsIgnoreCase(token, kSystemNames[i])) return systemFlag(static_cast<SystemFlag>(i));
    }
    if (!options.allow_extension) {
      return Status::invalid("Unknown system flag " + std::string(token));
    }
    return Flag{Flag::Kind::kExtension, SystemFlag::kSeen, std::string(token)};
  }
  // flag-keyword = "$MDNSent" / ... / atom; the named ones are atoms too.
  if (!isAtom(token)) return Status::invalid("Invalid flag keyword");
  return Flag{Flag::Kind::kKeyword, SystemFlag::kSeen, std::string(token)};
}

}  // namespace darius::proto
