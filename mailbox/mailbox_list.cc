#include "mailbox/mailbox_list.h"

#include <set>
#include <utility>

#include "lib/base/utf8.h"
#include "lib/config/config.h"
#include "lib/io/path.h"

namespace darius::mailbox {
namespace {

using base::Code;
using base::Result;
using base::Status;

// The format record: outside every mailbox key range (keys of mailboxes start with a domain
// byte [0-9a-z] or with 0x00).
const std::string kListFormatKey =
    "\xff"
    "format";
constexpr std::string_view kListFormatPrefix = "darius-mailbox-list ";
constexpr std::string_view kListFormatValue = "darius-mailbox-list 1";

constexpr uint8_t kMajor = 1;
constexpr uint8_t kMinor = 0;
constexpr size_t kFixedSize = 18;  // major, minor, flags, uidvalidity, created_modseq

bool isMailboxIdChar(char ch) {
  return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
         ch == '_' || ch == '-';
}

Status checkToken(std::string_view what, std::string_view s, size_t max) {
  if (s.empty() || s.size() > max) {
    return Status::invalid(std::string(what) + " must be 1-" + std::to_string(max) + " bytes");
  }
  for (char ch : s) {
    if (!isMailboxIdChar(ch)) {
      return Status::invalid(std::string(what) + " holds a byte outside [0-9A-Za-z_-]: " +
                             printableBytes(s));
    }
  }
  return Status::ok();
}

// UTF-8 without control characters (TAB allowed where `allow_tab`).
Status checkText(std::string_view what, std::string_view s, size_t max, bool allow_tab) {
  if (s.size() > max) {
    return Status::invalid(std::string(what) + " over " + std::to_string(max) + " bytes");
  }
  for (size_t i = 0; i < s.size();) {
    base::Utf8Sequence seq = base::decodeUtf8(s, i);
    if (seq.length == 0) return Status::invalid(std::string(what) + " is not valid UTF-8");
    char32_t c = seq.code_point;
    if ((c < 0x20 && !(allow_tab && c == '\t')) || (c >= 0x7f && c <= 0x9f)) {
      return Status::invalid(std::string(what) + " holds a control character");
    }
    i += seq.length;
  }
  return Status::ok();
}

void putU32BigEndian(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((v >> shift) & 0xff);
}

void putU64BigEndian(std::string& out, uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) out += static_cast<char>((v >> shift) & 0xff);
}

uint64_t getBE(std::string_view s, size_t at, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v = (v << 8) | static_cast<unsigned char>(s[at + i]);
  return v;
}

Status checkFormatValue(std::string_view value) {
  if (value == kListFormatValue) return Status::ok();
  if (value.starts_with(kListFormatPrefix)) {
    return Status::notSupported("mailbox list format '" + printableBytes(value) +
                                "' (this build reads '" + std::string(kListFormatValue) + "')");
  }
  return Status::corruption("mailbox list format record is damaged: " + printableBytes(value));
}

bool anyRecord(db::Database& db, Status* status) {
  bool any = false;
  *status = db.scan(db::Range::all(), [&](std::string_view, std::string_view) {
    any = true;
    return false;
  });
  return any;
}

// Checks the format record, writing it into an empty database (skipped when read-only).
Status ensureListFormat(db::Database& db) {
  auto v = db.get(kListFormatKey);
  if (v.ok()) return checkFormatValue(*v);
  if (!v.status().isNotFound()) return v.status();
  Status s;
  if (anyRecord(db, &s)) {
    return Status::corruption("mailbox list " + db.path() + " has records but no format record");
  }
  DARIUS_RETURN_IF_ERROR(s);
  auto txn = db.begin();
  if (!txn.ok()) return txn.status().code() == Code::kPermission ? Status::ok() : txn.status();
  auto again = (*txn)->get(kListFormatKey);  // another process may have been first
  if (again.ok()) return checkFormatValue(*again);
  if (!again.status().isNotFound()) return again.status();
  DARIUS_RETURN_IF_ERROR((*txn)->put(kListFormatKey, kListFormatValue));
  return (*txn)->commit();
}

// One listing over a db::Database or a db::Txn (both have the same scan()). `accept` filters
// keys before decoding.
template <typename Source>
Status scanMailboxes(Source& source, const db::Range& range, const MailboxListFn& fn,
                     std::vector<DamagedRecord>* damaged,
                     const std::function<bool(std::string_view)>& accept = {}) {
  Status failure;
  Status s = source.scan(range, [&](std::string_view key, std::string_view value) {
    if (accept && !accept(key)) return true;
    auto name = MailboxName::fromKey(key);
    auto entry = name.ok() ? decodeMailboxEntry(value, key) : Result<MailboxEntry>(name.status());
    if (!entry.ok()) {
      if (damaged == nullptr) {
        failure = entry.status();
        return false;
      }
      damaged->push_back({std::string(key), entry.status()});
      return true;
    }
    return fn(*name, *entry);
  });
  DARIUS_RETURN_IF_ERROR(s);
  return failure;
}

template <typename Source>
Status scanSubtree(Source& source, const MailboxName& root, const MailboxListFn& fn) {
  auto e = source.get(root.key());
  if (e.ok()) {
    auto entry = decodeMailboxEntry(*e, root.key());
    if (!entry.ok()) return entry.status();
    if (!fn(root, *entry)) return Status::ok();
  } else if (!e.status().isNotFound()) {
    return e.status();
  }
  return scanMailboxes(source, db::Range::prefix(root.subtreePrefix()), fn, nullptr);
}

template <typename Source>
Status scanChildren(Source& source, const MailboxName& parent, const MailboxListFn& fn) {
  const std::string prefix = parent.subtreePrefix();
  return scanMailboxes(source, db::Range::prefix(prefix), fn, nullptr, [&](std::string_view k) {
    return k.find('\0', prefix.size()) == std::string_view::npos;
  });
}

template <typename Source>
Result<MailboxEntry> lookupIn(Source& source, const MailboxName& name) {
  const std::string key = name.key();
  DARIUS_ASSIGN_OR_RETURN(std::string value, source.get(key));
  return decodeMailboxEntry(value, key);
}

}  // namespace

