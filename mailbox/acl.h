// Access control lists (RFC 4314) as the store keeps them: in the mailbox list entry and a
// copy in the header file, in Cyrus's form "identifier\trights\tidentifier\trights..." (no
// trailing tab). An identifier is a user id ("alice", "bob@example.com"), "anyone", or either
// prefixed with "-" for negative rights (RFC 4314 §2: rights removed after the others are
// granted). The services ask one question: what may this user do here (rightsOf).
//
// Rights letters (RFC 4314 §2.1): l lookup, r read, s keep seen, w write flags, i insert,
// p post, k create mailboxes, x delete mailbox, t delete messages, e expunge, a administer,
// n annotate (RFC 5464). The obsolete "c" is read as "k" and "d" as "xte" (RFC 4314 §2.1.1).
//
// Ownership: a value type. Thread-safety: immutable once built; share freely.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/result.h"

namespace darius::mailbox {

using Rights = uint32_t;

namespace right {
inline constexpr Rights kLookup = 1u << 0;       // l
inline constexpr Rights kRead = 1u << 1;         // r
inline constexpr Rights kSeen = 1u << 2;         // s
inline constexpr Rights kWrite = 1u << 3;        // w
inline constexpr Rights kInsert = 1u << 4;       // i
inline constexpr Rights kPost = 1u << 5;         // p
inline constexpr Rights kCreate = 1u << 6;       // k
inline constexpr Rights kDeleteMailbox = 1u << 7;  // x
inline constexpr Rights kDeleteMessage = 1u << 8;  // t
inline constexpr Rights kExpunge = 1u << 9;      // e
inline constexpr Rights kAdmin = 1u << 10;       // a
inline constexpr Rights kAnnotate = 1u << 11;    // n
inline constexpr Rights kAll = (1u << 12) - 1;
}  // namespace right

// "lrswipkxtean" order (RFC 4314's listing order): the stored form, without the virtual
// rights.
std::string rightsToString(Rights rights);
// The wire form of MYRIGHTS and ACL responses (RFC 4314 §2.1.1): the stored letters plus the
// virtual "c" when k is set and "d" when any of x, t, e is, in Cyrus's order "lrswipkxtecdan".
std::string rightsToWire(Rights rights);
// kInvalid for a letter RFC 4314 does not define: upper case, digits (reserved for sites,
// §2; this server defines none) and anything else.
base::Result<Rights> parseRights(std::string_view letters);

// The rights argument of SETACL (RFC 4314 §3.1 mod-rights): an optional '+' (add) or '-'
// (remove), then zero or more rights letters; without a prefix the letters replace.
struct RightsChange {
  enum class Op : uint8_t { kReplace, kAdd, kRemove };
  Op op = Op::kReplace;
  Rights rights = 0;
  Rights applyTo(Rights current) const {
    return op == Op::kAdd ? current | rights : op == Op::kRemove ? current & ~rights : rights;
  }
};
// kInvalid (the client's BAD, §3.1: "an unrecognized right MUST cause ... BAD") for an
// unknown letter.
base::Result<RightsChange> parseRightsChange(std::string_view text);

// RFC 4314 §4's "Any": the rights that let a user know a mailbox exists (MYRIGHTS needs one
// of them). A user with none of them gets the replies of a mailbox that does not exist.
inline constexpr Rights kRevealingRights = right::kLookup | right::kRead | right::kInsert |
                                            right::kCreate | right::kDeleteMailbox |
                                            right::kAdmin;

// Rights the owner of a personal mailbox always has whatever its ACL says, so that a user can
// never lock themselves out of their own mailboxes (Cyrus's implicit_owner_rights default).
inline constexpr Rights kImplicitOwnerRights =
    right::kLookup | right::kCreate | right::kDeleteMailbox | right::kAdmin;

// Rights an admin (auth/admins.h) has on every mailbox of their scope whatever its ACL says:
// enough to see it and to change its ACL, not to read its mail (Cyrus's rule).
inline constexpr Rights kImplicitAdminRights = right::kLookup | right::kAdmin;

struct AclEntry {
  std::string identifier;  // "-" prefix for negative rights
  Rights rights = 0;
  bool operator==(const AclEntry&) const = default;
};

class Acl {
 public:
  Acl() = default;
  // The stored form; kInvalid for an odd field count, an empty identifier or bad rights.
  static base::Result<Acl> parse(std::string_view stored);
  // The owner's ACL of a new personal mailbox: all rights for `owner`.
  static Acl ownerDefault(std::string_view owner);

  std::string toString() const;
  const std::vector<AclEntry>& entries() const { return entries_; }

  // Replaces (rights != 0) or removes (rights == 0) the entry of `identifier`.
  void set(std::string_view identifier, Rights rights);
  Rights get(std::string_view identifier) const;  // 0 if absent

  // What `user` may do: the union of the user's and "anyone"'s rights, minus the union of
  // their negative rights; plus kImplicitOwnerRights when `is_owner`.
  Rights rightsOf(std::string_view user, bool is_owner) const;

  bool operator==(const Acl&) const = default;

 private:
  std::vector<AclEntry> entries_;
};

// The one rule every service applies to a mailbox's stored ACL: Acl::rightsOf, plus
// kImplicitAdminRights for an admin of the mailbox's domain. A damaged ACL grants nothing
// beyond the implicit rights.
Rights effectiveRights(std::string_view stored_acl, std::string_view user, bool is_owner,
                       bool is_admin);

}  // namespace darius::mailbox
