#include "imapd/thread/message_ids.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace darius::imapd::thread {
namespace message_ids_test {

using Ids = std::vector<std::string>;

TEST(MessageIds, QuotingIsNormalisedAway) {
  // RFC 5256 §3's example: the two spellings are one id.
  EXPECT_EQ(firstMessageId("<\"01KF8JCEOCBS0045PS\"@xxx.yyy.com>"), "<01KF8JCEOCBS0045PS@xxx.yyy.com>");
  EXPECT_EQ(firstMessageId("<01KF8JCEOCBS0045PS@xxx.yyy.com>"), "<01KF8JCEOCBS0045PS@xxx.yyy.com>");
  EXPECT_EQ(firstMessageId(" <\"a\\\"b\"@x> "), "<a\"b@x>");
  // Obsolete forms: comments and folding white space inside the brackets.
  EXPECT_EQ(firstMessageId("<a . b (c) @ example.com>"), "<a.b@example.com>");
  EXPECT_EQ(firstMessageId("<a@[10.0.0.1]>"), "<a@[10.0.0.1]>");
}

TEST(MessageIds, CaseIsKept) { EXPECT_EQ(firstMessageId("<AbC@Ex>"), "<AbC@Ex>"); }

TEST(MessageIds, InvalidIdsAreSkipped) {
  EXPECT_EQ(firstMessageId(""), "");
  EXPECT_EQ(firstMessageId("no brackets@x"), "");
  EXPECT_EQ(firstMessageId("<noat>"), "");
  EXPECT_EQ(firstMessageId("<@x>"), "");
  EXPECT_EQ(firstMessageId("<a@>"), "");
  EXPECT_EQ(firstMessageId("<a@x"), "");
  EXPECT_EQ(firstMessageId("<a\x01@x>"), "");
  EXPECT_EQ(firstMessageId("<\"unterminated@x>"), "");
  EXPECT_EQ(parseMessageIds("<bad> <a@x> <b@x <c@x>"), (Ids{"<a@x>", "<c@x>"}));
}

TEST(MessageIds, PhrasesAndCommentsOutsideTheBracketsDoNotCount) {
  EXPECT_EQ(firstMessageId("Your message of \"Mon, <x@fake>\" <real@x>"), "<real@x>");
  EXPECT_EQ(firstMessageId("(from <c@fake>) <real@x>"), "<real@x>");
  EXPECT_EQ(firstMessageId("<real@x> (John <j@x>)"), "<real@x>");
}

TEST(MessageIds, ReferencesListsAndFolding) {
  EXPECT_EQ(parseMessageIds("<a@x>\r\n <b@x>\t<c@x>"), (Ids{"<a@x>", "<b@x>", "<c@x>"}));
  EXPECT_EQ(parseMessageIds("<a@x><b@x>"), (Ids{"<a@x>", "<b@x>"}));
}

TEST(MessageIds, OnlyTheLastReferencesAreKept) {
  EXPECT_EQ(parseMessageIds("<a@x> <b@x> <c@x> <d@x> <e@x>", 2), (Ids{"<d@x>", "<e@x>"}));
  EXPECT_EQ(parseMessageIds("<a@x> <b@x> <c@x>", 3), (Ids{"<a@x>", "<b@x>", "<c@x>"}));
  EXPECT_TRUE(parseMessageIds("<a@x>", 0).empty());
}

TEST(MessageIds, ReferencesBeforeInReplyTo) {
  EXPECT_EQ(threadReferences("<a@x> <b@x>", "<c@x>"), (Ids{"<a@x>", "<b@x>"}));
  // No valid id in References: In-Reply-To's first one.
  EXPECT_EQ(threadReferences("junk", "<c@x> <d@x>"), (Ids{"<c@x>"}));
  EXPECT_EQ(threadReferences(std::nullopt, "<c@x>"), (Ids{"<c@x>"}));
  EXPECT_EQ(threadReferences(std::nullopt, "no id"), Ids{});
  EXPECT_EQ(threadReferences(std::nullopt, std::nullopt), Ids{});
}

}  // namespace message_ids_test
}  // namespace darius::imapd::thread
