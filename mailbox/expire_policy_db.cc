#include "mailbox/expire_policy_db.h"

#include <charconv>
#include <limits>
#include <vector>

namespace darius::mailbox {

using base::Code;
using base::Result;
using base::Status;

namespace {

// Outside every owner key: printable names start with a domain byte or 'u'/'s', never 0xff.
const std::string kPolicyFormatKey =
    "\xff"
    "format";
constexpr std::string_view kPolicyFormatPrefix = "darius-expire-policy ";
constexpr std::string_view kPolicyFormatValue = "darius-expire-policy 1";
constexpr std::string_view kRecordVersion = "1";
constexpr uint64_t kMaxValue = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

Status checkPolicyFormat(std::string_view value) {
  if (value == kPolicyFormatValue) return Status::ok();
  if (value.starts_with(kPolicyFormatPrefix)) {
    return Status::notSupported("expire policy db format '" + printableBytes(value) +
                                "' (this build reads '" + std::string(kPolicyFormatValue) + "')");
  }
  return Status::corruption("expire policy db format record is damaged: " +
                            printableBytes(value));
}

Status ensurePolicyFormat(db::Database& db) {
  auto v = db.get(kPolicyFormatKey);
  if (v.ok()) return checkPolicyFormat(*v);
  if (!v.status().isNotFound()) return v.status();
  bool any = false;
  DARIUS_RETURN_IF_ERROR(db.scan(db::Range::all(), [&](std::string_view, std::string_view) {
    any = true;
    return false;
  }));
  if (any) {
    return Status::corruption("expire policy db " + db.path() +
                              " has records but no format record");
  }
  auto txn = db.begin();
  if (!txn.ok()) return txn.status().code() == Code::kPermission ? Status::ok() : txn.status();
  auto again = (*txn)->get(kPolicyFormatKey);  // another process may have been first
  if (again.ok()) return checkPolicyFormat(*again);
  if (!again.status().isNotFound()) return again.status();
  DARIUS_RETURN_IF_ERROR((*txn)->put(kPolicyFormatKey, kPolicyFormatValue));
  return (*txn)->commit();
}

ExpirePolicyOverride& areaOf(ExpireOverrides& o, ExpireArea area) {
  return area == ExpireArea::kExpunged ? o.expunged : o.deleted;
}

// Field i of kExpireOverrideFields as an optional number, whatever its type.
std::optional<uint64_t> valueOf(ExpireOverrides& o, size_t i) {
  if (auto* s = overrideSize(o, i)) return *s;
  auto* t = overrideTimeout(o, i);
  if (*t) return static_cast<uint64_t>(**t);
  return std::nullopt;
}

Status bad(std::string_view key, const std::string& why) {
  return Status::corruption("expire policy record " + printableBytes(key) + ": " + why);
}

Result<std::pair<MailboxName, ExpireOverrides>> decodePolicyRecord(std::string_view key,
                                                                   std::string_view value) {
  auto n = MailboxName::parse(key);
  if (!n.ok()) return bad(key, "not a mailbox name");
  DARIUS_ASSIGN_OR_RETURN(ExpireOverrides o, decodeExpireOverrides(value, key));
  return std::make_pair(std::move(*n), std::move(o));
}

template <typename Source>
Status scanAll(Source& source, const ExpireOverridesFn& fn) {
  Status failure;
  DARIUS_RETURN_IF_ERROR(
      source.scan(db::Range::all(), [&](std::string_view key, std::string_view value) {
        if (key == kPolicyFormatKey) return true;
        auto record = decodePolicyRecord(key, value);
        if (!record.ok()) {
          failure = record.status();
          return false;
        }
        return fn(record->first, record->second);
      }));
  return failure;
}

Status validate(const ExpireOverrides& o) {
  for (const ExpirePolicyOverride* p : {&o.expunged, &o.deleted}) {
    for (const auto* v : {&p->vol_min, &p->vol_max, &p->vol_overflow}) {
      if (*v && **v > kMaxValue) return Status::invalid("expire policy size over 2^63-1");
    }
    if (p->timeout_seconds && *p->timeout_seconds < 0) {
      return Status::invalid("expire policy timeout is negative");
    }
  }
  return Status::ok();
}

}  // namespace

MailboxName expireOwnerOf(const MailboxName& mailbox) {
  if (!mailbox.isPersonal()) return mailbox;
  auto inbox = MailboxName::personal(mailbox.domain(), mailbox.owner());
  // A listed personal mailbox's owner always makes a valid INBOX name.
  return inbox.ok() ? *inbox : mailbox;
}

std::optional<uint64_t>* overrideSize(ExpireOverrides& o, size_t i) {
  if (kExpireOverrideFields[i].is_timeout) return nullptr;
  ExpirePolicyOverride& p = areaOf(o, kExpireOverrideFields[i].area);
  switch (i % 4) {
    case 0: return &p.vol_min;
    case 1: return &p.vol_max;
    default: return &p.vol_overflow;
  }
}

std::optional<int64_t>* overrideTimeout(ExpireOverrides& o, size_t i) {
  if (!kExpireOverrideFields[i].is_timeout) return nullptr;
  return &areaOf(o, kExpireOverrideFields[i].area).timeout_seconds;
}

std::string encodeExpireOverrides(const ExpireOverrides& overrides) {
  ExpireOverrides o = overrides;
  std::string out(kRecordVersion);
  for (size_t i = 0; i < std::size(kExpireOverrideFields); ++i) {
    if (auto v = valueOf(o, i)) {
      out += ' ';
      out += kExpireOverrideFields[i].name;
      out += '=';
      out += std::to_string(*v);
    }
  }
  return out;
}

Result<ExpireOverrides> decodeExpireOverrides(std::string_view value, std::string_view key) {
  size_t sp = value.find(' ');
  std::string_view version = value.substr(0, sp);
  if (version != kRecordVersion) {
    bool digits = !version.empty() && version.find_first_not_of("0123456789") == version.npos;
    if (digits) {
      return Status::notSupported("expire policy record " + printableBytes(key) +
                                  ": version " + std::string(version) + " (this build reads 1)");
    }
    return bad(key, "no version");
  }
  ExpireOverrides o;
  size_t last = 0;  // fields come in kExpireOverrideFields order, each at most once
  std::string_view rest = sp == value.npos ? std::string_view() : value.substr(sp);
  while (!rest.empty()) {
    if (rest[0] != ' ') return bad(key, "fields are not separated by one space");
    rest.remove_prefix(1);
    size_t end = rest.find(' ');
    std::string_view field = rest.substr(0, end);
    rest = end == rest.npos ? std::string_view() : rest.substr(end);
    size_t eq = field.find('=');
    if (eq == field.npos) return bad(key, "field without '='");
    std::string_view name = field.substr(0, eq);
    std::string_view number = field.substr(eq + 1);
    size_t i = 0;
    while (i < std::size(kExpireOverrideFields) && kExpireOverrideFields[i].name != name) ++i;
    if (i == std::size(kExpireOverrideFields)) {
      return bad(key, "unknown field '" + printableBytes(name) + "'");
    }
    if (i + 1 <= last) return bad(key, "field '" + std::string(name) + "' out of order or twice");
    last = i + 1;
    uint64_t n = 0;
    auto [p, ec] = std::from_chars(number.data(), number.data() + number.size(), n);
    if (number.empty() || ec != std::errc() || p != number.data() + number.size() ||
        (number.size() > 1 && number[0] == '0') || n > kMaxValue) {
      return bad(key, "field '" + std::string(name) + "' is not a number up to 2^63-1");
    }
    if (auto* s = overrideSize(o, i)) {
      *s = n;
    } else {
      *overrideTimeout(o, i) = static_cast<int64_t>(n);
    }
  }
  return o;
}

Result<std::unique_ptr<ExpirePolicyDb>> ExpirePolicyDb::open(const std::string& path,
                                                             db::Backend backend,
                                                             const db::OpenOptions& options) {
  DARIUS_ASSIGN_OR_RETURN(auto db, db::Database::open(path, backend, options));
  DARIUS_RETURN_IF_ERROR(ensurePolicyFormat(*db));
  return std::unique_ptr<ExpirePolicyDb>(new ExpirePolicyDb(std::move(db)));
}

Result<std::optional<ExpireOverrides>> ExpirePolicyDb::get(const MailboxName& owner) {
  std::string key = owner.toString();
  auto v = db_->get(key);
  if (!v.ok()) {
    if (v.status().isNotFound()) return std::optional<ExpireOverrides>();
    return v.status();
  }
  DARIUS_ASSIGN_OR_RETURN(ExpireOverrides o, decodeExpireOverrides(*v, key));
  return std::optional<ExpireOverrides>(std::move(o));
}

Status ExpirePolicyDb::set(const MailboxName& owner, const ExpireOverrides& overrides) {
  DARIUS_RETURN_IF_ERROR(validate(overrides));
  if (overrides.empty()) return clear(owner);
  DARIUS_ASSIGN_OR_RETURN(auto txn, db_->begin());
  DARIUS_RETURN_IF_ERROR(txn->put(owner.toString(), encodeExpireOverrides(overrides)));
  return txn->commit();
}

Result<ExpireOverrides> ExpirePolicyDb::update(
    const MailboxName& owner, const std::function<void(ExpireOverrides&)>& change) {
  const std::string key = owner.toString();
  DARIUS_ASSIGN_OR_RETURN(auto txn, db_->begin());
  ExpireOverrides o;
  auto v = txn->get(key);
  if (v.ok()) {
    DARIUS_ASSIGN_OR_RETURN(o, decodeExpireOverrides(*v, key));
  } else if (!v.status().isNotFound()) {
    return v.status();
  }
  const bool had = v.ok();
  change(o);
  DARIUS_RETURN_IF_ERROR(validate(o));
  if (o.empty()) {
    if (!had) return o;  // nothing to write: the transaction is dropped unchanged
    DARIUS_RETURN_IF_ERROR(txn->remove(key));
  } else {
    DARIUS_RETURN_IF_ERROR(txn->put(key, encodeExpireOverrides(o)));
  }
  DARIUS_RETURN_IF_ERROR(txn->commit());
  return o;
}

Status ExpirePolicyDb::clear(const MailboxName& owner) {
  DARIUS_ASSIGN_OR_RETURN(auto txn, db_->begin());
  Status s = txn->remove(owner.toString());
  if (s.isNotFound()) return Status::ok();
  DARIUS_RETURN_IF_ERROR(s);
  return txn->commit();
}

Status ExpirePolicyDb::list(const ExpireOverridesFn& fn) { return scanAll(*db_, fn); }

Result<ExpirePolicy> ExpirePolicyDb::effective(const MailboxName& owner, ExpireArea area,
                                               const ExpirePolicy& global) {
  DARIUS_ASSIGN_OR_RETURN(std::optional<ExpireOverrides> o, get(owner));
  if (!o) return global;
  return areaOf(*o, area).over(global);
}

}  // namespace darius::mailbox
