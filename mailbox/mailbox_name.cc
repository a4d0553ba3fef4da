#include "mailbox/mailbox_name.h"

#include <utility>

#include "db/dump.h"
#include "lib/proto/chars.h"
#include "lib/base/utf8.h"

namespace darius::mailbox {
namespace {

using base::Result;
using base::Status;

constexpr std::string_view kUserWord = "user";
constexpr std::string_view kSharedWord = "shared";
constexpr char kKindPersonal = 'u';
constexpr char kKindShared = 's';

// The character rules shared by owners and components (see the header).
Status validatePart(std::string_view part, std::string_view what) {
  if (part.empty()) return Status::invalid("empty " + std::string(what));
  if (part == "." || part == "..") {
    return Status::invalid(std::string(what) + " may not be '" + std::string(part) + "'");
  }
  for (size_t i = 0; i < part.size();) {
    base::Utf8Sequence seq = base::decodeUtf8(part, i);
    if (seq.length == 0) {
      return Status::invalid(std::string(what) + " is not valid UTF-8: " + printableBytes(part));
    }
    char32_t c = seq.code_point;
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
      return Status::invalid(std::string(what) + " holds a control character: " +
                             printableBytes(part));
    }
    if (c == '/' || c == '^' || c == '%' || c == '*') {
      return Status::invalid(std::string(what) + " may not contain '" +
                             std::string(1, static_cast<char>(c)) + "': " + printableBytes(part));
    }
    i += seq.length;
  }
  return Status::ok();
}

Status validateFirstComponent(MailboxKind kind, std::string_view first) {
  if (proto::equalsIgnoreCase(first, "INBOX")) {
    return Status::invalid("a top-level folder may not be named INBOX");
  }
  if (kind == MailboxKind::kPersonal && (first == "Other Users" || first == "Shared Folders")) {
    return Status::invalid("'" + std::string(first) + "' is reserved (altnamespace prefix)");
  }
  if (kind == MailboxKind::kShared && first == kUserWord) {
    return Status::invalid("a shared mailbox may not be named 'user' (namespace prefix)");
  }
  if (proto::equalsIgnoreCase(first, kExpungedArea) ||
      proto::equalsIgnoreCase(first, kDeletedArea)) {
    return Status::invalid("'" + std::string(first) +
                           "' is reserved for expunged messages and deleted folders");
  }
  return Status::ok();
}

std::vector<std::string> split(std::string_view text, char sep) {
  std::vector<std::string> out;
  size_t at = 0;
  while (true) {
    size_t end = text.find(sep, at);
    out.emplace_back(text.substr(at, end == std::string_view::npos ? text.npos : end - at));
    if (end == std::string_view::npos) return out;
    at = end + 1;
  }
}

}  // namespace

std::string printableBytes(std::string_view bytes) {
  constexpr size_t kCut = 200;
  std::string out = db::escapeField(bytes.substr(0, kCut));
  if (bytes.size() > kCut) out += "...";
  return out;
}

Status validateDomain(std::string_view domain) {
  if (domain.empty()) return Status::ok();
  if (domain.size() > 253) return Status::invalid("domain longer than 253 bytes");
  for (const std::string& label : split(domain, '.')) {
    if (label.empty() || label.size() > 63) {
      return Status::invalid("bad domain label length: " + printableBytes(domain));
    }
    if (label.front() == '-' || label.back() == '-') {
      return Status::invalid("domain label starts or ends with '-': " + printableBytes(domain));
    }
    for (char ch : label) {
      bool ok = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-';
      if (!ok) return Status::invalid("domain is not lower-case LDH: " + printableBytes(domain));
    }
  }
  return Status::ok();
}

Status validateOwner(std::string_view owner, bool has_domain) {
  DARIUS_RETURN_IF_ERROR(validatePart(owner, "user name"));
  if (has_domain && owner.find('@') != std::string_view::npos) {
    return Status::invalid("user name holds '@' beside a domain: " + printableBytes(owner));
  }
  if (owner == "anyone" || owner == "anonymous") {
    return Status::invalid("'" + std::string(owner) + "' is an ACL identifier, not a user");
  }
  return Status::ok();
}

Status validateComponent(std::string_view component) {
  return validatePart(component, "mailbox name component");
}

Result<MailboxName> MailboxName::make(std::string domain, MailboxKind kind, std::string owner,
                                      std::vector<std::string> components) {
  DARIUS_RETURN_IF_ERROR(validateDomain(domain));
  if (kind == MailboxKind::kPersonal) {
    DARIUS_RETURN_IF_ERROR(validateOwner(owner, !domain.empty()));
  } else if (components.empty()) {
    return Status::invalid("a shared mailbox name needs at least one component");
  }
  // Cheap bound before walking the parts, so a hostile megabyte name costs nothing more.
  size_t length = domain.size() + owner.size() + 8;
  for (const std::string& c : components) length += c.size() + 1;
  if (length > kMaxMailboxNameLength + 8) {
    return Status::tooBig("mailbox name over " + std::to_string(kMaxMailboxNameLength) +
                          " bytes");
  }
  for (const std::string& c : components) DARIUS_RETURN_IF_ERROR(validateComponent(c));
  if (!components.empty()) DARIUS_RETURN_IF_ERROR(validateFirstComponent(kind, components[0]));
  MailboxName name;
  name.domain_ = std::move(domain);
  name.kind_ = kind;
  name.owner_ = std::move(owner);
  name.components_ = std::move(components);
  if (name.length() > kMaxMailboxNameLength) {
    return Status::tooBig("mailbox name over " + std::to_string(kMaxMailboxNameLength) +
                          " bytes");
  }
  return name;
}

