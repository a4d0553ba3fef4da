// Subscriptions (RFC 9051 §6.3.7–6.3.8, LSUB and LIST (SUBSCRIBED)): which mailbox names each
// user has subscribed to, in `<data_dir>/subscriptions.db` on any db/ backend. A subscription
// is to a name, not to a mailbox: it survives the mailbox's deletion and may be made before
// the mailbox exists (RFC 9051 §6.3.7), so the key is the user id and the internal name's
// printable form, and nothing here looks at the mailbox list.
//
// Key: <user id> 0x00 <MailboxName::toString()>; value: empty. Keys of one user form one
// prefix range, so listing a user's subscriptions is one scan. Format version: the record
// "\x01format" = "1".
//
// Ownership: owns its Database. Thread-safety: as db::Database (share freely; each call is
// one transaction or one consistent read).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "db/db.h"
#include "lib/base/result.h"
#include "mailbox/mailbox_name.h"

namespace darius::mailbox {

class Subscriptions {
 public:
  static base::Result<std::unique_ptr<Subscriptions>> open(const std::string& path,
                                                           db::Backend backend,
                                                           const db::OpenOptions& options = {});

  // Idempotent: subscribing twice or unsubscribing a name not subscribed is OK.
  base::Status subscribe(std::string_view user, const MailboxName& name);
  base::Status unsubscribe(std::string_view user, const MailboxName& name);
  // In key order; names that no longer parse (a rule changed) are skipped.
  base::Result<std::vector<MailboxName>> list(std::string_view user);
  base::Result<bool> isSubscribed(std::string_view user, const MailboxName& name);
  // A rename carries the subscriptions of `from` and everything below it to the new names.
  base::Status rename(std::string_view user, const MailboxName& from, const MailboxName& to);

 private:
  explicit Subscriptions(std::unique_ptr<db::Database> db) : db_(std::move(db)) {}
  std::unique_ptr<db::Database> db_;
};

}  // namespace darius::mailbox
