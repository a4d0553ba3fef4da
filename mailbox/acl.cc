#include "mailbox/acl.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

namespace {

constexpr std::string_view kLetters = "lrswipkxtean";

std::string hexByte(char c) {
  static constexpr char kHex[] = "0123456789abcdef";
  auto b = static_cast<unsigned char>(c);
  return {kHex[b >> 4], kHex[b & 15]};
}

}  // namespace

std::string rightsToString(Rights rights) {
  std::string out;
  for (size_t i = 0; i < kLetters.size(); ++i) {
    if (rights & (Rights{1} << i)) out += kLetters[i];
  }
  return out;
}

std::string rightsToWire(Rights rights) {
  std::string out;
  for (char c : std::string_view("lrswipkxte")) {
    if (rights & (Rights{1} << kLetters.find(c))) out += c;
  }
  if (rights & right::kCreate) out += 'c';
  if (rights & (right::kDeleteMailbox | right::kDeleteMessage | right::kExpunge)) out += 'd';
  if (rights & right::kAdmin) out += 'a';
  if (rights & right::kAnnotate) out += 'n';
  return out;
}

Result<RightsChange> parseRightsChange(std::string_view text) {
  RightsChange c;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    c.op = text[0] == '+' ? RightsChange::Op::kAdd : RightsChange::Op::kRemove;
    text.remove_prefix(1);
  }
  DARIUS_ASSIGN_OR_RETURN(c.rights, parseRights(text));
  return c;
}

Result<Rights> parseRights(std::string_view letters) {
  Rights r = 0;
  for (char c : letters) {
    size_t at = kLetters.find(c);
    if (at != std::string_view::npos) {
      r |= Rights{1} << at;
    } else if (c == 'c') {
      r |= right::kCreate;
    } else if (c == 'd') {
      r |= right::kDeleteMailbox | right::kDeleteMessage | right::kExpunge;
    } else {
      std::string shown = c >= 0x21 && c < 0x7f ? std::string(1, c) : "\\x" + hexByte(c);
      return Status::invalid("unknown right '" + shown + "'");
    }
  }
  return r;
}

Result<Acl> Acl::parse(std::string_view stored) {
  Acl acl;
  if (stored.empty()) return acl;
  std::vector<std::string_view> fields;
  size_t start = 0;
  while (true) {
    size_t tab = stored.find('\t', start);
    fields.push_back(stored.substr(start, tab == std::string_view::npos ? tab : tab - start));
    if (tab == std::string_view::npos) break;
    start = tab + 1;
  }
  if (fields.size() % 2 != 0) return Status::invalid("ACL: identifier without rights");
  for (size_t i = 0; i < fields.size(); i += 2) {
    if (fields[i].empty() || fields[i] == "-") return Status::invalid("ACL: empty identifier");
    DARIUS_ASSIGN_OR_RETURN(Rights r, parseRights(fields[i + 1]));
    acl.set(fields[i], r);
  }
  return acl;
}

Acl Acl::ownerDefault(std::string_view owner) {
  Acl acl;
  acl.set(owner, right::kAll);
  return acl;
}

std::string Acl::toString() const {
  std::string out;
  for (const AclEntry& e : entries_) {
    if (!out.empty()) out += '\t';
    out += e.identifier;
    out += '\t';
    out += rightsToString(e.rights);
  }
  return out;
}

void Acl::set(std::string_view identifier, Rights rights) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->identifier == identifier) {
      if (rights == 0) {
        entries_.erase(it);
      } else {
        it->rights = rights;
      }
      return;
    }
  }
  if (rights != 0) entries_.push_back({std::string(identifier), rights});
}

Rights Acl::get(std::string_view identifier) const {
  for (const AclEntry& e : entries_) {
    if (e.identifier == identifier) return e.rights;
  }
  return 0;
}

Rights effectiveRights(std::string_view stored_acl, std::string_view user, bool is_owner,
                       bool is_admin) {
  Rights implicit = (is_owner ? kImplicitOwnerRights : 0) | (is_admin ? kImplicitAdminRights : 0);
  auto acl = Acl::parse(stored_acl);
  if (!acl.ok()) return implicit;
  return acl->rightsOf(user, is_owner) | implicit;
}

Rights Acl::rightsOf(std::string_view user, bool is_owner) const {
  Rights granted = 0, denied = 0;
  for (const AclEntry& e : entries_) {
    std::string_view id = e.identifier;
    bool negative = !id.empty() && id[0] == '-';
    if (negative) id.remove_prefix(1);
    if (id != user && id != "anyone") continue;
    (negative ? denied : granted) |= e.rights;
  }
  Rights r = granted & ~denied;
  if (is_owner) r |= kImplicitOwnerRights;
  return r;
}

}  // namespace darius::mailbox
