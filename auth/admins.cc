#include "auth/admins.h"

#include <algorithm>

#include "lib/base/split.h"

namespace darius::auth {

namespace {

std::string lowerAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace

UserId splitUserId(std::string_view login, bool virtual_domains, std::string_view default_domain) {
  UserId id;
  size_t at = virtual_domains ? login.rfind('@') : std::string_view::npos;
  id.local = std::string(login.substr(0, at));
  if (at != std::string_view::npos) {
    id.domain = lowerAscii(login.substr(at + 1));
    if (id.domain == lowerAscii(default_domain)) id.domain.clear();
  }
  return id;
}

base::Result<Admins> Admins::parse(std::string_view list, bool virtual_domains,
                                   std::string_view default_domain) {
  Admins a;
  a.virtual_domains_ = virtual_domains;
  a.default_domain_ = std::string(default_domain);
  std::string spaced(list);
  std::replace(spaced.begin(), spaced.end(), ',', ' ');
  std::replace(spaced.begin(), spaced.end(), '\t', ' ');
  for (std::string_view word : base::split(spaced, ' ')) {
    if (word.empty()) continue;
    UserId id = splitUserId(word, virtual_domains, default_domain);
    if (id.local.empty()) {
      return base::Status::invalid("admins: empty user name in \"" + std::string(word) + "\"");
    }
    if (virtual_domains && word.back() == '@') {
      return base::Status::invalid("admins: empty domain in \"" + std::string(word) + "\"");
    }
    if (std::find(a.ids_.begin(), a.ids_.end(), id) == a.ids_.end()) a.ids_.push_back(id);
  }
  return a;
}

base::Result<Admins> Admins::fromConfig(const config::Config& config) {
  std::string words;
  for (const std::string& w : config.getList("admins")) words += w + " ";
  return parse(words, config.getBool("virtdomains"), config.getString("defaultdomain"));
}

bool Admins::isAdmin(const UserId& who) const {
  return std::find(ids_.begin(), ids_.end(), who) != ids_.end();
}

bool Admins::isGlobal(const UserId& who) const { return who.domain.empty() && isAdmin(who); }

bool Admins::administers(const UserId& who, std::string_view domain) const {
  if (!isAdmin(who)) return false;
  return who.domain.empty() || who.domain == domain;
}

}  // namespace darius::auth
