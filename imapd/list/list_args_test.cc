// parseListArgs / parseLsubArgs: every option, the basic and extended forms, and malformed,
// oversized and hostile input (RFC 5258 §3, §6; RFC 5819; RFC 6154; RFC 9051 §6.3.9).
#include "imapd/list/list_args.h"

#include <gtest/gtest.h>

#include <string>

namespace darius::imapd {
namespace {

// Parses `text` (what follows "LIST") as the command table would, including the end check.
base::Result<ListArgs> list(std::string_view text) {
  ArgParser p(text);
  auto a = parseListArgs(p);
  if (!a.ok()) return a.status();
  DARIUS_RETURN_IF_ERROR(p.end());
  return a;
}

base::Result<ListArgs> lsub(std::string_view text) {
  ArgParser p(text);
  auto a = parseLsubArgs(p);
  if (!a.ok()) return a.status();
  DARIUS_RETURN_IF_ERROR(p.end());
  return a;
}

TEST(ListArgs, BasicSyntax) {
  auto a = list(" \"\" \"*\"");
  ASSERT_TRUE(a.ok()) << a.status().toString();
  EXPECT_FALSE(a->extended);
  EXPECT_EQ(a->reference, "");
  EXPECT_EQ(a->patterns, std::vector<std::string>{"*"});
  EXPECT_FALSE(a->return_subscribed || a->return_children || a->return_status ||
               a->return_special_use || a->select_subscribed);

  a = list(" ~/Mail/ %");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->reference, "~/Mail/");
  EXPECT_EQ(a->patterns, std::vector<std::string>{"%"});

  a = list(" inbox a/b*]%");  // list-char includes "]"; any case of INBOX is INBOX
  ASSERT_TRUE(a.ok()) << a.status().toString();
  EXPECT_EQ(a->reference, "INBOX");
  EXPECT_EQ(a->patterns, std::vector<std::string>{"a/b*]%"});

  a = list(" \"\" \"\"");  // the delimiter request
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->patterns, std::vector<std::string>{""});
  EXPECT_FALSE(a->extended);

  a = list(" {0}\r\n {3}\r\na/%");  // literals for both
  ASSERT_TRUE(a.ok()) << a.status().toString();
  EXPECT_EQ(a->reference, "");
  EXPECT_EQ(a->patterns, std::vector<std::string>{"a/%"});

  a = list(" \"\" \"Entwürfe/*\"");  // UTF-8 in a quoted string (UTF8=ACCEPT clients)
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->patterns, std::vector<std::string>{"Entwürfe/*"});
}

TEST(ListArgs, SelectionOptions) {
  auto a = list(" (subscribed REMOTE) \"\" \"*\"");
  ASSERT_TRUE(a.ok()) << a.status().toString();
  EXPECT_TRUE(a->extended);
  EXPECT_TRUE(a->select_subscribed);
  EXPECT_TRUE(a->select_remote);
  EXPECT_TRUE(a->return_subscribed);  // implied (RFC 5258 §3.1)

  a = list(" (SUBSCRIBED RECURSIVEMATCH) \"\" %");
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->select_recursive);

  a = list(" (SPECIAL-USE) \"\" *");
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->select_special_use);
  EXPECT_TRUE(a->return_special_use);  // implied (RFC 6154 §2)

  a = list(" () \"\" *");  // an empty selection list is still the extended syntax
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->extended);

  a = list(" (SUBSCRIBED SUBSCRIBED) \"\" *");  // a repeated option counts once
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->select_subscribed);
}

TEST(ListArgs, RecursiveMatchNeedsABaseOption) {
  // RFC 5258 §3.1 and the list-select-opts ABNF: these are BAD.
  for (std::string_view bad : {" (RECURSIVEMATCH) \"\" *", " (REMOTE RECURSIVEMATCH) \"\" *",
                               " (SPECIAL-USE RECURSIVEMATCH) \"\" *"}) {
    auto a = list(bad);
    ASSERT_FALSE(a.ok()) << bad;
    EXPECT_EQ(a.status().code(), base::Code::kInvalid);
  }
  EXPECT_TRUE(list(" (RECURSIVEMATCH REMOTE SUBSCRIBED) \"\" *").ok());
}

TEST(ListArgs, SeveralPatterns) {
  auto a = list(" \"\" (INBOX \"a/%\" {1}\r\n*)");
  ASSERT_TRUE(a.ok()) << a.status().toString();
  EXPECT_TRUE(a->extended);
  EXPECT_EQ(a->patterns, (std::vector<std::string>{"INBOX", "a/%", "*"}));
  a = list(" \"\" (\"\")");  // legal; the empty pattern is ignored later
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->extended);
}

TEST(ListArgs, ReturnOptions) {
  auto a = list(" \"\" * RETURN (CHILDREN subscribed Special-Use STATUS (MESSAGES unseen))");
  ASSERT_TRUE(a.ok()) << a.status().toString();
  EXPECT_TRUE(a->extended);
  EXPECT_TRUE(a->return_children);
  EXPECT_TRUE(a->return_subscribed);
  EXPECT_TRUE(a->return_special_use);
  EXPECT_TRUE(a->return_status);
  EXPECT_EQ(a->status_items, (std::vector<StatusItem>{StatusItem::kMessages, StatusItem::kUnseen}));
  EXPECT_FALSE(a->select_subscribed);

  a = list(" \"\" * RETURN ()");
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->extended);

  // Repeated STATUS: the items once each, in the order first asked.
  a = list(" \"\" % return (STATUS (UIDNEXT MESSAGES) STATUS (MESSAGES SIZE UIDNEXT))");
  ASSERT_TRUE(a.ok()) << a.status().toString();
  EXPECT_EQ(a->status_items, (std::vector<StatusItem>{StatusItem::kUidNext, StatusItem::kMessages,
                                                      StatusItem::kSize}));

  a = list(" (SUBSCRIBED) \"\" (a b) RETURN (STATUS (HIGHESTMODSEQ))");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->status_items, std::vector<StatusItem>{StatusItem::kHighestModseq});
  EXPECT_FALSE(a->return_myrights);

  a = list(" \"\" * RETURN (myrights)");  // RFC 8440 §3
  ASSERT_TRUE(a.ok()) << a.status().toString();
  EXPECT_TRUE(a->return_myrights);
}

