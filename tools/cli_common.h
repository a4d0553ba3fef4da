// Small helpers shared by the `darius` subcommands: loading the config named by -C, reading a
// password without echo, and printing errors in one consistent form.
//
// Thread-safety: single-threaded CLI code.
#pragma once

#include <string>
#include <string_view>

#include "lib/base/result.h"
#include "lib/config/config.h"

namespace darius::tools {

// Exit codes of the CLI: 0 success, 1 the operation failed, 2 usage, 78 config error.
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitConfig = 78;

// Prints "darius: <context>: <status>" to stderr and returns kExitFailed.
int reportFailure(const std::string& context, const base::Status& status);

// Loads the config or prints the one-line error (file:line: key: why).
base::Result<config::Config> loadConfig(const std::string& path);

// `s` as a JSON string literal, quotes included (RFC 8259 §7: '"', '\\' and controls
// escaped; other bytes, UTF-8 included, as they are).
std::string jsonString(std::string_view s);

// Reads a password: from a terminal without echo (asked twice when confirm is set), otherwise
// the first line of standard input.
base::Result<std::string> readPassword(bool confirm);

}  // namespace darius::tools
