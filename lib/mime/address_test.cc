#include "lib/mime/address.h"

#include <gtest/gtest.h>

namespace darius::mime {

// Readable failures: gtest finds this by argument-dependent lookup.
void PrintTo(const Address& a, std::ostream* os) {
  auto nstr = [](const std::optional<std::string>& s) { return s ? "\"" + *s + "\"" : "NIL"; };
  *os << "(" << nstr(a.name) << " " << nstr(a.adl) << " " << nstr(a.mailbox) << " "
      << nstr(a.host) << ")";
}

namespace {

Address addr(std::optional<std::string> name, std::optional<std::string> adl,
             std::optional<std::string> mailbox, std::optional<std::string> host) {
  return Address{std::move(name), std::move(adl), std::move(mailbox), std::move(host)};
}

const std::optional<std::string> kNil;

TEST(Address, NameAddrAndAddrSpec) {
  auto list = parseAddressList("\"Doe, John\" <john@example.org>, jane@example.org");
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0], addr("Doe, John", kNil, "john", "example.org"));
  EXPECT_EQ(list[1], addr(kNil, kNil, "jane", "example.org"));
}

TEST(Address, PhraseKeepsSpacesAndEncodedWords) {
  auto list = parseAddressList("Joe Q. Public <jqp@x.test>, =?utf-8?q?J=C3=A9?= <j@x>");
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].name, "Joe Q. Public");
  EXPECT_EQ(list[1].name, "=?utf-8?q?J=C3=A9?=");
}

TEST(Address, CommentBecomesName) {
  auto list = parseAddressList("a@b (c1) (c2), (lead) d@e, Named <f@g> (ignored)");
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].name, "c2");
  EXPECT_EQ(list[1].name, "lead");
  EXPECT_EQ(list[2].name, "Named");
}

TEST(Address, GroupsAndRoutes) {
  auto list = parseAddressList("team: a@b, c@d;, undisclosed-recipients:;, <@r1,@r2:u@h>");
  ASSERT_EQ(list.size(), 7u);
  EXPECT_EQ(list[0], addr(kNil, kNil, "team", kNil));
  EXPECT_TRUE(list[0].isGroupStart());
  EXPECT_EQ(list[2], addr(kNil, kNil, "c", "d"));
  EXPECT_TRUE(list[3].isGroupEnd());
  EXPECT_EQ(list[4], addr(kNil, kNil, "undisclosed-recipients", kNil));
  EXPECT_TRUE(list[5].isGroupEnd());
  EXPECT_EQ(list[6], addr(kNil, "@r1,@r2", "u", "h"));
}

TEST(Address, UnterminatedGroupIsClosed) {
  auto list = parseAddressList("grp: a@b");
  ASSERT_EQ(list.size(), 3u);
  EXPECT_TRUE(list[2].isGroupEnd());
}

TEST(Address, BrokenAddressesStillGiveSomething) {
  auto list = parseAddressList("root, Mary Smith, , <>, @host, local@, Big Bug bb@x.org");
  ASSERT_EQ(list.size(), 6u);
  EXPECT_EQ(list[0], addr(kNil, kNil, "root", "MISSING_DOMAIN"));
  EXPECT_EQ(list[1], addr("Mary Smith", kNil, "MISSING_MAILBOX", "MISSING_DOMAIN"));
  EXPECT_EQ(list[2], addr(kNil, kNil, "MISSING_MAILBOX", "MISSING_DOMAIN"));
  EXPECT_EQ(list[3], addr(kNil, kNil, "MISSING_MAILBOX", "host"));
  EXPECT_EQ(list[4], addr(kNil, kNil, "local", "MISSING_DOMAIN"));
  EXPECT_EQ(list[5], addr("Big Bug", kNil, "bb", "x.org"));
}

