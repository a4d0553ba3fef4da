#include "lib/log/log.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <regex>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

namespace darius::log {
namespace {

namespace fs = std::filesystem;

class LogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "darius-log-XXXXXX").string();
    dir_ = mkdtemp(tmpl.data());
    path_ = dir_ + "/darius.log";
  }
  void TearDown() override {
    EXPECT_TRUE(openLog("", Level::kInfo, "darius").isOk());
    fs::remove_all(dir_);
  }

  static std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  static std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
  }

  std::string dir_;
  std::string path_;
};

std::chrono::system_clock::time_point at(int64_t ms_since_epoch) {
  return std::chrono::system_clock::time_point(std::chrono::milliseconds(ms_since_epoch));
}

TEST(LogFormat, LineLayout) {
  Context ctx{.service = "imap", .session_id = 17, .peer = "127.0.0.1:5123", .user = "demo"};
  // 2026-11-22T05:12:33.123Z
  EXPECT_EQ(formatLine(at(1795324353123), "darius", 1234, Level::kInfo, &ctx, "login ok"),
            "2026-11-22T05:12:33.123Z darius[1234]: info imap#17 peer=127.0.0.1:5123 "
            "user=demo: login ok\n");
  EXPECT_EQ(formatLine(at(5), "dariusd", 1, Level::kError, nullptr, "boom"),
            "1970-01-01T00:00:00.005Z dariusd[1]: error: boom\n");
  Context empty;
  EXPECT_EQ(formatLine(at(0), "d", 1, Level::kDebug, &empty, "m"),
            "1970-01-01T00:00:00.000Z d[1]: debug: m\n");
  Context partial{.peer = "[::1]:99"};
  EXPECT_EQ(formatLine(at(0), "d", 1, Level::kWarning, &partial, "m"),
            "1970-01-01T00:00:00.000Z d[1]: warning peer=[::1]:99: m\n");
  Context id_only{.session_id = 3, .user = "u"};
  EXPECT_EQ(formatLine(at(0), "d", 1, Level::kNotice, &id_only, "m"),
            "1970-01-01T00:00:00.000Z d[1]: notice #3 user=u: m\n");
}

TEST(LogFormat, EscapesControlsAndInvalidUtf8) {
  std::string hostile("a\r\nb\0c\x1b[2J\xff\xc3\x28 \\x", 16);
  std::string line = formatLine(at(0), "d", 1, Level::kInfo, nullptr, hostile);
  EXPECT_EQ(line, "1970-01-01T00:00:00.000Z d[1]: info: "
                  "a\\x0d\\x0ab\\x00c\\x1b[2J\\xff\\xc3( \\x5cx\n");
  // Valid UTF-8 passes through; C1 controls and surrogates do not.
  std::string out;
  appendEscaped(&out, "caf\xc3\xa9 \xe2\x82\xac \xc2\x9b \xed\xa0\x80", false);
  EXPECT_EQ(out, "caf\xc3\xa9 \xe2\x82\xac \\xc2\\x9b \\xed\\xa0\\x80");

  // A user name cannot forge a context field or end the context early.
  Context ctx{.service = "imap", .session_id = 1, .user = "x user=admin: fake\nline"};
  line = formatLine(at(0), "d", 1, Level::kInfo, &ctx, "login");
  EXPECT_EQ(line, "1970-01-01T00:00:00.000Z d[1]: info imap#1 "
                  "user=x\\x20user=admin:\\x20fake\\x0aline: login\n");
  EXPECT_EQ(std::count(line.begin(), line.end(), '\n'), 1);
}

TEST(LogFormat, LongMessagesAreCut) {
  std::string big(1 << 20, '\n');
  std::string line = formatLine(at(0), "d", 1, Level::kInfo, nullptr, big);
  EXPECT_LT(line.size(), kMaxMessageBytes + 200);
  EXPECT_NE(line.find("...[truncated, 1048576 bytes]\n"), std::string::npos);
  EXPECT_EQ(std::count(line.begin(), line.end(), '\n'), 1);
  // Cut on an escape boundary, never in the middle of "\x0a".
  size_t cut = line.find("...[truncated");
  EXPECT_EQ(line.substr(cut - 4, 4), "\\x0a");
}

