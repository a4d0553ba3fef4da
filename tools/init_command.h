// `darius init DIR`: creates a complete, ready instance in DIR, the way initdb does for
// PostgreSQL: DIR/darius.conf, the data and run directories, a self-signed certificate and a
// first user. Paths in the config are relative to DIR, so the instance can be moved.
//
// Thread-safety: single-threaded CLI code.
#pragma once

#include <string>

#include "lib/base/status.h"

namespace darius::tools {

struct InitOptions {
  std::string dir;
  int port_base = 0;             // ports are port_base + 143, 993, 110, 995, 24, 4190, 9100
  bool ephemeral_ports = false;  // every port 0: the kernel picks; see run/listeners
  std::string user;              // "NAME:PASSWORD"; empty: "demo" with a random password
  std::string hostname = "localhost";
};

// The config text for an instance (exposed for tests).
std::string instanceConfig(const InitOptions& options);

// Does the work and prints what it made and how to connect. Returns a process exit code.
int runInit(const InitOptions& options);

}  // namespace darius::tools
