// split(): a string cut at every occurrence of one separator byte, keeping empty fields —
// the shape of the colon, comma, slash and space separated formats the parsers read (users
// file, SCRAM attributes, mailbox paths, /proc/self/mountinfo), where an empty field means
// something (an empty mount source) or is an error the caller names.
//
// Ownership: the pieces view the input, which must outlive them. Thread-safety: pure.
#pragma once

#include <string_view>
#include <vector>

namespace darius::base {

// "a::b" -> {"a", "", "b"}; "" -> {""}; never fewer than one piece.
inline std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (size_t start = 0;;) {
    const size_t p = s.find(sep, start);
    if (p == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, p - start));
    start = p + 1;
  }
}

}  // namespace darius::base
