// The table of every option dariusd and the tools understand: name, type, default, limits and
// documentation, in one place, so that parsing, validation, the typed getters and the generated
// docs/config.md can never disagree. Adding an option is adding one entry to options.cc.
//
// Ownership: the table is static data with program lifetime; every string_view and span in it
// points at string literals or static arrays. Thread-safety: immutable, safe from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace darius::config {

enum class OptionType : unsigned char {
  kString,       // free text (valid UTF-8, no control characters)
  kInt,          // signed decimal integer, optionally bounded by min/max
  kBool,         // yes/no, true/false, on/off, 1/0
  kSize,         // bytes, with an optional K/M/G suffix (powers of 1024)
  kDuration,     // 250ms, 30s, 5m, 2h, 1d; a bare number means seconds
  kEnum,         // exactly one of `allowed`
  kList,         // whitespace-separated words; restricted to `allowed` when that is non-empty
  kPath,         // a file name; relative values are resolved against the config file's directory
  kAddressList,  // whitespace-separated listen addresses (see ListenAddress in config.h)
};

// Lower-case name used in messages and docs ("size", "address list").
std::string_view typeName(OptionType type);

struct OptionDef {
  std::string_view name = {};
  OptionType type = OptionType::kString;
  std::string_view default_value = {};  // as it would be written in the file; must parse
  std::string_view description = {};    // one sentence, one line, ends with a period
  std::string_view section = {};        // heading in docs/config.md; table order = docs order
  std::span<const std::string_view> allowed = {};  // kEnum values, or kList's allowed words
  std::optional<int64_t> min = std::nullopt;       // kInt and kSize bounds, inclusive
  std::optional<int64_t> max = std::nullopt;
};

// Every option, grouped by section in the order the docs present them.
std::span<const OptionDef> allOptions();

// The option called `name`, or nullptr. Names are compared exactly (they are lower case).
const OptionDef* findOption(std::string_view name);

// Index of `def` in allOptions(); `def` must point into that table.
size_t optionIndex(const OptionDef& def);

// The known option name closest to `name` by edit distance, or empty if none is close enough
// to be a plausible typo.
std::string_view suggestOption(std::string_view name);

}  // namespace darius::config