TEST(ListArgs, MalformedIsBad) {
  for (std::string_view bad : {
           "",                                  // nothing
           " \"\"",                             // no pattern
           " \"\" ",                            // SP but no pattern
           " (SUBSCRIBED \"\" *",               // unbalanced selection list
           " (SUBSCRIBED)) \"\" *",             // one paren too many
           " (SUBSCRIBED)\"\" *",               // SP missing
           " \"\" (a b",                        // unterminated pattern list
           " \"\" ()",                          // patterns = "(" list-mailbox ...")": not empty
           " \"\" ((a))",                       // nested pattern lists
           " \"\" * RETURN",                    // RETURN without a list
           " \"\" * RETURN (",                  // unterminated return list
           " \"\" * RETURN (STATUS)",           // STATUS without items
           " \"\" * RETURN (STATUS ())",        // STATUS with an empty item list
           " \"\" * RETURN (STATUS (BOGUS))",   // unknown STATUS item
           " \"\" * RETURN (STATUS MESSAGES)",  // items not in a list
           " \"\" * RETURN (CHILDREN) x",       // trailing garbage
           " \"\" * RETOUR (CHILDREN)",         // not RETURN
           " \"\" * (CHILDREN)",                // RETURN missing
           " (BOGUS) \"\" *",                   // unknown selection option: MUST be BAD
           " (SUBSCRIBED (x)) \"\" *",          // an option value where none is defined
           " \"\" * RETURN (MYRIGHT)",          // unknown return option
           " \"\" * RETURN (X-VENDOR (1 2))",   // unknown vendor option with a value
           " \"\" a\"b",                        // quote inside an atom-like pattern
           " \"\" a(b",                         // "(" inside a pattern
           " \"\" \"abc",                       // unterminated quoted pattern
           " \"\" {5}\r\nab",                   // truncated literal
           "  \"\" *",                          // two spaces
           " \"\" *\x01",                       // control character
           " \"\" *\xc3\xbc",                   // 8-bit outside a string
       }) {
    auto a = list(bad);
    EXPECT_FALSE(a.ok()) << "accepted: " << bad;
    if (!a.ok()) {
      EXPECT_EQ(a.status().code(), base::Code::kInvalid) << bad;
    }
  }
  // A NUL byte cannot come in a string literal either.
  std::string nul = " \"\" {3}\r\na";
  nul += '\0';
  nul += 'b';
  EXPECT_FALSE(list(nul).ok());
}

TEST(ListArgs, HugePatternListsAreTooBig) {
  std::string text = " \"\" (";
  for (size_t i = 0; i <= kMaxListPatterns; ++i) text += (i ? " p" : "p") + std::to_string(i);
  text += ")";
  auto a = list(text);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), base::Code::kTooBig);

  // Exactly the limit is fine.
  text = " \"\" (";
  for (size_t i = 0; i < kMaxListPatterns; ++i) text += (i ? " p" : "p") + std::to_string(i);
  text += ")";
  a = list(text);
  ASSERT_TRUE(a.ok()) << a.status().toString();
  EXPECT_EQ(a->patterns.size(), kMaxListPatterns);

  // A long option list of repeated known options is fine and counts once.
  text = " (";
  for (int i = 0; i < 500; ++i) text += i ? " REMOTE" : "REMOTE";
  text += ") \"\" *";
  EXPECT_TRUE(list(text).ok());

  // A very long pattern parses (matching bounds its cost, list_pattern.h).
  a = list(" \"\" " + std::string(100000, '%'));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->patterns[0].size(), 100000u);
}

TEST(ListArgs, Lsub) {
  auto a = lsub(" \"\" \"*\"");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->patterns, std::vector<std::string>{"*"});
  EXPECT_TRUE(a->select_subscribed);
  EXPECT_FALSE(a->extended);
  a = lsub(" Inbox/ %");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->reference, "Inbox/");  // only the whole name "INBOX" is normalised
  // LSUB has no extended syntax.
  EXPECT_FALSE(lsub(" (SUBSCRIBED) \"\" *").ok());
  EXPECT_FALSE(lsub(" \"\" (a b)").ok());
  EXPECT_FALSE(lsub(" \"\" * RETURN (CHILDREN)").ok());
  EXPECT_FALSE(lsub(" \"\"").ok());
}

TEST(ListArgs, ListMailbox) {
  ArgParser p("a%b*c]d rest");
  auto m = parseListMailbox(p);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(*m, "a%b*c]d");
  EXPECT_EQ(p.rest(), " rest");
  ArgParser q(")");
  EXPECT_FALSE(parseListMailbox(q).ok());
  EXPECT_EQ(q.position(), 0u);
}

}  // namespace
}  // namespace darius::imapd
