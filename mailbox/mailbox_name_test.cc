#include "mailbox/mailbox_name.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace darius::mailbox {
namespace mailbox_name_test {

using base::Code;
using std::string_literals::operator""s;

MailboxName personal(std::string domain, std::string owner, std::vector<std::string> comps = {}) {
  auto n = MailboxName::personal(std::move(domain), std::move(owner), std::move(comps));
  EXPECT_TRUE(n.ok()) << n.status().toString();
  return std::move(n).value();
}

MailboxName shared(std::string domain, std::vector<std::string> comps) {
  auto n = MailboxName::shared(std::move(domain), std::move(comps));
  EXPECT_TRUE(n.ok()) << n.status().toString();
  return std::move(n).value();
}

TEST(MailboxName, PartsAndForms) {
  MailboxName inbox = personal("", "alice");
  EXPECT_TRUE(inbox.isInbox());
  EXPECT_TRUE(inbox.isPersonal());
  EXPECT_EQ(inbox.userId(), "alice");
  EXPECT_EQ(inbox.toString(), "user/alice");
  EXPECT_EQ(inbox.key(), "\0u\0alice"s);

  MailboxName sent = personal("example.com", "bob", {"Sent", "2024 é"});
  EXPECT_FALSE(sent.isInbox());
  EXPECT_EQ(sent.userId(), "bob@example.com");
  EXPECT_EQ(sent.toString(), "example.com!user/bob/Sent/2024 é");
  EXPECT_EQ(sent.key(), "example.com\0u\0bob\0Sent\0002024 é"s);
  EXPECT_EQ(sent.subtreePrefix(), sent.key() + '\0');

  MailboxName news = shared("", {"news", "comp.lang"});
  EXPECT_TRUE(news.isShared());
  EXPECT_EQ(news.owner(), "");
  EXPECT_EQ(news.userId(), "");
  EXPECT_EQ(news.toString(), "shared/news/comp.lang");
  EXPECT_EQ(news.key(), "\0s\0news\0comp.lang"s);

  for (const MailboxName& n : {inbox, sent, news}) {
    EXPECT_EQ(n.length(), n.toString().size());
    auto back = MailboxName::parse(n.toString());
    ASSERT_TRUE(back.ok()) << back.status().toString();
    EXPECT_EQ(*back, n);
    auto from_key = MailboxName::fromKey(n.key());
    ASSERT_TRUE(from_key.ok()) << from_key.status().toString();
    EXPECT_EQ(*from_key, n);
  }
  // Without virtual domains '@' is part of the user name.
  MailboxName at = personal("", "carol@legacy");
  EXPECT_EQ(at.userId(), "carol@legacy");
  EXPECT_EQ(*MailboxName::parse("user/carol@legacy/x!y"), personal("", "carol@legacy", {"x!y"}));
}

struct Refusal {
  const char* what;
  std::string domain;
  bool is_personal;
  std::string owner;
  std::vector<std::string> comps;
  Code code;
};

TEST(MailboxName, Refusals) {
  const std::string huge(kMaxMailboxNameLength, 'x');
  const std::vector<Refusal> cases = {
      {"empty component", "", true, "a", {"x", ""}, Code::kInvalid},
      {"dot", "", true, "a", {"."}, Code::kInvalid},
      {"dotdot", "", false, "", {"x", ".."}, Code::kInvalid},
      {"NUL", "", true, "a", {"x\0y"s}, Code::kInvalid},
      {"CR", "", true, "a", {"x\ry"}, Code::kInvalid},
      {"LF", "", true, "a", {"x\n"}, Code::kInvalid},
      {"TAB", "", true, "a", {"\tx"}, Code::kInvalid},
      {"DEL", "", true, "a", {"x\x7f"}, Code::kInvalid},
      {"C1 control U+0085", "", true, "a", {"x\xc2\x85"}, Code::kInvalid},
      {"invalid UTF-8", "", true, "a", {"x\xff"}, Code::kInvalid},
      {"overlong UTF-8", "", true, "a", {"\xc0\xaf"}, Code::kInvalid},
      {"surrogate", "", true, "a", {"\xed\xa0\x80"}, Code::kInvalid},
      {"truncated UTF-8", "", true, "a", {"caf\xc3"}, Code::kInvalid},
      {"slash", "", true, "a", {"x/y"}, Code::kInvalid},
      {"caret", "", true, "a", {"x^y"}, Code::kInvalid},
      {"percent", "", true, "a", {"50%"}, Code::kInvalid},
      {"star", "", false, "", {"a*"}, Code::kInvalid},
      {"personal INBOX", "", true, "a", {"inbox"}, Code::kInvalid},
      {"Other Users", "", true, "a", {"Other Users"}, Code::kInvalid},
      {"Shared Folders", "", true, "a", {"Shared Folders", "x"}, Code::kInvalid},
      {"shared user", "", false, "", {"user", "bob"}, Code::kInvalid},
      {"shared INBOX", "", false, "", {"Inbox"}, Code::kInvalid},
      {"shared root", "", false, "", {}, Code::kInvalid},
      {"empty owner", "", true, "", {}, Code::kInvalid},
      {"owner dot", "", true, ".", {}, Code::kInvalid},
      {"owner slash", "", true, "a/b", {}, Code::kInvalid},
      {"owner @ with domain", "example.com", true, "a@b", {}, Code::kInvalid},
      {"owner anyone", "", true, "anyone", {}, Code::kInvalid},
      {"owner anonymous", "x.org", true, "anonymous", {}, Code::kInvalid},
      {"owner control", "", true, "a\x01", {}, Code::kInvalid},
      {"upper-case domain", "Example.com", true, "a", {}, Code::kInvalid},
      {"domain empty label", "example..com", true, "a", {}, Code::kInvalid},
      {"domain trailing dot", "example.com.", true, "a", {}, Code::kInvalid},
      {"domain hyphen", "-x.com", true, "a", {}, Code::kInvalid},
      {"domain UTF-8", "bücher.de", true, "a", {}, Code::kInvalid},
      {"domain slash", "a/b", true, "a", {}, Code::kInvalid},
      {"too long", "", true, "a", {huge}, Code::kTooBig},
      {"megabyte", "", false, "", {std::string(1 << 20, 'y')}, Code::kTooBig},
  };
  for (const Refusal& c : cases) {
    auto n = c.is_personal ? MailboxName::personal(c.domain, c.owner, c.comps)
                           : MailboxName::shared(c.domain, c.comps);
    EXPECT_EQ(n.status().code(), c.code) << c.what << ": " << n.status().toString();
  }
  // '.' ".." inside longer components, spaces, '@', '!' and UTF-8 are all fine.
  EXPECT_TRUE(MailboxName::personal("", "a", {"a..b", " x ", "@!#&", "日本語", "🙂"}).ok());
  EXPECT_TRUE(MailboxName::personal("", "a", {"x", "INBOX", "Other Users"}).ok());
  EXPECT_TRUE(MailboxName::shared("", {"User"}).ok());
  EXPECT_TRUE(MailboxName::personal("xn--bcher-kva.de", "a").ok());
}

TEST(MailboxName, LengthLimitIsExact) {
  // "shared/" + c: 7 + size bytes.
  auto fits = MailboxName::shared("", {std::string(kMaxMailboxNameLength - 7, 'a')});
  ASSERT_TRUE(fits.ok()) << fits.status().toString();
  EXPECT_EQ(fits->length(), kMaxMailboxNameLength);
  EXPECT_EQ(MailboxName::shared("", {std::string(kMaxMailboxNameLength - 6, 'a')})
                .status()
                .code(),
            Code::kTooBig);
  EXPECT_FALSE(fits->parent().has_value());
  EXPECT_EQ(MailboxName::shared("", {"a"})->child(std::string(kMaxMailboxNameLength, 'b'))
                .status()
                .code(),
            Code::kTooBig);
}

TEST(MailboxName, ParseRefusesOtherText) {
  for (std::string_view text :
       {"", "user", "user/", "shared", "shared/", "user//x", "user/a/", "!user/a", "Ex.com!user/a",
        "example.com", "example.com!", "example.com!user", "inbox/a", "/user/a", "users/a",
        "example.com!shared/user"}) {
    EXPECT_FALSE(MailboxName::parse(text).ok()) << text;
  }
  EXPECT_EQ(*MailboxName::parse("example.com!shared/x"), shared("example.com", {"x"}));
}

TEST(MailboxName, Hierarchy) {
  MailboxName inbox = personal("d.org", "u");
  MailboxName a = personal("d.org", "u", {"a"});
  MailboxName ab = personal("d.org", "u", {"a", "b"});
  MailboxName ab2 = personal("d.org", "u", {"ab"});
  EXPECT_TRUE(inbox.contains(inbox));
  EXPECT_TRUE(inbox.contains(ab));
  EXPECT_TRUE(a.contains(ab));
  EXPECT_FALSE(a.contains(ab2));
  EXPECT_FALSE(ab.contains(a));
  EXPECT_FALSE(personal("", "u").contains(a));         // other domain
  EXPECT_FALSE(personal("d.org", "v").contains(a));    // other owner
  EXPECT_FALSE(shared("d.org", {"a"}).contains(ab));  // other kind

  EXPECT_EQ(ab.parent(), a);
  EXPECT_EQ(a.parent(), inbox);
  EXPECT_FALSE(inbox.parent().has_value());
  EXPECT_EQ(shared("", {"x", "y"}).parent(), shared("", {"x"}));
  EXPECT_EQ(*a.child("b"), ab);
  EXPECT_EQ(inbox.child("INBOX").status().code(), Code::kInvalid);
  EXPECT_EQ(a.child("b/c").status().code(), Code::kInvalid);

  MailboxName x = shared("d.org", {"x"});
  EXPECT_EQ(*ab.rebased(a, x), shared("d.org", {"x", "b"}));
  EXPECT_EQ(*a.rebased(a, x), x);
  EXPECT_EQ(*ab.rebased(inbox, personal("d.org", "w")), personal("d.org", "w", {"a", "b"}));
  EXPECT_EQ(a.rebased(ab, x).status().code(), Code::kInvalid);
  // A rebase that lands on a reserved top-level name is refused like any other build.
  EXPECT_EQ(*ab.rebased(a, inbox), personal("d.org", "u", {"b"}));
  MailboxName a_inbox = personal("d.org", "u", {"a", "INBOX"});
  EXPECT_EQ(a_inbox.rebased(a, inbox).status().code(), Code::kInvalid);
}

// Random names over a tiny alphabet, so that prefixes, equal components and near-misses
// ("a" vs "a!" vs "a " — bytes below and above the separator) are frequent.
MailboxName randomName(std::mt19937& rng) {
  static const std::vector<std::string> kPieces = {"a", "b", " ", "!", "~", "é", "🙂", ".", "ab"};
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  auto word = [&] {
    std::string w;
    for (size_t i = 0, n = 1 + pick(3); i < n; ++i) w += kPieces[pick(kPieces.size())];
    return w == "." ? std::string("a") : w;
  };
  while (true) {
    std::string domain = pick(3) == 0 ? "" : (pick(2) ? "a.org" : "a.org.b");
    std::vector<std::string> comps;
    for (size_t i = 0, n = pick(4); i < n; ++i) comps.push_back(word());
    auto n = pick(3) == 0 ? MailboxName::shared(domain, comps)
                          : MailboxName::personal(domain, word(), comps);
    if (n.ok()) return std::move(n).value();
  }
}

TEST(MailboxName, KeyOrderKeepsSubtreesContiguous) {
  std::mt19937 rng(20240501);
  std::vector<MailboxName> names;
  for (int i = 0; i < 400; ++i) names.push_back(randomName(rng));
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  for (size_t i = 0; i < names.size(); ++i) {
    const MailboxName& x = names[i];
    const std::string prefix = x.subtreePrefix();
    // Every name contained by x, and only those, follows x directly.
    size_t j = i + 1;
    while (j < names.size() && x.contains(names[j])) {
      EXPECT_TRUE(names[j].key().starts_with(prefix)) << names[j].toString();
      ++j;
    }
    for (size_t k = 0; k < names.size(); ++k) {
      bool inside = k >= i && k < j;
      EXPECT_EQ(x.contains(names[k]), inside) << x.toString() << " / " << names[k].toString();
      EXPECT_EQ(names[k].key().starts_with(prefix), inside && k != i)
          << x.toString() << " / " << names[k].toString();
    }
    auto back = MailboxName::fromKey(x.key());
    ASSERT_TRUE(back.ok()) << back.status().toString();
    EXPECT_EQ(*back, x);
    EXPECT_EQ(*MailboxName::parse(x.toString()), x);
  }
}

TEST(MailboxName, DamagedKeysAreCorruptionNeverACrash) {
  std::mt19937 rng(7);
  const std::vector<std::string> bad = {
      ""s,         "\0"s,          "\0u"s,          "\0s"s,         "\0x\0a"s,
      "\0u\0"s,    "\0u\0a\0"s,    "\0s\0user"s,    "A\0u\0a"s,     "\0u\0a\0\xff"s,
      "\0u\0a\0.."s, "\0uu\0a"s,   "x.org\0u\0a@b"s, std::string(5000, 'a')};
  for (const std::string& key : bad) {
    auto n = MailboxName::fromKey(key);
    EXPECT_EQ(n.status().code(), Code::kCorruption) << printableBytes(key);
    if (!key.empty() && key.size() < 100) {
      EXPECT_NE(n.status().message().find(printableBytes(key)), std::string::npos)
          << n.status().message();
    }
  }
  // Mutations of valid keys: decoded again they either fail cleanly or are canonical.
  for (int i = 0; i < 3000; ++i) {
    std::string key = randomName(rng).key();
    for (int m = 0, n = 1 + static_cast<int>(rng() % 3); m < n; ++m) {
      size_t at = rng() % (key.size() + 1);
      switch (rng() % 3) {
        case 0: key.insert(at, 1, static_cast<char>(rng() % 256)); break;
        case 1: if (at < key.size()) key.erase(at, 1); break;
        default: if (at < key.size()) key[at] = static_cast<char>(rng() % 256); break;
      }
    }
    auto n = MailboxName::fromKey(key);
    if (n.ok()) {
      EXPECT_EQ(n->key(), key);
    } else {
      EXPECT_EQ(n.status().code(), Code::kCorruption);
    }
  }
}

}  // namespace mailbox_name_test
}  // namespace darius::mailbox
