// UTF-8 (RFC 3629) decoding of one sequence, and whole-string validation. The one place that
// knows the well-formedness rules: no overlong forms, no surrogates, nothing above U+10FFFF,
// no truncated sequences. Protocol parsers, the config reader, SASL and the log escaper all
// build their own policies (which code points they refuse) on top of decodeUtf8.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string_view>

namespace darius::base {

struct Utf8Sequence {
  size_t length = 0;      // 1..4; 0 when the bytes at pos are not well-formed UTF-8
  char32_t code_point = 0;
};

// The sequence starting at s[pos] (pos < s.size()). ASCII bytes give length 1.
Utf8Sequence decodeUtf8(std::string_view s, size_t pos);

bool isValidUtf8(std::string_view s);

}  // namespace darius::base
