// The flat file format, version 1 (docs/formats/flat.md): parsing and writing the text file
// that holds a whole flat database. Pure functions over bytes; no I/O, so the format tests
// and check() run on any buffer.
//
// Ownership: values in, values out. Thread-safety: reentrant.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/result.h"
#include "lib/base/status.h"

namespace darius::db::flat {

// Sorted bytewise: std::string's operator< compares as unsigned bytes (char_traits<char>
// uses memcmp semantics), which is the order db.h promises.
using Records = std::map<std::string, std::string>;

inline constexpr std::string_view kMagic = "# darius-flat ";
inline constexpr std::string_view kHeader = "# darius-flat 1\n";

// Appends `bytes` escaped: printable ASCII except '\' as is; \\, \t, \n, \r; \xNN (lower-case
// hex) for every other byte. Exactly one spelling per byte, so a file is canonical.
void appendEscaped(std::string& out, std::string_view bytes);

// The whole file for `records` (header, then one "key<TAB>value<LF>" line per record).
std::string serialize(const Records& records);

// Parses a whole file. kInvalid if it is not a flat file or of an unknown version; kCorruption
// "<label>: line N (offset M): <what>" for the first malformed line. `label` names the file.
base::Result<Records> parse(std::string_view data, std::string_view label);

// Like parse(), but goes on after a problem and collects every one (for check()); returns
// the number of well-formed records.
uint64_t checkContents(std::string_view data, std::string_view label,
                       std::vector<std::string>* problems);

}  // namespace darius::db::flat
