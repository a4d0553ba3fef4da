// MailboxName: the internal, canonical name of a mailbox (docs/design/naming.md). What the
// mailbox list, the partitions and the change log know a mailbox by; clients never see it.
// The IMAP-visible (external) name is derived from it by Namespace, per authenticated user.
//
// A name is a virtual domain ("" = the default domain), a kind (a user's personal mailbox or
// a shared one), the owner's local part (personal only) and the path components below that
// root. A user's INBOX is the user's root: personal, no components. Every string is UTF-8.
//
// A MailboxName that exists is valid: the factories check every rule below, so code that
// holds one never re-validates. Refused (kInvalid; kTooBig for the length):
// - in any component or owner: invalid UTF-8, C0 controls (NUL, CR, LF, TAB …), DEL and C1
//   controls (U+0080–U+009F): they break protocol lines, logs and file names;
//   '/' (the separator of unixhiersep mode, and of paths); '^' (stands for '.' in the
//   external names of '.' mode, as in Cyrus); '%' and '*' (LIST wildcards: a name holding
//   them cannot be matched on its own, RFC 9051 §6.3.9);
//   an empty component, "." and ".." (path traversal, and empty hierarchy levels).
// - in the owner: '@' when the domain is set (user@domain is split by Namespace); the ACL
//   identifiers "anyone" and "anonymous" (RFC 4314), as Cyrus does.
// - first personal component "INBOX" in any case, "Other Users", "Shared Folders"; first shared
//   component "user" and "INBOX" in any case: those are the prefixes of the namespace modes,
//   and refusing them keeps every valid name expressible in every mode.
// - a domain that is not lower-case LDH labels (a-z, 0-9, '-', 1–63 bytes each, '.'-joined,
//   at most 253 bytes): IDNs are stored as A-labels ("xn--…"), upper case is folded by
//   Namespace before a name is built.
// - a name longer than kMaxMailboxNameLength bytes (length(), the toString() form). The
//   configured, smaller max_mailbox_name is Namespace's check, for names clients send.
//
// Ownership: a value type. Thread-safety: immutable once built; share freely.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/result.h"

namespace darius::mailbox {

// Hard cap on length(); the upper bound of the max_mailbox_name option.
inline constexpr size_t kMaxMailboxNameLength = 4000;

enum class MailboxKind : uint8_t { kPersonal, kShared };

// The first components no mailbox may have (any case): the names under which IMAP shows the
// expunged messages and deleted folders of two-phase expunge (docs/design/expunge.md). No
// mailbox can be created, renamed or addressed there; the views are not in the list.
inline constexpr std::string_view kExpungedArea = ".EXPUNGED";
inline constexpr std::string_view kDeletedArea = ".DELETED";

class MailboxName {
 public:
  // A user's mailbox: `components` empty is the user's INBOX.
  static base::Result<MailboxName> personal(std::string domain, std::string owner,
                                            std::vector<std::string> components = {});
  // A shared mailbox: at least one component.
  static base::Result<MailboxName> shared(std::string domain,
                                          std::vector<std::string> components);

  // The inverse of toString() (kInvalid for any other text): for tools, configs and logs.
  static base::Result<MailboxName> parse(std::string_view text);

  // The inverse of key(). Keys come from disk: anything else is kCorruption naming the key.
  static base::Result<MailboxName> fromKey(std::string_view key);

  const std::string& domain() const { return domain_; }
  MailboxKind kind() const { return kind_; }
  bool isPersonal() const { return kind_ == MailboxKind::kPersonal; }
  bool isShared() const { return kind_ == MailboxKind::kShared; }
  const std::string& owner() const { return owner_; }  // empty for shared mailboxes
  const std::vector<std::string>& components() const { return components_; }
  bool isInbox() const { return isPersonal() && components_.empty(); }
  // "alice" or "alice@example.com"; empty for shared mailboxes.
  std::string userId() const;

  // The printable internal form: "[<domain>!]user/<owner>[/<c>]*" or
  // "[<domain>!]shared/<c>[/<c>]*", e.g. "example.com!user/alice/Sent". For logs, tools, the
  // header file; unambiguous because no part may hold '/' and a domain no '!'.
  std::string toString() const;
  size_t length() const;  // == toString().size()

  // The mailbox list key (docs/formats/mailbox-list.md): domain, kind byte, owner and
  // components joined by 0x00. Bytewise order puts every descendant of X right after X, and
  // descendants' keys are exactly those that start with subtreePrefix().
  std::string key() const;
  std::string subtreePrefix() const;  // key() + '\0'

  // True when `other` is this mailbox or below it (same domain and kind, same owner, and
  // this name's components are a prefix of other's).
  bool contains(const MailboxName& other) const;
  // The mailbox one level up: a user's INBOX for a top-level personal folder; none for an
  // INBOX or a top-level shared mailbox.
  std::optional<MailboxName> parent() const;
  base::Result<MailboxName> child(std::string component) const;
  // This name moved from under `from` to under `to` (rename); kInvalid unless
  // from.contains(*this).
  base::Result<MailboxName> rebased(const MailboxName& from, const MailboxName& to) const;

  bool operator==(const MailboxName&) const = default;
  // Key order (the mailbox list's order).
  bool operator<(const MailboxName& other) const { return key() < other.key(); }

 private:
  MailboxName() = default;
  static base::Result<MailboxName> make(std::string domain, MailboxKind kind, std::string owner,
                                        std::vector<std::string> components);

  std::string domain_;
  MailboxKind kind_ = MailboxKind::kPersonal;
  std::string owner_;
  std::vector<std::string> components_;
};

// The rules above, one part at a time (Namespace and the path layer check parts they build).
base::Status validateDomain(std::string_view domain);  // "" is valid (default domain)
base::Status validateOwner(std::string_view owner, bool has_domain);
base::Status validateComponent(std::string_view component);

// Printable form of arbitrary bytes for error messages: bytes outside 0x20..0x7e and '\'
// become \xNN (db/dump's escaping), cut at 200 bytes.
std::string printableBytes(std::string_view bytes);

}  // namespace darius::mailbox
