#include "lib/base/split.h"

#include <gtest/gtest.h>

namespace darius::base {
namespace {

using V = std::vector<std::string_view>;

TEST(Split, KeepsEmptyFieldsAtEveryPosition) {
  EXPECT_EQ(split("a:b:c", ':'), (V{"a", "b", "c"}));
  EXPECT_EQ(split("a::b", ':'), (V{"a", "", "b"}));
  EXPECT_EQ(split(":a:", ':'), (V{"", "a", ""}));
  EXPECT_EQ(split("", ':'), (V{""}));
  EXPECT_EQ(split("abc", ':'), (V{"abc"}));
}

}  // namespace
}  // namespace darius::base
