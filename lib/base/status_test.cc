#include "lib/base/status.h"

#include <cerrno>

#include <gtest/gtest.h>

#include "lib/base/result.h"

namespace darius::base {
namespace {

TEST(Status, OkByDefaultAndCheap) {
  Status s;
  EXPECT_TRUE(s.isOk());
  EXPECT_EQ(s.toString(), "ok");
  EXPECT_TRUE(s.message().empty());
}

TEST(Status, CarriesCodeAndMessage) {
  Status s = Status::notFound("no such user");
  EXPECT_FALSE(s.isOk());
  EXPECT_TRUE(s.isNotFound());
  EXPECT_EQ(s.toString(), "not_found: no such user");
  EXPECT_EQ(s.withContext("login").toString(), "not_found: login: no such user");
  EXPECT_TRUE(Status().withContext("x").isOk());
}

TEST(Status, FromErrnoMapsToMailCodes) {
  EXPECT_EQ(Status::fromErrno(ENOENT, "open a").code(), Code::kNotFound);
  EXPECT_EQ(Status::fromErrno(EEXIST, "mkdir").code(), Code::kExists);
  EXPECT_EQ(Status::fromErrno(EACCES, "open").code(), Code::kPermission);
  EXPECT_EQ(Status::fromErrno(ENOSPC, "write").code(), Code::kIoError);
  EXPECT_EQ(Status::fromErrno(EDQUOT, "write").code(), Code::kOverQuota);
  EXPECT_EQ(Status::fromErrno(EWOULDBLOCK, "flock").code(), Code::kLocked);
  EXPECT_NE(Status::fromErrno(ENOENT, "open a").message().find("open a: "), std::string::npos);
}

TEST(Status, EveryCodeHasAName) {
  for (int c = 0; c <= static_cast<int>(Code::kTemporary); ++c) {
    EXPECT_NE(codeName(static_cast<Code>(c)), "unknown") << c;
  }
}

Result<int> half(int x) {
  if (x % 2) return Status::invalid("odd");
  return x / 2;
}

Result<int> quarter(int x) {
  DARIUS_ASSIGN_OR_RETURN(int h, half(x));
  DARIUS_ASSIGN_OR_RETURN(int q, half(h));
  return q;
}

Status checkEven(int x) {
  DARIUS_RETURN_IF_ERROR(half(x).status());
  return Status::ok();
}

TEST(Result, ValueOrError) {
  EXPECT_EQ(*quarter(8), 2);
  EXPECT_FALSE(quarter(6).ok());
  EXPECT_EQ(quarter(6).status().code(), Code::kInvalid);
  EXPECT_EQ(quarter(7).valueOr(-1), -1);
  EXPECT_TRUE(checkEven(2).isOk());
  EXPECT_FALSE(checkEven(3).isOk());
}

TEST(Result, OkStatusIsTurnedIntoAnError) {
  Result<int> r = Status::ok();
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalid);
}

TEST(Result, MoveOnlyValues) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(5);
  ASSERT_TRUE(r.ok());
  std::unique_ptr<int> p = std::move(r).value();
  EXPECT_EQ(*p, 5);
}

TEST(ResultDeathTest, ValueOfErrorAborts) {
  Result<int> r = Status::invalid("bad");
  EXPECT_DEATH((void)r.value(), "value\\(\\) of an error Result");
}

}  // namespace
}  // namespace darius::base
