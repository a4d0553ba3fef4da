#include "mailbox/mailbox_path.h"

#include <gtest/gtest.h>

#include <random>

#include "lib/io/path.h"

namespace darius::mailbox {
namespace {

using base::Code;
using std::string_literals::operator""s;

TEST(MailboxPath, Layout) {
  struct Case {
    std::string internal;  // MailboxName::parse form
    std::string dir;
  };
  const std::vector<Case> cases = {
      {"user/alice", "user/alice"},
      {"user/alice/Sent", "user/alice/Sent"},
      {"user/alice/Sent/2024", "user/alice/Sent/2024"},
      {"user/john.smith/a.b", "user/john.smith/a%2Eb"},
      {"user/alice/x.", "user/alice/x%2E"},
      {"user/alice/.hidden", "user/alice/%2Ehidden"},
      {"user/alice/darius.index", "user/alice/darius%2Eindex"},
      {"user/alice/123.", "user/alice/123%2E"},
      {"user/alice/Entwürfe 🙂", "user/alice/Entwürfe 🙂"},
      {"user/a@legacy.org/x", "user/a@legacy.org/x"},
      {"shared/news/comp.lang.c", "shared/news/comp%2Elang%2Ec"},
      {"example.com!user/bob/Trash", "domain/example.com/user/bob/Trash"},
      {"example.com!shared/x", "domain/example.com/shared/x"},
  };
  for (const Case& c : cases) {
    auto name = MailboxName::parse(c.internal);
    ASSERT_TRUE(name.ok()) << c.internal << ": " << name.status().toString();
    auto rel = mailboxRelativeDir(*name);
    ASSERT_TRUE(rel.ok()) << rel.status().toString();
    EXPECT_EQ(*rel, c.dir);
    EXPECT_EQ(*mailboxDir("/srv/part1", *name), "/srv/part1/" + c.dir);
    auto back = mailboxNameFromRelativeDir(c.dir);
    ASSERT_TRUE(back.ok()) << c.dir << ": " << back.status().toString();
    EXPECT_EQ(*back, *name);
    auto from_dir = mailboxNameFromDir("/srv/part1/", "/srv/part1/" + c.dir);
    ASSERT_TRUE(from_dir.ok()) << from_dir.status().toString();
    EXPECT_EQ(*from_dir, *name);
  }
}

TEST(MailboxPath, RejectsWhatIsNotAMailboxDirectory) {
  const std::vector<std::string> bad = {
      "",
      "user",
      "shared",
      "domain",
      "domain/x.org",
      "domain/x.org/user",
      "domain/X.org/user/a",
      "domain/x..org/user/a",
      "domain/x.org/foo/a",
      "domain/x.org/domain/y.org/user/a",
      "stage/x",
      "deleted/user/a",
      "/user/alice",
      "user/alice/",
      "user//alice",
      "user/alice//x",
      "user/alice/a.b",          // raw '.' in a component: a file name, not a mailbox
      "user/alice/darius.index",
      "user/alice/12.",
      "user/alice/a%2eb",        // lower-case hex is not canonical
      "user/alice/%41",          // 'A' needs no escape
      "user/alice/%2",
      "user/alice/%",
      "user/alice/%ZZ",
      "user/alice/%2E%2E",       // ".."
      "user/alice/%2E",          // "."
      "user/alice/x%00y",        // NUL
      "user/alice/x%2Fy",        // '/'
      "user/alice/50%25",        // '%' is escaped fine, but refused in names
      "user/alice/a^b",
      "user/alice/INBOX",
      "user/%2E%2E",
      "user/a%2Eb",              // '.' is not escaped in user names
      "user/anyone",
      "user/a\xff",
      "shared/user",
      "shared/x\n",
      "domain/x.org/user/a@b",
  };
  for (const std::string& rel : bad) {
    auto n = mailboxNameFromRelativeDir(rel);
    EXPECT_EQ(n.status().code(), Code::kInvalid) << rel << " -> " << n.status().toString();
  }
  EXPECT_FALSE(mailboxNameFromDir("/srv/p", "/srv/pp/user/a").ok());
  EXPECT_FALSE(mailboxNameFromDir("/srv/p", "/srv/p").ok());
  EXPECT_FALSE(mailboxNameFromDir("/srv/p", "/srv/p/").ok());
  EXPECT_FALSE(mailboxNameFromDir("/srv/p", "user/a").ok());
  EXPECT_EQ(*mailboxNameFromDir("/srv/p", "/srv/q/../p/user/a"),
            *MailboxName::personal("", "a"));
  EXPECT_EQ(*mailboxNameFromDir("/", "/shared/x"), *MailboxName::shared("", {"x"}));
}

TEST(MailboxPath, LimitsAreKTooBig) {
  // 85 dots escape to 255 bytes: the longest entry; 86 do not fit.
  auto fits = MailboxName::personal("", "a", {std::string(85, '.')});
  ASSERT_TRUE(fits.ok());
  EXPECT_TRUE(mailboxRelativeDir(*fits).ok());
  auto over = MailboxName::personal("", "a", {std::string(86, '.')});
  ASSERT_TRUE(over.ok());
  EXPECT_EQ(mailboxRelativeDir(*over).status().code(), Code::kTooBig);
  // Sixteen 255-byte entries pass NAME_MAX but not PATH_MAX.
  std::vector<std::string> deep(16, std::string(85, '.'));
  auto long_path = MailboxName::personal("", "a", deep);
  ASSERT_TRUE(long_path.ok()) << long_path.status().toString();
  EXPECT_EQ(mailboxRelativeDir(*long_path).status().code(), Code::kTooBig);
  deep.resize(15);
  auto shorter = MailboxName::personal("", "a", deep);
  auto rel = mailboxRelativeDir(*shorter);
  ASSERT_TRUE(rel.ok());
  EXPECT_EQ(mailboxDir(std::string(300, 'r'), *shorter).status().code(), Code::kTooBig);
  EXPECT_EQ(mailboxNameFromRelativeDir(std::string(5000, 'a')).status().code(), Code::kInvalid);
}

TEST(MailboxPath, EntriesWithADotAreFiles) {
  EXPECT_FALSE(mayBeChildMailboxDir("123."));
  EXPECT_FALSE(mayBeChildMailboxDir("darius.index"));
  EXPECT_FALSE(mayBeChildMailboxDir("darius.header.NEW"));
  EXPECT_FALSE(mayBeChildMailboxDir(""));
  EXPECT_TRUE(mayBeChildMailboxDir("Sent"));
  EXPECT_TRUE(mayBeChildMailboxDir("a%2Eb"));
}

// Random names round-trip through their directory, and no mailbox component is ever written
// in a way that could collide with a message or metadata file.
TEST(MailboxPath, RandomNamesRoundTripAndNeverLookLikeFiles) {
  std::mt19937 rng(4242);
  static const std::vector<std::string> kPieces = {
      ".", "..", "a", "darius", "1", "2", " ", "~", "!", "#", "&", "é", "日", "🙂", "@", "-"};
  auto word = [&] {
    std::string w;
    for (size_t i = 0, n = 1 + rng() % 5; i < n; ++i) w += kPieces[rng() % kPieces.size()];
    return w;
  };
  int checked = 0;
  while (checked < 2000) {
    std::vector<std::string> comps;
    for (size_t i = 0, n = rng() % 4; i < n; ++i) comps.push_back(word());
    if (rng() % 5 == 0) comps.insert(comps.begin(), "darius.index");
    std::string domain = rng() % 3 == 0 ? "ex-1.example.org" : "";
    auto name = rng() % 3 == 0 ? MailboxName::shared(domain, comps)
                               : MailboxName::personal(domain, word(), comps);
    if (!name.ok()) continue;
    ++checked;
    auto rel = mailboxRelativeDir(*name);
    ASSERT_TRUE(rel.ok()) << name->toString() << ": " << rel.status().toString();
    auto back = mailboxNameFromRelativeDir(*rel);
    ASSERT_TRUE(back.ok()) << *rel << ": " << back.status().toString();
    EXPECT_EQ(*back, *name) << *rel;
    for (const std::string& c : name->components()) {
      std::string e = encodeComponentDir(c);
      EXPECT_TRUE(mayBeChildMailboxDir(e)) << e;
      EXPECT_FALSE(e.ends_with('.')) << e;
      EXPECT_FALSE(e.starts_with("darius.")) << e;
      EXPECT_NE(e, ".");
      EXPECT_NE(e, "..");
      EXPECT_EQ(*decodeComponentDir(e), c);
    }
    std::vector<std::string> parts = io::splitPath(*rel);
    const size_t owner_at = (name->domain().empty() ? 0 : 2) + 1;
    if (name->isPersonal()) {
      EXPECT_EQ(*decodeOwnerDir(parts[owner_at], !name->domain().empty()), name->owner());
    }
  }
}

// Arbitrary bytes: encoding is total and decoding is its exact inverse (or a clean refusal
// when the bytes are not a valid component); random directory strings never crash.
TEST(MailboxPath, ArbitraryBytes) {
  std::mt19937 rng(5);
  for (int i = 0; i < 5000; ++i) {
    std::string raw;
    for (size_t k = 0, n = 1 + rng() % 12; k < n; ++k) raw += static_cast<char>(rng() % 256);
    std::string e = encodeComponentDir(raw);
    auto d = decodeComponentDir(e);
    if (d.ok()) {
      EXPECT_EQ(*d, raw);
    } else {
      EXPECT_EQ(d.status().code(), Code::kInvalid);
      EXPECT_FALSE(validateComponent(raw).isOk()) << printableBytes(raw);
    }
    std::string garbage = "user/" + raw + "/" + e;
    auto n = mailboxNameFromRelativeDir(garbage);
    if (n.ok()) {
      EXPECT_EQ(*mailboxRelativeDir(*n), garbage);
    }
  }
}

}  // namespace
}  // namespace darius::mailbox
