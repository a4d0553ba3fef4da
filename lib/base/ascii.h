// ASCII-only lower-casing of one byte, whatever the locale, for code below lib/proto (whose
// chars.h has the string forms: equalsIgnoreCase, asciiUpper).
//
// Ownership: pure functions on caller-owned views; nothing is kept.
// Thread-safety: no shared state; safe from any thread.
#pragma once

#include <string_view>

namespace darius::base {

constexpr char toLowerAsciiChar(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

}  // namespace darius::base
