#include "mailbox/header_file.h"

#include <strings.h>

#include <charconv>

#include "db/dump.h"
#include "lib/io/atomic_file.h"

namespace darius::mailbox {
namespace {

using base::Result;
using base::Status;

constexpr std::string_view kFirstLine = "darius-mailbox-header 1";

}  // namespace

int MailboxHeader::findUserFlag(std::string_view flag) const {
  for (size_t i = 0; i < user_flags.size(); ++i) {
    const std::string& f = user_flags[i];
    if (f.size() == flag.size() && strncasecmp(f.data(), flag.data(), f.size()) == 0) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

// Every value is escaped with the dump format's \xNN escapes, so no value can forge a line.
std::string encodeMailboxHeader(const MailboxHeader& h) {
  std::string out(kFirstLine);
  out += "\nuniqueid\t" + db::escapeField(h.unique_id);
  out += "\nname\t" + db::escapeField(h.name);
  out += "\nuidvalidity\t" + std::to_string(h.uidvalidity);
  for (const std::string& f : h.user_flags) out += "\nflag\t" + db::escapeField(f);
  out += "\nacl\t" + db::escapeField(h.acl);
  out += "\n";
  return out;
}

Result<MailboxHeader> decodeMailboxHeader(std::string_view text) {
  size_t nl = text.find('\n');
  if (nl == std::string_view::npos || text.substr(0, nl) != kFirstLine) {
    return Status::corruption("mailbox header: first line is not '" + std::string(kFirstLine) +
                              "'");
  }
  MailboxHeader h;
  bool have_id = false, have_validity = false;
  size_t line_no = 1;
  for (size_t at = nl + 1; at < text.size();) {
    ++line_no;
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) {
      return Status::corruption("mailbox header: line " + std::to_string(line_no) +
                                " is not terminated");
    }
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    size_t tab = line.find('\t');
    if (tab == std::string_view::npos) {
      return Status::corruption("mailbox header: line " + std::to_string(line_no) +
                                " has no value");
    }
    std::string_view key = line.substr(0, tab);
    auto value = db::unescapeField(line.substr(tab + 1));
    if (!value.ok()) {
      return Status::corruption("mailbox header: line " + std::to_string(line_no) + ": " +
                                value.status().message());
    }
    if (key == "uniqueid") {
      h.unique_id = std::move(*value);
      have_id = !h.unique_id.empty();
    } else if (key == "name") {
      h.name = std::move(*value);
    } else if (key == "uidvalidity") {
      auto [p, ec] = std::from_chars(value->data(), value->data() + value->size(), h.uidvalidity);
      have_validity = ec == std::errc() && p == value->data() + value->size() && h.uidvalidity;
    } else if (key == "flag") {
      if (h.user_flags.size() >= 128 || value->empty()) {
        return Status::corruption("mailbox header: bad or too many user flags");
      }
      h.user_flags.push_back(std::move(*value));
    } else if (key == "acl") {
      h.acl = std::move(*value);
    }
    // Other keys belong to a later version and are ignored.
  }
  if (!have_id || !have_validity) {
    return Status::corruption("mailbox header: uniqueid or uidvalidity missing or invalid");
  }
  return h;
}

Result<MailboxHeader> readMailboxHeader(io::Env& env, const std::string& dir) {
  auto text = env.readFile(dir + "/" + std::string(kHeaderFileName));
  if (!text.ok()) return text.status();
  auto h = decodeMailboxHeader(*text);
  if (!h.ok()) return Status::corruption(dir + ": " + h.status().message());
  return h;
}

Status writeMailboxHeader(io::Env& env, const std::string& dir, const MailboxHeader& h) {
  return io::writeFileAtomic(env, dir + "/" + std::string(kHeaderFileName),
                             encodeMailboxHeader(h));
}

}  // namespace darius::mailbox
