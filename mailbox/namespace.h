// Namespace: what a given authenticated user calls a mailbox (the external name, UTF-8, as
// IMAP LIST shows it) and which MailboxName that is, following Cyrus's altnamespace and
// unixhiersep (docs/design/naming.md has the tables). Also the login -> user split of virtual
// domains, and the IMAP NAMESPACE data (RFC 2342, RFC 9051 §6.3.10).
//
//                        standard (altnamespace: no)     altnamespace: yes
//   own INBOX            INBOX                            INBOX
//   own folder           INBOX.Sent                       Sent
//   bob's folder         user.bob.Sent                    Other Users.bob.Sent
//   shared folder        news.misc                        Shared Folders.news.misc
//
// The separator is '.' or '/' (unixhiersep). In '.' mode a '.' inside a component is shown
// as '^' (Cyrus's rule; MailboxName refuses '^' so the mapping is one-to-one), and '/' is
// refused; in '/' mode '.' is an ordinary character. "INBOX" is case-insensitive as the first
// level only. With altnamespace, sub-folders of INBOX ("INBOX.x") are refused: the user's
// other folders are INBOX's siblings there, so "INBOX.x" would be a second name for "x".
// Modified UTF-7 and a trailing separator on CREATE are the IMAP layer's business: it hands
// over the UTF-8 name without them.
//
// Virtual domains (virtdomains: yes): "alice@example.com" is user alice of example.com;
// "alice" and "alice@<defaultdomain>" are alice of the default domain (stored without a
// domain). A user sees and addresses only mailboxes of their own domain: "user.bob" is bob of
// the same domain, and "user.bob@other.org" is refused (kPermission), as in Cyrus without
// crossdomains. With virtdomains: no, '@' is an ordinary character of a user name.
//
// Ownership: a value. Thread-safety: immutable after creation; share freely across threads.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/result.h"
#include "mailbox/mailbox_name.h"

namespace darius::config {
class Config;
}

namespace darius::mailbox {

struct NamespaceOptions {
  bool alt_namespace = false;       // altnamespace
  bool unix_hierarchy_sep = false;  // unixhiersep: '/' instead of '.'
  bool virtual_domains = true;      // virtdomains
  std::string default_domain;       // defaultdomain ("" = none)
  size_t max_name_length = 490;     // max_mailbox_name, for names clients send

  // The "mailboxes" section of the config.
  static NamespaceOptions fromConfig(const config::Config& config);
};

// A user as the mailbox layer knows them: local part and domain ("" = default domain).
struct UserName {
  std::string local;
  std::string domain;

  std::string userId() const;  // "alice" or "alice@example.com"
  bool operator==(const UserName&) const = default;
};

// One namespace of the NAMESPACE response: ("INBOX." ".").
struct NamespacePrefix {
  std::string prefix;  // includes the trailing delimiter when non-empty
  char delimiter = '.';
  bool operator==(const NamespacePrefix&) const = default;
};

// The three lists of the NAMESPACE response, in its order; an empty list is NIL.
struct NamespaceData {
  std::vector<NamespacePrefix> personal;
  std::vector<NamespacePrefix> other_users;
  std::vector<NamespacePrefix> shared;
};

class Namespace {
 public:
  static constexpr std::string_view kInbox = "INBOX";
  static constexpr std::string_view kUserPrefix = "user";                // standard mode
  static constexpr std::string_view kOtherUsersPrefix = "Other Users";  // altnamespace
  static constexpr std::string_view kSharedPrefix = "Shared Folders";   // altnamespace

  // kInvalid for a default domain that is not a valid domain name (case is folded).
  static base::Result<Namespace> create(NamespaceOptions options);
  static base::Result<Namespace> fromConfig(const config::Config& config);

  const NamespaceOptions& options() const { return options_; }
  char separator() const { return options_.unix_hierarchy_sep ? '/' : '.'; }

  // Splits a login name into local part and domain (lower-cased; the default domain becomes
  // ""). kInvalid for a name that cannot own mailboxes ("", "@x", "a@", a bad domain, ...).
  base::Result<UserName> parseUser(std::string_view login) const;
  base::Result<MailboxName> inboxOf(const UserName& user) const;

  // External (UTF-8) name as `user` sends it -> internal name. kInvalid for a malformed or
  // reserved name, kTooBig over max_name_length, kPermission for another domain.
  base::Result<MailboxName> toInternal(std::string_view external, const UserName& user) const;
  // Internal name -> what `user` sees. kPermission for a mailbox of another domain (not
  // visible to this user at all), and, with virtual domains, for an owner with '@' (made
  // while virtdomains was off; "user.a@b" would now name another domain).
  base::Result<std::string> toExternal(const MailboxName& name, const UserName& user) const;

  NamespaceData namespaceData() const;

  // The reserved views of two-phase expunge (docs/design/expunge.md, docs/design/naming.md):
  // `.EXPUNGED<sep><folder>` shows the expunged messages of <folder> (any external name the
  // user could address). In '.' mode the area's own '.' is shown as '^' ("^EXPUNGED.INBOX"),
  // as any '.' of a component. The area's name matches in any case.
  std::string expungedPrefix() const;  // ".EXPUNGED" or "^EXPUNGED", without separator
  // If `external` is in the expunged area: what follows the area and its separator ("" for
  // the area itself); nullopt otherwise.
  std::optional<std::string> splitExpunged(std::string_view external) const;
  // The same for the deleted area: `.DELETED<sep><folder>-<YYYYMMDD-HH:MM:SS>` is a folder
  // DELETE kept (mailbox/deleted_area.h); `.EXPUNGED<sep>.DELETED<sep>...` its expunged view.
  std::string deletedPrefix() const;  // ".DELETED" or "^DELETED", without separator
  std::optional<std::string> splitDeleted(std::string_view external) const;

 private:
  explicit Namespace(NamespaceOptions options) : options_(std::move(options)) {}
  std::optional<std::string> splitArea(std::string_view external, const std::string& prefix) const;

  // One external component -> internal ('^' -> '.' in '.' mode), or kInvalid.
  base::Result<std::string> componentIn(std::string_view external) const;
  std::string componentOut(std::string_view internal) const;

  NamespaceOptions options_;
};

}  // namespace darius::mailbox