TEST(LogLevel, ParseAndName) {
  for (Level l : {Level::kDebug, Level::kInfo, Level::kNotice, Level::kWarning, Level::kError}) {
    auto r = parseLevel(levelName(l));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(*r, l);
  }
  EXPECT_EQ(*parseLevel("WARNING"), Level::kWarning);
  auto bad = parseLevel("trace\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), base::Code::kInvalid);
  EXPECT_EQ(bad.status().message(),
            "'trace\\x0a' is not a log level (debug, info, notice, warning, error)");
  EXPECT_FALSE(parseLevel("").ok());
}

TEST_F(LogTest, WritesParseableLines) {
  ASSERT_TRUE(openLog(path_, Level::kDebug, "dariusd").isOk());
  Context ctx{.service = "pop3", .session_id = 42, .peer = "10.0.0.1:40000", .user = "alice"};
  info(ctx, "login ok after {} ms", 12);
  error("disk {} is full", "/var");
  auto got = lines(readFile(path_));
  ASSERT_EQ(got.size(), 2u);
  std::regex re(R"(^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z) (\w+)\[(\d+)\]: (\w+)( [^:]*(?::\S[^:]*)*)?: (.*)$)");
  std::smatch m;
  ASSERT_TRUE(std::regex_match(got[0], m, re)) << got[0];
  EXPECT_EQ(m[2], "dariusd");
  EXPECT_EQ(std::stol(m[3]), static_cast<long>(getpid()));
  EXPECT_EQ(m[4], "info");
  EXPECT_EQ(m[5], " pop3#42 peer=10.0.0.1:40000 user=alice");
  EXPECT_EQ(m[6], "login ok after 12 ms");
  ASSERT_TRUE(std::regex_match(got[1], m, re)) << got[1];
  EXPECT_EQ(m[4], "error");
  EXPECT_EQ(m[5], "");
  EXPECT_EQ(m[6], "disk /var is full");

  // The timestamp is now, in UTC.
  std::tm tm{};
  std::istringstream ts(m[1].str());
  ts >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%S");
  auto logged = std::chrono::system_clock::from_time_t(timegm(&tm));
  EXPECT_LT(std::chrono::abs(std::chrono::system_clock::now() - logged), std::chrono::minutes(1));
}

// Counts how often it is formatted, to prove disabled levels skip formatting.
struct Counted {
  int* count;
};

}  // namespace
}  // namespace darius::log

template <>
struct fmt::formatter<darius::log::Counted> : fmt::formatter<int> {
  auto format(const darius::log::Counted& c, fmt::format_context& ctx) const {
    ++*c.count;
    return fmt::formatter<int>::format(*c.count, ctx);
  }
};

