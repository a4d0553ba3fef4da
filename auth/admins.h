// Admins: the `admins` option (Cyrus's `admins`), the user ids with rights over mailboxes
// they do not own. An id without a domain ("cyrus") is a global admin; with virtual domains,
// "admin@example.com" administers example.com only. An admin has implicit l and a on every
// mailbox of their scope (ACL commands, other users' trees, SETQUOTA) and may act as any user
// of that scope through SASL PLAIN's authorization identity (proxy authentication, RFC 4616
// §2, as Cyrus allows for admins). Admin status belongs to the id itself: an ACL entry for
// `anyone` or for a group never makes anyone an admin.
//
// Ids are compared in the canonical form the namespace gives logins (mailbox/namespace.h):
// the local part as written, the domain lower-case, the default domain as no domain. That
// rule is repeated here, in three lines, because auth/ may not use mailbox/ (DESIGN.md §2).
//
// Ownership: a value type. Thread-safety: immutable once parsed; share freely.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/base/result.h"
#include "lib/config/config.h"

namespace darius::auth {

// A login split as the namespace splits it: ("alice", "") or ("admin", "example.com").
struct UserId {
  std::string local;
  std::string domain;  // "" for the default domain (or no virtual domains)
  bool operator==(const UserId&) const = default;
};

// Splits `login` at its last '@' when `virtual_domains` (lower-casing the domain and mapping
// `default_domain` to ""); otherwise the whole login is the local part.
UserId splitUserId(std::string_view login, bool virtual_domains, std::string_view default_domain);

class Admins {
 public:
  Admins() = default;
  // A space- or comma-separated list of ids; kInvalid for an empty local part or domain.
  static base::Result<Admins> parse(std::string_view list, bool virtual_domains,
                                    std::string_view default_domain);
  // From the options `admins`, `virtdomains` and `defaultdomain`.
  static base::Result<Admins> fromConfig(const config::Config& config);

  // `who` is an admin of some scope.
  bool isAdmin(const UserId& who) const;
  // `who` administers the mailboxes of `domain` ("" the default domain): a global admin
  // everywhere, a domain admin in their own domain only.
  bool administers(const UserId& who, std::string_view domain) const;
  bool isGlobal(const UserId& who) const;
  // `who` may log in as `as` (proxy authentication): `who` administers `as`'s domain. Never
  // for a non-admin, whatever `as` is.
  bool mayActAs(const UserId& who, const UserId& as) const { return administers(who, as.domain); }
  // The same for two logins as a client sends them (SaslContext::may_act_as).
  bool mayLogInAs(std::string_view authcid, std::string_view authzid) const {
    return mayActAs(idOf(authcid), idOf(authzid));
  }
  // A login split with the rule this list was parsed with.
  UserId idOf(std::string_view login) const {
    return splitUserId(login, virtual_domains_, default_domain_);
  }

  const std::vector<UserId>& ids() const { return ids_; }

 private:
  std::vector<UserId> ids_;
  bool virtual_domains_ = true;
  std::string default_domain_;
};

}  // namespace darius::auth
