// UID (RFC 9051 §6.4.9): "UID COPY|MOVE|FETCH|SEARCH|SORT|STORE|EXPUNGE|THREAD ..." — the
// same commands with unique identifiers in place of sequence numbers. Each of those command files exports
// the parse function of its UID form; this table picks it by the second word.
#include "imapd/commands/commands.h"
#include "imapd/session.h"
#include "lib/proto/chars.h"

namespace darius::imapd {
namespace {

struct UidForm {
  std::string_view name;
  ParseFn parse;
};

constexpr UidForm kForms[] = {
    {"COPY", parseUidCopy},
    {"EXPUNGE", parseUidExpunge},
    {"FETCH", parseUidFetch},
    {"MOVE", parseUidMove},
    {"SEARCH", parseUidSearch},
    {"SORT", parseUidSort},
    {"STORE", parseUidStore},
    {"THREAD", parseUidThread},
};

base::Result<std::unique_ptr<PreparedCommand>> parseUidCommand(ArgParser& p) {
  DARIUS_RETURN_IF_ERROR(p.space());
  DARIUS_ASSIGN_OR_RETURN(std::string_view word, p.atom());
  std::string upper = proto::asciiUpper(word);
  for (const UidForm& f : kForms) {
    if (f.name == upper) {
      auto prepared = f.parse(p);
      if (!prepared.ok()) return prepared.status();
      return prepared;
    }
  }
  return base::Status::invalid("Unknown UID command");
}

}  // namespace

CommandSpec uidCommand() {
  return CommandSpec{"UID", stateBit(State::kSelected), kNoFlags, &parseUidCommand};
}

}  // namespace darius::imapd
