// ENABLE (RFC 5161, RFC 9051 §6.3.1): valid in the authenticated state. Unknown names and
// names that cannot be enabled are ignored; the untagged ENABLED lists what this command
// newly enabled (so a second ENABLE of the same name lists nothing), and is sent even when
// that is nothing. Enableable: IMAP4rev2 (RFC 9051 §2.1, §7.2.1), CONDSTORE and QRESYNC
// (RFC 7162 §3.1, §3.2.3; QRESYNC implies CONDSTORE, so it enables both).
#include "imapd/commands/commands.h"
#include "imapd/session.h"

namespace darius::imapd {
namespace {

constexpr std::string_view kEnableable[] = {"IMAP4rev2", "CONDSTORE", "QRESYNC"};
constexpr size_t kMaxNames = 64;

struct EnableArgs {
  std::vector<std::string> names;
};

base::Result<EnableArgs> parseEnable(ArgParser& p) {
  // enable = "ENABLE" 1*(SP capability); capability = atom ("AUTH=..." is an atom too).
  EnableArgs a;
  do {
    DARIUS_RETURN_IF_ERROR(p.space());
    if (a.names.size() == kMaxNames) return base::Status::invalid("Too many arguments");
    auto name = p.atom();
    if (!name.ok()) return name.status();
    a.names.emplace_back(*name);
  } while (!p.atEnd());
  return a;
}

asio::awaitable<Reply> executeEnable(Session& session, EnableArgs args) {
  std::string enabled = "ENABLED";
  for (const std::string& name : args.names) {
    for (std::string_view known : kEnableable) {
      if (!proto::equalsIgnoreCase(name, known)) continue;
      if (known == "QRESYNC" && session.enable("CONDSTORE")) enabled += " CONDSTORE";
      if (session.enable(known)) {
        enabled += " ";
        enabled += known;
      }
    }
  }
  session.writeUntagged(enabled);
  co_return Reply::ok("ENABLE completed");
}

}  // namespace

CommandSpec enableCommand() {
  return makeCommand<EnableArgs, parseEnable, executeEnable>("ENABLE", kAuthenticatedOnly);
}

}  // namespace darius::imapd
