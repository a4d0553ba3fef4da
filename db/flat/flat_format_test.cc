// Tests of the flat file format: escaping, canonical form, every kind of malformed line, and
// the golden file of version 1.
#include "db/flat/flat_format.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>

#include "lib/io/env.h"

namespace darius::db::flat {
namespace {

using base::Code;
using std::string_literals::operator""s;

std::string sourceDir() {
  if (const char* src = std::getenv("DARIUS_SOURCE_DIR")) return src;
  // Run by hand rather than by ctest: derive the tree from this file's path.
  std::string here = __FILE__;
  return here.substr(0, here.rfind("/db/flat/"));
}

TEST(FlatFormat, EscapesEveryByteOneWay) {
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  std::string escaped;
  appendEscaped(escaped, all);
  for (char c : escaped) {
    EXPECT_TRUE(c >= 0x20 && c <= 0x7e) << "unescaped byte " << int(static_cast<unsigned char>(c));
  }
  EXPECT_NE(escaped.find("\\x00\\x01"), std::string::npos);
  EXPECT_NE(escaped.find("\\t\\n\\x0b\\x0c\\r"), std::string::npos);
  EXPECT_NE(escaped.find(" !\"#"), std::string::npos);
  EXPECT_NE(escaped.find("[\\\\]"), std::string::npos);
  EXPECT_NE(escaped.find("~\\x7f\\x80"), std::string::npos);
  auto back = parse("# darius-flat 1\nk\t" + escaped + "\n", "t");
  ASSERT_TRUE(back.ok()) << back.status().toString();
  EXPECT_EQ(back->at("k"), all);
}

TEST(FlatFormat, RandomRoundTripIsCanonical) {
  std::mt19937 rng(7);
  for (int round = 0; round < 50; ++round) {
    Records records;
    for (int i = 0; i < 30; ++i) {
      std::string k(1 + rng() % 10, '\0'), v(rng() % 40, '\0');
      for (char& c : k) c = static_cast<char>(rng());
      for (char& c : v) c = static_cast<char>(rng());
      records[k] = v;
    }
    std::string file = serialize(records);
    auto parsed = parse(file, "t");
    ASSERT_TRUE(parsed.ok()) << parsed.status().toString();
    EXPECT_EQ(*parsed, records);
    EXPECT_EQ(serialize(*parsed), file);
    std::vector<std::string> problems;
    EXPECT_EQ(checkContents(file, "t", &problems), records.size());
    EXPECT_TRUE(problems.empty());
  }
}

TEST(FlatFormat, EmptyDatabaseIsJustTheHeader) {
  EXPECT_EQ(serialize({}), "# darius-flat 1\n");
  auto parsed = parse("# darius-flat 1\n", "t");
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed->empty());
}

TEST(FlatFormat, HeaderErrors) {
  auto code = [](std::string_view data) { return parse(data, "t").status().code(); };
  EXPECT_EQ(code(""), Code::kCorruption);
  EXPECT_EQ(code("# darius-flat 1"), Code::kCorruption);  // header cut short
  EXPECT_EQ(code("# darius-flat 2\n"), Code::kInvalid);
  EXPECT_EQ(code("# darius-flat 10\na\tb\n"), Code::kInvalid);
  EXPECT_EQ(code("SQLite format 3\0"s), Code::kInvalid);
  EXPECT_EQ(code("\xa1\x5b\x2d\x00"s), Code::kInvalid);  // a skiplist-like binary header
  EXPECT_NE(parse("# darius-flat 9\n", "f").status().message().find("version \"9\""),
            std::string::npos);
}

TEST(FlatFormat, MalformedLinesNameLineAndOffset) {
  const std::string head = "# darius-flat 1\na\t1\n";  // the bad line is line 3, offset 20
  struct Case {
    std::string line;
    std::string what;
    size_t offset;  // from the start of the bad line
  };
  std::vector<Case> cases = {
      {"b1\n", "no TAB", 2},
      {"\t1\n", "empty key", 0},
      {"b\t1\x01\n"s, "byte 0x01 must be escaped", 3},
      {"b\t\xff\n"s, "byte 0xff must be escaped", 2},
      {"b\x0d\t1\n"s, "byte 0x0d must be escaped", 1},
      {"b\tx\ty\n", "byte 0x09 must be escaped", 3},
      {"b\t\\x4a\n", "non-canonical escape", 2},
      {"b\t\\x0A\n", "bad \\x escape", 2},
      {"b\t\\x0\n", "truncated \\x escape", 2},
      {"b\t\\q\n", "unknown escape \\q", 2},
      {"b\t1\\\n", "dangling backslash", 3},
      {"a\t2\n", "duplicate key", 0},
      {"\\x01\t2\n", "key out of order", 0},
      {"b\t1", "does not end in LF", 3},
  };
  for (const Case& c : cases) {
    auto parsed = parse(head + c.line, "f");
    ASSERT_FALSE(parsed.ok()) << c.what;
    EXPECT_EQ(parsed.status().code(), Code::kCorruption) << c.what;
    std::string expected = "f: line 3 (offset " + std::to_string(20 + c.offset) + "): ";
    EXPECT_EQ(parsed.status().message().substr(0, expected.size()), expected)
        << parsed.status().message();
    EXPECT_NE(parsed.status().message().find(c.what), std::string::npos)
        << parsed.status().message();
  }
}

TEST(FlatFormat, CheckCollectsEveryProblem) {
  std::vector<std::string> problems;
  uint64_t n =
      checkContents("# darius-flat 1\nb\t1\na\t2\nc\\q\t3\nd\t4\nd\t5\ne\t6", "f", &problems);
  EXPECT_EQ(n, 2u);  // b, d
  ASSERT_EQ(problems.size(), 4u);
  EXPECT_NE(problems[0].find("line 3"), std::string::npos);
  EXPECT_NE(problems[0].find("out of order"), std::string::npos);
  EXPECT_NE(problems[1].find("line 4"), std::string::npos);
  EXPECT_NE(problems[2].find("line 6"), std::string::npos);
  EXPECT_NE(problems[3].find("line 7"), std::string::npos);

  problems.clear();
  EXPECT_EQ(checkContents("not a db\n", "f", &problems), 0u);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("not a darius flat database"), std::string::npos);
}

TEST(FlatFormat, GoldenFileV1) {
  std::string path = sourceDir() + "/tests/data/formats/flat/v1/db";
  auto data = io::Env::posix()->readFile(path);
  ASSERT_TRUE(data.ok()) << data.status().toString();
  auto parsed = parse(*data, path);
  ASSERT_TRUE(parsed.ok()) << parsed.status().toString();
  Records expected = {
      {"\0nul\tlead"s, "zero\0byte"s},
      {"a", "1"},
      {"a\\b", "back\\slash"},
      {"empty", ""},
      {"key\twith\ttabs", "value\nwith\r\nnewlines"},
      {"utf8-\xc3\xa9", "caf\xc3\xa9"},
      {"z\xff", "\x7f\x80\xff"},
  };
  EXPECT_EQ(*parsed, expected);
  EXPECT_EQ(serialize(expected), *data);
}

}  // namespace
}  // namespace darius::db::flat