// "Mikel@Lindsaar <raasdnil@gmail.com>": an unquoted display name cannot hold "@", so the
// words before the angle address are an address of their own, and the angle address is the
// next one. Dovecot and Cyrus both read Mikel@Lindsaar as an address (Dovecot then drops the
// rest of the list, Cyrus goes on with raasdnil@gmail.com, which we do too, losing nothing).
TEST(Address, AtSignBeforeAnAngleAddress) {
  auto list = parseAddressList("a@b.com, Mikel@Lindsaar <raasdnil@gmail.com>, tom@x");
  ASSERT_EQ(list.size(), 4u);
  EXPECT_EQ(list[1], addr(kNil, kNil, "Mikel", "Lindsaar"));
  EXPECT_EQ(list[2], addr(kNil, kNil, "raasdnil", "gmail.com"));
  EXPECT_EQ(list[3], addr(kNil, kNil, "tom", "x"));
  list = parseAddressList("John Smith john@x.com <j@y.com>");
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0], addr("John Smith", kNil, "john", "x.com"));
  EXPECT_EQ(list[1], addr(kNil, kNil, "j", "y.com"));
  list = parseAddressList("x@y.z Name <n@m.o>");
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0], addr(kNil, kNil, "x", "y.z"));
  EXPECT_EQ(list[1], addr("Name", kNil, "n", "m.o"));
}

// RFC 5322 §3.4.1: CFWS may surround the parts of an addr-spec and is not part of it. A
// comment inside an angle address, or next to one, does not name it: Dovecot and Cyrus both
// send NIL there (a bare addr-spec still takes its comment as the name, as all three do).
TEST(Address, CommentsInsideAnAngleAddress) {
  auto list = parseAddressList("<user-from (comment)@ (comment) domain.org>");
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0], addr(kNil, kNil, "user-from", "domain.org"));
  list = parseAddressList("(Ann) <a@b.c>, <a@b.c> (Ann), Name (c) <x (y) @ z (w) . org>");
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0], addr(kNil, kNil, "a", "b.c"));
  EXPECT_EQ(list[1], addr(kNil, kNil, "a", "b.c"));
  EXPECT_EQ(list[2], addr("Name", kNil, "x", "z.org"));
  list = parseAddressList("user-to (c) @ (c) domain.org");
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0], addr("c", kNil, "user-to", "domain.org"));
}

TEST(Address, ObsoleteLocalPartsAndLiterals) {
  auto list = parseAddressList("a . b @ c . d, \"john doe\"@x, x@[1.2.3.4], jdoe@machine(c).  example");
  ASSERT_EQ(list.size(), 4u);
  EXPECT_EQ(list[0], addr(kNil, kNil, "a.b", "c.d"));
  EXPECT_EQ(list[1], addr(kNil, kNil, "john doe", "x"));
  EXPECT_EQ(list[2].host, "[1.2.3.4]");
  EXPECT_EQ(list[3].host, "machine.example");
}

TEST(Address, EmptyAndCommentOnly) {
  EXPECT_TRUE(parseAddressList("").empty());
  EXPECT_TRUE(parseAddressList("  (only a comment) ,, ").empty());
}

TEST(Address, HostileInputTerminates) {
  for (std::string s : {std::string(50000, '<'), std::string(50000, '"'), std::string(50000, ':'),
                        std::string(50000, '@'), std::string(50000, ','), std::string(50000, '('),
                        std::string(50000, '\\'), std::string("a\0b@c", 5)}) {
    std::vector<Address> list = parseAddressList(s);
    EXPECT_LE(list.size(), s.size() + 1);
  }
}

std::string repeated(std::string_view unit, size_t size, std::string_view tail = "") {
  std::string s;
  while (s.size() + unit.size() <= size) s += unit;
  s += tail;
  return s;
}

// The tokenizer reads each byte once; the parser looks at each token at most once per special
// it looks ahead for (six) and a few times more in what consumes it, plus a few steps for each
// element. The worst field found (a random search over repeated short units, "\;:\," among
// them) takes under 12 steps a byte. The quadratic parser took about one step per token per
// address: over 40,000 steps a byte for the 512 KB field below, 2,000 for 64 KB fields like it.
constexpr size_t kStepsPerByte = 32;

