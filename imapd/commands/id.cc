// ID (RFC 2971): the client may say who it is, the server says who it is. Allowed in every
// state (§3.1). The client's list is checked against §3.3: at most 30 field-value pairs,
// fields of at most 30 octets and values of at most 1024, no field twice; fields are strings,
// values nstrings. The server answers with its name and version only (no OS details, §5).
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "imapd/commands/commands.h"
#include "imapd/session.h"

namespace darius::imapd {
namespace {

constexpr size_t kMaxPairs = 30;
constexpr size_t kMaxFieldBytes = 30;
constexpr size_t kMaxValueBytes = 1024;

struct IdArgs {
  // nullopt for "ID NIL"; otherwise field-value pairs in order (value nullopt for NIL).
  std::optional<std::vector<std::pair<std::string, std::optional<std::string>>>> params;
};

base::Result<IdArgs> parseId(ArgParser& p) {
  IdArgs a;
  DARIUS_RETURN_IF_ERROR(p.space());
  if (p.skipNil()) return a;
  if (!p.skipIf('(')) return base::Status::invalid("Expected a parameter list or NIL");
  a.params.emplace();
  std::set<std::string> seen;
  while (!p.skipIf(')')) {
    if (!a.params->empty()) DARIUS_RETURN_IF_ERROR(p.space());
    if (a.params->size() == kMaxPairs) return base::Status::invalid("Too many ID fields");
    auto field = p.string();
    if (!field.ok()) return field.status();
    if (field->size() > kMaxFieldBytes) return base::Status::invalid("ID field too long");
    if (!seen.insert(proto::asciiUpper(*field)).second) {
      return base::Status::invalid("Duplicate ID field");
    }
    DARIUS_RETURN_IF_ERROR(p.space());
    auto value = p.nstring();
    if (!value.ok()) return value.status();
    if (*value && (*value)->size() > kMaxValueBytes) {
      return base::Status::invalid("ID value too long");
    }
    a.params->emplace_back(std::move(*field), std::move(*value));
  }
  return a;
}

asio::awaitable<Reply> executeId(Session& session, IdArgs args) {
  if (args.params) {
    std::string text;
    for (const auto& [field, value] : *args.params) {
      if (!text.empty()) text += ", ";
      text += field + "=" + (value ? *value : "NIL");
    }
    log::info(session.logContext(), "client ID: {}", text);
  }
  session.writeUntagged("ID (\"name\" \"Darius\" \"version\" " +
                        proto::quoteString(DARIUS_VERSION) + ")");
  co_return Reply::ok("ID completed");
}

}  // namespace

CommandSpec idCommand() { return makeCommand<IdArgs, parseId, executeId>("ID", kAnyState); }

}  // namespace darius::imapd
