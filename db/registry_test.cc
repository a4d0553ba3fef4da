#include <gtest/gtest.h>

#include "db/db.h"

namespace darius::db {
namespace {

TEST(Registry, BackendNames) {
  for (Backend b : {Backend::kSkiplist, Backend::kBerkeley, Backend::kFlat}) {
    auto parsed = parseBackend(backendName(b));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, b);
  }
  EXPECT_EQ(parseBackend("twoskip").status().code(), base::Code::kInvalid);
}

TEST(Range, Prefix) {
  Range r = Range::prefix("user.bob");
  EXPECT_TRUE(r.contains("user.bob"));
  EXPECT_TRUE(r.contains("user.bob.Sent"));
  EXPECT_FALSE(r.contains("user.boc"));
  EXPECT_FALSE(r.contains("user.bo"));
  ASSERT_TRUE(r.end);
  EXPECT_EQ(*r.end, "user.boc");
  Range ff = Range::prefix(std::string("a\xff\xff", 3));
  ASSERT_TRUE(ff.end);
  EXPECT_EQ(*ff.end, "b");
  EXPECT_TRUE(ff.contains(std::string("a\xff\xff\x01", 4)));
  EXPECT_FALSE(Range::prefix(std::string("\xff", 1)).end);
  EXPECT_TRUE(Range::all().contains("anything"));
}

TEST(Records, Limits) {
  EXPECT_TRUE(validateRecord("k", "").isOk());
  EXPECT_EQ(validateRecord("", "v").code(), base::Code::kInvalid);
  EXPECT_EQ(validateRecord(std::string(kMaxKeySize + 1, 'k'), "v").code(), base::Code::kTooBig);
  EXPECT_TRUE(validateRecord(std::string(kMaxKeySize, 'k'), "v").isOk());
}

}  // namespace
}  // namespace darius::db
