#include "lib/config/config_docs.h"

#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "lib/config/options.h"

namespace darius::config {
namespace {

// Table cells: a '|' would end the cell early.
std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string codeList(std::span<const std::string_view> words) {
  std::string out;
  for (std::string_view w : words) {
    if (!out.empty()) out += ", ";
    out += fmt::format("`{}`", w);
  }
  return out;
}

std::string sizeText(int64_t v) {
  if (v > 0 && v % (1 << 20) == 0) return fmt::format("{}M", v >> 20);
  if (v > 0 && v % (1 << 10) == 0) return fmt::format("{}K", v >> 10);
  return fmt::format("{}", v);
}

std::string typeCell(const OptionDef& d) {
  std::string t(typeName(d.type));
  if (d.type == OptionType::kEnum) return "one of " + codeList(d.allowed);
  if (d.type == OptionType::kList && !d.allowed.empty()) return "list of " + codeList(d.allowed);
  if (d.type == OptionType::kInt || d.type == OptionType::kSize) {
    auto show = [&](int64_t v) {
      return d.type == OptionType::kSize ? sizeText(v) : fmt::format("{}", v);
    };
    if (d.min && d.max) return fmt::format("{} ({}..{})", t, show(*d.min), show(*d.max));
    if (d.min) return fmt::format("{} (at least {})", t, show(*d.min));
    if (d.max) return fmt::format("{} (at most {})", t, show(*d.max));
  }
  return t;
}

constexpr std::string_view kPreamble = R"(_Generated from lib/config/options.cc by `darius config docs > docs/config.md`; do not edit by hand._

# Configuration reference

`dariusd` and the `darius` tools read one configuration file in the style of Cyrus's
`imapd.conf`:

```
# comment lines start with '#'
servername: mail.example.org
imap_listen: *:143 [::]:143
max_literal_size: 64M
```

- One `key: value` per line; whitespace around key and value is ignored; blank lines are
  ignored. There are no inline comments: a `#` after the colon is part of the value.
- Keys are lower case (`[a-z0-9_]+`), and each may appear once.
- An unknown key or a bad value stops the program at startup with one line naming the file,
  the line, the option and the reason (with a suggestion for a misspelt key). Options not in
  the file have the defaults below.

## Value types

| Type | Syntax |
|---|---|
| string | Any text (UTF-8, no control characters). |
| integer | Decimal, optionally bounded as shown. |
| boolean | `yes`/`no`, `true`/`false`, `on`/`off`, `1`/`0`. |
| size | Bytes, with an optional `K`, `M` or `G` suffix (powers of 1024): `65536`, `64K`, `10M`. |
| duration | A number with unit `ms`, `s`, `m`, `h` or `d`: `250ms`, `30s`, `5m`, `2h`, `1d`; a bare number is seconds. |
| one of | Exactly one of the listed words. |
| list | Words separated by spaces; limited to the listed words where shown. |
| path | A file name. A relative path is taken relative to the directory containing the configuration file, so an instance directory can be moved as a whole. Empty means unset. |
| address list | Listen addresses separated by spaces: `host:port`, `[ipv6]:port`, `*:port` (all addresses) or `unix:/path` (a relative socket path is resolved like a path). Empty means the service listens nowhere. |
)";

}  // namespace

std::string configMarkdown() {
  std::string out(kPreamble);
  std::vector<std::string_view> sections;
  for (const OptionDef& d : allOptions()) {
    bool seen = false;
    for (std::string_view s : sections) seen = seen || s == d.section;
    if (!seen) sections.push_back(d.section);
  }
  for (std::string_view section : sections) {
    out += fmt::format("\n## {}\n\n", section);
    out += "| Option | Type | Default | Description |\n";
    out += "|---|---|---|---|\n";
    for (const OptionDef& d : allOptions()) {
      if (d.section != section) continue;
      std::string def = d.default_value.empty() ? std::string("(empty)")
                                                : fmt::format("`{}`", cell(d.default_value));
      out += fmt::format("| `{}` | {} | {} | {} |\n", d.name, cell(typeCell(d)), def,
                         cell(d.description));
    }
  }
  return out;
}

}  // namespace darius::config
