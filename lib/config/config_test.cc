#include "lib/config/config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <atomic>
#include <random>
#include <thread>

namespace darius::config {
namespace {

using std::chrono::milliseconds;
namespace fs = std::filesystem;

base::Result<Config> parseText(std::string_view text) {
  return Config::parse(text, "d.conf", "/srv/inst");
}

// The error message of parsing `text`, which must fail with kInvalid.
std::string errorOf(std::string_view text) {
  auto r = parseText(text);
  EXPECT_FALSE(r.ok()) << text;
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), base::Code::kInvalid) << text;
  EXPECT_EQ(r.status().message().find('\n'), std::string::npos) << "must be one line";
  return r.status().message();
}

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "darius-config-XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void writeFile(const std::string& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

TEST(Config, DefaultsMatchTheTable) {
  Config c = Config::defaults();
  EXPECT_EQ(c.getList("services"),
            (std::vector<std::string>{"imap", "imaps", "pop3", "pop3s", "lmtp"}));
  EXPECT_EQ(c.getString("servername"), "");
  EXPECT_EQ(c.getPath("data_dir"), "/var/lib/darius");
  EXPECT_EQ(c.getPath("run_dir"), "/run/darius");
  EXPECT_EQ(c.getPath("users_file"), "/var/lib/darius/users");
  EXPECT_EQ(c.getInt("worker_threads"), 0);
  EXPECT_EQ(c.getDuration("shutdown_timeout"), milliseconds(10000));
  EXPECT_EQ(c.getPath("log_file"), "");
  EXPECT_EQ(c.getString("log_level"), "info");
  EXPECT_EQ(c.getAddresses("imap_listen")[0].toString(), "*:143");
  EXPECT_EQ(c.getAddresses("lmtp_listen")[0].toString(), "127.0.0.1:24");
  EXPECT_EQ(c.getString("tls_min_version"), "TLSv1.2");
  EXPECT_FALSE(c.getBool("allow_plaintext_auth"));
  EXPECT_EQ(c.getInt("scram_iterations"), 10000);
  EXPECT_EQ(c.getSize("max_line_length"), 65536u);
  EXPECT_EQ(c.getSize("max_literal_size"), 64u << 20);
  EXPECT_EQ(c.getDuration("idle_timeout"), milliseconds(30 * 60 * 1000));
  EXPECT_EQ(c.sourcePath(), "");
  for (const OptionDef& d : allOptions()) {
    EXPECT_FALSE(c.isSet(d.name)) << d.name;
    EXPECT_FALSE(d.description.empty()) << d.name;
    EXPECT_EQ(d.description.back(), '.') << d.name;
    if (d.type == OptionType::kPath) {
      std::string p = c.getPath(d.name);
      EXPECT_TRUE(p.empty() || p[0] == '/') << d.name;
    }
  }
}

TEST(Config, EmptyTextIsDefaults) {
  auto r = parseText("");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->getInt("max_connections"), 10000);
  EXPECT_EQ(r->sourcePath(), "d.conf");
}

