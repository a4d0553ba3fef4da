#include "lib/io/path.h"

#include <gtest/gtest.h>

namespace darius::io {
namespace {

TEST(Path, ParentDir) {
  EXPECT_EQ(parentDir("a/b"), "a");
  EXPECT_EQ(parentDir("/a"), "/");
  EXPECT_EQ(parentDir("/"), "/");
  EXPECT_EQ(parentDir("a"), ".");
  EXPECT_EQ(parentDir("a/b/"), "a");
  EXPECT_EQ(parentDir("/x/y//z"), "/x/y");
  EXPECT_EQ(parentDir("//a"), "/");
}

TEST(Path, BaseName) {
  EXPECT_EQ(baseName("a/b"), "b");
  EXPECT_EQ(baseName("a/b/"), "b");
  EXPECT_EQ(baseName("b"), "b");
  EXPECT_EQ(baseName("/"), "/");
  EXPECT_EQ(baseName(""), "");
}

TEST(Path, JoinPath) {
  EXPECT_EQ(joinPath("a", "b"), "a/b");
  EXPECT_EQ(joinPath("a/", "b"), "a/b");
  EXPECT_EQ(joinPath("/", "b"), "/b");
  EXPECT_EQ(joinPath("a", "/b"), "/b");
  EXPECT_EQ(joinPath("", "b"), "b");
  EXPECT_EQ(joinPath("a", ""), "a");
}

TEST(Path, Normalize) {
  EXPECT_EQ(normalizePath("/a//b/./c/"), "/a/b/c");
  EXPECT_EQ(normalizePath("/a/b/../c"), "/a/c");
  EXPECT_EQ(normalizePath("/.."), "/");
  EXPECT_EQ(normalizePath("../a/.."), "..");
  EXPECT_EQ(normalizePath("a/../.."), "..");
  EXPECT_EQ(normalizePath(""), ".");
  EXPECT_EQ(normalizePath("./"), ".");
  EXPECT_EQ(normalizePath("/"), "/");
}

TEST(Path, SplitAndAbsolute) {
  EXPECT_EQ(splitPath("/a//b/"), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(splitPath("/").empty());
  base::Result<std::string> abs = absolutePath("x/../y");
  ASSERT_TRUE(abs.ok());
  EXPECT_EQ(abs->front(), '/');
  EXPECT_EQ(baseName(*abs), "y");
  EXPECT_EQ(*absolutePath("/p/./q"), "/p/q");
}

}  // namespace
}  // namespace darius::io
