#include "mailbox/mailbox_path.h"

#include <vector>

#include "lib/base/split.h"
#include "lib/io/path.h"

namespace darius::mailbox {
namespace {

using base::Result;
using base::Status;

constexpr char kHex[] = "0123456789ABCDEF";

bool mustEscape(unsigned char c, bool escape_dot) {
  return c < 0x20 || c == 0x7f || c == '%' || c == '/' || (escape_dot && c == '.');
}

std::string encode(std::string_view raw, bool escape_dot) {
  std::string out;
  out.reserve(raw.size());
  for (char ch : raw) {
    auto c = static_cast<unsigned char>(ch);
    if (mustEscape(c, escape_dot)) {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += ch;
    }
  }
  return out;
}

int hexValue(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;  // lower case is not canonical
}

// The inverse of encode(), accepting only what encode() produces.
Result<std::string> decode(std::string_view entry, bool escape_dot) {
  std::string out;
  out.reserve(entry.size());
  for (size_t i = 0; i < entry.size(); ++i) {
    auto c = static_cast<unsigned char>(entry[i]);
    if (c != '%') {
      if (mustEscape(c, escape_dot)) {
        return Status::invalid("unescaped byte in directory name " + printableBytes(entry));
      }
      out += entry[i];
      continue;
    }
    int hi = i + 2 < entry.size() ? hexValue(entry[i + 1]) : -1;
    int lo = hi >= 0 ? hexValue(entry[i + 2]) : -1;
    if (lo < 0) return Status::invalid("bad %-escape in directory name " + printableBytes(entry));
    auto byte = static_cast<unsigned char>(hi * 16 + lo);
    if (!mustEscape(byte, escape_dot)) {
      return Status::invalid("needless %-escape in directory name " + printableBytes(entry));
    }
    out += static_cast<char>(byte);
    i += 2;
  }
  return out;
}

Status checkEntry(const std::string& entry) {
  if (entry.size() > kMaxDirEntryLength) {
    return Status::tooBig("directory name over " + std::to_string(kMaxDirEntryLength) +
                          " bytes: " + printableBytes(entry));
  }
  return Status::ok();
}

}  // namespace

std::string encodeComponentDir(std::string_view component) { return encode(component, true); }

Result<std::string> decodeComponentDir(std::string_view entry) {
  DARIUS_ASSIGN_OR_RETURN(std::string c, decode(entry, true));
  DARIUS_RETURN_IF_ERROR(validateComponent(c));
  return c;
}

std::string encodeOwnerDir(std::string_view owner) { return encode(owner, false); }

Result<std::string> decodeOwnerDir(std::string_view entry, bool has_domain) {
  DARIUS_ASSIGN_OR_RETURN(std::string owner, decode(entry, false));
  DARIUS_RETURN_IF_ERROR(validateOwner(owner, has_domain));
  return owner;
}

Result<std::string> mailboxRelativeDir(const MailboxName& name) {
  std::vector<std::string> entries;
  if (!name.domain().empty()) {
    entries.emplace_back(kDomainDirName);
    entries.push_back(name.domain());  // lower-case LDH: nothing to escape
  }
  if (name.isPersonal()) {
    entries.emplace_back(kUserDirName);
    entries.push_back(encodeOwnerDir(name.owner()));
  } else {
    entries.emplace_back(kSharedDirName);
  }
  for (const std::string& c : name.components()) entries.push_back(encodeComponentDir(c));
  std::string out;
  for (const std::string& e : entries) {
    DARIUS_RETURN_IF_ERROR(checkEntry(e));
    if (!out.empty()) out += '/';
    out += e;
  }
  if (out.size() > kMaxPathLength) return Status::tooBig("mailbox path too long");
  return out;
}

Result<std::string> mailboxDir(std::string_view partition_root, const MailboxName& name) {
  DARIUS_ASSIGN_OR_RETURN(std::string rel, mailboxRelativeDir(name));
  std::string dir = io::joinPath(partition_root, rel);
  if (dir.size() > kMaxPathLength) return Status::tooBig("mailbox path too long: " + dir);
  return dir;
}

Result<MailboxName> mailboxNameFromRelativeDir(std::string_view relative) {
  auto bad = [&](std::string_view why) {
    return Status::invalid("not a mailbox directory: " + printableBytes(relative) + " (" +
                           std::string(why) + ")");
  };
  if (relative.size() > kMaxPathLength) return bad("too long");
  std::vector<std::string_view> parts = base::split(relative, '/');
  size_t at = 0;
  std::string domain;
  if (parts[0] == kDomainDirName) {
    if (parts.size() < 3) return bad("incomplete domain path");
    domain = std::string(parts[1]);
    Status s = validateDomain(domain);
    if (domain.empty() || !s.isOk()) return bad("bad domain directory");
    at = 2;
  }
  std::string_view kind = parts[at++];
  std::string owner;
  if (kind == kUserDirName) {
    if (at >= parts.size()) return bad("no user directory");
    auto o = decodeOwnerDir(parts[at++], !domain.empty());
    if (!o.ok()) return bad(o.status().message());
    owner = std::move(*o);
  } else if (kind != kSharedDirName) {
    return bad("not under user/, shared/ or domain/");
  }
  std::vector<std::string> comps;
  for (; at < parts.size(); ++at) {
    auto c = decodeComponentDir(parts[at]);
    if (!c.ok()) return bad(c.status().message());
    comps.push_back(std::move(*c));
  }
  Result<MailboxName> name = kind == kUserDirName
                                 ? MailboxName::personal(std::move(domain), std::move(owner),
                                                         std::move(comps))
                                 : MailboxName::shared(std::move(domain), std::move(comps));
  if (!name.ok()) return bad(name.status().message());
  return name;
}

Result<MailboxName> mailboxNameFromDir(std::string_view partition_root, std::string_view dir) {
  std::string root = io::normalizePath(partition_root);
  std::string path = io::normalizePath(dir);
  if (root != "/") root += '/';
  if (path.size() <= root.size() || path.compare(0, root.size(), root) != 0) {
    return Status::invalid("not below partition root " + printableBytes(partition_root) + ": " +
                           printableBytes(dir));
  }
  return mailboxNameFromRelativeDir(std::string_view(path).substr(root.size()));
}

bool mayBeChildMailboxDir(std::string_view entry) {
  return !entry.empty() && entry.find('.') == std::string_view::npos;
}

}  // namespace darius::mailbox