namespace darius::log {
namespace {

TEST_F(LogTest, LevelFiltering) {
  ASSERT_TRUE(openLog(path_, Level::kWarning, "d").isOk());
  int formatted = 0;
  Counted counted{&formatted};
  Context ctx{.service = "lmtp"};
  debug(ctx, "d {}", counted);
  info("i {}", counted);
  notice(ctx, "n {}", counted);
  EXPECT_EQ(formatted, 0);
  EXPECT_FALSE(enabled(Level::kNotice));
  EXPECT_TRUE(enabled(Level::kWarning));
  warning(ctx, "w {}", counted);
  error("e {}", counted);
  EXPECT_EQ(formatted, 2);
  setLevel(Level::kDebug);
  debug("d2");
  auto got = lines(readFile(path_));
  ASSERT_EQ(got.size(), 3u);
  EXPECT_NE(got[0].find("warning lmtp: w 1"), std::string::npos) << got[0];
  EXPECT_NE(got[1].find("error: e 2"), std::string::npos) << got[1];
  EXPECT_NE(got[2].find("debug: d2"), std::string::npos) << got[2];
}

TEST_F(LogTest, ReopenAfterRotation) {
  ASSERT_TRUE(openLog(path_, Level::kInfo, "d").isOk());
  info("one");
  fs::rename(path_, path_ + ".1");
  info("two");  // still the old (renamed) file until SIGHUP
  ASSERT_TRUE(reopenLog().isOk());
  info("three");
  auto old_lines = lines(readFile(path_ + ".1"));
  auto new_lines = lines(readFile(path_));
  ASSERT_EQ(old_lines.size(), 2u);
  ASSERT_EQ(new_lines.size(), 1u);
  EXPECT_NE(old_lines[1].find("info: two"), std::string::npos);
  EXPECT_NE(new_lines[0].find("info: three"), std::string::npos);
}

TEST_F(LogTest, OpenFailureKeepsTheOldSink) {
  ASSERT_TRUE(openLog(path_, Level::kInfo, "d").isOk());
  auto st = openLog(dir_ + "/no/such/dir/log", Level::kInfo, "d");
  EXPECT_FALSE(st.isOk());
  EXPECT_EQ(st.code(), base::Code::kNotFound);
  info("still here");
  EXPECT_NE(readFile(path_).find("still here"), std::string::npos);
  EXPECT_TRUE(reopenLog().isOk());
  info("after reopen");
  EXPECT_NE(readFile(path_).find("after reopen"), std::string::npos);
}

TEST_F(LogTest, ConcurrentThreadsAndProcessesWriteWholeLines) {
  constexpr int kThreads = 8;
  constexpr int kPerThread = 1000;
  ASSERT_TRUE(openLog(path_, Level::kInfo, "d").isOk());
  // A second process appends to the same file through its own open file description.
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (!openLog(path_, Level::kInfo, "child").isOk()) _exit(1);
    for (int i = 0; i < kPerThread; ++i) info("child {} {}", i, std::string(i % 3000, 'c'));
    _exit(0);
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t] {
      Context ctx{.service = "imap", .session_id = static_cast<uint64_t>(t + 1)};
      // Lengths up to ~5 KB: past PIPE_BUF, where a non-O_APPEND or split write would tear.
      for (int i = 0; i < kPerThread; ++i) {
        info(ctx, "seq {} {}", i, std::string((i * 7 + t) % 5000, static_cast<char>('a' + t)));
      }
    });
  }
  for (auto& th : threads) th.join();
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);

  std::string text = readFile(path_);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  // Parsed by hand: std::regex recurses per character and overflows the stack on 5 KB lines.
  std::vector<std::set<int>> seen(kThreads + 1);
  std::set<int> child_seen;
  size_t count = 0;
  for (const std::string& l : lines(text)) {
    ++count;
    ASSERT_TRUE(l.size() > 24 && l[23] == 'Z' && l[24] == ' ') << l.substr(0, 120);
    int t = 0;
    int i = 0;
    int n = 0;
    size_t p;
    if ((p = l.find("]: info imap#")) != std::string::npos &&
        std::sscanf(l.c_str() + p, "]: info imap#%d: seq %d %n", &t, &i, &n) == 2 && n > 0) {
      std::string_view fill = std::string_view(l).substr(p + static_cast<size_t>(n));
      ASSERT_TRUE(t >= 1 && t <= kThreads) << l.substr(0, 120);
      ASSERT_EQ(fill.size(), static_cast<size_t>((i * 7 + t - 1) % 5000)) << "torn line";
      ASSERT_EQ(fill.find_first_not_of(static_cast<char>('a' + t - 1)), std::string::npos);
      ASSERT_TRUE(seen[t].insert(i).second) << "duplicate line";
    } else if ((p = l.find(" child[")) != std::string::npos &&
               (p = l.find("]: info: child ", p)) != std::string::npos &&
               std::sscanf(l.c_str() + p, "]: info: child %d %n", &i, &n) == 1 && n > 0) {
      std::string_view fill = std::string_view(l).substr(p + static_cast<size_t>(n));
      ASSERT_EQ(fill.size(), static_cast<size_t>(i % 3000)) << "torn line";
      ASSERT_EQ(fill.find_first_not_of('c'), std::string::npos);
      ASSERT_TRUE(child_seen.insert(i).second) << "duplicate line";
    } else {
      FAIL() << "torn or foreign line: " << l.substr(0, 120);
    }
  }
  EXPECT_EQ(count, static_cast<size_t>((kThreads + 1) * kPerThread));
  for (int t = 1; t <= kThreads; ++t) EXPECT_EQ(seen[t].size(), static_cast<size_t>(kPerThread));
  EXPECT_EQ(child_seen.size(), static_cast<size_t>(kPerThread));
}

}  // namespace
}  // namespace darius::log
