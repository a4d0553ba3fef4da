// ACL parsing and evaluation (RFC 4314), and subscriptions on a real database.
#include <gtest/gtest.h>

#include "lib/io/temp_dir.h"
#include "mailbox/acl.h"
#include "mailbox/subscriptions.h"

namespace darius::mailbox {
namespace {

TEST(Acl, ParsesEvaluatesAndPrints) {
  auto acl = Acl::parse("alice\tlrswipkxtean\tanyone\tlr\t-bob\tr\tcarol\tlrc");
  ASSERT_TRUE(acl.ok()) << acl.status().toString();
  EXPECT_EQ(acl->rightsOf("alice", false), right::kAll);
  EXPECT_EQ(acl->rightsOf("dave", false), right::kLookup | right::kRead);
  EXPECT_EQ(acl->rightsOf("bob", false), right::kLookup) << "negative rights win";
  EXPECT_EQ(acl->get("carol"), right::kLookup | right::kRead | right::kCreate) << "c is k";
  EXPECT_EQ(rightsToString(acl->get("carol")), "lrk");
  EXPECT_EQ(acl->toString(), "alice\tlrswipkxtean\tanyone\tlr\t-bob\tr\tcarol\tlrk");
  // The owner cannot lock themselves out.
  Acl empty;
  EXPECT_EQ(empty.rightsOf("alice", true), kImplicitOwnerRights);
  EXPECT_EQ(empty.rightsOf("alice", false), 0u);
  // d is the old delete: xte.
  EXPECT_EQ(*parseRights("d"), right::kDeleteMailbox | right::kDeleteMessage | right::kExpunge);
}

TEST(Acl, RefusesMalformed) {
  EXPECT_FALSE(Acl::parse("alice").ok());
  EXPECT_FALSE(Acl::parse("alice\tlr\tbob").ok());
  EXPECT_FALSE(Acl::parse("\tlr").ok());
  EXPECT_FALSE(Acl::parse("alice\tlr1").ok());
  EXPECT_FALSE(parseRights("Z").ok());
  EXPECT_TRUE(Acl::parse("").ok());
}

TEST(Acl, SetReplacesAndRemoves) {
  Acl acl = Acl::ownerDefault("alice");
  acl.set("bob", right::kLookup);
  acl.set("bob", right::kRead | right::kLookup);
  EXPECT_EQ(acl.entries().size(), 2u);
  acl.set("bob", 0);
  EXPECT_EQ(acl.entries().size(), 1u);
  EXPECT_EQ(acl.get("bob"), 0u);
}

TEST(Acl, EffectiveRightsAddTheImplicitOnes) {
  const std::string stored = "bob\tlr\tanyone\tl\t-bob\tl";
  // bob: lr from his entry, l from anyone, minus l from the negative entry.
  EXPECT_EQ(effectiveRights(stored, "bob", false, false), right::kRead);
  // An admin of the mailbox's domain always has l and a, never r through that status.
  EXPECT_EQ(effectiveRights(stored, "carol", false, true), right::kLookup | right::kAdmin);
  EXPECT_EQ(effectiveRights(stored, "bob", false, true),
            right::kRead | right::kLookup | right::kAdmin);
  // The owner keeps l and a (and k, x) even when negative rights take them away.
  EXPECT_EQ(effectiveRights("alice\tr\t-alice\tlrswipkxtean", "alice", true, false),
            kImplicitOwnerRights);
  // A damaged ACL grants only the implicit rights.
  EXPECT_EQ(effectiveRights("bob\tlr\tdangling", "bob", false, false), 0u);
  EXPECT_EQ(effectiveRights("bob\tlr\tdangling", "bob", false, true), kImplicitAdminRights);
}

TEST(Subscriptions, SubscribeListRenameAndSurviveReopen) {
  auto t = io::TempDir::create("subs");
  ASSERT_TRUE(t.ok());
  auto name = [](std::vector<std::string> c) {
    return *MailboxName::personal("", "alice", std::move(c));
  };
  {
    auto s = Subscriptions::open(t->file("subs.db"), db::Backend::kSkiplist);
    ASSERT_TRUE(s.ok()) << s.status().toString();
    ASSERT_TRUE((*s)->subscribe("alice", name({"Work"})).isOk());
    ASSERT_TRUE((*s)->subscribe("alice", name({"Work", "Old"})).isOk());
    ASSERT_TRUE((*s)->subscribe("alice", name({"Work"})).isOk());
    ASSERT_TRUE((*s)->subscribe("bob", name({"Other"})).isOk());
    ASSERT_TRUE((*s)->unsubscribe("alice", name({"Nope"})).isOk());
    ASSERT_TRUE((*s)->rename("alice", name({"Work"}), name({"Job"})).isOk());
  }
  auto s = Subscriptions::open(t->file("subs.db"), db::Backend::kSkiplist);
  ASSERT_TRUE(s.ok());
  auto l = (*s)->list("alice");
  ASSERT_TRUE(l.ok());
  ASSERT_EQ(l->size(), 2u);
  EXPECT_EQ((*l)[0].toString(), "user/alice/Job");
  EXPECT_EQ((*l)[1].toString(), "user/alice/Job/Old");
  EXPECT_FALSE(*(*s)->isSubscribed("alice", name({"Work"})));
  EXPECT_EQ((*s)->list("bob")->size(), 1u);
  EXPECT_FALSE((*s)->subscribe("", name({"x"})).isOk());
}

}  // namespace
}  // namespace darius::mailbox
