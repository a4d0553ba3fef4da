#include "lib/log/log.h"

#include "lib/base/utf8.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <ctime>
#include <mutex>
#include <shared_mutex>

namespace darius::log {
namespace {

using base::Result;
using base::Status;

struct Sink {
  // Writers hold it shared while they use fd/program; openLog/reopenLog hold it exclusively
  // to swap them, so a descriptor is never closed (and its number reused) under a writer.
  std::shared_mutex mu;
  int fd = STDERR_FILENO;
  bool owns_fd = false;
  std::string path;
  std::string program = "darius";
  std::atomic<int> min_level{static_cast<int>(Level::kInfo)};
};

// Never destroyed: threads still logging during static destruction must find it intact.
Sink& sink() {
  static Sink* s = new Sink;
  return *s;
}

Result<int> openAppend(const std::string& path) {
  int fd;
  do {
    fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return Status::fromErrno(errno, "open log file " + path);
  return fd;
}

void writeAll(int fd, std::string_view line) {
  // One write(2) in practice; the loop only matters for a pipe or terminal given more than it
  // takes at once, where atomicity is not promised anyway.
  while (!line.empty()) {
    ssize_t n = ::write(fd, line.data(), line.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return;  // nowhere left to report a logging failure
    }
    line.remove_prefix(static_cast<size_t>(n));
  }
}

void appendHex(std::string* out, unsigned char c) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->append("\\x");
  out->push_back(kHex[c >> 4]);
  out->push_back(kHex[c & 0xf]);
}

// Length of the well-formed multi-byte UTF-8 sequence at the start of `s` that is not a C1
// control, or 0. C1 controls (U+0080..U+009F) act like CR/ESC on some terminals.
size_t validSequence(std::string_view s) {
  base::Utf8Sequence seq = base::decodeUtf8(s, 0);
  return seq.code_point < 0xa0 ? 0 : seq.length;
}

void appendContext(std::string* out, const Context& c) {
  size_t start = out->size();
  auto sep = [&] {
    if (out->size() > start) out->push_back(' ');
  };
  if (!c.service.empty()) appendEscaped(out, c.service, true);
  if (c.session_id != 0) fmt::format_to(std::back_inserter(*out), "#{}", c.session_id);
  if (!c.peer.empty()) {
    sep();
    out->append("peer=");
    appendEscaped(out, c.peer, true);
  }
  if (!c.user.empty()) {
    sep();
    out->append("user=");
    appendEscaped(out, c.user, true);
  }
}

}  // namespace

std::string_view levelName(Level level) {
  switch (level) {
    case Level::kDebug: return "debug";
    case Level::kInfo: return "info";
    case Level::kNotice: return "notice";
    case Level::kWarning: return "warning";
    case Level::kError: return "error";
  }
  return "unknown";
}

Result<Level> parseLevel(std::string_view text) {
  for (Level l : {Level::kDebug, Level::kInfo, Level::kNotice, Level::kWarning, Level::kError}) {
    std::string_view name = levelName(l);
    if (name.size() != text.size()) continue;
    bool same = true;
    for (size_t i = 0; i < name.size() && same; ++i) {
      char c = text[i];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      same = c == name[i];
    }
    if (same) return l;
  }
  std::string shown;
  appendEscaped(&shown, text, false, 64);
  return Status::invalid(fmt::format(
      "'{}' is not a log level (debug, info, notice, warning, error)", shown));
}

bool appendEscaped(std::string* out, std::string_view text, bool escape_space, size_t limit) {
  size_t i = 0;
  while (i < text.size()) {
    auto c = static_cast<unsigned char>(text[i]);
    size_t len = 1;
    bool escape;
    if (c < 0x80) {
      escape = c < 0x20 || c == 0x7f || c == '\\' || (escape_space && c == ' ');
    } else {
      len = validSequence(text.substr(i));
      escape = len == 0;
      if (escape) len = 1;
    }
    if (out->size() + (escape ? 4 : len) > limit) return false;
    if (escape) {
      appendHex(out, c);
    } else {
      out->append(text.data() + i, len);
    }
    i += len;
  }
  return true;
}

std::string formatLine(std::chrono::system_clock::time_point time, std::string_view program,
                       long pid, Level level, const Context* context, std::string_view message) {
  using namespace std::chrono;
  auto ms = duration_cast<milliseconds>(time.time_since_epoch()).count();
  time_t secs = static_cast<time_t>(ms / 1000);
  long millis = static_cast<long>(ms % 1000);
  if (millis < 0) {  // before 1970: keep the fraction positive
    millis += 1000;
    secs -= 1;
  }
  struct tm tm;
  gmtime_r(&secs, &tm);

  std::string line;
  line.reserve(96 + message.size());
  fmt::format_to(std::back_inserter(line), "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z ",
                 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                 millis);
  appendEscaped(&line, program, true);
  fmt::format_to(std::back_inserter(line), "[{}]: {}", pid, levelName(level));
  size_t before_context = line.size();
  if (context != nullptr) {
    line.push_back(' ');
    appendContext(&line, *context);
    if (line.size() == before_context + 1) line.pop_back();  // all fields empty
  }
  line.append(": ");
  size_t limit = line.size() + kMaxMessageBytes;
  if (!appendEscaped(&line, message, false, limit)) {
    fmt::format_to(std::back_inserter(line), "...[truncated, {} bytes]", message.size());
  }
  line.push_back('\n');
  return line;
}

Status openLog(const std::string& path, Level min_level, std::string program) {
  int fd = STDERR_FILENO;
  if (!path.empty()) {
    DARIUS_ASSIGN_OR_RETURN(fd, openAppend(path));
  }
  Sink& s = sink();
  int old_fd = -1;
  {
    std::unique_lock lock(s.mu);
    if (s.owns_fd) old_fd = s.fd;
    s.fd = fd;
    s.owns_fd = !path.empty();
    s.path = path;
    s.program = std::move(program);
  }
  s.min_level.store(static_cast<int>(min_level), std::memory_order_relaxed);
  if (old_fd >= 0) ::close(old_fd);
  return Status::ok();
}

Status reopenLog() {
  Sink& s = sink();
  std::string path;
  {
    std::shared_lock lock(s.mu);
    if (!s.owns_fd) return Status::ok();
    path = s.path;
  }
  DARIUS_ASSIGN_OR_RETURN(int fd, openAppend(path));
  int old_fd = -1;
  {
    std::unique_lock lock(s.mu);
    if (s.owns_fd && s.path == path) {
      old_fd = s.fd;
      s.fd = fd;
    } else {
      old_fd = fd;  // openLog switched sinks meanwhile; it wins
    }
  }
  ::close(old_fd);
  return Status::ok();
}

void setLevel(Level min_level) {
  sink().min_level.store(static_cast<int>(min_level), std::memory_order_relaxed);
}

bool enabled(Level level) {
  return static_cast<int>(level) >= sink().min_level.load(std::memory_order_relaxed);
}

void write(Level level, const Context* context, std::string_view message) {
  if (!enabled(level)) return;
  auto now = std::chrono::system_clock::now();
  Sink& s = sink();
  std::shared_lock lock(s.mu);
  std::string line = formatLine(now, s.program, static_cast<long>(::getpid()), level, context,
                                message);
  writeAll(s.fd, line);
}

void vlog(Level level, const Context* context, fmt::string_view format, fmt::format_args args) {
  std::string message;
  // The format string is checked at compile time, so this cannot fail on a well-typed call;
  // but a log call must never take the server down, whatever fmt might throw.
  try {
    message = fmt::vformat(format, args);
  } catch (const std::exception& e) {
    message = fmt::format("(log format error: {}) {}", e.what(),
                          std::string_view(format.data(), format.size()));
  }
  write(level, context, message);
}

}  // namespace darius::log
