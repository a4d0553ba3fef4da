// Deliverer: the blocking half of an LMTP transaction (DESIGN.md §3, §4): given the finished
// message and the accepted recipients, picks each recipient's mailbox, drops duplicates,
// stages the message once per partition, links it into every mailbox with the Store's
// group-committed append, and reports one outcome per recipient. An outcome of kDelivered
// means the message file and its index record are on stable storage (Store::append returns
// after the fsyncs), so the session may answer 250 for it.
//
// Mailbox choice (RFC 5233 subaddressing, as Cyrus does it): "user+detail" goes into the
// user's folder `detail` (a name in the user's own namespace, e.g. "INBOX.detail", or
// "detail" with altnamespace) when that folder exists, is selectable and its ACL lets the
// owner post ('p', RFC 4314); otherwise, and for a plain "user", into INBOX, which is created
// the first time (Store::ensureInbox). The message is posted on the owner's behalf: Cyrus
// instead asks whether "anyone" (its anonymous postman) has 'p', which makes +detail fail on
// every folder until its owner opens it up; here a folder receives subaddressed mail unless
// its owner took the right away (e.g. "-alice p").
//
// Several recipients that resolve to one mailbox get one copy (each still gets its 250). A
// message for several mailboxes is appended to up to 8 of them at once (short-lived threads
// of its own), since each append waits for its own fsyncs.
// Duplicate suppression (mailbox/duplicate_db.h) is keyed by the mailbox's unique id.
//
// Ownership: borrows the Store and the DuplicateDb (may be null), which must outlive it.
// Thread-safety: deliver() may run on any number of threads at once (the Store and the
// DuplicateDb are thread-safe; the Namespace is immutable). It blocks on fsync: call it from
// a delivery thread, never from a network thread.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/result.h"
#include "mailbox/duplicate_db.h"
#include "mailbox/namespace.h"
#include "mailbox/store.h"

namespace darius::lmtpd {

struct DeliveryTarget {
  std::string user;    // the user store name RCPT resolved ("alice", "bob@example.org")
  std::string detail;  // the subaddress after '+', "" if none
};

struct DeliveryOutcome {
  enum class Kind : uint8_t {
    kDelivered,   // stored and durable
    kDuplicate,   // already delivered within the window: accepted, not stored again
    kNoMailbox,   // the user cannot have a mailbox (bad name, user gone): permanent
    kOverQuota,   // the quota root is full (RFC 3463 X.2.2): 552 or 452, by config
    kTemporary,   // the store failed (I/O, lock, corruption): try again later
  };
  Kind kind = Kind::kTemporary;
  std::string mailbox;  // the internal name, for logs
  base::Status status;  // why, for logs, when not delivered
};

class Deliverer {
 public:
  Deliverer(mailbox::Store& store, mailbox::Namespace ns, mailbox::DuplicateDb* duplicates)
      : store_(store), ns_(std::move(ns)), duplicates_(duplicates) {}

  // The INBOX of a user store name; no I/O, so RCPT can refuse a user who cannot own mail.
  base::Result<mailbox::MailboxName> inboxFor(std::string_view user) const;
  // The domain of a recipient written without one (defaultdomain, lower case); "" when there
  // is none, or without virtual domains, where "@" is just a character of a user name.
  bool virtualDomains() const { return ns_.options().virtual_domains; }
  std::string_view defaultDomain() const {
    return ns_.options().virtual_domains ? std::string_view(ns_.options().default_domain)
                                         : std::string_view();
  }

  // RCPT's early quota check (Cyrus refuses at RCPT too, so the client need not send the
  // message): true only when a message of `size` octets (0: not declared) would certainly
  // take the root covering `inbox` (inboxFor()) over a limit, judged from the usage record
  // without its lock (Store::quotaHint). False whenever in doubt: the append under the root's
  // lock decides then. Reads the quota db, never syncs.
  bool certainlyOverQuota(const mailbox::MailboxName& inbox, uint64_t size);

  // One outcome per target, in order. `message` is canonical (CRLF; BINARYMIME bytes as sent)
  // with the trace fields already on top. `internal_date` is the delivery time.
  std::vector<DeliveryOutcome> deliver(std::string_view message,
                                       std::span<const DeliveryTarget> targets,
                                       int64_t internal_date);

  mailbox::Store& store() { return store_; }

 private:
  struct Slot;
  // The folder "detail" of `user`, or an error when the name is not a valid folder name.
  base::Result<mailbox::MailboxName> folderFor(const mailbox::UserName& user,
                                               std::string_view detail) const;
  // The mailbox of one target (creating INBOX when needed); kDelivered means "found".
  DeliveryOutcome resolve(const DeliveryTarget& target,
                          std::optional<mailbox::MailboxName>* name, mailbox::MailboxEntry* entry);
  void storeInto(std::string_view message, std::vector<Slot>& slots,
                 const std::string& partition, int64_t internal_date);

  mailbox::Store& store_;
  const mailbox::Namespace ns_;
  mailbox::DuplicateDb* duplicates_;
};

}  // namespace darius::lmtpd
