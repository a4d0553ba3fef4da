// flag, flag-list and flag-perm (RFC 9051 §2.3.2, §9).
#include "lib/proto/flag.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lib/proto/arg_parser.h"

namespace darius::proto {
namespace {

using base::Code;

std::vector<std::string> names(const std::vector<Flag>& flags) {
  std::vector<std::string> out;
  for (const Flag& f : flags) out.push_back(f.name);
  return out;
}

TEST(Flag, SystemFlagsAreCaseInsensitiveAndCanonical) {
  struct Case {
    const char* in;
    SystemFlag flag;
    const char* name;
  } cases[] = {{"\\Seen", SystemFlag::kSeen, "\\Seen"},
               {"\\SEEN", SystemFlag::kSeen, "\\Seen"},
               {"\\answered", SystemFlag::kAnswered, "\\Answered"},
               {"\\fLaGgEd", SystemFlag::kFlagged, "\\Flagged"},
               {"\\Deleted", SystemFlag::kDeleted, "\\Deleted"},
               {"\\DRAFT", SystemFlag::kDraft, "\\Draft"}};
  for (const Case& c : cases) {
    auto f = parseFlag(c.in);
    ASSERT_TRUE(f.ok()) << c.in;
    EXPECT_EQ(f->kind, Flag::Kind::kSystem);
    EXPECT_EQ(f->system, c.flag);
    EXPECT_EQ(f->name, c.name);
    EXPECT_EQ(*f, systemFlag(c.flag));
  }
  EXPECT_EQ(systemFlagName(SystemFlag::kSeen), "\\Seen");
}

TEST(Flag, KeywordsKeepTheirCase) {
  for (const char* k : {"$Forwarded", "$MDNSent", "$Junk", "NonJunk", "work", "a.b-c_d+e"}) {
    auto f = parseFlag(k);
    ASSERT_TRUE(f.ok()) << k;
    EXPECT_EQ(f->kind, Flag::Kind::kKeyword);
    EXPECT_EQ(f->name, k);
  }
}

TEST(Flag, ExtensionsWildcardAndRecentNeedPermission) {
  for (const char* ext : {"\\Recent", "\\Foo", "\\Seen2"}) {
    auto refused = parseFlag(ext);
    ASSERT_FALSE(refused.ok()) << ext;
    EXPECT_EQ(refused.status().code(), Code::kInvalid);
    auto allowed = parseFlag(ext, {.allow_extension = true});
    ASSERT_TRUE(allowed.ok()) << ext;
    EXPECT_EQ(allowed->kind, Flag::Kind::kExtension);
    EXPECT_EQ(allowed->name, ext);
  }
  EXPECT_FALSE(parseFlag("\\*").ok());
  auto star = parseFlag("\\*", {.allow_wildcard = true});
  ASSERT_TRUE(star.ok());
  EXPECT_EQ(star->kind, Flag::Kind::kWildcard);
  EXPECT_EQ(star->name, "\\*");
}

TEST(Flag, MalformedFlags) {
  for (const char* bad : {"", "\\", "\\\\Seen", "\\Se en", "Se]en", "(Seen)", "a*", "\\*x", "%",
                          "\"Seen\"", "\\Seen\xff", "caf\xc3\xa9", "\\ Seen", "a{1}"}) {
    auto f = parseFlag(bad, {.allow_wildcard = true, .allow_extension = true});
    ASSERT_FALSE(f.ok()) << bad;
    EXPECT_EQ(f.status().code(), Code::kInvalid) << bad;
  }
}

TEST(FlagList, AppendAndStoreForms) {
  ArgParser p("(\\Seen $Junk \\draft) {5}");
  auto list = p.flagList();
  ASSERT_TRUE(list.ok()) << list.status().toString();
  EXPECT_EQ(names(*list), (std::vector<std::string>{"\\Seen", "$Junk", "\\Draft"}));
  EXPECT_TRUE(p.peek(' '));
  EXPECT_TRUE(ArgParser("()").flagList()->empty());
  // STORE takes a flag-list or bare flags to the end of the command.
  ArgParser bare("\\Deleted \\Seen work");
  auto b = bare.flagListOrFlags();
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(names(*b), (std::vector<std::string>{"\\Deleted", "\\Seen", "work"}));
  EXPECT_TRUE(bare.atEnd());
  EXPECT_EQ(names(*ArgParser("(\\Seen)").flagListOrFlags()), std::vector<std::string>{"\\Seen"});
  // PERMANENTFLAGS-style list with "\*".
  auto perm = ArgParser("(\\Seen \\*)").flagList({.allow_wildcard = true});
  ASSERT_TRUE(perm.ok());
  EXPECT_EQ(perm->back().kind, Flag::Kind::kWildcard);
}

TEST(FlagList, HostileLists) {
  for (const char* bad :
       {"(\\Seen", "(\\Seen  \\Draft)", "( \\Seen)", "(\\Seen )", "((\\Seen))", "(\\Recent)",
        "(\\*)", "(\\Seen \"x\")", "(\\Seen\xff)", "\\Seen", "(\\Seen NIL {3}\r\nabc)"}) {
    ArgParser p(bad);
    EXPECT_FALSE(p.flagList().ok()) << bad;
    EXPECT_EQ(p.position(), 0u) << bad;
  }
  for (const char* bad : {"\\Seen \\Bogus", "\\Seen  x", "\\Seen ", "", " \\Seen"}) {
    ArgParser p(bad);
    EXPECT_FALSE(p.flagListOrFlags().ok()) << bad;
    EXPECT_EQ(p.position(), 0u) << bad;
  }
  std::string many = "(";
  for (int i = 0; i < 1001; ++i) many += (i ? " k" : "k") + std::to_string(i);
  many += ")";
  auto over = ArgParser(many).flagList();
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), Code::kTooBig);
  std::string bare_many = many.substr(1, many.size() - 2);
  auto over_bare = ArgParser(bare_many).flagListOrFlags();
  ASSERT_FALSE(over_bare.ok());
  EXPECT_EQ(over_bare.status().code(), Code::kTooBig);
  EXPECT_TRUE(ArgParser(bare_many).flagListOrFlags({.max_flags = 1001}).ok());
}

}  // namespace
}  // namespace darius::proto
