// `darius user add|passwd|del|list|check`: manage the user store named by users_file while the
// server runs (the store reloads itself when the file changes).
//
// Thread-safety: single-threaded CLI code.
#pragma once

#include <optional>
#include <string>

namespace darius::tools {

struct UserCommand {
  std::string action;                   // add, passwd, del, list, check
  std::string name;
  std::optional<std::string> password;  // absent: read from standard input / the terminal
};

int runUserCommand(const std::string& config_path, const UserCommand& cmd);

}  // namespace darius::tools