// Address parsing is linear in the field size for every shape of field. A field can be as
// large as the header block (1 MB by default), and every delivery parses it into the cache
// entry, every SEARCH FROM/TO/CC/BCC again for each message. Checked by counting the
// parser's work, not by a clock: the count is the same on any machine and under any load.
TEST(Address, WorkIsLinearInTheFieldSize) {
  // After each bare addr-spec the parser looks ahead for a '<' before the next ',', here at
  // the very end; the next address starts right after the addr-spec.
  std::string big = repeated("a@b ", 512 * 1024, "<x@y>");
  size_t steps = 0;
  std::vector<Address> list = parseAddressList(big, &steps);
  EXPECT_LE(steps, kStepsPerByte * big.size());
  ASSERT_EQ(list.size(), 512u * 1024 / 4 + 1);
  EXPECT_EQ(list.front(), addr(kNil, kNil, "a", "b"));
  EXPECT_EQ(list[list.size() - 2], addr(kNil, kNil, "a", "b"));
  EXPECT_EQ(list.back(), addr(kNil, kNil, "x", "y"));

  constexpr size_t kSize = 64 * 1024;
  std::string in_group = "g: " + repeated("a@b ", kSize, "<x@y>;");
  list = parseAddressList(in_group, &steps);
  EXPECT_LE(steps, kStepsPerByte * in_group.size());
  ASSERT_EQ(list.size(), kSize / 4 + 3);
  EXPECT_TRUE(list.front().isGroupStart());
  EXPECT_EQ(list[list.size() - 2], addr(kNil, kNil, "x", "y"));
  EXPECT_TRUE(list.back().isGroupEnd());

  std::string commented = repeated("a@b (c) ", kSize, "<x@y>");
  list = parseAddressList(commented, &steps);
  EXPECT_LE(steps, kStepsPerByte * commented.size());
  ASSERT_EQ(list.size(), kSize / 8 + 1);
  EXPECT_EQ(list.front(), addr("c", kNil, "a", "b"));
  EXPECT_EQ(list.back(), addr(kNil, kNil, "x", "y"));

  // Other shapes: lists, '<' without '>', a comment or quoted string never closed, groups
  // never closed, source routes, obsolete local parts, junk.
  const std::vector<std::string> shapes = {repeated("a@b, ", kSize),
                                           repeated("Name <a@b>, ", kSize),
                                           repeated("a@b ", kSize),
                                           std::string(kSize, '<'),
                                           repeated("<a ", kSize),
                                           repeated("a@b <", kSize),
                                           repeated("<a@b", kSize),
                                           std::string(kSize, '('),
                                           repeated("(a@b) ", kSize, "<x@y>"),
                                           repeated("a@b (", kSize),
                                           "\"" + std::string(kSize, 'a'),
                                           repeated("\"a\"@b ", kSize, "<x@y>"),
                                           repeated("g: ", kSize),
                                           repeated("g: a@b ", kSize),
                                           repeated("g:<", kSize),
                                           repeated("a:b@c<", kSize),
                                           repeated("a@b ;", kSize),
                                           repeated("<@a,", kSize, ":x@y>"),
                                           repeated("<@a:", kSize),
                                           repeated("a.", kSize, "@b"),
                                           repeated("a . ", kSize, "@ c"),
                                           repeated("a b ", kSize, "@c"),
                                           std::string(kSize, '@'),
                                           std::string(kSize, ':'),
                                           repeated("a@b@", kSize),
                                           repeated("[a] ", kSize, "@b"),
                                           repeated("\\;:\\,", kSize)};
  for (const std::string& s : shapes) {
    list = parseAddressList(s, &steps);
    EXPECT_LE(steps, kStepsPerByte * s.size()) << s.substr(0, 16) << "...";
  }
}

}  // namespace
}  // namespace darius::mime
