#include "tools/cli_common.h"

#include <termios.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace darius::tools {

using base::Result;
using base::Status;

int reportFailure(const std::string& context, const Status& status) {
  std::fprintf(stderr, "darius: %s: %s\n", context.c_str(), status.toString().c_str());
  return kExitFailed;
}

Result<config::Config> loadConfig(const std::string& path) { return config::Config::load(path); }

std::string jsonString(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

namespace {
Result<std::string> readLine(bool echo_off, const char* prompt) {
  struct termios saved {};
  bool tty = echo_off && isatty(STDIN_FILENO);
  if (tty) {
    std::fprintf(stderr, "%s", prompt);
    tcgetattr(STDIN_FILENO, &saved);
    struct termios quiet = saved;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    tcsetattr(STDIN_FILENO, TCSANOW, &quiet);
  }
  std::string line;
  bool got = static_cast<bool>(std::getline(std::cin, line));
  if (tty) {
    tcsetattr(STDIN_FILENO, TCSANOW, &saved);
    std::fprintf(stderr, "\n");
  }
  if (!got) return Status::invalid("no password on standard input");
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}
}  // namespace

Result<std::string> readPassword(bool confirm) {
  auto first = readLine(true, "Password: ");
  if (!first.ok()) return first;
  if (confirm && isatty(STDIN_FILENO)) {
    auto again = readLine(true, "Again: ");
    if (!again.ok()) return again;
    if (*again != *first) return Status::invalid("passwords do not match");
  }
  if (first->empty()) return Status::invalid("empty password");
  return first;
}

}  // namespace darius::tools
