#include "lib/base/utf8.h"

#include "lib/base/byte_scan.h"

namespace darius::base {

Utf8Sequence decodeUtf8(std::string_view s, size_t pos) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[pos + k]); };
  const unsigned char c = byte(0);
  if (c < 0x80) return {1, c};
  size_t len;
  char32_t cp;
  if (c >= 0xc2 && c <= 0xdf) {
    len = 2;
    cp = c & 0x1f;
  } else if (c >= 0xe0 && c <= 0xef) {
    len = 3;
    cp = c & 0x0f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    len = 4;
    cp = c & 0x07;
  } else {
    return {};  // a continuation byte first, an overlong 2-byte lead, or beyond U+10FFFF
  }
  if (s.size() - pos < len) return {};
  for (size_t k = 1; k < len; ++k) {
    const unsigned char b = byte(k);
    if ((b & 0xc0) != 0x80) return {};
    cp = (cp << 6) | (b & 0x3f);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
      (cp >= 0xd800 && cp <= 0xdfff)) {
    return {};
  }
  return {len, cp};
}

bool isValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    i += asciiPrefixLength(s.substr(i));  // most text is ASCII: eight bytes at a time
    if (i == s.size()) break;
    Utf8Sequence seq = decodeUtf8(s, i);
    if (seq.length == 0) return false;
    i += seq.length;
  }
  return true;
}

}  // namespace darius::base
