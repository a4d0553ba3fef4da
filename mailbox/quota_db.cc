#include "mailbox/quota_db.h"

#include <vector>

namespace darius::mailbox {

using base::Code;
using base::Result;
using base::Status;

namespace {

// Outside every root key: printable names start with a domain byte or 'u'/'s', never 0xff.
const std::string kQuotaFormatKey =
    "\xff"
    "format";
constexpr std::string_view kQuotaFormatPrefix = "darius-quota ";
constexpr std::string_view kQuotaFormatValue = "darius-quota 1";

Status checkQuotaFormat(std::string_view value) {
  if (value == kQuotaFormatValue) return Status::ok();
  if (value.starts_with(kQuotaFormatPrefix)) {
    return Status::notSupported("quota db format '" + printableBytes(value) +
                                "' (this build reads '" + std::string(kQuotaFormatValue) + "')");
  }
  return Status::corruption("quota db format record is damaged: " + printableBytes(value));
}

Status ensureQuotaFormat(db::Database& db) {
  auto v = db.get(kQuotaFormatKey);
  if (v.ok()) return checkQuotaFormat(*v);
  if (!v.status().isNotFound()) return v.status();
  bool any = false;
  DARIUS_RETURN_IF_ERROR(db.scan(db::Range::all(), [&](std::string_view, std::string_view) {
    any = true;
    return false;
  }));
  if (any) return Status::corruption("quota db " + db.path() + " has records but no format record");
  auto txn = db.begin();
  if (!txn.ok()) return txn.status().code() == Code::kPermission ? Status::ok() : txn.status();
  auto again = (*txn)->get(kQuotaFormatKey);  // another process may have been first
  if (again.ok()) return checkQuotaFormat(*again);
  if (!again.status().isNotFound()) return again.status();
  DARIUS_RETURN_IF_ERROR((*txn)->put(kQuotaFormatKey, kQuotaFormatValue));
  return (*txn)->commit();
}

// One record of a scan: the key must be a root's printable name.
Result<std::pair<MailboxName, QuotaLimits>> decodeQuotaRecord(std::string_view key,
                                                              std::string_view value) {
  auto n = MailboxName::parse(key);
  if (!n.ok()) {
    return Status::corruption("quota record " + printableBytes(key) + ": not a mailbox name");
  }
  DARIUS_ASSIGN_OR_RETURN(QuotaLimits limits, decodeQuotaLimits(value, key));
  return std::make_pair(std::move(*n), limits);
}

template <typename Source>
Status scanRange(Source& source, const db::Range& range, const QuotaRootFn& fn) {
  Status failure;
  DARIUS_RETURN_IF_ERROR(source.scan(range, [&](std::string_view key, std::string_view value) {
    if (key == kQuotaFormatKey) return true;
    auto record = decodeQuotaRecord(key, value);
    if (!record.ok()) {
      failure = record.status();
      return false;
    }
    return fn(record->first, record->second);
  }));
  return failure;
}

}  // namespace

Result<std::unique_ptr<QuotaDb>> QuotaDb::open(const std::string& path, db::Backend backend,
                                               const db::OpenOptions& options) {
  DARIUS_ASSIGN_OR_RETURN(auto db, db::Database::open(path, backend, options));
  DARIUS_RETURN_IF_ERROR(ensureQuotaFormat(*db));
  return std::unique_ptr<QuotaDb>(new QuotaDb(std::move(db)));
}

Result<std::optional<QuotaLimits>> QuotaDb::get(const MailboxName& root) {
  std::string key = root.toString();
  auto v = db_->get(key);
  if (!v.ok()) {
    if (v.status().isNotFound()) return std::optional<QuotaLimits>();
    return v.status();
  }
  DARIUS_ASSIGN_OR_RETURN(QuotaLimits l, decodeQuotaLimits(*v, key));
  return std::optional<QuotaLimits>(l);
}

Status QuotaDb::put(const MailboxName& root, const QuotaLimits& limits) {
  for (const auto& l : limits.limit) {
    if (l && *l > kMaxQuotaLimit) return Status::invalid("quota limit over 2^63-1");
  }
  DARIUS_ASSIGN_OR_RETURN(auto txn, db_->begin());
  DARIUS_RETURN_IF_ERROR(txn->put(root.toString(), encodeQuotaLimits(limits)));
  return txn->commit();
}

Status QuotaDb::remove(const MailboxName& root) {
  DARIUS_ASSIGN_OR_RETURN(auto txn, db_->begin());
  Status s = txn->remove(root.toString());
  if (s.isNotFound()) return Status::ok();
  DARIUS_RETURN_IF_ERROR(s);
  return txn->commit();
}

Status QuotaDb::scanSubtree(const MailboxName& root, bool strict, const QuotaRootFn& fn) {
  // A descendant's printable name is the root's plus "/" and more: no component holds '/'.
  std::string name = root.toString();
  if (!strict) {
    auto self = get(root);
    if (!self.ok()) return self.status();
    if (*self && !fn(root, **self)) return Status::ok();
  }
  return scanRange(*db_, db::Range::prefix(name + "/"), fn);
}

Status QuotaDb::scanPrefix(std::string_view prefix, const QuotaRootFn& fn) {
  return scanRange(*db_, prefix.empty() ? db::Range::all() : db::Range::prefix(prefix), fn);
}

Status QuotaDb::renameSubtree(const MailboxName& from, const MailboxName& to) {
  DARIUS_ASSIGN_OR_RETURN(auto txn, db_->begin());
  std::vector<std::pair<MailboxName, QuotaLimits>> moving;
  std::string self = from.toString();
  auto at = txn->get(self);
  if (at.ok()) {
    DARIUS_ASSIGN_OR_RETURN(QuotaLimits l, decodeQuotaLimits(*at, self));
    moving.emplace_back(from, l);
  } else if (!at.status().isNotFound()) {
    return at.status();
  }
  DARIUS_RETURN_IF_ERROR(scanRange(*txn, db::Range::prefix(self + "/"),
                                   [&](const MailboxName& n, const QuotaLimits& l) {
                                     moving.emplace_back(n, l);
                                     return true;
                                   }));
  if (moving.empty()) return Status::ok();
  for (const auto& [n, l] : moving) {
    DARIUS_ASSIGN_OR_RETURN(MailboxName nn, n.rebased(from, to));
    DARIUS_RETURN_IF_ERROR(txn->remove(n.toString()));
    DARIUS_RETURN_IF_ERROR(txn->put(nn.toString(), encodeQuotaLimits(l)));
  }
  return txn->commit();
}

Result<std::optional<MailboxName>> QuotaDb::coveringRoot(const MailboxName& name) {
  for (std::optional<MailboxName> n = name; n; n = n->parent()) {
    auto v = db_->get(n->toString());
    if (v.ok()) return n;
    if (!v.status().isNotFound()) return v.status();
  }
  if (name.isPersonal()) {
    DARIUS_ASSIGN_OR_RETURN(MailboxName inbox, MailboxName::personal(name.domain(), name.owner()));
    return std::optional<MailboxName>(std::move(inbox));
  }
  return std::optional<MailboxName>();
}

}  // namespace darius::mailbox
