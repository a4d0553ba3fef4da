// Config: the parsed, validated contents of one imapd.conf-style file (`key: value` lines),
// typed by the option table in options.h. Every value is checked while loading, so a Config
// that exists is valid: a typo or a bad value stops the server at startup with one line naming
// file, line, option and reason, instead of surfacing hours later.
//
// File syntax: one `key: value` per line; whitespace around key and value is ignored; a line
// whose first non-blank character is `#` is a comment; blank lines are ignored; a key may
// appear once. Keys are [a-z0-9_]+. There is no inline comment: `#` inside a value is data.
//
// Ownership: a Config is a cheap-to-copy value; copies share one immutable block of parsed
// values. Thread-safety: immutable after load, so any number of threads may read one Config
// (or copies of it) concurrently.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/result.h"
#include "lib/config/options.h"
#include "lib/config/values.h"

namespace darius::config {

namespace internal {
struct ConfigEntry;  // defined in config.cc
struct ConfigData;
}  // namespace internal

class Config {
 public:
  // Largest config file load() reads, and longest line parse() accepts. Real files are a few
  // KiB; the caps keep a mistaken `dariusd -C /dev/zero` or a garbage file from eating memory.
  static constexpr size_t kMaxFileSize = 16 << 20;
  static constexpr size_t kMaxLineLength = 64 << 10;

  // Reads and parses `path`. Relative kPath values are resolved against the directory that
  // contains the file, so an instance directory can be moved as a whole. kNotFound if the file
  // does not exist, kInvalid (one line: "file:line: reason") if it does not parse.
  static base::Result<Config> load(const std::string& path);

  // Parses `text`; `file_name` is used in error messages and as sourcePath(), `base_dir`
  // resolves relative kPath values (empty: the current directory).
  static base::Result<Config> parse(std::string_view text, std::string_view file_name,
                                    std::string_view base_dir);

  // Every option at its default; sourcePath() is empty.
  static Config defaults();

  // Typed access by option name. An unknown name or a getter that does not match the option's
  // type is a bug in the caller, not a runtime condition: it aborts with a message naming both.
  std::string getString(std::string_view name) const;  // kString and kEnum
  int64_t getInt(std::string_view name) const;
  bool getBool(std::string_view name) const;
  uint64_t getSize(std::string_view name) const;
  std::chrono::milliseconds getDuration(std::string_view name) const;
  std::vector<std::string> getList(std::string_view name) const;
  std::string getPath(std::string_view name) const;  // absolute, or empty if set empty
  std::vector<ListenAddress> getAddresses(std::string_view name) const;

  // Whether the file set `name` (as opposed to it having its default). Aborts on unknown names.
  bool isSet(std::string_view name) const;

  // The value as text, normalised (paths resolved, enum spelling canonical) — what
  // `darius config show` prints. Aborts on unknown names.
  std::string getText(std::string_view name) const;

  const std::string& sourcePath() const;

 private:
  using Entry = internal::ConfigEntry;
  using Data = internal::ConfigData;
  explicit Config(std::shared_ptr<const Data> data) : data_(std::move(data)) {}
  // The entry for `name`, aborting unless the option exists and has type `want` or `also`.
  const Entry& entry(std::string_view name, const char* getter, OptionType want,
                     OptionType also) const;

  std::shared_ptr<const Data> data_;
};

// The name the services announce in greetings: `servername`, or the host name when unset.
std::string serverName(const Config& config);

}  // namespace darius::config
