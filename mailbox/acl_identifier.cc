#include "mailbox/acl_identifier.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

namespace {

bool equalsLower(std::string_view a, std::string_view lower) {
  if (a.size() != lower.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char c = a[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != lower[i]) return false;
  }
  return true;
}

}  // namespace

Result<AclIdentifier> canonicalIdentifier(std::string_view wire, const Namespace& ns,
                                          std::string_view mailbox_domain) {
  if (wire.size() > kMaxIdentifierLength) return Status::invalid("identifier too long");
  AclIdentifier id;
  std::string_view rest = wire;
  if (!rest.empty() && rest[0] == '-') {
    id.negative = true;
    rest.remove_prefix(1);
  }
  if (rest.empty()) return Status::invalid("empty identifier");
  if (equalsLower(rest, kAnyone)) {
    id.kind = AclIdentifier::Kind::kAnyone;
    id.canonical = std::string(kAnyone);
  } else if (equalsLower(rest, kAnonymous)) {
    id.kind = AclIdentifier::Kind::kAnonymous;
    id.canonical = std::string(kAnonymous);
  } else {
    // A bare name is a user of the mailbox's domain (the default domain is "" either way).
    std::string login(rest);
    if (ns.options().virtual_domains && rest.find('@') == std::string_view::npos &&
        !mailbox_domain.empty()) {
      login += '@';
      login += mailbox_domain;
    }
    auto user = ns.parseUser(login);
    if (!user.ok()) return Status::invalid("invalid identifier: " + user.status().message());
    if (user->domain != mailbox_domain) {
      return Status::permission("identifier of another domain than the mailbox's");
    }
    id.user = std::move(*user);
    id.canonical = id.user.userId();
  }
  if (id.negative) id.canonical.insert(0, 1, '-');
  return id;
}

base::Status checkGrant(const AclIdentifier& id, const RightsChange& change) {
  const bool everyone = id.kind != AclIdentifier::Kind::kUser;
  if (everyone && !id.negative && change.op != RightsChange::Op::kRemove &&
      (change.rights & right::kAdmin) != 0) {
    return Status::permission("the a right is never granted to " + std::string(id.subject()) +
                              ": it would let every user change the ACL");
  }
  return Status::ok();
}

bool grantsToUser(const AclIdentifier& id, const RightsChange& change) {
  return id.kind == AclIdentifier::Kind::kUser && change.op != RightsChange::Op::kRemove &&
         change.rights != 0;
}

}  // namespace darius::mailbox
