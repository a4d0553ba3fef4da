// The `admins` option: parsing, scopes, and who may act as whom.
#include "auth/admins.h"

#include <gtest/gtest.h>

namespace darius::auth {
namespace {

UserId id(std::string local, std::string domain = "") { return {std::move(local), std::move(domain)}; }

TEST(Admins, SplitsLikeTheNamespace) {
  EXPECT_EQ(splitUserId("alice", true, ""), id("alice"));
  EXPECT_EQ(splitUserId("Admin@Example.COM", true, ""), id("Admin", "example.com"));
  EXPECT_EQ(splitUserId("bob@example.com", true, "EXAMPLE.com"), id("bob"));
  EXPECT_EQ(splitUserId("a@b@c.org", true, ""), id("a@b", "c.org"));
  EXPECT_EQ(splitUserId("bob@example.com", false, ""), id("bob@example.com"));
}

TEST(Admins, GlobalAndDomainScopes) {
  auto a = Admins::parse("cyrus, admin@example.com\tadmin@example.com", true, "");
  ASSERT_TRUE(a.ok()) << a.status().toString();
  EXPECT_EQ(a->ids().size(), 2u);
  EXPECT_TRUE(a->isGlobal(id("cyrus")));
  EXPECT_TRUE(a->administers(id("cyrus"), ""));
  EXPECT_TRUE(a->administers(id("cyrus"), "other.org"));
  EXPECT_FALSE(a->isGlobal(id("admin", "example.com")));
  EXPECT_TRUE(a->administers(id("admin", "example.com"), "example.com"));
  EXPECT_FALSE(a->administers(id("admin", "example.com"), ""));
  EXPECT_FALSE(a->administers(id("admin", "example.com"), "other.org"));
  // Same local part, other domain: not an admin at all.
  EXPECT_FALSE(a->isAdmin(id("admin", "other.org")));
  EXPECT_FALSE(a->isAdmin(id("cyrus", "example.com")));
  // Nobody else, whatever ACLs say: `anyone` is no user id here.
  EXPECT_FALSE(a->isAdmin(id("anyone")));
  EXPECT_FALSE(a->mayActAs(id("alice"), id("alice")));
}

TEST(Admins, ProxyStaysInTheScope) {
  auto a = Admins::parse("cyrus admin@example.com", true, "");
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->mayActAs(id("cyrus"), id("bob", "example.com")));
  EXPECT_TRUE(a->mayActAs(id("admin", "example.com"), id("bob", "example.com")));
  EXPECT_FALSE(a->mayActAs(id("admin", "example.com"), id("bob", "other.org")));
  EXPECT_FALSE(a->mayActAs(id("admin", "example.com"), id("bob")));
  EXPECT_TRUE(a->mayLogInAs("Admin@EXAMPLE.com", "bob@example.com") == false);  // local is exact
  EXPECT_TRUE(a->mayLogInAs("admin@EXAMPLE.com", "bob@Example.com"));
  EXPECT_FALSE(a->mayLogInAs("bob@example.com", "admin@example.com"));
}

TEST(Admins, WithoutVirtualDomainsEveryAdminIsGlobal) {
  auto a = Admins::parse("admin@example.com", false, "");
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->isGlobal(id("admin@example.com")));
}

TEST(Admins, BadListsAreRefused) {
  EXPECT_TRUE(Admins::parse("", true, "")->ids().empty());
  EXPECT_TRUE(Admins::parse(" , ", true, "")->ids().empty());
  EXPECT_EQ(Admins::parse("@example.com", true, "").status().code(), base::Code::kInvalid);
  EXPECT_EQ(Admins::parse("admin@", true, "").status().code(), base::Code::kInvalid);
}

}  // namespace
}  // namespace darius::auth
