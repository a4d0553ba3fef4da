// ACL parsing and evaluation (RFC 4314), and subscriptions on a real database.
#include <gtest/gtest.h>

#include "lib/io/temp_dir.h"
#include "mailbox/acl.h"
#include "mailbox/acl_identifier.h"
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

TEST(Acl, WireFormAddsTheVirtualRights) {
  // RFC 4314 §2.1.1: "c" with k, "d" with any of x, t, e; Cyrus's order.
  EXPECT_EQ(rightsToWire(right::kAll), "lrswipkxtecdan");
  EXPECT_EQ(rightsToWire(right::kLookup | right::kRead), "lr");
  EXPECT_EQ(rightsToWire(right::kCreate), "kc");
  EXPECT_EQ(rightsToWire(right::kExpunge), "ed");
  EXPECT_EQ(rightsToWire(*parseRights("cd")), "kxtecd");
  EXPECT_EQ(rightsToWire(0), "");
}

TEST(Acl, RightsChangesAddRemoveAndReplace) {
  Rights lr = right::kLookup | right::kRead;
  EXPECT_EQ(parseRightsChange("+sw")->applyTo(lr), lr | right::kSeen | right::kWrite);
  EXPECT_EQ(parseRightsChange("-r")->applyTo(lr), right::kLookup);
  EXPECT_EQ(parseRightsChange("i")->applyTo(lr), right::kInsert);
  EXPECT_EQ(parseRightsChange("")->applyTo(lr), 0u);
  EXPECT_EQ(parseRightsChange("-")->applyTo(lr), lr);
  EXPECT_EQ(parseRightsChange("+")->applyTo(lr), lr);
  // RFC 4314 §3.1: upper case, digits and unknown letters are refused, never ignored.
  using std::string_view_literals::operator""sv;
  for (std::string_view bad : {"lrQ"sv, "+q"sv, "-1"sv, "l r"sv, "++l"sv, "l+"sv, "l\0"sv}) {
    EXPECT_FALSE(parseRightsChange(bad).ok()) << bad;
  }
}

TEST(AclIdentifier, CanonicalFormsPerDomain) {
  NamespaceOptions o;
  o.default_domain = "home.example";
  auto ns = Namespace::create(o);
  ASSERT_TRUE(ns.ok());
  auto id = [&](std::string_view wire, std::string_view domain) {
    auto r = canonicalIdentifier(wire, *ns, domain);
    return r.ok() ? r->canonical : "!" + std::string(r.status().code() == base::Code::kPermission
                                                         ? "perm" : "invalid");
  };
  EXPECT_EQ(id("bob", ""), "bob");
  EXPECT_EQ(id("bob@home.example", ""), "bob") << "the default domain is no domain";
  EXPECT_EQ(id("bob", "example.com"), "bob@example.com") << "a bare name is of the mailbox's domain";
  EXPECT_EQ(id("bob@EXAMPLE.com", "example.com"), "bob@example.com");
  EXPECT_EQ(id("-bob", "example.com"), "-bob@example.com");
  EXPECT_EQ(id("AnyOne", "example.com"), "anyone");
  EXPECT_EQ(id("-anyone", ""), "-anyone");
  EXPECT_EQ(id("ANONYMOUS", ""), "anonymous");
  EXPECT_EQ(id("bob@other.org", "example.com"), "!perm");
  EXPECT_EQ(id("bob@example.com", ""), "!perm");
  for (std::string_view bad : {"", "-", "a\tb", "a@b@c", "bob@", "bob@bad_domain", "a\r\nb"}) {
    EXPECT_EQ(id(bad, ""), "!invalid") << bad;
  }
  EXPECT_EQ(id(std::string(600, 'x'), ""), "!invalid");
  auto neg = canonicalIdentifier("-Bob@example.com", *ns, "example.com");
  ASSERT_TRUE(neg.ok());
  EXPECT_TRUE(neg->negative);
  EXPECT_EQ(neg->subject(), "Bob@example.com") << "local parts keep their case";
}

TEST(AclIdentifier, OnlyGrantsToAUserAskWhetherTheUserExists) {
  auto ns = Namespace::create(NamespaceOptions{});
  ASSERT_TRUE(ns.ok());
  auto grants = [&](std::string_view wire, std::string_view rights) {
    auto id = canonicalIdentifier(wire, *ns, "");
    auto change = parseRightsChange(rights);
    EXPECT_TRUE(id.ok() && change.ok()) << wire << " " << rights;
    return grantsToUser(*id, *change);
  };
  EXPECT_TRUE(grants("bob", "lr"));
  EXPECT_TRUE(grants("bob", "+l"));
  EXPECT_TRUE(grants("-bob", "w")) << "a negative entry is written too";
  EXPECT_FALSE(grants("bob", "-lr")) << "taking rights away always works";
  EXPECT_FALSE(grants("bob", "")) << "empty rights delete the entry";
  EXPECT_FALSE(grants("anyone", "lr"));
  EXPECT_FALSE(grants("anonymous", "l"));
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
