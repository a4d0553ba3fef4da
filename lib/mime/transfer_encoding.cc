#include "lib/mime/transfer_encoding.h"

#include <cstdint>

#include "lib/base/digits.h"

namespace darius::mime {

std::string decodeBase64Body(std::string_view in) {
  std::string out;
  out.reserve(in.size() / 4 * 3 + 3);
  uint32_t acc = 0;
  int bits = 0;
  for (char ch : in) {
    if (ch == '=') {
      // Padding ends a group; what follows (another encoding glued on) starts afresh.
      acc = 0;
      bits = 0;
      continue;
    }
    int v = base::base64DigitValue(ch);
    if (v < 0) continue;
    acc = ((acc << 6) | static_cast<uint32_t>(v)) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

std::string decodeQuotedPrintable(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  size_t i = 0;
  while (i < in.size()) {
    // One line at a time, so trailing white space (added by transports) can be dropped.
    size_t eol = in.find('\n', i);
    size_t next = eol == std::string_view::npos ? in.size() : eol + 1;
    size_t end = eol == std::string_view::npos ? in.size() : eol;
    if (end > i && in[end - 1] == '\r') --end;
    bool had_line_end = eol != std::string_view::npos;
    while (end > i && (in[end - 1] == ' ' || in[end - 1] == '\t')) --end;
    bool soft = false;
    for (size_t k = i; k < end; ++k) {
      char c = in[k];
      if (c != '=') {
        out.push_back(c);
      } else if (k + 1 == end) {
        soft = true;  // "=" at the end of a line: a soft line break
      } else if (k + 2 < end && base::hexDigitValue(in[k + 1]) >= 0 &&
                 base::hexDigitValue(in[k + 2]) >= 0) {
        out.push_back(static_cast<char>(base::hexDigitValue(in[k + 1]) * 16 +
                                        base::hexDigitValue(in[k + 2])));
        k += 2;
      } else {
        out.push_back(c);  // a stray "=" is kept (RFC 2045 §6.7, note 4)
      }
    }
    if (had_line_end && !soft) out += "\r\n";
    i = next;
  }
  return out;
}

}  // namespace darius::mime