TEST(Config, ParsesEveryType) {
  auto c = parseText(
      "# a comment\n"
      "\n"
      "   # indented comment\n"
      "services: imap lmtp metrics\n"
      "servername:   mail.example.org   \n"
      "\tdata_dir : data\r\n"
      "worker_threads: 8\n"
      "shutdown_timeout: 250ms\n"
      "log_level: WARNING\n"
      "imap_listen: *:1143 [::1]:1143 unix:sock/imap\n"
      "pop3_listen:\n"
      "tls_min_version: tlsv1.3\n"
      "tls_ciphers: HIGH:!aNULL # not a comment\n"
      "allow_plaintext_auth: on\n"
      "max_line_length: 1M\n"
      "idle_timeout: 2h");
  ASSERT_TRUE(c.ok()) << c.status().toString();
  EXPECT_EQ(c->getList("services"), (std::vector<std::string>{"imap", "lmtp", "metrics"}));
  EXPECT_EQ(c->getString("servername"), "mail.example.org");
  EXPECT_EQ(c->getPath("data_dir"), "/srv/inst/data");
  EXPECT_EQ(c->getInt("worker_threads"), 8);
  EXPECT_EQ(c->getDuration("shutdown_timeout"), milliseconds(250));
  EXPECT_EQ(c->getString("log_level"), "warning");
  auto imap = c->getAddresses("imap_listen");
  ASSERT_EQ(imap.size(), 3u);
  EXPECT_EQ(imap[0].toString(), "*:1143");
  EXPECT_EQ(imap[1].host, "::1");
  EXPECT_EQ(imap[2].kind, ListenAddress::kUnix);
  EXPECT_EQ(imap[2].path, "/srv/inst/sock/imap");
  EXPECT_TRUE(c->getAddresses("pop3_listen").empty());
  EXPECT_EQ(c->getString("tls_min_version"), "TLSv1.3");
  EXPECT_EQ(c->getString("tls_ciphers"), "HIGH:!aNULL # not a comment");
  EXPECT_TRUE(c->getBool("allow_plaintext_auth"));
  EXPECT_EQ(c->getSize("max_line_length"), 1u << 20);
  EXPECT_EQ(c->getDuration("idle_timeout"), milliseconds(7200000));
  EXPECT_TRUE(c->isSet("servername"));
  EXPECT_TRUE(c->isSet("pop3_listen"));
  EXPECT_FALSE(c->isSet("max_connections"));
  EXPECT_EQ(c->getText("imap_listen"), "*:1143 [::1]:1143 unix:/srv/inst/sock/imap");
  EXPECT_EQ(c->getText("allow_plaintext_auth"), "yes");
}

TEST(Config, BadValuesNameFileLineAndKey) {
  EXPECT_EQ(errorOf("servername: x\n\nmax_line_length: 12Q\n"),
            "d.conf:3: bad value for 'max_line_length': '12Q' is not a size "
            "(examples: 65536, 64K, 10M)");
  EXPECT_EQ(errorOf("max_line_length: 512"),
            "d.conf:1: bad value for 'max_line_length': '512' is less than the minimum, 1K");
  EXPECT_EQ(errorOf("worker_threads: 257"),
            "d.conf:1: bad value for 'worker_threads': '257' is more than the maximum, 256");
  EXPECT_EQ(errorOf("worker_threads: -1"),
            "d.conf:1: bad value for 'worker_threads': '-1' is less than the minimum, 0");
  EXPECT_EQ(errorOf("worker_threads: many"),
            "d.conf:1: bad value for 'worker_threads': 'many' is not an integer");
  EXPECT_EQ(errorOf("scram_iterations: 4095"),
            "d.conf:1: bad value for 'scram_iterations': '4095' is less than the minimum, 4096");
  EXPECT_EQ(errorOf("allow_plaintext_auth: maybe"),
            "d.conf:1: bad value for 'allow_plaintext_auth': 'maybe' is not a boolean "
            "(use yes/no, true/false, on/off or 1/0)");
  EXPECT_EQ(errorOf("login_timeout: 1 minute"),
            "d.conf:1: bad value for 'login_timeout': '1 minute' is not a duration "
            "(examples: 250ms, 30s, 5m, 2h, 1d)");
  EXPECT_EQ(errorOf("log_level: trace"),
            "d.conf:1: bad value for 'log_level': 'trace' is not one of: debug, info, notice, "
            "warning, error");
  EXPECT_EQ(errorOf("services: imap smtp"),
            "d.conf:1: bad value for 'services': 'smtp' is not one of: imap, imaps, pop3, "
            "pop3s, lmtp, metrics");
  EXPECT_EQ(errorOf("services: imap imap"),
            "d.conf:1: bad value for 'services': 'imap' is listed twice");
  EXPECT_EQ(errorOf("imap_listen: *:143 ::1:143"),
            "d.conf:1: bad value for 'imap_listen': '::1:143': an IPv6 address needs "
            "brackets, as in [::1]:143");
  EXPECT_EQ(errorOf("lmtp_listen: localhost:99999"),
            "d.conf:1: bad value for 'lmtp_listen': 'localhost:99999' has a bad port '99999' "
            "(expected 0..65535)");
  EXPECT_EQ(errorOf("tls_min_version: SSLv3"),
            "d.conf:1: bad value for 'tls_min_version': 'SSLv3' is not one of: TLSv1.2, "
            "TLSv1.3");
  EXPECT_EQ(errorOf("max_literal_size:"),
            "d.conf:1: bad value for 'max_literal_size': '' is not a size "
            "(examples: 65536, 64K, 10M)");
  EXPECT_EQ(errorOf("idle_timeout: -5m"),
            "d.conf:1: bad value for 'idle_timeout': '-5m' is not a duration "
            "(examples: 250ms, 30s, 5m, 2h, 1d)");
}

