#include "tools/init_command.h"

#include <openssl/rand.h>
#include <sys/stat.h>

#include <cstdio>
#include <ctime>
#include <filesystem>

#include "auth/user_store.h"
#include "lib/io/atomic_file.h"
#include "lib/io/env.h"
#include "lib/io/fd.h"
#include "lib/net/tls.h"
#include "tools/cli_common.h"

namespace darius::tools {

using base::Status;

namespace {

struct Ports {
  int imap, imaps, pop3, pop3s, lmtp, sieve, metrics;
};

Ports portsFor(const InitOptions& o) {
  if (o.ephemeral_ports) return {0, 0, 0, 0, 0, 0, 0};
  int b = o.port_base;
  return {b + 143, b + 993, b + 110, b + 995, b + 24, b + 4190, b + 9100};
}

// 16 characters from an alphabet without look-alikes (no 0/O, 1/l/I).
std::string randomPassword() {
  static const char kAlphabet[] = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  unsigned char raw[16];
  RAND_bytes(raw, sizeof raw);
  std::string out;
  for (unsigned char c : raw) out += kAlphabet[c % (sizeof kAlphabet - 1)];
  return out;
}

std::string today() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
  return buf;
}

}  // namespace

std::string instanceConfig(const InitOptions& o) {
  Ports p = portsFor(o);
  auto at = [](int port) { return "127.0.0.1:" + std::to_string(port); };
  std::string c;
  c += "# Darius instance written by `darius init` on " + today() + ".\n";
  c += "# Every option is described in docs/config.md (or: darius config docs).\n";
  c += "# Relative paths are relative to this file's directory.\n\n";
  c += "services: imap imaps pop3 pop3s lmtp metrics\n";
  c += "servername: " + o.hostname + "\n";
  c += "data_dir: data\n";
  c += "run_dir: run\n";
  c += "users_file: data/users\n\n";
  c += "# Loopback only.";
  if (o.ephemeral_ports) c += " Port 0: the kernel picks; dariusd writes the real ones to run/listeners.";
  c += "\n";
  c += "imap_listen: " + at(p.imap) + "\n";
  c += "imaps_listen: " + at(p.imaps) + "\n";
  c += "pop3_listen: " + at(p.pop3) + "\n";
  c += "pop3s_listen: " + at(p.pop3s) + "\n";
  c += "lmtp_listen: " + at(p.lmtp) + "\n";
  c += "metrics_listen: " + at(p.metrics) + "\n";
  c += "# ManageSieve, once it exists, will listen on " + at(p.sieve) + ".\n\n";
  c += "tls_cert_file: tls/cert.pem\n";
  c += "tls_key_file: tls/key.pem\n\n";
  c += "# Every listener is on loopback, so passwords may cross unencrypted connections.\n";
  c += "# Never set this on an instance that listens on a network.\n";
  c += "allow_plaintext_auth: yes\n";
  return c;
}

int runInit(const InitOptions& o) {
  if (o.port_base < 0 || o.port_base + 9100 > 65535) {
    return reportFailure("init", Status::invalid("--port-base must be between 0 and 56435"));
  }
  std::string user = "demo", password;
  bool generated = false;
  if (!o.user.empty()) {
    size_t colon = o.user.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == o.user.size()) {
      return reportFailure("init", Status::invalid("--user takes NAME:PASSWORD"));
    }
    user = o.user.substr(0, colon);
    password = o.user.substr(colon + 1);
  } else {
    password = randomPassword();
    generated = true;
  }

  std::error_code ec;
  const std::string dir = std::filesystem::absolute(o.dir, ec).lexically_normal().string();
  const std::string conf = dir + "/darius.conf";
  if (std::filesystem::exists(conf, ec)) {
    return reportFailure("init", Status::exists(conf + " exists; not touching an instance"));
  }
  for (const char* sub : {"", "/data", "/run", "/tls"}) {
    if (Status s = io::makeDirs(dir + sub, 0750); !s.isOk()) return reportFailure("init", s);
  }
  if (Status s = net::writeSelfSignedCertificate(dir + "/tls/cert.pem", dir + "/tls/key.pem",
                                                 o.hostname, 825);
      !s.isOk()) {
    return reportFailure("init: certificate", s);
  }
  auto users = auth::UserStore::open(dir + "/data/users", 10000);
  if (!users.ok()) return reportFailure("init: users", users.status());
  if (Status s = (*users)->add(user, password); !s.isOk()) {
    return reportFailure("init: user " + user, s);
  }
  if (generated) {
    // Kept so the README's run command can show the demo login again; mode 0600.
    auto fd = io::openFile(dir + "/demo-credentials", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd.ok()) (void)io::writeAll(fd->get(), "user: " + user + "\npassword: " + password + "\n");
  }
  // Written last: an init interrupted half-way leaves no darius.conf, so it can be re-run.
  if (Status s = io::writeFileAtomic(*io::Env::posix(), conf, instanceConfig(o)); !s.isOk()) {
    return reportFailure("init: " + conf, s);
  }
  auto check = loadConfig(conf);
  if (!check.ok()) return reportFailure("init: written config does not load", check.status());

  Ports p = portsFor(o);
  std::printf("Created a Darius instance in %s\n", dir.c_str());
  std::printf("  config     %s\n", conf.c_str());
  std::printf("  TLS        %s/tls/cert.pem (self-signed for %s)\n", dir.c_str(),
              o.hostname.c_str());
  std::printf("  user       %s\n", user.c_str());
  if (generated) std::printf("  password   %s\n", password.c_str());
  if (o.ephemeral_ports) {
    std::printf("  ports      chosen at start; see %s/run/listeners\n", dir.c_str());
  } else {
    std::printf("  ports      127.0.0.1: IMAP %d, IMAPS %d, POP3 %d, POP3S %d, LMTP %d, "
                "metrics %d\n", p.imap, p.imaps, p.pop3, p.pop3s, p.lmtp, p.metrics);
  }
  std::printf("Start it with: dariusd -C %s\n", conf.c_str());
  return 0;
}

}  // namespace darius::tools
