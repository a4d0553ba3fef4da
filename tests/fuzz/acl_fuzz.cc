// Fuzzes the ACL parsers: the stored ACL (mailbox list entries and header files: disk input,
// mailbox::Acl::parse), SETACL's rights argument (mailbox::parseRightsChange) and the
// identifier argument of SETACL, DELETEACL and LISTRIGHTS (mailbox::canonicalIdentifier), all
// network input. The input is split at its first two NUL bytes into the three. Invariants: no
// crash; a stored ACL that parses serialises and re-parses to the same ACL; rights that
// parse print back (stored form) as letters that parse to the same rights; an identifier
// that is accepted is accepted again, unchanged, in its stored spelling.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "mailbox/acl.h"
#include "mailbox/acl_identifier.h"
#include "mailbox/namespace.h"

namespace {

std::string_view cut(std::string_view& in) {
  size_t nul = in.find('\0');
  std::string_view head = in.substr(0, nul);
  in = nul == std::string_view::npos ? std::string_view() : in.substr(nul + 1);
  return head;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace darius::mailbox;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::string_view stored = cut(in);
  std::string_view rights = cut(in);
  std::string_view identifier = in;

  if (auto acl = Acl::parse(stored); acl.ok()) {
    auto again = Acl::parse(acl->toString());
    if (!again.ok() || !(*again == *acl)) std::abort();
    (void)acl->rightsOf(identifier, false);
  }
  (void)effectiveRights(stored, identifier, true, false);

  if (auto change = parseRightsChange(rights); change.ok()) {
    auto back = parseRights(rightsToString(change->rights));
    if (!back.ok() || *back != change->rights) std::abort();
    (void)rightsToWire(change->rights);
  }

  static const Namespace* ns = new Namespace(*Namespace::create(NamespaceOptions{}));
  for (std::string_view domain : {std::string_view(), std::string_view("example.com")}) {
    auto id = canonicalIdentifier(identifier, *ns, domain);
    if (!id.ok()) continue;
    auto again = canonicalIdentifier(id->canonical, *ns, domain);
    if (!again.ok() || again->canonical != id->canonical) std::abort();
  }
  return 0;
}
