// Word-at-a-time scans over bytes, for the loops that run over every byte of every message a
// FETCH or SEARCH reads: counting line ends (BODYSTRUCTURE's line counts) and finding where a
// text stops being ASCII (the fast paths of UTF-8 validation and search folding). A byte loop
// does one byte per cycle at best; these look at eight, with plain 64-bit arithmetic, so they
// are portable and need no CPU feature checks.
//
// Ownership: pure functions on caller-owned views; nothing is kept.
// Thread-safety: no shared state; safe from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace darius::base {

namespace byte_scan_detail {

inline uint64_t load64(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof w);  // unaligned-safe; compiles to one load
  return w;
}

constexpr uint64_t kLow7 = 0x7f7f7f7f7f7f7f7full;
constexpr uint64_t kOnes = 0x0101010101010101ull;

}  // namespace byte_scan_detail

// How many bytes of `s` equal `c`.
inline size_t countByte(std::string_view s, char c) {
  using namespace byte_scan_detail;
  const uint64_t pattern = kOnes * static_cast<unsigned char>(c);
  size_t n = 0, i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    const uint64_t t = load64(s.data() + i) ^ pattern;  // a zero byte where s has c
    // The high bit of each byte set exactly when that byte of t is zero (no carries across
    // bytes: each byte's low seven bits plus 0x7f stays within the byte).
    const uint64_t zero = ~(((t & kLow7) + kLow7) | t | kLow7);
    // Their number: the bytes of zero >> 7 are 0 or 1, and multiplying by kOnes sums them
    // into the top byte (at most 8, so nothing carries out). No popcount instruction needed:
    // without -mpopcnt that is a library call per word.
    n += static_cast<size_t>(((zero >> 7) * kOnes) >> 56);
  }
  for (; i < s.size(); ++i) n += s[i] == c;
  return n;
}

// How many bytes at the start of `s` are ASCII (below 0x80).
inline size_t asciiPrefixLength(std::string_view s) {
  using namespace byte_scan_detail;
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    if (load64(s.data() + i) & ~kLow7) break;
  }
  while (i < s.size() && static_cast<unsigned char>(s[i]) < 0x80) ++i;
  return i;
}

inline bool isAsciiText(std::string_view s) { return asciiPrefixLength(s) == s.size(); }

}  // namespace darius::base
