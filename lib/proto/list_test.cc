// Parenthesised lists (RFC 9051 §9): the generic Value tree, the typed list helpers, and the
// limits on depth and size against hostile input.
#include "lib/proto/list.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lib/proto/arg_parser.h"

namespace darius::proto {
namespace {

using base::Code;

Value atom(std::string s) { return Value{Value::Kind::kAtom, std::move(s), {}}; }
Value str(std::string s) { return Value{Value::Kind::kString, std::move(s), {}}; }
Value nil() { return Value{}; }
Value list(std::vector<Value> items) { return Value{Value::Kind::kList, {}, std::move(items)}; }

TEST(ListValue, ParsesEveryKindOfElement) {
  ArgParser p("(\"name\" \"Darius\" version NIL {3}\r\na)b (1:* \\Seen ()) \"\") rest");
  auto v = p.value();
  ASSERT_TRUE(v.ok()) << v.status().toString();
  EXPECT_EQ(*v, list({str("name"), str("Darius"), atom("version"), nil(), str("a)b"),
                      list({atom("1:*"), atom("\\Seen"), list({})}), str("")}));
  EXPECT_EQ(p.rest(), " rest");
  EXPECT_EQ(formatValue(*v), "(\"name\" \"Darius\" version NIL \"a)b\" (1:* \\Seen ()) \"\")");
}

TEST(ListValue, ScalarsAndEmptyList) {
  EXPECT_EQ(*ArgParser("NIL").value(), nil());
  EXPECT_EQ(*ArgParser("nil").value(), nil());
  EXPECT_EQ(*ArgParser("NILS").value(), atom("NILS"));
  EXPECT_EQ(*ArgParser("\"x y\"").value(), str("x y"));
  EXPECT_EQ(*ArgParser("()").value(), list({}));
  EXPECT_EQ(*ArgParser("(())").value(), list({list({})}));
  EXPECT_TRUE(ArgParser("()").list()->empty());
}

TEST(ListValue, MalformedListsAreInvalidAndConsumeNothing) {
  for (const char* bad :
       {"(",    "(a",      "(a b",    "(a  b)",  "( a)",        "(a )",         "(a)(b)x",
        "((a)", ")",       "(a b))x", "(\"x)",   "({5}\r\nab)", "(a\"b\")",     "(%)",
        "(\\)", "(a\xff)", "(\xff)",  "(a\x01)", "(a\r\nb)",    "({2}x\r\nab)", "(a{1}\r\nb)"}) {
    ArgParser p(bad);
    auto v = p.value();
    if (v.ok()) {
      // Only a prefix may be a value: then the rest must not be a plausible continuation.
      EXPECT_FALSE(p.atEnd()) << bad;
      continue;
    }
    EXPECT_EQ(v.status().code(), Code::kInvalid) << bad;
    EXPECT_EQ(p.position(), 0u) << bad;
  }
  EXPECT_FALSE(ArgParser("a").list().ok()) << "list() wants a parenthesised list";
}

TEST(ListValue, DepthLimitRefusesDeepNestingWithoutRecursion) {
  auto nested = [](int depth) {
    return std::string(static_cast<size_t>(depth), '(') + "a" +
           std::string(static_cast<size_t>(depth), ')');
  };
  ListLimits limits;
  limits.max_depth = 3;
  EXPECT_TRUE(ArgParser(nested(3)).value(limits).ok());
  auto deep = ArgParser(nested(4)).value(limits);
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.status().code(), Code::kInvalid);
  EXPECT_EQ(deep.status().message(), "Lists nested too deeply");
  // A million "(" neither overflows the stack nor takes long, with the default limit and
  // with an absurd configured one (capped at 1000).
  std::string hostile(1000000, '(');
  ArgParser h(hostile);
  EXPECT_FALSE(h.value().ok());
  EXPECT_EQ(h.position(), 0u);
  limits.max_depth = 1 << 30;
  EXPECT_FALSE(ArgParser(hostile).value(limits).ok());
  EXPECT_TRUE(ArgParser(nested(1000)).value(limits).ok());
  EXPECT_FALSE(ArgParser(nested(1001)).value(limits).ok());
  // Depth 0: no lists at all, scalars still fine.
  limits.max_depth = 0;
  EXPECT_FALSE(ArgParser("()").value(limits).ok());
  EXPECT_TRUE(ArgParser("a").value(limits).ok());
}

TEST(ListValue, ItemLimitBoundsMemory) {
  ListLimits limits;
  limits.max_items = 5;  // the list itself counts as one
  EXPECT_TRUE(ArgParser("(a b c d)").value(limits).ok());
  auto over = ArgParser("(a b c d e)").value(limits);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), Code::kTooBig);
  EXPECT_TRUE(ArgParser("((((()))))").value(limits).ok()) << "five lists";
  EXPECT_FALSE(ArgParser("(((((())))))").value(limits).ok()) << "six lists";
  // Many empty literals from a client: refused at the default limit.
  std::string flood = "(";
  for (int i = 0; i < 20000; ++i) flood += i ? " {0}\r\n" : "{0}\r\n";
  flood += ")";
  auto f = ArgParser(flood).value();
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), Code::kTooBig);
}

TEST(AtomList, FetchAttAndStatusLists) {
  ArgParser p("(MESSAGES UIDNEXT unseen) x");
  auto a = p.atomList();
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, (std::vector<std::string>{"MESSAGES", "UIDNEXT", "unseen"}));
  EXPECT_EQ(p.rest(), " x");
  EXPECT_TRUE(ArgParser("()").atomList()->empty());
  auto empty = ArgParser("()").atomList({.allow_empty = false});
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(), "Empty list");
  for (const char* bad : {"(\"MESSAGES\")", "(A B", "A B", "(A  B)", "(A] B)", "((A))", ""}) {
    ArgParser b(bad);
    EXPECT_FALSE(b.atomList().ok()) << bad;
    EXPECT_EQ(b.position(), 0u) << bad;
  }
  auto many = ArgParser("(A B C)").atomList({.allow_empty = true, .max_items = 2});
  ASSERT_FALSE(many.ok());
  EXPECT_EQ(many.status().code(), Code::kTooBig);
}

TEST(AstringList, HeaderLists) {
  ArgParser p("(Subject \"X-Spam Flag\" {4}\r\nDate From])");
  auto a = p.astringList({.allow_empty = false});
  ASSERT_TRUE(a.ok()) << a.status().toString();
  EXPECT_EQ(*a, (std::vector<std::string>{"Subject", "X-Spam Flag", "Date", "From]"}));
  EXPECT_TRUE(p.atEnd());
  EXPECT_FALSE(ArgParser("(NIL (x))").astringList().ok());
}

TEST(ListOf, CustomElementsRestoreThePositionOnFailure) {
  std::vector<uint32_t> numbers;
  auto number = [&numbers](ArgParser& p) {
    auto n = p.nzNumber();
    if (!n.ok()) return n.status();
    numbers.push_back(*n);
    return base::Status::ok();
  };
  ArgParser p("(1 2 3)");
  ASSERT_TRUE(p.listOf(number).isOk());
  EXPECT_EQ(numbers, (std::vector<uint32_t>{1, 2, 3}));
  EXPECT_TRUE(p.atEnd());
  ArgParser q("(1 2 0)");
  EXPECT_FALSE(q.listOf(number).isOk());
  EXPECT_EQ(q.position(), 0u);
}

}  // namespace
}  // namespace darius::proto
