// NAMESPACE (RFC 2342, RFC 9051 §6.3.10): the personal, other users' and shared prefixes of
// the configured namespace mode (mailbox/namespace.h, docs/design/naming.md).
#include "imapd/commands/commands.h"
#include "imapd/session.h"
#include "lib/proto/chars.h"
#include "lib/proto/mutf7.h"

namespace darius::imapd {
namespace {

std::string formatList(const Session& session, const std::vector<mailbox::NamespacePrefix>& l) {
  if (l.empty()) return "NIL";
  std::string out = "(";
  for (const mailbox::NamespacePrefix& p : l) {
    std::string prefix = p.prefix;
    if (!session.isEnabled("UTF8=ACCEPT")) {
      auto enc = proto::encodeMutf7(prefix);
      if (enc.ok()) prefix = *enc;
    }
    out += "(" + proto::quoteString(prefix) + " \"" + std::string(1, p.delimiter) + "\")";
  }
  return out + ")";
}

asio::awaitable<Reply> executeNamespace(Session& session, NoArgs) {
  mailbox::NamespaceData d = session.ns().namespaceData();
  session.writeUntagged("NAMESPACE " + formatList(session, d.personal) + " " +
                        formatList(session, d.other_users) + " " + formatList(session, d.shared));
  co_return Reply::ok("NAMESPACE completed");
}

}  // namespace

CommandSpec namespaceCommand() {
  return makeCommand<NoArgs, parseNoArgs, executeNamespace>("NAMESPACE", kAfterLogin);
}

}  // namespace darius::imapd
