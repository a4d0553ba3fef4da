#include "mailbox/subscriptions.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

namespace {

constexpr std::string_view kSubscriptionsFormatKey =
    "\x01"
    "format";

std::string subscriptionsUserPrefix(std::string_view user) {
  std::string k(user);
  k += '\0';
  return k;
}

std::string keyOf(std::string_view user, const MailboxName& name) {
  return subscriptionsUserPrefix(user) + name.toString();
}

Status checkSubscriptionsUser(std::string_view user) {
  if (user.empty() || user.find('\0') != std::string_view::npos || user[0] == '\x01') {
    return Status::invalid("subscriptions: bad user id");
  }
  return Status::ok();
}

}  // namespace

Result<std::unique_ptr<Subscriptions>> Subscriptions::open(const std::string& path,
                                                           db::Backend backend,
                                                           const db::OpenOptions& options) {
  DARIUS_ASSIGN_OR_RETURN(auto db, db::Database::open(path, backend, options));
  auto format = db->get(kSubscriptionsFormatKey);
  if (format.ok()) {
    if (*format != "1") {
      return Status::notSupported(path + ": subscriptions format " + *format + " is newer");
    }
  } else if (format.status().code() == base::Code::kNotFound && !options.read_only) {
    DARIUS_ASSIGN_OR_RETURN(auto txn, db->begin());
    DARIUS_RETURN_IF_ERROR(txn->put(kSubscriptionsFormatKey, "1"));
    DARIUS_RETURN_IF_ERROR(txn->commit());
  } else if (format.status().code() != base::Code::kNotFound) {
    return format.status();
  }
  return std::unique_ptr<Subscriptions>(new Subscriptions(std::move(db)));
}

Status Subscriptions::subscribe(std::string_view user, const MailboxName& name) {
  DARIUS_RETURN_IF_ERROR(checkSubscriptionsUser(user));
  DARIUS_ASSIGN_OR_RETURN(auto txn, db_->begin());
  DARIUS_RETURN_IF_ERROR(txn->put(keyOf(user, name), ""));
  return txn->commit();
}

Status Subscriptions::unsubscribe(std::string_view user, const MailboxName& name) {
  DARIUS_RETURN_IF_ERROR(checkSubscriptionsUser(user));
  DARIUS_ASSIGN_OR_RETURN(auto txn, db_->begin());
  Status s = txn->remove(keyOf(user, name));
  if (!s.isOk() && s.code() != base::Code::kNotFound) return s;
  return txn->commit();
}

Result<std::vector<MailboxName>> Subscriptions::list(std::string_view user) {
  DARIUS_RETURN_IF_ERROR(checkSubscriptionsUser(user));
  std::vector<MailboxName> out;
  std::string prefix = subscriptionsUserPrefix(user);
  DARIUS_RETURN_IF_ERROR(db_->scan(db::Range::prefix(prefix),
                                   [&](std::string_view key, std::string_view) {
                                     auto n = MailboxName::parse(key.substr(prefix.size()));
                                     if (n.ok()) out.push_back(std::move(*n));
                                     return true;
                                   }));
  return out;
}

Result<bool> Subscriptions::isSubscribed(std::string_view user, const MailboxName& name) {
  DARIUS_RETURN_IF_ERROR(checkSubscriptionsUser(user));
  auto v = db_->get(keyOf(user, name));
  if (v.ok()) return true;
  if (v.status().code() == base::Code::kNotFound) return false;
  return v.status();
}

Status Subscriptions::rename(std::string_view user, const MailboxName& from,
                             const MailboxName& to) {
  DARIUS_ASSIGN_OR_RETURN(std::vector<MailboxName> all, list(user));
  DARIUS_ASSIGN_OR_RETURN(auto txn, db_->begin());
  bool any = false;
  for (const MailboxName& n : all) {
    if (!from.contains(n)) continue;
    auto moved = n.rebased(from, to);
    if (!moved.ok()) continue;  // too long under the new name: the old one stays
    DARIUS_RETURN_IF_ERROR(txn->remove(keyOf(user, n)));
    DARIUS_RETURN_IF_ERROR(txn->put(keyOf(user, *moved), ""));
    any = true;
  }
  if (!any) return Status::ok();
  return txn->commit();
}

}  // namespace darius::mailbox
