// dariusd: the Darius server. `dariusd -C /etc/darius.conf` runs the services the config names.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "server/server.h"

namespace {
void usage(FILE* out) {
  std::fprintf(out,
               "usage: dariusd [-C CONFIG]\n"
               "  -C CONFIG   config file (default: $DARIUS_CONF or /etc/darius.conf)\n"
               "  --version   print the version and exit\n"
               "Signals: SIGTERM/SIGINT stop gracefully, SIGHUP reopens the log file.\n");
}
}  // namespace

int main(int argc, char** argv) {
  const char* env = std::getenv("DARIUS_CONF");
  std::string config = env && *env ? env : "/etc/darius.conf";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-C" || a == "--config") {
      if (i + 1 >= argc) {
        usage(stderr);
        return darius::server::kExitUsage;
      }
      config = argv[++i];
    } else if (a.rfind("--config=", 0) == 0) {
      config = a.substr(9);
    } else if (a == "--version") {
      std::printf("dariusd %s\n", DARIUS_VERSION);
      return 0;
    } else if (a == "-h" || a == "--help") {
      usage(stdout);
      return 0;
    } else {
      std::fprintf(stderr, "dariusd: unknown argument '%s'\n", a.c_str());
      usage(stderr);
      return darius::server::kExitUsage;
    }
  }
  return darius::server::runServer(config);
}
