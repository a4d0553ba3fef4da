// ASCII-only case comparison, for protocol words and reserved mailbox names ("INBOX") that
// RFCs define as case-insensitive in ASCII alone, whatever the locale.
//
// Ownership: pure functions on caller-owned views; nothing is kept.
// Thread-safety: no shared state; safe from any thread.
#pragma once

#include <string_view>

namespace darius::base {

constexpr char toLowerAsciiChar(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

// True when a and b are equal after folding A-Z to a-z; other bytes compare exactly.
constexpr bool equalsIgnoreCaseAscii(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (toLowerAsciiChar(a[i]) != toLowerAsciiChar(b[i])) return false;
  }
  return true;
}

}  // namespace darius::base
