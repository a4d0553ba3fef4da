#include "mailbox/namespace.h"

#include <gtest/gtest.h>

#include <random>

#include "lib/config/config.h"

namespace darius::mailbox {
namespace {

using base::Code;

Namespace makeNamespace(bool alt, bool unix_sep, bool virt = true,
                        std::string default_domain = "example.com") {
  NamespaceOptions o;
  o.alt_namespace = alt;
  o.unix_hierarchy_sep = unix_sep;
  o.virtual_domains = virt;
  o.default_domain = std::move(default_domain);
  auto ns = Namespace::create(o);
  EXPECT_TRUE(ns.ok()) << ns.status().toString();
  return std::move(ns).value();
}

// One conversion: `login` sends `external`; expect the internal name `internal` (toString
// form) or the error `code`. `canonical`: toExternal gives `external` back.
struct Row {
  const char* login;
  std::string external;
  std::string internal;
  Code code = Code::kOk;
  bool canonical = true;
};

constexpr Code kOk = Code::kOk;
Row ok(const char* login, std::string ext, std::string in, bool canonical = true) {
  return {login, std::move(ext), std::move(in), kOk, canonical};
}
Row err(const char* login, std::string ext, Code code) { return {login, std::move(ext), "", code}; }

void checkTable(const Namespace& ns, const std::vector<Row>& rows) {
  for (const Row& r : rows) {
    SCOPED_TRACE(std::string(r.login) + " sends \"" + r.external + "\"");
    auto user = ns.parseUser(r.login);
    ASSERT_TRUE(user.ok()) << user.status().toString();
    auto name = ns.toInternal(r.external, *user);
    if (r.code != kOk) {
      EXPECT_EQ(name.status().code(), r.code) << name.status().toString();
      continue;
    }
    ASSERT_TRUE(name.ok()) << name.status().toString();
    EXPECT_EQ(name->toString(), r.internal);
    auto back = ns.toExternal(*name, *user);
    ASSERT_TRUE(back.ok()) << back.status().toString();
    if (r.canonical) {
      EXPECT_EQ(*back, r.external);
    }
    auto again = ns.toInternal(*back, *user);  // the shown name always leads back
    ASSERT_TRUE(again.ok()) << again.status().toString();
    EXPECT_EQ(*again, *name);
  }
}

// Rows every mode shares (refusals that do not depend on the separator or the mode).
std::vector<Row> commonRefusals(char sep) {
  std::string s(1, sep);
  return {
      err("alice", "", Code::kInvalid),
      err("alice", "INBOX" + s, Code::kInvalid),
      err("alice", s + "INBOX", Code::kInvalid),
      err("alice", "INBOX" + s + s + "x", Code::kInvalid),
      err("alice", "a" + s + s + "b", Code::kInvalid),
      err("alice", "x\xff", Code::kInvalid),
      err("alice", "x\r\ny", Code::kInvalid),
      err("alice", std::string("x\0y", 3), Code::kInvalid),
      err("alice", "a*", Code::kInvalid),
      err("alice", "50%", Code::kInvalid),
      err("alice", std::string(491, 'x'), Code::kTooBig),
      err("alice", std::string(1 << 20, 'x'), Code::kTooBig),
  };
}

TEST(Namespace, StandardDot) {
  Namespace ns = makeNamespace(false, false);
  EXPECT_EQ(ns.separator(), '.');
  checkTable(ns, {
      ok("alice", "INBOX", "user/alice"),
      ok("alice", "inbox", "user/alice", false),
      ok("alice", "INBOX.Sent", "user/alice/Sent"),
      ok("alice", "InBoX.Sent", "user/alice/Sent", false),
      ok("alice", "INBOX.Sent.2024", "user/alice/Sent/2024"),
      ok("alice", "INBOX.a^b", "user/alice/a.b"),
      ok("alice", "INBOX.Entwürfe", "user/alice/Entwürfe"),
      ok("alice", "INBOX.x.INBOX", "user/alice/x/INBOX"),
      ok("alice@example.com", "INBOX", "user/alice"),
      ok("alice", "user.bob", "user/bob"),
      ok("alice", "user.bob.Trash", "user/bob/Trash"),
      ok("alice", "user.john^smith.x", "user/john.smith/x"),
      ok("alice", "user.alice.Sent", "user/alice/Sent", false),
      ok("alice", "news.misc", "shared/news/misc"),
      ok("alice", "User.x", "shared/User/x"),
      ok("alice", "Other Users.x", "shared/Other Users/x"),
      ok("bob@other.org", "INBOX", "other.org!user/bob"),
      ok("bob@Other.ORG", "user.carol.x", "other.org!user/carol/x"),
      ok("bob@other.org", "news", "other.org!shared/news"),
      err("alice", "INBOX.a/b", Code::kInvalid),
      err("alice", "INBOX.INBOX", Code::kInvalid),
      err("alice", "INBOX.Inbox.x", Code::kInvalid),
      err("alice", "INBOX.Other Users", Code::kInvalid),
      err("alice", "user", Code::kInvalid),
      err("alice", "user.anyone", Code::kInvalid),
      err("alice", "user.bob@other.org", Code::kPermission),
      err("bob@other.org", "user.alice@example.com.x", Code::kPermission),
  });
  checkTable(ns, commonRefusals('.'));
}

TEST(Namespace, StandardSlash) {
  Namespace ns = makeNamespace(false, true);
  EXPECT_EQ(ns.separator(), '/');
  checkTable(ns, {
      ok("alice", "INBOX", "user/alice"),
      ok("alice", "INBOX/Sent/2024", "user/alice/Sent/2024"),
      ok("alice", "inbox/a.b", "user/alice/a.b", false),
      ok("alice", "user/john.smith/x", "user/john.smith/x"),
      ok("alice", "news/comp.lang", "shared/news/comp.lang"),
      ok("alice", "INBOX.Sent", "shared/INBOX.Sent"),
      ok("bob@other.org", "user/carol", "other.org!user/carol"),
      err("alice", "INBOX/a^b", Code::kInvalid),
      err("alice", "INBOX/..", Code::kInvalid),
      err("alice", "user/..", Code::kInvalid),
      err("alice", "user/bob@other.org/x", Code::kPermission),
  });
  checkTable(ns, commonRefusals('/'));
}

TEST(Namespace, AltDot) {
  Namespace ns = makeNamespace(true, false);
  checkTable(ns, {
      ok("alice", "INBOX", "user/alice"),
      ok("alice", "Inbox", "user/alice", false),
      ok("alice", "Sent", "user/alice/Sent"),
      ok("alice", "Sent.2024", "user/alice/Sent/2024"),
      ok("alice", "a^b", "user/alice/a.b"),
      ok("alice", "user.bob", "user/alice/user/bob"),
      ok("alice", "INBOXES", "user/alice/INBOXES"),
      ok("alice", "Other Users.bob", "user/bob"),
      ok("alice", "Other Users.bob.Trash", "user/bob/Trash"),
      ok("alice", "Other Users.alice.x", "user/alice/x", false),
      ok("alice", "Shared Folders.news.misc", "shared/news/misc"),
      ok("bob@other.org", "Other Users.carol", "other.org!user/carol"),
      ok("bob@other.org", "Shared Folders.x", "other.org!shared/x"),
      err("alice", "INBOX.Sent", Code::kInvalid),
      err("alice", "Other Users", Code::kInvalid),
      err("alice", "Shared Folders", Code::kInvalid),
      err("alice", "Shared Folders.user", Code::kInvalid),
      err("alice", "Shared Folders.inbox.x", Code::kInvalid),
      err("alice", "Other Users.bob@other.org", Code::kPermission),
  });
  checkTable(ns, commonRefusals('.'));
}

TEST(Namespace, AltSlash) {
  Namespace ns = makeNamespace(true, true);
  checkTable(ns, {
      ok("alice", "INBOX", "user/alice"),
      ok("alice", "Sent/2024", "user/alice/Sent/2024"),
      ok("alice", "a.b", "user/alice/a.b"),
      ok("alice", "Other Users/john.smith/Trash", "user/john.smith/Trash"),
      ok("alice", "Shared Folders/news/misc", "shared/news/misc"),
      err("alice", "INBOX/x", Code::kInvalid),
      err("alice", "a^b", Code::kInvalid),
  });
  checkTable(ns, commonRefusals('/'));
}

TEST(Namespace, WithoutVirtualDomains) {
  Namespace ns = makeNamespace(false, false, /*virt=*/false);
  auto user = ns.parseUser("alice@example.com");
  ASSERT_TRUE(user.ok()) << user.status().toString();
  EXPECT_EQ(*user, (UserName{"alice@example.com", ""}));
  checkTable(ns, {
      ok("alice@example.com", "INBOX.x", "user/alice@example.com/x"),
      ok("alice", "user.bob@other^org.x", "user/bob@other.org/x"),
  });
}

TEST(Namespace, ParseUser) {
  Namespace ns = makeNamespace(false, false);
  EXPECT_EQ(*ns.parseUser("alice"), (UserName{"alice", ""}));
  EXPECT_EQ(*ns.parseUser("alice@example.com"), (UserName{"alice", ""}));
  EXPECT_EQ(*ns.parseUser("alice@EXAMPLE.Com"), (UserName{"alice", ""}));
  EXPECT_EQ(*ns.parseUser("Bob@Other.Org"), (UserName{"Bob", "other.org"}));
  EXPECT_EQ(ns.parseUser("Bob@Other.Org")->userId(), "Bob@other.org");
  for (const char* bad : {"", "@x.org", "a@", "a@b@c.org", "a@bad_domain", "a@-x.org", "anyone",
                          "anonymous@x.org", "a/b", "a^b", ".", "a\nb"}) {
    EXPECT_EQ(ns.parseUser(bad).status().code(), Code::kInvalid) << bad;
  }
  EXPECT_EQ(ns.inboxOf(*ns.parseUser("bob@x.org"))->toString(), "x.org!user/bob");
}

TEST(Namespace, OtherDomainsAreInvisible) {
  Namespace ns = makeNamespace(false, false);
  UserName alice = *ns.parseUser("alice");
  UserName bob = *ns.parseUser("bob@other.org");
  auto bobs = *MailboxName::personal("other.org", "bob", {"x"});
  EXPECT_EQ(ns.toExternal(bobs, alice).status().code(), Code::kPermission);
  EXPECT_EQ(*ns.toExternal(bobs, bob), "INBOX.x");
  auto news = *MailboxName::shared("", {"news"});
  EXPECT_EQ(ns.toExternal(news, bob).status().code(), Code::kPermission);
  EXPECT_EQ(*ns.toExternal(news, alice), "news");
}

TEST(Namespace, CreateChecksOptions) {
  NamespaceOptions o;
  o.default_domain = "Example.COM";
  auto ns = Namespace::create(o);
  ASSERT_TRUE(ns.ok());
  EXPECT_EQ(ns->options().default_domain, "example.com");
  o.default_domain = "not a domain";
  EXPECT_EQ(Namespace::create(o).status().code(), Code::kInvalid);
  o.default_domain = "";
  o.max_name_length = kMaxMailboxNameLength + 1;
  EXPECT_EQ(Namespace::create(o).status().code(), Code::kInvalid);

  o.max_name_length = 20;  // "user/alice/" is 11 bytes
  ns = Namespace::create(o);
  UserName alice = *ns->parseUser("alice");
  EXPECT_TRUE(ns->toInternal("INBOX.123456789", alice).ok());
  EXPECT_EQ(ns->toInternal("INBOX.1234567890", alice).status().code(), Code::kTooBig);
}

TEST(Namespace, FromConfig) {
  auto config = config::Config::parse(
      "altnamespace: yes\nunixhiersep: yes\nvirtdomains: no\ndefaultdomain: Example.org\n"
      "max_mailbox_name: 100\n",
      "t.conf", "");
  ASSERT_TRUE(config.ok()) << config.status().toString();
  auto ns = Namespace::fromConfig(*config);
  ASSERT_TRUE(ns.ok()) << ns.status().toString();
  EXPECT_TRUE(ns->options().alt_namespace);
  EXPECT_TRUE(ns->options().unix_hierarchy_sep);
  EXPECT_FALSE(ns->options().virtual_domains);
  EXPECT_EQ(ns->options().default_domain, "example.org");
  EXPECT_EQ(ns->options().max_name_length, 100u);

  auto defaults = Namespace::fromConfig(config::Config::defaults());
  ASSERT_TRUE(defaults.ok());
  EXPECT_TRUE(defaults->options().alt_namespace);  // as in Cyrus 3
  EXPECT_EQ(defaults->separator(), '/');
  EXPECT_TRUE(defaults->options().virtual_domains);
  EXPECT_EQ(defaults->options().max_name_length, 490u);
}

TEST(Namespace, NamespaceResponseData) {
  NamespaceData d = makeNamespace(false, false).namespaceData();
  EXPECT_EQ(d.personal, (std::vector<NamespacePrefix>{{"INBOX.", '.'}}));
  EXPECT_EQ(d.other_users, (std::vector<NamespacePrefix>{{"user.", '.'}}));
  EXPECT_EQ(d.shared, (std::vector<NamespacePrefix>{{"", '.'}}));
  d = makeNamespace(true, true).namespaceData();
  EXPECT_EQ(d.personal, (std::vector<NamespacePrefix>{{"", '/'}}));
  EXPECT_EQ(d.other_users, (std::vector<NamespacePrefix>{{"Other Users/", '/'}}));
  EXPECT_EQ(d.shared, (std::vector<NamespacePrefix>{{"Shared Folders/", '/'}}));
}

// Every valid internal name of the viewer's domain has an external name in every mode, and
// it converts back to the same internal name.
TEST(Namespace, EveryInternalNameRoundTripsInEveryMode) {
  std::mt19937 rng(99);
  static const std::vector<std::string> kPieces = {"a", "INBOX", "user", ".", " ", "é", "@",
                                                   "Other Users", "Shared Folders", "b"};
  auto word = [&] {
    std::string w;
    for (size_t i = 0, n = 1 + rng() % 2; i < n; ++i) w += kPieces[rng() % kPieces.size()];
    return w;
  };
  for (bool alt : {false, true}) {
    for (bool unix_sep : {false, true}) {
      Namespace ns = makeNamespace(alt, unix_sep);
      for (const char* login : {"alice", "bob@other.org"}) {
        UserName viewer = *ns.parseUser(login);
        int tried = 0;
        while (tried < 300) {
          std::vector<std::string> comps;
          for (size_t i = 0, n = rng() % 4; i < n; ++i) comps.push_back(word());
          std::string owner = rng() % 3 == 0 ? viewer.local : word();
          auto name = rng() % 3 == 0 ? MailboxName::shared(viewer.domain, comps)
                                     : MailboxName::personal(viewer.domain, owner, comps);
          if (!name.ok()) continue;
          ++tried;
          auto ext = ns.toExternal(*name, viewer);
          if (name->owner().find('@') != std::string::npos) {
            EXPECT_EQ(ext.status().code(), Code::kPermission) << name->toString();
            continue;
          }
          ASSERT_TRUE(ext.ok()) << name->toString() << ": " << ext.status().toString();
          auto back = ns.toInternal(*ext, viewer);
          ASSERT_TRUE(back.ok()) << "\"" << *ext << "\": " << back.status().toString();
          EXPECT_EQ(*back, *name) << "\"" << *ext << "\" alt=" << alt << " unix=" << unix_sep;
        }
      }
    }
  }
}

}  // namespace
}  // namespace darius::mailbox
