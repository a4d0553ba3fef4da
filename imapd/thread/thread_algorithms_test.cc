#include "imapd/thread/thread_algorithms.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace darius::imapd::thread {
namespace {

ThreadMessage msg(uint32_t id, std::string message_id, std::vector<std::string> refs,
                  std::string subject = "", int64_t date = -1, bool reply = false) {
  ThreadMessage m;
  m.id = id;
  m.message_id = std::move(message_id);
  m.references = std::move(refs);
  m.base_subject = subject.empty() ? "subject " + std::to_string(id) : std::move(subject);
  m.reply_or_fwd = reply;
  m.sent_date = date < 0 ? static_cast<int64_t>(id) * 100 : date;
  return m;
}

std::string refs(const std::vector<ThreadMessage>& m) { return formatThreads(threadReferences(m)); }

// RFC 5256 §4's example, built from References chains: "(2)(3 6 (4 23)(44 7 96))".
TEST(ThreadReferences, RfcSection4Example) {
  std::vector<ThreadMessage> m = {
      msg(2, "<2@x>", {}),
      msg(3, "<3@x>", {}),
      msg(4, "<4@x>", {"<3@x>", "<6@x>"}),
      msg(6, "<6@x>", {"<3@x>"}),
      msg(7, "<7@x>", {"<3@x>", "<6@x>", "<44@x>"}),
      msg(23, "<23@x>", {"<3@x>", "<6@x>", "<4@x>"}),
      msg(44, "<44@x>", {"<3@x>", "<6@x>"}),
      msg(96, "<96@x>", {"<7@x>"}),
  };
  EXPECT_EQ(refs(m), "(2)(3 6 (4 23)(44 7 96))");
}

// §4: "3 and 5 are siblings of a parent that does not ... exist in the mailbox".
TEST(ThreadReferences, MissingParentWithTwoChildrenKeepsItsDummy) {
  std::vector<ThreadMessage> m = {msg(3, "<3@x>", {"<gone@x>"}), msg(5, "<5@x>", {"<gone@x>"})};
  EXPECT_EQ(refs(m), "((3)(5))");
}

TEST(ThreadReferences, DummyWithOneChildIsPromotedAndInnerDummiesSpliced) {
  // 1 refers to a missing root; 2 refers to 1 through a missing middle message.
  std::vector<ThreadMessage> m = {msg(1, "<1@x>", {"<root@x>"}),
                                  msg(2, "<2@x>", {"<root@x>", "<1@x>", "<mid@x>"}),
                                  msg(3, "<3@x>", {"<1@x>", "<mid@x>"})};
  EXPECT_EQ(refs(m), "(1 (2)(3))");
}

TEST(ThreadReferences, SiblingsByDateThenMailboxOrder) {
  std::vector<ThreadMessage> m = {msg(1, "<1@x>", {}, "s", 10), msg(2, "<2@x>", {"<1@x>"}, "", 50),
                                  msg(3, "<3@x>", {"<1@x>"}, "", 20), msg(4, "<4@x>", {"<1@x>"}, "", 20)};
  EXPECT_EQ(refs(m), "(1 (3)(4)(2))");
  // Threads likewise: the newer root goes last even with the lower number.
  std::vector<ThreadMessage> t = {msg(1, "<1@x>", {}, "", 90), msg(2, "<2@x>", {}, "", 10)};
  EXPECT_EQ(refs(t), "(2)(1)");
}

TEST(ThreadReferences, InputOrderDoesNotMatter) {
  std::vector<ThreadMessage> m = {msg(3, "<3@x>", {"<1@x>"}), msg(1, "<1@x>", {}),
                                  msg(2, "<2@x>", {"<1@x>"})};
  EXPECT_EQ(refs(m), "(1 (2)(3))");
}

TEST(ThreadReferences, DuplicateMessageIdBelongsToTheFirstMessage) {
  std::vector<ThreadMessage> m = {msg(1, "<a@x>", {}), msg(2, "<a@x>", {}),
                                  msg(3, "<3@x>", {"<a@x>"})};
  EXPECT_EQ(refs(m), "(1 3)(2)");
}

TEST(ThreadReferences, MessagesWithoutIdsStandAlone) {
  std::vector<ThreadMessage> m = {msg(1, "", {}), msg(2, "", {}), msg(3, "", {"<1@x>"})};
  EXPECT_EQ(refs(m), "(1)(2)(3)");
}

TEST(ThreadReferences, ReferenceLoopsAreNotLinked) {
  // 1 says it answers 2, 2 says it answers 1: only the first link is made.
  std::vector<ThreadMessage> m = {msg(1, "<a@x>", {"<b@x>"}), msg(2, "<b@x>", {"<a@x>"})};
  EXPECT_EQ(refs(m), "(2 1)");
  // A longer loop through a References chain.
  std::vector<ThreadMessage> l = {msg(1, "<a@x>", {"<c@x>", "<b@x>"}),
                                  msg(2, "<b@x>", {"<a@x>", "<c@x>"}),
                                  msg(3, "<c@x>", {"<b@x>", "<a@x>"})};
  ThreadTree t = threadReferences(l);
  EXPECT_EQ(t.messageCount(), 3u);
}

TEST(ThreadReferences, SelfReferenceIsIgnored) {
  std::vector<ThreadMessage> m = {msg(1, "<a@x>", {"<a@x>"}), msg(2, "<b@x>", {"<a@x>", "<b@x>", "<a@x>"})};
  ThreadTree t = threadReferences(m);
  EXPECT_EQ(t.messageCount(), 2u);
  EXPECT_EQ(formatThreads(threadReferences({msg(1, "<a@x>", {"<a@x>"})})), "(1)");
}

TEST(ThreadReferences, TruncatedReferencesGiveWayToTheLastReference) {
  // 3 claims 2 is a child of 1 (step 1.A); 2's own References then name 4 as its parent (1.B).
  std::vector<ThreadMessage> m = {msg(1, "<1@x>", {}), msg(3, "<3@x>", {"<1@x>", "<2@x>"}),
                                  msg(4, "<4@x>", {}), msg(5, "<2@x>", {"<4@x>"})};
  EXPECT_EQ(refs(m), "(1)(4 5 3)");
}

TEST(ThreadReferences, SameSubjectRootsGatherUnderADummy) {
  std::vector<ThreadMessage> m = {msg(1, "<1@x>", {}, "topic"), msg(2, "<2@x>", {}, "other"),
                                  msg(3, "<3@x>", {}, "topic")};
  EXPECT_EQ(refs(m), "((1)(3))(2)");
}

TEST(ThreadReferences, ReplyBySubjectJoinsTheOriginal) {
  std::vector<ThreadMessage> m = {msg(1, "<1@x>", {}, "topic"),
                                  msg(2, "<2@x>", {}, "topic", -1, true)};
  EXPECT_EQ(refs(m), "(1 2)");
  // The reply came first (an earlier Date): the original still becomes the parent.
  std::vector<ThreadMessage> r = {msg(1, "<1@x>", {}, "topic", 10, true),
                                  msg(2, "<2@x>", {}, "topic", 20)};
  EXPECT_EQ(refs(r), "(2 1)");
  // Two replies and no original: a dummy holds them.
  std::vector<ThreadMessage> d = {msg(1, "<1@x>", {}, "topic", 10, true),
                                  msg(2, "<2@x>", {}, "topic", 20, true)};
  EXPECT_EQ(refs(d), "((1)(2))");
}

TEST(ThreadReferences, SubjectGroupingJoinsDummyThreads) {
  // Two dummies of the same subject merge their children; a lone message joins them.
  std::vector<ThreadMessage> m = {msg(1, "<1@x>", {"<p@x>"}, "t"), msg(2, "<2@x>", {"<p@x>"}, "t"),
                                  msg(3, "<3@x>", {"<q@x>"}, "t"), msg(4, "<4@x>", {"<q@x>"}, "t"),
                                  msg(5, "<5@x>", {}, "t")};
  EXPECT_EQ(refs(m), "((1)(2)(3)(4)(5))");
}

TEST(ThreadReferences, EmptySubjectsAreNotGathered) {
  std::vector<ThreadMessage> m = {msg(1, "<1@x>", {}), msg(2, "<2@x>", {})};
  m[0].base_subject.clear();
  m[1].base_subject.clear();
  EXPECT_EQ(refs(m), "(1)(2)");
}

TEST(ThreadOrderedSubject, GroupsBySubjectWithoutGrandchildren) {
  std::vector<ThreadMessage> m = {msg(1, "", {}, "b", 30), msg(2, "", {}, "a", 10),
                                  msg(3, "", {}, "a", 20), msg(4, "", {}, "b", 40),
                                  msg(5, "", {}, "a", 15), msg(6, "", {}, "c", 5)};
  // Threads by their first message's date: c (5), a (10), b (30).
  EXPECT_EQ(formatThreads(threadOrderedSubject(m)), "(6)(2 (5)(3))(1 4)");
}

TEST(ThreadRefs, NoSubjectGroupingAndThreadsByNewestMessage) {
  std::vector<ThreadMessage> m = {msg(1, "<1@x>", {}, "t", 10), msg(2, "<2@x>", {}, "t", 20),
                                  msg(3, "<3@x>", {"<2@x>"}, "", 30),
                                  msg(4, "<4@x>", {"<1@x>"}, "", 40)};
  EXPECT_EQ(formatThreads(threadReferences(m)), "((1 4)(2 3))");
  EXPECT_EQ(formatThreads(threadRefs(m)), "(2 3)(1 4)");
}

TEST(ThreadFormat, EmptyAndSingle) {
  EXPECT_EQ(formatThreads(ThreadTree{}), "");
  EXPECT_EQ(refs({msg(7, "<7@x>", {})}), "(7)");
  EXPECT_EQ(formatThreads(threadOrderedSubject({})), "");
}

// Neither the 1.A loop checks, the sorts, the formatter nor the destructor may recurse: a long
// reply chain must not overflow the stack.
TEST(ThreadReferences, DeepChainsDoNotRecurse) {
  constexpr uint32_t kDepth = 100000;
  std::vector<ThreadMessage> m;
  m.reserve(kDepth);
  for (uint32_t i = 1; i <= kDepth; ++i) {
    std::vector<std::string> r;
    if (i > 1) r.push_back("<" + std::to_string(i - 1) + "@x>");
    m.push_back(msg(i, "<" + std::to_string(i) + "@x>", std::move(r), "s"));
  }
  for (ThreadAlgorithm a : {ThreadAlgorithm::kReferences, ThreadAlgorithm::kRefs,
                            ThreadAlgorithm::kOrderedSubject}) {
    ThreadTree t = threadMessages(a, m);
    EXPECT_EQ(t.messageCount(), kDepth);
    std::string out = formatThreads(t);
    EXPECT_EQ(out.substr(0, 8), a == ThreadAlgorithm::kOrderedSubject ? "(1 (2)(3" : "(1 2 3 4");
    EXPECT_EQ(out.back(), ')');
  }
}

TEST(ThreadReferences, DeepChainWithFullReferences) {
  // Each message carries its whole ancestry, as a real References does.
  constexpr uint32_t kDepth = 2000;
  std::vector<ThreadMessage> m;
  std::vector<std::string> chain;
  for (uint32_t i = 1; i <= kDepth; ++i) {
    std::string id = "<" + std::to_string(i) + "@x>";
    // Delivered newest first: every message arrives before its parent.
    m.push_back(msg(kDepth + 1 - i, id, chain, "s", i));
    chain.push_back(id);
  }
  ThreadTree t = threadReferences(m);
  EXPECT_EQ(t.messageCount(), kDepth);
  ASSERT_EQ(t.roots.size(), 1u);
  EXPECT_EQ(formatThreads(t).substr(0, 11), "(2000 1999 ");
}

}  // namespace
}  // namespace darius::imapd::thread
