// The composition root of dariusd: reads the config, opens the log and the user store, builds
// the TLS context and one Service per configured service name, binds every listener, writes
// the run files (pid lock, bound addresses) and runs the ServerHost until SIGTERM.
//
// Ownership: runServer owns everything it builds for the life of the call.
// Thread-safety: call once per process, from main.
#pragma once

#include <string>

namespace darius::server {

// Exit codes follow sysexits.h where one fits.
inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 64;     // EX_USAGE
inline constexpr int kExitSoftware = 70;  // EX_SOFTWARE: a start-up step failed
inline constexpr int kExitConfig = 78;    // EX_CONFIG: the config file is wrong

int runServer(const std::string& config_path);

}  // namespace darius::server