Status validateEntry(const MailboxEntry& e) {
  DARIUS_RETURN_IF_ERROR(checkToken("unique id", e.unique_id, 128));
  DARIUS_RETURN_IF_ERROR(checkToken("partition", e.partition, 64));
  DARIUS_RETURN_IF_ERROR(checkText("ACL", e.acl, 64 * 1024, true));
  DARIUS_RETURN_IF_ERROR(checkText("quota root", e.quota_root, kMaxMailboxNameLength, false));
  if (e.special_use.size() > 256) return Status::invalid("special-use over 256 bytes");
  for (char ch : e.special_use) {
    if (ch < 0x20 || ch > 0x7e) return Status::invalid("special-use is not printable ASCII");
  }
  if ((e.flags & ~MailboxEntry::kKnownFlags) != 0) {
    return Status::invalid("unknown mailbox flags " + std::to_string(e.flags));
  }
  return Status::ok();
}

Result<std::string> encodeMailboxEntry(const MailboxEntry& e) {
  DARIUS_RETURN_IF_ERROR(validateEntry(e));
  std::string out;
  out += static_cast<char>(kMajor);
  out += static_cast<char>(kMinor);
  putU32BigEndian(out, e.flags);
  putU32BigEndian(out, e.uidvalidity);
  putU64BigEndian(out, e.created_modseq);
  for (const std::string* s : {&e.unique_id, &e.partition, &e.acl, &e.quota_root,
                               &e.special_use}) {
    putU32BigEndian(out, static_cast<uint32_t>(s->size()));
    out += *s;
  }
  return out;
}

Result<MailboxEntry> decodeMailboxEntry(std::string_view value, std::string_view key) {
  auto corrupt = [&](const std::string& why) {
    return Status::corruption("mailbox list record " + printableBytes(key) + ": " + why);
  };
  if (value.size() < kFixedSize) return corrupt("value of " + std::to_string(value.size()) +
                                                " bytes is too short");
  const auto major = static_cast<uint8_t>(value[0]);
  const auto minor = static_cast<uint8_t>(value[1]);
  if (major != kMajor) {
    if (major > kMajor) {
      return Status::notSupported("mailbox list record " + printableBytes(key) + ": format " +
                                  std::to_string(major) + "." + std::to_string(minor) +
                                  " is newer than this build's " + std::to_string(kMajor) +
                                  "." + std::to_string(kMinor));
    }
    return corrupt("bad format version " + std::to_string(major));
  }
  MailboxEntry e;
  e.flags = static_cast<uint32_t>(getBE(value, 2, 4));
  e.uidvalidity = static_cast<uint32_t>(getBE(value, 6, 4));
  e.created_modseq = getBE(value, 10, 8);
  size_t at = kFixedSize;
  for (std::string* s : {&e.unique_id, &e.partition, &e.acl, &e.quota_root, &e.special_use}) {
    if (value.size() - at < 4) return corrupt("truncated at byte " + std::to_string(at));
    uint64_t len = getBE(value, at, 4);
    at += 4;
    if (len > value.size() - at) {
      return corrupt("string of " + std::to_string(len) + " bytes at byte " +
                     std::to_string(at - 4) + " runs past the end");
    }
    s->assign(value.substr(at, len));
    at += len;
  }
  // Minor versions only append fields, which older readers skip; in 1.0 nothing follows.
  if (at != value.size() && minor <= kMinor) {
    return corrupt(std::to_string(value.size() - at) + " trailing bytes");
  }
  Status s = validateEntry(e);
  if (!s.isOk()) return corrupt(s.message());
  return e;
}

