// The FETCH argument parser: every item, macro, section form, partial and modifier, the names
// echoed in responses, and malformed, oversized and hostile input (BAD, never a crash).
#include "imapd/fetch/fetch_args.h"

#include <gtest/gtest.h>

namespace darius::imapd::fetch {
namespace fetch_args_test {

using Text = mime::SectionSpec::Text;

// Parses `text` as what follows "FETCH" and checks the command ends there.
base::Result<FetchArgs> parse(std::string_view text, bool by_uid = false,
                              const FetchLimits& limits = {}) {
  proto::ArgParser p(text);
  auto a = parseFetchArgs(p, by_uid, limits);
  if (!a.ok()) return a.status();
  DARIUS_RETURN_IF_ERROR(p.end());
  return a;
}

FetchItem only(std::string_view text) {
  auto a = parse(text);
  EXPECT_TRUE(a.ok()) << text << ": " << a.status().toString();
  if (!a.ok()) return {};
  EXPECT_EQ(a->items.size(), 1u) << text;
  return a->items.empty() ? FetchItem{} : a->items[0];
}

std::vector<ItemKind> kinds(const FetchArgs& a) {
  std::vector<ItemKind> out;
  for (const FetchItem& i : a.items) out.push_back(i.kind);
  return out;
}

base::Code codeOf(std::string_view text, bool by_uid = false, const FetchLimits& limits = {}) {
  return parse(text, by_uid, limits).status().code();
}

TEST(FetchArgs, SimpleItemsAnyCase) {
  auto a = parse(
      " 1:3,7 (flags InternalDate RFC822.SIZE envelope body bodystructure uid rfc822 "
      "rfc822.header rfc822.text modseq savedate emailid threadid preview)");
  ASSERT_TRUE(a.ok()) << a.status().toString();
  EXPECT_EQ(a->set.format(), "1:3,7");
  EXPECT_FALSE(a->by_uid);
  EXPECT_EQ(kinds(*a),
            (std::vector<ItemKind>{ItemKind::kFlags, ItemKind::kInternalDate, ItemKind::kRfc822Size,
                                   ItemKind::kEnvelope, ItemKind::kBody, ItemKind::kBodyStructure,
                                   ItemKind::kUid, ItemKind::kRfc822, ItemKind::kRfc822Header,
                                   ItemKind::kRfc822Text, ItemKind::kModseq, ItemKind::kSaveDate,
                                   ItemKind::kEmailId, ItemKind::kThreadId, ItemKind::kPreview}));
  EXPECT_FALSE(a->changed_since);
  EXPECT_FALSE(a->vanished);
}

TEST(FetchArgs, SingleItemWithoutParentheses) {
  EXPECT_EQ(only(" 1 FLAGS").kind, ItemKind::kFlags);
  EXPECT_EQ(only(" * BODY.PEEK[]").kind, ItemKind::kBodySection);
  auto a = parse(" $ UID", true);
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->set.hasLastResult());
  EXPECT_TRUE(a->by_uid);
}

TEST(FetchArgs, MacrosExpandAndStandAlone) {
  auto all = parse(" 1 ALL");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(kinds(*all), (std::vector<ItemKind>{ItemKind::kFlags, ItemKind::kInternalDate,
                                                ItemKind::kRfc822Size, ItemKind::kEnvelope}));
  auto fast = parse(" 1 fast");
  ASSERT_TRUE(fast.ok());
  EXPECT_EQ(kinds(*fast), (std::vector<ItemKind>{ItemKind::kFlags, ItemKind::kInternalDate,
                                                 ItemKind::kRfc822Size}));
  auto full = parse(" 1 Full");
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(full->items.size(), 5u);
  EXPECT_EQ(full->items[4].kind, ItemKind::kBody);
  // RFC 9051 §6.4.5: a macro is used by itself.
  EXPECT_EQ(codeOf(" 1 (ALL)"), base::Code::kInvalid);
  EXPECT_EQ(codeOf(" 1 (FLAGS FAST)"), base::Code::kInvalid);
}

TEST(FetchArgs, BodySections) {
  FetchItem i = only(" 1 BODY[]");
  EXPECT_EQ(i.kind, ItemKind::kBodySection);
  EXPECT_FALSE(i.peek);
  EXPECT_TRUE(i.setsSeen());
  EXPECT_TRUE(i.section.path.empty());
  EXPECT_EQ(i.section.text, Text::kNone);
  EXPECT_EQ(i.responseName(), "BODY[]");

  i = only(" 1 body.peek[1.2.3]");
  EXPECT_TRUE(i.peek);
  EXPECT_FALSE(i.setsSeen());
  EXPECT_EQ(i.section.path, (std::vector<uint32_t>{1, 2, 3}));
  EXPECT_EQ(i.responseName(), "BODY[1.2.3]");

  EXPECT_EQ(only(" 1 BODY[header]").section.text, Text::kHeader);
  EXPECT_EQ(only(" 1 BODY[TEXT]").section.text, Text::kText);
  i = only(" 1 BODY[4.2.TEXT]");
  EXPECT_EQ(i.section.text, Text::kText);
  EXPECT_EQ(i.section.path, (std::vector<uint32_t>{4, 2}));
  EXPECT_EQ(i.responseName(), "BODY[4.2.TEXT]");
  i = only(" 1 BODY[4.1.MIME]");
  EXPECT_EQ(i.section.text, Text::kMime);
  EXPECT_EQ(i.responseName(), "BODY[4.1.MIME]");
  i = only(" 1 BODY.PEEK[3.HEADER]");
  EXPECT_EQ(i.section.text, Text::kHeader);
  EXPECT_EQ(i.section.path, (std::vector<uint32_t>{3}));
}

TEST(FetchArgs, HeaderFieldLists) {
  FetchItem i = only(" 1 BODY.PEEK[HEADER.FIELDS (From \"To\" {2}\r\nCc)]");
  EXPECT_EQ(i.section.text, Text::kHeaderFields);
  EXPECT_EQ(i.section.fields, (std::vector<std::string>{"From", "To", "Cc"}));
  EXPECT_EQ(i.responseName(), "BODY[HEADER.FIELDS (From To Cc)]");
  i = only(" 1 BODY[2.header.fields.not (Received X-Spam)]");
  EXPECT_EQ(i.section.text, Text::kHeaderFieldsNot);
  EXPECT_EQ(i.section.path, (std::vector<uint32_t>{2}));
  EXPECT_EQ(i.responseName(), "BODY[2.HEADER.FIELDS.NOT (Received X-Spam)]");
  // A name with a character atoms cannot carry is echoed quoted.
  EXPECT_EQ(only(" 1 BODY[HEADER.FIELDS (\"X%Odd\")]").responseName(),
            "BODY[HEADER.FIELDS (\"X%Odd\")]");
}

TEST(FetchArgs, Partials) {
  FetchItem i = only(" 1 BODY[]<0.2048>");
  ASSERT_TRUE(i.partial);
  EXPECT_EQ(*i.partial, (Partial{0, 2048}));
  i = only(" 1 BINARY.PEEK[1]<100.9223372036854775807>");
  ASSERT_TRUE(i.partial);
  EXPECT_EQ(*i.partial, (Partial{100, 9223372036854775807ull}));
  EXPECT_EQ(codeOf(" 1 BODY[]<0.0>"), base::Code::kInvalid);  // nz-number64
  EXPECT_EQ(codeOf(" 1 BODY[]<0>"), base::Code::kInvalid);
  EXPECT_EQ(codeOf(" 1 BODY[]<0.10"), base::Code::kInvalid);
  EXPECT_EQ(codeOf(" 1 BODY[]<-1.10>"), base::Code::kInvalid);
  EXPECT_EQ(codeOf(" 1 BODY[]<99999999999999999999.1>"), base::Code::kInvalid);
  EXPECT_EQ(codeOf(" 1 BODY[]<0.9223372036854775808>"), base::Code::kInvalid);
  EXPECT_EQ(codeOf(" 1 BINARY.SIZE[1]<0.10>"), base::Code::kInvalid);
  EXPECT_EQ(codeOf(" 1 BODY<0.10>"), base::Code::kInvalid);
}

TEST(FetchArgs, Binary) {
  FetchItem i = only(" 1 BINARY[1.2]");
  EXPECT_EQ(i.kind, ItemKind::kBinary);
  EXPECT_TRUE(i.setsSeen());
  EXPECT_EQ(i.responseName(), "BINARY[1.2]");
  i = only(" 1 BINARY.PEEK[]");
  EXPECT_TRUE(i.peek);
  EXPECT_FALSE(i.setsSeen());
  EXPECT_EQ(i.responseName(), "BINARY[]");
  i = only(" 1 binary.size[3]");
  EXPECT_EQ(i.kind, ItemKind::kBinarySize);
  EXPECT_FALSE(i.setsSeen());
  EXPECT_EQ(i.responseName(), "BINARY.SIZE[3]");
  // section-binary = "[" [section-part] "]": no HEADER, TEXT or MIME.
  EXPECT_EQ(codeOf(" 1 BINARY[HEADER]"), base::Code::kInvalid);
  EXPECT_EQ(codeOf(" 1 BINARY[1.MIME]"), base::Code::kInvalid);
  EXPECT_EQ(codeOf(" 1 BINARY"), base::Code::kInvalid);
  EXPECT_EQ(codeOf(" 1 BINARY.SIZE"), base::Code::kInvalid);
}

TEST(FetchArgs, SeenRules) {
  EXPECT_TRUE(only(" 1 RFC822").setsSeen());
  EXPECT_TRUE(only(" 1 RFC822.TEXT").setsSeen());
  EXPECT_FALSE(only(" 1 RFC822.HEADER").setsSeen());
  EXPECT_FALSE(only(" 1 BODY").setsSeen());
  EXPECT_FALSE(only(" 1 BODY.PEEK[TEXT]").setsSeen());
}

TEST(FetchArgs, PreviewLazyIsToldApartFromModifiers) {
  auto a = parse(" 1 (PREVIEW (LAZY) FLAGS)");
  ASSERT_TRUE(a.ok()) << a.status().toString();
  ASSERT_EQ(a->items.size(), 2u);
  EXPECT_TRUE(a->items[0].lazy);
  a = parse(" 1 PREVIEW (lazy)");
  ASSERT_TRUE(a.ok()) << a.status().toString();
  EXPECT_TRUE(a->items[0].lazy);
  EXPECT_FALSE(a->changed_since);
  // After a single PREVIEW, " (" may open the fetch modifiers instead.
  a = parse(" 1 PREVIEW (CHANGEDSINCE 5)");
  ASSERT_TRUE(a.ok()) << a.status().toString();
  EXPECT_FALSE(a->items[0].lazy);
  EXPECT_EQ(a->changed_since, 5u);
  a = parse(" 1 PREVIEW (LAZY) (CHANGEDSINCE 5)");
  ASSERT_TRUE(a.ok()) << a.status().toString();
  EXPECT_TRUE(a->items[0].lazy);
  EXPECT_EQ(a->changed_since, 5u);
  EXPECT_EQ(codeOf(" 1 (PREVIEW (LAZY FOO))"), base::Code::kInvalid);
  EXPECT_EQ(codeOf(" 1 (PREVIEW (FOO))"), base::Code::kInvalid);
  EXPECT_EQ(codeOf(" 1 (PREVIEW (LAZY)"), base::Code::kInvalid);
}

TEST(FetchArgs, Modifiers) {
  auto a = parse(" 1:* (FLAGS) (CHANGEDSINCE 12345)");
  ASSERT_TRUE(a.ok()) << a.status().toString();
  EXPECT_EQ(a->changed_since, 12345u);
  EXPECT_FALSE(a->vanished);
  a = parse(" 300:500 (FLAGS) (changedsince 12345 vanished)", true);
  ASSERT_TRUE(a.ok()) << a.status().toString();
  EXPECT_TRUE(a->vanished);
  a = parse(" 1 FLAGS (VANISHED CHANGEDSINCE 0)", true);
  ASSERT_TRUE(a.ok()) << a.status().toString();
  EXPECT_EQ(a->changed_since, 0u);
  // RFC 7162 §3.2.6: VANISHED only with UID FETCH, and only with CHANGEDSINCE.
  EXPECT_EQ(codeOf(" 1 FLAGS (CHANGEDSINCE 1 VANISHED)"), base::Code::kInvalid);
  EXPECT_EQ(codeOf(" 1 FLAGS (VANISHED)", true), base::Code::kInvalid);
  EXPECT_EQ(codeOf(" 1 FLAGS (CHANGEDSINCE 1 CHANGEDSINCE 2)"), base::Code::kInvalid);
  EXPECT_EQ(codeOf(" 1 FLAGS (CHANGEDSINCE 1 VANISHED VANISHED)", true), base::Code::kInvalid);
  EXPECT_EQ(codeOf(" 1 FLAGS (CHANGEDSINCE)"), base::Code::kInvalid);
  EXPECT_EQ(codeOf(" 1 FLAGS (CHANGEDSINCE x)"), base::Code::kInvalid);
  EXPECT_EQ(codeOf(" 1 FLAGS (CHANGEDSINCE 9223372036854775808)"), base::Code::kInvalid);
  EXPECT_EQ(codeOf(" 1 FLAGS (UNCHANGEDSINCE 1)"), base::Code::kInvalid);
  EXPECT_EQ(codeOf(" 1 FLAGS ()"), base::Code::kInvalid);
  EXPECT_EQ(codeOf(" 1 FLAGS (CHANGEDSINCE 1"), base::Code::kInvalid);
  EXPECT_EQ(codeOf(" 1 FLAGS (CHANGEDSINCE 1) extra"), base::Code::kInvalid);
}

TEST(FetchArgs, MalformedInputIsInvalid) {
  for (std::string_view bad : {
           "",                                       // nothing
           " ",                                      // no set
           " 1",                                     // no items
           " 1 ",                                    // no items
           " 0 FLAGS",                               // zero is no sequence number
           " 1 ()",                                  // empty list
           " 1 (FLAGS",                              // unterminated list
           " 1 (FLAGS UID",                          //
           " 1 (FLAGS  UID)",                        // two spaces
           " 1 ( FLAGS)",                            //
           " 1 FLAGS UID",                           // two items without parentheses
           " 1 FOO",                                 // unknown item
           " 1 (FLAGS FOO)",                         //
           " 1 BODY[",                               // unterminated section
           " 1 BODY[1",                              //
           " 1 BODY[1.",                             //
           " 1 BODY[1.]",                            //
           " 1 BODY[.1]",                            //
           " 1 BODY[0]",                             // part numbers are nz-number
           " 1 BODY[01]",                            //
           " 1 BODY[1..2]",                          //
           " 1 BODY[4294967296]",                    // beyond 32 bits
           " 1 BODY[MIME]",                          // MIME needs a part number
           " 1 BODY[HEADER.FIELDS]",                 // needs a list
           " 1 BODY[HEADER.FIELDS ()]",              // not empty
           " 1 BODY[HEADER.FIELDS (From]",           // unterminated list
           " 1 BODY[HEADER.FIELDS (From)",           // unterminated section
           " 1 BODY[HEADER.FIELDS (\"\")]",          // empty name
           " 1 BODY[HEADER.FIELDS (\"Fr om\")]",     // not a field name
           " 1 BODY[HEADER.FIELDS (\"From:\")]",     //
           " 1 BODY[HEADER.FIELDS (\"\xc3\xa9\")]",  // 8-bit
           " 1 BODY[HEADER.FIELDSX (From)]",         //
           " 1 BODY[TEXT.HEADER]",                   //
           " 1 BODY[1.TEXT.MIME]",                   //
           " 1 BODY[HEADER]x",                       //
           " 1 BODY.PEEK",                           // needs a section
           " 1 BODYSTRUCTURE[1]",                    //
           " 1 FLAGS[1]",                            //
           " 1 BODY[]<0.1><0.1>",                    //
           " 1 \"FLAGS\"",                           //
           " 1 (FLAGS\x01)",                         // control character
       }) {
    EXPECT_FALSE(parse(bad).ok()) << "accepted: " << bad;
  }
}

TEST(FetchArgs, LimitsAreTooBig) {
  FetchLimits limits;
  limits.max_items = 4;
  limits.max_header_fields = 3;
  limits.max_field_name = 10;
  limits.max_section_depth = 5;
  EXPECT_TRUE(parse(" 1 (FLAGS UID RFC822.SIZE ENVELOPE)", false, limits).ok());
  EXPECT_EQ(codeOf(" 1 (FLAGS UID RFC822.SIZE ENVELOPE BODY)", false, limits), base::Code::kTooBig);
  EXPECT_TRUE(parse(" 1 BODY[HEADER.FIELDS (A B C)]", false, limits).ok());
  EXPECT_EQ(codeOf(" 1 BODY[HEADER.FIELDS (A B C D)]", false, limits), base::Code::kTooBig);
  EXPECT_TRUE(parse(" 1 BODY[HEADER.FIELDS (Abcdefghij)]", false, limits).ok());
  EXPECT_EQ(codeOf(" 1 BODY[HEADER.FIELDS (Abcdefghijk)]", false, limits), base::Code::kTooBig);
  EXPECT_TRUE(parse(" 1 BODY[1.2.3.4.5.MIME]", false, limits).ok());
  EXPECT_EQ(codeOf(" 1 BODY[1.2.3.4.5.6]", false, limits), base::Code::kTooBig);
  EXPECT_EQ(codeOf(" 1 BINARY[1.1.1.1.1.1]", false, limits), base::Code::kTooBig);
}

TEST(FetchArgs, HostileInputWithDefaultLimits) {
  // A section nested a million deep, a list of a hundred thousand items, a header list of a
  // hundred thousand names: refused quickly, with bounded work.
  std::string deep = " 1 BODY[1";
  for (int i = 0; i < 1000000; ++i) deep += ".1";
  deep += "]";
  EXPECT_EQ(codeOf(deep), base::Code::kTooBig);
  std::string many = " 1 (FLAGS";
  for (int i = 0; i < 100000; ++i) many += " UID";
  many += ")";
  EXPECT_EQ(codeOf(many), base::Code::kTooBig);
  std::string fields = " 1 BODY[HEADER.FIELDS (A";
  for (int i = 0; i < 100000; ++i) fields += " B";
  fields += ")]";
  EXPECT_EQ(codeOf(fields), base::Code::kTooBig);
  EXPECT_EQ(codeOf(" 1 " + std::string(100000, 'A')), base::Code::kInvalid);
  EXPECT_EQ(codeOf(" 1 (" + std::string(100000, '(')), base::Code::kInvalid);
  EXPECT_EQ(codeOf(" 1 BODY[" + std::string(100000, '[')), base::Code::kInvalid);
}

TEST(FetchArgs, FormatSection) {
  mime::SectionSpec s;
  EXPECT_EQ(formatSection(s), "");
  s.path = {1, 2};
  EXPECT_EQ(formatSection(s), "1.2");
  s.text = Text::kMime;
  EXPECT_EQ(formatSection(s), "1.2.MIME");
  s.path.clear();
  s.text = Text::kHeaderFieldsNot;
  s.fields = {"Received", "X-Odd(1)"};
  EXPECT_EQ(formatSection(s), "HEADER.FIELDS.NOT (Received \"X-Odd(1)\")");
}

}  // namespace fetch_args_test
}  // namespace darius::imapd::fetch