TEST(Config, UnknownKeySuggestsTheClosest) {
  EXPECT_EQ(errorOf("imap_lisen: *:143"),
            "d.conf:1: unknown option 'imap_lisen' (did you mean 'imap_listen'?)");
  EXPECT_EQ(errorOf("max_line_lenght: 1K"),
            "d.conf:1: unknown option 'max_line_lenght' (did you mean 'max_line_length'?)");
  EXPECT_EQ(errorOf("partition_default: /var/spool"),
            "d.conf:1: unknown option 'partition_default'");
  EXPECT_EQ(errorOf("Log_Level: info"),
            "d.conf:1: bad option name 'Log_Level' (names are lower-case letters, digits and "
            "'_') (did you mean 'log_level'?)");
  EXPECT_EQ(errorOf("max-connections: 5"),
            "d.conf:1: bad option name 'max-connections' (names are lower-case letters, "
            "digits and '_') (did you mean 'max_connections'?)");
}

TEST(Config, DuplicateKeyNamesBothLines) {
  EXPECT_EQ(errorOf("servername: a\n# x\nlog_level: info\nservername: b\n"),
            "d.conf:4: duplicate option 'servername' (first set on line 1)");
}

TEST(Config, LineWithoutColon) {
  EXPECT_EQ(errorOf("servername mail.example.org"),
            "d.conf:1: expected 'key: value', found 'servername mail.example.org'");
  EXPECT_EQ(errorOf(": value"), "d.conf:1: missing option name before ':'");
}

TEST(Config, ControlCharactersInValuesAreRejected) {
  EXPECT_EQ(errorOf(std::string("servername: a\0b", 15)),
            "d.conf:1: bad value for 'servername': 'a\\x00b' contains control characters or "
            "invalid UTF-8");
  EXPECT_FALSE(parseText("servername: a\x1b[31m").ok());
  EXPECT_FALSE(parseText("servername: \xff\xfe").ok());
  EXPECT_TRUE(parseText("servername: m\xc3\xa4il").ok());
}

TEST(Config, LeadingByteOrderMarkIsIgnored) {
  auto c = parseText("\xef\xbb\xbfservername: x\n");
  ASSERT_TRUE(c.ok()) << c.status().toString();
  EXPECT_EQ(c->getString("servername"), "x");
  EXPECT_FALSE(parseText("servername: x\n\xef\xbb\xbf" "data_dir: y\n").ok());
}

TEST(Config, PathsResolveAgainstBaseDir) {
  auto c = Config::parse("data_dir: ../spool/./x/\nrun_dir: /abs\nlog_file:\n", "f", "/a/b");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->getPath("data_dir"), "/a/spool/x");
  EXPECT_EQ(c->getPath("run_dir"), "/abs");
  EXPECT_EQ(c->getPath("log_file"), "");
  EXPECT_TRUE(c->isSet("log_file"));

  // Without a base directory, relative paths are taken from the current directory.
  auto here = Config::parse("data_dir: d", "f", "");
  ASSERT_TRUE(here.ok());
  EXPECT_EQ(here->getPath("data_dir"), (fs::current_path() / "d").string());
}

TEST(Config, LoadResolvesAgainstTheFilesDirectory) {
  TempDir dir;
  fs::create_directories(dir.path() + "/inst");
  std::string file = dir.path() + "/inst/darius.conf";
  writeFile(file, "data_dir: data\nlmtp_listen: unix:run/lmtp\n");
  auto c = Config::load(file);
  ASSERT_TRUE(c.ok()) << c.status().toString();
  EXPECT_EQ(c->sourcePath(), file);
  EXPECT_EQ(c->getPath("data_dir"), dir.path() + "/inst/data");
  EXPECT_EQ(c->getAddresses("lmtp_listen")[0].path, dir.path() + "/inst/run/lmtp");

  // Moving the instance directory moves everything in it.
  fs::rename(dir.path() + "/inst", dir.path() + "/moved");
  auto moved = Config::load(dir.path() + "/moved/darius.conf");
  ASSERT_TRUE(moved.ok());
  EXPECT_EQ(moved->getPath("data_dir"), dir.path() + "/moved/data");
}