// ---- MailboxList ----

Result<std::unique_ptr<MailboxList>> MailboxList::open(const config::Config& config,
                                                       const db::OpenOptions& db_options) {
  DARIUS_ASSIGN_OR_RETURN(db::Backend backend,
                          db::parseBackend(config.getString("mailboxes_db_backend")));
  MailboxListOptions options;
  options.max_name_length = static_cast<size_t>(config.getInt("max_mailbox_name"));
  return open(io::joinPath(config.getPath("data_dir"), "mailboxes.db"), backend, db_options,
              options);
}

Result<std::unique_ptr<MailboxList>> MailboxList::open(const std::string& path,
                                                       db::Backend backend,
                                                       const db::OpenOptions& db_options,
                                                       MailboxListOptions options) {
  DARIUS_ASSIGN_OR_RETURN(auto db, db::Database::open(path, backend, db_options));
  return attach(std::move(db), options);
}

Result<std::unique_ptr<MailboxList>> MailboxList::attach(std::unique_ptr<db::Database> db,
                                                         MailboxListOptions options) {
  if (db == nullptr) return Status::invalid("no database");
  if (options.max_name_length > kMaxMailboxNameLength) {
    options.max_name_length = kMaxMailboxNameLength;
  }
  DARIUS_RETURN_IF_ERROR(ensureListFormat(*db));
  return std::unique_ptr<MailboxList>(new MailboxList(std::move(db), options));
}

Result<MailboxEntry> MailboxList::lookup(const MailboxName& name) { return lookupIn(*db_, name); }

Status MailboxList::listSubtree(const MailboxName& root, const MailboxListFn& fn) {
  return scanSubtree(*db_, root, fn);
}

Status MailboxList::listChildren(const MailboxName& parent, const MailboxListFn& fn) {
  return scanChildren(*db_, parent, fn);
}

Status MailboxList::forEachInDomain(std::string_view domain, const MailboxListFn& fn) {
  std::string prefix(domain);
  prefix += '\0';
  return scanMailboxes(*db_, db::Range::prefix(prefix), fn, nullptr);
}

Status MailboxList::forEach(const MailboxListFn& fn, std::vector<DamagedRecord>* damaged) {
  // The whole key space but the format record: a stray key anywhere is reported as damage.
  return scanMailboxes(*db_, db::Range::all(), fn, damaged,
                       [](std::string_view key) { return key != kListFormatKey; });
}

Status MailboxList::insert(const MailboxName& name, const MailboxEntry& entry) {
  DARIUS_ASSIGN_OR_RETURN(auto t, begin());
  DARIUS_RETURN_IF_ERROR(t->insert(name, entry));
  return t->commit();
}

Status MailboxList::update(const MailboxName& name, const MailboxEntry& entry) {
  DARIUS_ASSIGN_OR_RETURN(auto t, begin());
  DARIUS_RETURN_IF_ERROR(t->update(name, entry));
  return t->commit();
}

Status MailboxList::remove(const MailboxName& name) {
  DARIUS_ASSIGN_OR_RETURN(auto t, begin());
  DARIUS_RETURN_IF_ERROR(t->remove(name));
  return t->commit();
}

Result<std::vector<RenamedMailbox>> MailboxList::renameSubtree(const MailboxName& from,
                                                               const MailboxName& to) {
  DARIUS_ASSIGN_OR_RETURN(auto t, begin());
  DARIUS_ASSIGN_OR_RETURN(auto moves, t->renameSubtree(from, to));
  DARIUS_RETURN_IF_ERROR(t->commit());
  return moves;
}

Result<std::unique_ptr<MailboxList::Transaction>> MailboxList::begin() {
  DARIUS_ASSIGN_OR_RETURN(auto txn, db_->begin());
  return std::unique_ptr<Transaction>(new Transaction(std::move(txn), options_));
}

// ---- MailboxList::Transaction ----

Result<MailboxEntry> MailboxList::Transaction::lookup(const MailboxName& name) {
  return lookupIn(*txn_, name);
}

Status MailboxList::Transaction::listSubtree(const MailboxName& root, const MailboxListFn& fn) {
  return scanSubtree(*txn_, root, fn);
}

