#include "db/dump.h"

#include <gtest/gtest.h>

#include <vector>

namespace darius::db {
namespace {

TEST(Dump, EscapingRoundTripsEveryByte) {
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  std::string escaped = escapeField(all);
  EXPECT_EQ(escaped.find('\t'), std::string::npos);
  EXPECT_EQ(escaped.find('\n'), std::string::npos);
  auto back = unescapeField(escaped);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, all);
  EXPECT_EQ(escapeField("user.bob"), "user.bob");
  EXPECT_EQ(escapeField("a\\b"), "a\\x5cb");
}

TEST(Dump, RejectsMalformedEscapes) {
  const std::vector<std::string> bads = {"\\",   "\\x",       "\\x4",
                                        "\\y41", "\\xg1",     "raw\ttab",
                                        std::string("nul\0", 4)};
  for (const std::string& bad : bads) {
    EXPECT_FALSE(unescapeField(bad).ok()) << bad;
  }
}

TEST(Dump, ChecksumDependsOnRecordBoundaries) {
  RecordChecksum a, b, c;
  a.add("ab", "c");
  b.add("a", "bc");
  c.add("ab", "c");
  std::string ha = a.hex(), hb = b.hex(), hc = c.hex();
  EXPECT_NE(ha, hb);
  EXPECT_EQ(ha, hc);
  EXPECT_EQ(ha.size(), 64u);
  EXPECT_EQ(a.records(), 1u);
}

}  // namespace
}  // namespace darius::db