TEST(Config, LoadErrors) {
  TempDir dir;
  auto missing = Config::load(dir.path() + "/nope.conf");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), base::Code::kNotFound);
  EXPECT_NE(missing.status().message().find(dir.path() + "/nope.conf"), std::string::npos);

  EXPECT_FALSE(Config::load(dir.path()).ok());  // a directory

  std::string bad = dir.path() + "/bad.conf";
  writeFile(bad, "servername: x\nimap_lisen: *:143\n");
  auto r = Config::load(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), base::Code::kInvalid);
  EXPECT_EQ(r.status().message(),
            bad + ":2: unknown option 'imap_lisen' (did you mean 'imap_listen'?)");
}

TEST(Config, OversizedInput) {
  std::string huge = "servername: " + std::string(10 << 20, 'a') + "\n";
  std::string msg = errorOf(huge);
  EXPECT_EQ(msg, "d.conf:1: line is longer than 65536 bytes");

  std::string no_colon(10 << 20, 'x');
  EXPECT_EQ(errorOf(no_colon), "d.conf:1: line is longer than 65536 bytes");

  // Long but allowed: the message quotes a bounded prefix only.
  std::string long_value = "max_line_length: " + std::string(60000, '9');
  msg = errorOf(long_value);
  EXPECT_LT(msg.size(), 200u);

  TempDir dir;
  std::string big = dir.path() + "/big.conf";
  writeFile(big, std::string(Config::kMaxFileSize + 1, '#'));
  auto r = Config::load(big);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), base::Code::kTooBig);
}

TEST(Config, BinaryAndHostileInputNeverCrashes) {
  std::mt19937 rng(42);
  std::string alphabet = "abcdefghijklmnopqrstuvwxyz_0123456789:#[]*.-/ \t\r\n";
  for (int i = 0; i < 2000; ++i) {
    std::string text;
    size_t len = rng() % 200;
    for (size_t j = 0; j < len; ++j) {
      text += (i % 2) ? static_cast<char>(rng() & 0xff) : alphabet[rng() % alphabet.size()];
    }
    auto r = parseText(text);
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), base::Code::kInvalid);
      EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
    }
  }
  // Keys that are prefixes or near-misses of many options, and absurdly long keys.
  EXPECT_FALSE(parseText(std::string(60000, 'a') + ": 1").ok());
  EXPECT_FALSE(parseText(std::string("\0\0\0:\0", 5)).ok());
  EXPECT_FALSE(parseText(":").ok());
  EXPECT_FALSE(parseText("imap_listen: [").ok());
  EXPECT_FALSE(parseText("imap_listen: []:").ok());
  EXPECT_FALSE(parseText("imap_listen: [:::::::::::::::::::]:1").ok());
}

TEST(Config, CopiesShareAndReadConcurrently) {
  auto c = parseText("worker_threads: 4\nimap_listen: *:1\n");
  ASSERT_TRUE(c.ok());
  Config copy = *c;
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) {
        if (copy.getInt("worker_threads") != 4 || copy.getAddresses("imap_listen").size() != 1) {
          ++bad;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(bad.load(), 0);
}

TEST(ConfigDeathTest, WrongTypeOrUnknownNameAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Config c = Config::defaults();
  EXPECT_DEATH((void)c.getInt("log_level"),
               "getInt\\(\"log_level\"\\): option 'log_level' is of type enum, not integer");
  EXPECT_DEATH((void)c.getString("max_line_length"), "is of type size, not string");
  EXPECT_DEATH((void)c.getBool("data_dir"), "is of type path, not boolean");
  EXPECT_DEATH((void)c.getSize("idle_timeout"), "is of type duration, not size");
  EXPECT_DEATH((void)c.getPath("services"), "is of type list, not path");
  EXPECT_DEATH((void)c.getAddresses("run_dir"), "is of type path, not address list");
  EXPECT_DEATH((void)c.getList("imap_listen"), "is of type address list, not list");
  EXPECT_DEATH((void)c.getDuration("worker_threads"), "is of type integer, not duration");
  EXPECT_DEATH((void)c.getInt("no_such_option"), "getInt\\(\"no_such_option\"\\): no such option");
  EXPECT_DEATH((void)c.isSet("nope"), "no such option");
}

}  // namespace
}  // namespace darius::config