Status MailboxList::Transaction::listChildren(const MailboxName& parent,
                                              const MailboxListFn& fn) {
  return scanChildren(*txn_, parent, fn);
}

Status MailboxList::Transaction::insert(const MailboxName& name, const MailboxEntry& entry) {
  if (name.length() > options_.max_name_length) {
    return Status::tooBig("mailbox name over " + std::to_string(options_.max_name_length) +
                          " bytes");
  }
  DARIUS_ASSIGN_OR_RETURN(std::string value, encodeMailboxEntry(entry));
  const std::string key = name.key();
  auto old = txn_->get(key);
  if (old.ok()) return Status::exists("mailbox " + name.toString() + " exists");
  if (!old.status().isNotFound()) return old.status();
  return txn_->put(key, value);
}

Status MailboxList::Transaction::update(const MailboxName& name, const MailboxEntry& entry) {
  DARIUS_ASSIGN_OR_RETURN(std::string value, encodeMailboxEntry(entry));
  const std::string key = name.key();
  auto old = txn_->get(key);
  if (!old.ok()) {
    return old.status().isNotFound() ? Status::notFound("no mailbox " + name.toString())
                                     : old.status();
  }
  return txn_->put(key, value);
}

Status MailboxList::Transaction::remove(const MailboxName& name) {
  Status s = txn_->remove(name.key());
  if (s.isNotFound()) return Status::notFound("no mailbox " + name.toString());
  return s;
}

Status MailboxList::Transaction::removeKey(std::string_view key) {
  if (key == kListFormatKey) return Status::invalid("the format record is not a mailbox");
  return txn_->remove(key);
}

Result<std::vector<RenamedMailbox>> MailboxList::Transaction::renameSubtree(
    const MailboxName& from, const MailboxName& to) {
  if (from.contains(to)) {
    return Status::invalid("cannot rename " + from.toString() + " to itself or below itself");
  }
  // Collect the subtree with the raw values: they move unchanged (a newer minor version's
  // extra fields included).
  std::vector<std::pair<MailboxName, std::string>> old;
  auto root = txn_->get(from.key());
  if (root.ok()) {
    old.emplace_back(from, std::move(*root));
  } else if (!root.status().isNotFound()) {
    return root.status();
  }
  Status failure;
  DARIUS_RETURN_IF_ERROR(txn_->scan(
      db::Range::prefix(from.subtreePrefix()), [&](std::string_view key, std::string_view v) {
        auto name = MailboxName::fromKey(key);
        if (!name.ok()) {
          failure = name.status();
          return false;
        }
        old.emplace_back(std::move(*name), std::string(v));
        return true;
      }));
  DARIUS_RETURN_IF_ERROR(failure);
  if (old.empty()) return Status::notFound("no mailbox at or below " + from.toString());

  std::set<std::string> old_keys;
  for (const auto& [name, value] : old) old_keys.insert(name.key());
  // The target itself must be free even when `from` is a bare level (only its sub-folders
  // are listed): RENAME never merges into an existing mailbox (RFC 9051 §6.3.6).
  if (old_keys.count(to.key()) == 0) {
    auto taken = txn_->get(to.key());
    if (taken.ok()) return Status::exists("mailbox " + to.toString() + " exists");
    if (!taken.status().isNotFound()) return taken.status();
  }
  std::vector<RenamedMailbox> moves;
  for (const auto& [name, value] : old) {
    DARIUS_ASSIGN_OR_RETURN(MailboxEntry entry, decodeMailboxEntry(value, name.key()));
    DARIUS_ASSIGN_OR_RETURN(MailboxName target, name.rebased(from, to));
    if (target.length() > options_.max_name_length) {
      return Status::tooBig("mailbox name " + target.toString() + " over " +
                            std::to_string(options_.max_name_length) + " bytes");
    }
    if (old_keys.count(target.key()) == 0) {
      auto taken = txn_->get(target.key());
      if (taken.ok()) return Status::exists("mailbox " + target.toString() + " exists");
      if (!taken.status().isNotFound()) return taken.status();
    }
    moves.push_back({name, std::move(target), std::move(entry)});
  }
  // All checks passed; from here only an I/O error can fail, and the caller aborts then.
  for (const auto& [name, value] : old) DARIUS_RETURN_IF_ERROR(txn_->remove(name.key()));
  for (size_t i = 0; i < moves.size(); ++i) {
    DARIUS_RETURN_IF_ERROR(txn_->put(moves[i].to.key(), old[i].second));
  }
  return moves;
}

Status MailboxList::Transaction::commit() { return txn_->commit(); }

void MailboxList::Transaction::abort() { txn_->abort(); }

}  // namespace darius::mailbox
