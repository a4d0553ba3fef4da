#include "mailbox/namespace.h"

#include <strings.h>

#include <utility>

#include "lib/proto/chars.h"
#include "lib/base/utf8.h"
#include "lib/config/config.h"

namespace darius::mailbox {
namespace {

using base::Result;
using base::Status;

std::string lowerAsciiCopy(std::string_view s) {
  std::string out(s);
  for (char& ch : out) {
    if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  }
  return out;
}

}  // namespace

NamespaceOptions NamespaceOptions::fromConfig(const config::Config& config) {
  NamespaceOptions o;
  o.alt_namespace = config.getBool("altnamespace");
  o.unix_hierarchy_sep = config.getBool("unixhiersep");
  o.virtual_domains = config.getBool("virtdomains");
  o.default_domain = config.getString("defaultdomain");
  o.max_name_length = static_cast<size_t>(config.getInt("max_mailbox_name"));
  return o;
}

std::string UserName::userId() const { return domain.empty() ? local : local + "@" + domain; }

Result<Namespace> Namespace::create(NamespaceOptions options) {
  options.default_domain = lowerAsciiCopy(options.default_domain);
  Status s = validateDomain(options.default_domain);
  if (!s.isOk()) return s.withContext("defaultdomain");
  if (options.max_name_length == 0 || options.max_name_length > kMaxMailboxNameLength) {
    return Status::invalid("max_mailbox_name must be 1.." +
                           std::to_string(kMaxMailboxNameLength));
  }
  return Namespace(std::move(options));
}

Result<Namespace> Namespace::fromConfig(const config::Config& config) {
  return create(NamespaceOptions::fromConfig(config));
}

Result<UserName> Namespace::parseUser(std::string_view login) const {
  if (login.size() > kMaxMailboxNameLength) return Status::tooBig("user name too long");
  UserName user;
  if (options_.virtual_domains) {
    size_t at = login.rfind('@');
    user.local = std::string(login.substr(0, at));
    if (at != std::string_view::npos) {
      user.domain = lowerAsciiCopy(login.substr(at + 1));
      if (user.domain.empty()) return Status::invalid("empty domain in user name");
      if (user.domain == options_.default_domain) user.domain.clear();
    }
    if (user.local.find('@') != std::string::npos) {
      return Status::invalid("user name holds more than one '@': " + printableBytes(login));
    }
  } else {
    user.local = std::string(login);
  }
  DARIUS_RETURN_IF_ERROR(validateDomain(user.domain));
  DARIUS_RETURN_IF_ERROR(validateOwner(user.local, !user.domain.empty()));
  return user;
}

Result<MailboxName> Namespace::inboxOf(const UserName& user) const {
  return MailboxName::personal(user.domain, user.local);
}

Result<std::string> Namespace::componentIn(std::string_view external) const {
  if (external.empty()) {
    return Status::invalid("empty hierarchy level (leading, trailing or doubled separator)");
  }
  if (options_.unix_hierarchy_sep) return std::string(external);
  // '.' mode: '/' is never part of a name; '^' stands for '.'.
  std::string out(external);
  for (char& ch : out) {
    if (ch == '/') return Status::invalid("'/' is not allowed in mailbox names");
    if (ch == '^') ch = '.';
  }
  return out;
}

std::string Namespace::componentOut(std::string_view internal) const {
  std::string out(internal);
  if (!options_.unix_hierarchy_sep) {
    for (char& ch : out) {
      if (ch == '.') ch = '^';
    }
  }
  return out;
}

Result<MailboxName> Namespace::toInternal(std::string_view external,
                                          const UserName& user) const {
  if (external.empty()) return Status::invalid("empty mailbox name");
  // Anything this long cannot fit once the prefixes are dropped either: refuse it before
  // splitting, so a hostile megabyte name costs one comparison.
  if (external.size() > options_.max_name_length + 64) {
    return Status::tooBig("mailbox name over " + std::to_string(options_.max_name_length) +
                          " bytes");
  }
  if (!base::isValidUtf8(external)) {
    return Status::invalid("mailbox name is not valid UTF-8: " + printableBytes(external));
  }
  const char sep = separator();
  std::vector<std::string_view> parts;
  for (size_t at = 0;;) {
    size_t end = external.find(sep, at);
    parts.push_back(external.substr(at, end == std::string_view::npos ? external.npos : end - at));
    if (end == std::string_view::npos) break;
    at = end + 1;
  }
  std::vector<std::string> comps;
  for (std::string_view p : parts) {
    DARIUS_ASSIGN_OR_RETURN(std::string c, componentIn(p));
    comps.push_back(std::move(c));
  }
  const std::string_view first = parts[0];
  const bool alt = options_.alt_namespace;
  enum class Route { kOwn, kOther, kShared } route;
  size_t skip = 1;  // leading external levels that are namespace prefix, not name
  if (proto::equalsIgnoreCase(first, kInbox)) {
    if (alt && parts.size() > 1) {
      return Status::invalid("folders below INBOX do not exist in the alternate namespace");
    }
    route = Route::kOwn;
  } else if (first == (alt ? kOtherUsersPrefix : kUserPrefix)) {
    route = Route::kOther;
  } else if (alt && first == kSharedPrefix) {
    route = Route::kShared;
  } else {
    route = alt ? Route::kOwn : Route::kShared;
    skip = 0;
  }
  comps.erase(comps.begin(), comps.begin() + static_cast<ptrdiff_t>(skip));

  Result<MailboxName> name = Status::invalid("unreachable");
  switch (route) {
    case Route::kOwn:
      name = MailboxName::personal(user.domain, user.local, std::move(comps));
      break;
    case Route::kOther: {
      if (comps.empty()) {
        return Status::invalid("'" + std::string(first) +
                               "' is a namespace prefix, not a mailbox");
      }
      std::string owner = std::move(comps[0]);
      comps.erase(comps.begin());
      if (options_.virtual_domains && owner.find('@') != std::string::npos) {
        return Status::permission("mailboxes of other domains cannot be addressed");
      }
      name = MailboxName::personal(user.domain, std::move(owner), std::move(comps));
      break;
    }
    case Route::kShared:
      if (comps.empty()) {
        return Status::invalid("'" + std::string(first) +
                               "' is a namespace prefix, not a mailbox");
      }
      name = MailboxName::shared(user.domain, std::move(comps));
      break;
  }
  if (!name.ok()) return name.status();
  if (name->length() > options_.max_name_length) {
    return Status::tooBig("mailbox name over " + std::to_string(options_.max_name_length) +
                          " bytes");
  }
  return name;
}

Result<std::string> Namespace::toExternal(const MailboxName& name, const UserName& user) const {
  if (name.domain() != user.domain) {
    return Status::permission("mailbox " + name.toString() + " is in another domain");
  }
  if (options_.virtual_domains && name.owner().find('@') != std::string::npos) {
    // Left from a time without virtual domains: "user.a@b" would now mean another domain.
    return Status::permission("mailbox " + name.toString() + " has '@' in its user name");
  }
  const char sep = separator();
  const bool alt = options_.alt_namespace;
  std::string out;
  if (name.isPersonal() && name.owner() == user.local) {
    if (name.isInbox()) return std::string(kInbox);
    if (!alt) {
      out = kInbox;
      out += sep;
    }
  } else if (name.isPersonal()) {
    out = alt ? kOtherUsersPrefix : kUserPrefix;
    out += sep;
    out += componentOut(name.owner());
    out += sep;
  } else if (alt) {
    out = kSharedPrefix;
    out += sep;
  }
  // `out` now ends in a separator or is empty; the components follow.
  if (name.components().empty() && !out.empty()) out.pop_back();
  for (size_t i = 0; i < name.components().size(); ++i) {
    if (i > 0) out += sep;
    out += componentOut(name.components()[i]);
  }
  return out;
}

std::string Namespace::expungedPrefix() const { return componentOut(kExpungedArea); }

std::optional<std::string> Namespace::splitExpunged(std::string_view external) const {
  return splitArea(external, expungedPrefix());
}

std::string Namespace::deletedPrefix() const { return componentOut(kDeletedArea); }

std::optional<std::string> Namespace::splitDeleted(std::string_view external) const {
  return splitArea(external, deletedPrefix());
}

std::optional<std::string> Namespace::splitArea(std::string_view external,
                                                const std::string& prefix) const {
  if (external.size() < prefix.size() ||
      ::strncasecmp(external.data(), prefix.data(), prefix.size()) != 0) {
    return std::nullopt;
  }
  if (external.size() == prefix.size()) return std::string();
  if (external[prefix.size()] != separator()) return std::nullopt;
  return std::string(external.substr(prefix.size() + 1));
}

NamespaceData Namespace::namespaceData() const {
  const char sep = separator();
  const std::string s(1, sep);
  NamespaceData d;
  if (options_.alt_namespace) {
    d.personal.push_back({"", sep});
    d.other_users.push_back({std::string(kOtherUsersPrefix) + s, sep});
    d.shared.push_back({std::string(kSharedPrefix) + s, sep});
  } else {
    d.personal.push_back({std::string(kInbox) + s, sep});
    d.other_users.push_back({std::string(kUserPrefix) + s, sep});
    d.shared.push_back({"", sep});
  }
  return d;
}

}  // namespace darius::mailbox
