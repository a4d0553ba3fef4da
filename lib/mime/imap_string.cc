#include "lib/mime/imap_string.h"

namespace darius::mime {

void appendImapString(std::string& out, std::string_view value) {
  bool quotable = true;
  bool has_nul = false;
  for (char c : value) {
    auto u = static_cast<unsigned char>(c);
    if (u == 0) has_nul = true;
    if (u == 0 || u >= 0x80 || c == '\r' || c == '\n') quotable = false;
  }
  if (quotable) {
    out.push_back('"');
    for (char c : value) {
      if (c == '"' || c == '\\') out.push_back('\\');
      out.push_back(c);
    }
    out.push_back('"');
    return;
  }
  std::string clean;
  if (has_nul) {
    clean.reserve(value.size() + 8);
    for (char c : value) {
      if (c == '\0') {
        clean.append("\xEF\xBF\xBD");
      } else {
        clean.push_back(c);
      }
    }
    value = clean;
  }
  out.push_back('{');
  out.append(std::to_string(value.size()));
  out.append("}\r\n");
  out.append(value);
}

void appendImapNString(std::string& out, const std::optional<std::string>& value) {
  if (value) {
    appendImapString(out, *value);
  } else {
    out.append("NIL");
  }
}

}  // namespace darius::mime
