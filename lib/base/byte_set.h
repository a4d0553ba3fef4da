// ByteSet: a set of byte values and a linear scan for the first byte in it, for the parsers
// that copy text in runs between a few special bytes (CR, LF, NUL).
//
// Why not std::string_view::find_first_of: libstdc++ tests each byte of the text against
// the set with a memchr call of its own, which made the LMTP DATA path spend 4-5% of the
// server's CPU in memchr (one call per byte of every message). This is a table lookup per byte.
//
// Thread-safety: immutable after construction; constexpr-constructible.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace darius::base {

class ByteSet {
 public:
  constexpr explicit ByteSet(std::string_view bytes) {
    for (char c : bytes) in_[static_cast<unsigned char>(c)] = true;
  }

  constexpr bool contains(char c) const { return in_[static_cast<unsigned char>(c)]; }

  // The position of the first byte of s at or after pos that is in the set, or npos.
  constexpr size_t findIn(std::string_view s, size_t pos = 0) const {
    for (size_t i = pos; i < s.size(); ++i) {
      if (contains(s[i])) return i;
    }
    return std::string_view::npos;
  }

 private:
  std::array<bool, 256> in_{};
};

}  // namespace darius::base
