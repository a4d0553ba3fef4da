// Logging: one process-wide sink (a file or standard error) that every module writes
// syslog-style lines to, each tagged with the session it concerns:
//
//   2026-11-22T05:12:33.123Z darius[1234]: info imap#17 peer=127.0.0.1:5123 user=demo: login ok
//
// The sink is process-wide on purpose — like syslog, it is the one service that every layer
// needs and that no layer should have to be handed. Everything else stays explicit: the
// Context naming the session is passed by the caller on every call.
//
// Log lines carry client-controlled text (user names, mailbox names, protocol lines), so
// control characters, bytes that are not valid UTF-8, and backslashes are written as \xNN: a
// client cannot start a fake line with CR/LF or hide text with terminal escapes, and every
// backslash in the output starts an escape, so the original bytes can be recovered. In the
// context, spaces are escaped too, so the context always ends at the first ": ".
//
// Ownership: the sink owns its file descriptor; a Context is owned by the session that logs.
// Thread-safety: every function here may be called from any thread at any time. Each line is
// handed to one write(2) on an O_APPEND descriptor, so lines from concurrent threads — and
// from several processes appending to the same file — never interleave within a line.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "lib/base/result.h"
#include "lib/base/status.h"

namespace darius::log {

enum class Level : unsigned char { kDebug, kInfo, kNotice, kWarning, kError };

// "debug", "info", "notice", "warning", "error" — the words log_level accepts.
std::string_view levelName(Level level);

// The inverse of levelName, ignoring case; kInvalid otherwise.
base::Result<Level> parseLevel(std::string_view text);

// Who a line is about. Empty fields (and a zero session_id) are left out of the line. Every
// member has an initializer so that `Context{.service = "imap"}` compiles under GCC's
// -Wmissing-field-initializers.
struct Context {
  std::string service = {};  // "imap", "lmtp", ...
  uint64_t session_id = 0;   // unique per connection within the process
  std::string peer = {};     // "127.0.0.1:5123", "[::1]:5123"
  std::string user = {};     // authenticated (or attempted) user name
};

// Sends lines to `path` (created if need be, appended to) or, if `path` is empty, to standard
// error, dropping those below `min_level`; `program` names the process in each line. Until
// the first call, lines go to standard error at kInfo as "darius". On failure the previous
// sink stays in place.
base::Status openLog(const std::string& path, Level min_level, std::string program);

// Opens the same path again, for SIGHUP after logrotate renamed the file. Lines in flight go
// to the old file; later ones to the new. A no-op for standard error. On failure logging
// continues to the old file.
base::Status reopenLog();

void setLevel(Level min_level);
bool enabled(Level level);

// Writes one line with an already formatted message. `context` may be null.
void write(Level level, const Context* context, std::string_view message);

// Formats and writes one line; the templates below call this after the level check.
void vlog(Level level, const Context* context, fmt::string_view format, fmt::format_args args);

// One complete line, newline included (exposed for tests and for tools that print in the
// same format). `pid` and `time` are parameters so the output is reproducible.
std::string formatLine(std::chrono::system_clock::time_point time, std::string_view program,
                       long pid, Level level, const Context* context, std::string_view message);

// Longest message part of a line, after escaping; longer messages are cut and marked, so one
// hostile argument cannot produce a megabyte line.
inline constexpr size_t kMaxMessageBytes = 16 * 1024;

// Appends `text` with the escaping described at the top; `escape_space` for context fields.
// Stops (returning false) once `out` would exceed `limit` bytes, at an escape boundary.
bool appendEscaped(std::string* out, std::string_view text, bool escape_space,
                   size_t limit = SIZE_MAX);

// log::info(ctx, "login ok for {}", name), and likewise for the other levels; the overloads
// without a Context are for lines that concern no session (startup, shutdown). Arguments are
// not formatted when the level is disabled.
template <typename... Args>
void debug(const Context& context, fmt::format_string<Args...> format, Args&&... args) {
  if (!enabled(Level::kDebug)) return;
  vlog(Level::kDebug, &context, format, fmt::make_format_args(args...));
}
template <typename... Args>
void debug(fmt::format_string<Args...> format, Args&&... args) {
  if (!enabled(Level::kDebug)) return;
  vlog(Level::kDebug, nullptr, format, fmt::make_format_args(args...));
}

template <typename... Args>
void info(const Context& context, fmt::format_string<Args...> format, Args&&... args) {
  if (!enabled(Level::kInfo)) return;
  vlog(Level::kInfo, &context, format, fmt::make_format_args(args...));
}
template <typename... Args>
void info(fmt::format_string<Args...> format, Args&&... args) {
  if (!enabled(Level::kInfo)) return;
  vlog(Level::kInfo, nullptr, format, fmt::make_format_args(args...));
}

template <typename... Args>
void notice(const Context& context, fmt::format_string<Args...> format, Args&&... args) {
  if (!enabled(Level::kNotice)) return;
  vlog(Level::kNotice, &context, format, fmt::make_format_args(args...));
}
template <typename... Args>
void notice(fmt::format_string<Args...> format, Args&&... args) {
  if (!enabled(Level::kNotice)) return;
  vlog(Level::kNotice, nullptr, format, fmt::make_format_args(args...));
}

template <typename... Args>
void warning(const Context& context, fmt::format_string<Args...> format, Args&&... args) {
  if (!enabled(Level::kWarning)) return;
  vlog(Level::kWarning, &context, format, fmt::make_format_args(args...));
}
template <typename... Args>
void warning(fmt::format_string<Args...> format, Args&&... args) {
  if (!enabled(Level::kWarning)) return;
  vlog(Level::kWarning, nullptr, format, fmt::make_format_args(args...));
}

template <typename... Args>
void error(const Context& context, fmt::format_string<Args...> format, Args&&... args) {
  if (!enabled(Level::kError)) return;
  vlog(Level::kError, &context, format, fmt::make_format_args(args...));
}
template <typename... Args>
void error(fmt::format_string<Args...> format, Args&&... args) {
  if (!enabled(Level::kError)) return;
  vlog(Level::kError, nullptr, format, fmt::make_format_args(args...));
}

}  // namespace darius::log