Result<MailboxName> MailboxName::personal(std::string domain, std::string owner,
                                          std::vector<std::string> components) {
  return make(std::move(domain), MailboxKind::kPersonal, std::move(owner),
              std::move(components));
}

Result<MailboxName> MailboxName::shared(std::string domain,
                                        std::vector<std::string> components) {
  return make(std::move(domain), MailboxKind::kShared, "", std::move(components));
}

std::string MailboxName::userId() const {
  if (isShared()) return "";
  return domain_.empty() ? owner_ : owner_ + "@" + domain_;
}

std::string MailboxName::toString() const {
  std::string out;
  if (!domain_.empty()) out += domain_ + "!";
  if (isPersonal()) {
    out += kUserWord;
    out += '/';
    out += owner_;
  } else {
    out += kSharedWord;
  }
  for (const std::string& c : components_) {
    out += '/';
    out += c;
  }
  return out;
}

size_t MailboxName::length() const {
  size_t n = domain_.empty() ? 0 : domain_.size() + 1;
  n += isPersonal() ? kUserWord.size() + 1 + owner_.size() : kSharedWord.size();
  for (const std::string& c : components_) n += 1 + c.size();
  return n;
}

Result<MailboxName> MailboxName::parse(std::string_view text) {
  if (text.size() > kMaxMailboxNameLength) {
    return Status::tooBig("mailbox name over " + std::to_string(kMaxMailboxNameLength) +
                          " bytes");
  }
  std::string domain;
  std::string_view rest = text;
  if (!rest.starts_with("user/") && !rest.starts_with("shared/")) {
    size_t bang = rest.find('!');
    if (bang == std::string_view::npos) {
      return Status::invalid("not an internal mailbox name: " + printableBytes(text));
    }
    domain = std::string(rest.substr(0, bang));
    if (domain.empty()) return Status::invalid("empty domain before '!': " + printableBytes(text));
    rest.remove_prefix(bang + 1);
  }
  std::vector<std::string> parts = split(rest, '/');
  std::string head = std::move(parts[0]);
  parts.erase(parts.begin());
  if (head == kUserWord && !parts.empty()) {
    std::string owner = std::move(parts[0]);
    parts.erase(parts.begin());
    return personal(std::move(domain), std::move(owner), std::move(parts));
  }
  if (head == kSharedWord && !parts.empty()) return shared(std::move(domain), std::move(parts));
  return Status::invalid("not an internal mailbox name: " + printableBytes(text));
}

std::string MailboxName::key() const {
  std::string out = domain_;
  out += '\0';
  out += isPersonal() ? kKindPersonal : kKindShared;
  if (isPersonal()) {
    out += '\0';
    out += owner_;
  }
  for (const std::string& c : components_) {
    out += '\0';
    out += c;
  }
  return out;
}

std::string MailboxName::subtreePrefix() const { return key() + '\0'; }

Result<MailboxName> MailboxName::fromKey(std::string_view key) {
  auto corrupt = [&](std::string_view why) {
    return Status::corruption("mailbox list key " + printableBytes(key) + ": " + std::string(why));
  };
  if (key.size() > kMaxMailboxNameLength + 8) return corrupt("too long");
  std::vector<std::string> fields = split(key, '\0');
  if (fields.size() < 3) return corrupt("too few fields");
  std::string domain = std::move(fields[0]);
  const std::string kind = std::move(fields[1]);
  fields.erase(fields.begin(), fields.begin() + 2);
  Result<MailboxName> name = Status::invalid("unknown kind");
  if (kind == std::string(1, kKindPersonal)) {
    std::string owner = std::move(fields[0]);
    fields.erase(fields.begin());
    name = personal(std::move(domain), std::move(owner), std::move(fields));
  } else if (kind == std::string(1, kKindShared)) {
    name = shared(std::move(domain), std::move(fields));
  } else {
    return corrupt("unknown kind byte");
  }
  if (!name.ok()) return corrupt(name.status().message());
  return name;
}

bool MailboxName::contains(const MailboxName& other) const {
  if (domain_ != other.domain_ || kind_ != other.kind_ || owner_ != other.owner_ ||
      components_.size() > other.components_.size()) {
    return false;
  }
  for (size_t i = 0; i < components_.size(); ++i) {
    if (components_[i] != other.components_[i]) return false;
  }
  return true;
}

std::optional<MailboxName> MailboxName::parent() const {
  if (components_.empty() || (isShared() && components_.size() == 1)) return std::nullopt;
  MailboxName up = *this;
  up.components_.pop_back();
  return up;
}

Result<MailboxName> MailboxName::child(std::string component) const {
  std::vector<std::string> comps = components_;
  comps.push_back(std::move(component));
  return make(domain_, kind_, owner_, std::move(comps));
}

Result<MailboxName> MailboxName::rebased(const MailboxName& from, const MailboxName& to) const {
  if (!from.contains(*this)) {
    return Status::invalid(toString() + " is not below " + from.toString());
  }
  std::vector<std::string> comps = to.components_;
  comps.insert(comps.end(), components_.begin() + static_cast<ptrdiff_t>(from.components_.size()),
               components_.end());
  return make(to.domain_, to.kind_, to.owner_, std::move(comps));
}

}  // namespace darius::mailbox
