// SelectedMailbox's updates (RFC 9051 §7.4.1, §7.5.2): what a selected session reports after
// other handles append and change flags, in particular refresh()'s fast path for a single
// append, which must never swallow a flag change made in the same interval.
#include "imapd/selected.h"

#include <gtest/gtest.h>

#include "lib/io/temp_dir.h"
#include "mailbox/message_stage.h"

namespace darius::imapd {
namespace {

using mailbox::FlagChange;

class SelectedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto t = io::TempDir::create("selected-test");
    ASSERT_TRUE(t.ok());
    tmp_ = std::make_unique<io::TempDir>(std::move(*t));
    stage_ = tmp_->file("stage");
    ASSERT_TRUE(mailbox::cleanStageDir(env(), stage_).isOk());
    dir_ = tmp_->file("box");
    auto m = mailbox::Mailbox::create(env(), dir_, {"0123456789abcdef0123456789abcdef", "u", 77, {}, ""});
    ASSERT_TRUE(m.ok());
    writer_ = std::move(*m);
    append(3);
    selected_ = select(SelectedMailbox::Recent::kNone);
  }
  io::Env& env() { return *io::Env::posix(); }

  // A session's view of the mailbox through its own handle, as SELECT opens it.
  std::unique_ptr<SelectedMailbox> select(SelectedMailbox::Recent recent, bool read_only = false,
                                          mailbox::Rights rights = ~mailbox::Rights{0}) {
    auto reader = mailbox::Mailbox::open(env(), dir_);
    EXPECT_TRUE(reader.ok());
    if (!reader.ok()) return nullptr;
    auto name = mailbox::MailboxName::personal("", "alice", {});
    EXPECT_TRUE(name.ok());
    auto s = SelectedMailbox::open({mailbox::MailboxEntry{}, std::move(*reader)}, *name, rights,
                                   read_only, recent);
    EXPECT_TRUE(s.ok()) << s.status().toString();
    return s.ok() ? std::move(*s) : nullptr;
  }

  void append(int n) {
    std::vector<mailbox::StagedMessage> staged;
    for (int i = 0; i < n; ++i) {
      auto s = mailbox::stageMessage(env(), stage_, "Subject: " + std::to_string(next_++) + "\r\n\r\nx\r\n");
      ASSERT_TRUE(s.ok());
      staged.push_back(*s);
    }
    std::vector<mailbox::AppendRequest> q;
    for (auto& s : staged) q.push_back({&s, 1790000000, 0, 0, {}});
    ASSERT_TRUE(writer_->append(q).ok());
    for (auto& s : staged) ASSERT_TRUE(mailbox::unstage(env(), s).isOk());
  }
  void flag(uint32_t uid) {
    ASSERT_TRUE(writer_->store(std::vector<FlagChange>{{uid, FlagChange::Op::kAdd, mailbox::kFlagFlagged, {}, 0}}).ok());
  }
  void keyword(uint32_t uid, const std::string& name) {
    ASSERT_TRUE(writer_->store(std::vector<FlagChange>{{uid, FlagChange::Op::kAdd, 0, {name}, 0}}).ok());
  }
  std::string updates(SelectedMailbox* s = nullptr) {
    if (s == nullptr) s = selected_.get();
    EXPECT_TRUE(s->refresh().isOk());
    std::string out;
    EXPECT_TRUE(s->writeUpdates(true, UpdateStyle{}, out).isOk());
    return out;
  }

  std::unique_ptr<io::TempDir> tmp_;
  std::string stage_, dir_;
  int next_ = 1;
  std::unique_ptr<mailbox::Mailbox> writer_;
  std::unique_ptr<SelectedMailbox> selected_;
};

TEST_F(SelectedTest, AnAppendAloneIsAnExists) {
  append(2);
  EXPECT_EQ(updates(), "* 5 EXISTS\r\n");
  EXPECT_EQ(selected_->count(), 5u);
  EXPECT_EQ(updates(), "");
}

TEST_F(SelectedTest, AFlagChangeBeforeAnAppendIsStillReported) {
  flag(2);
  append(1);  // two modseqs since the last pass: the full merge runs
  std::string out = updates();
  EXPECT_NE(out.find("* 4 EXISTS\r\n"), std::string::npos) << out;
  EXPECT_NE(out.find("* 2 FETCH (UID 2 FLAGS (\\Flagged))"), std::string::npos) << out;
}

TEST_F(SelectedTest, AFlagChangeAfterAnAppendIsStillReported) {
  append(1);
  flag(1);
  std::string out = updates();
  EXPECT_NE(out.find("* 4 EXISTS\r\n"), std::string::npos) << out;
  EXPECT_NE(out.find("* 1 FETCH (UID 1 FLAGS (\\Flagged))"), std::string::npos) << out;
}

TEST_F(SelectedTest, AppendsOneByOneStayInOrder) {
  for (int i = 0; i < 5; ++i) {
    append(1);
    EXPECT_EQ(updates(), "* " + std::to_string(4 + i) + " EXISTS\r\n");
  }
  EXPECT_EQ(selected_->uids(), (std::vector<uint32_t>{1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST_F(SelectedTest, AKeywordFromAnotherHandleIsAnnouncedBeforeItIsShown) {
  // RFC 9051 §7.3.5: the FLAGS (and PERMANENTFLAGS) that name $Label4 come before the first
  // FETCH that shows it; before, this session's handle never learnt the new name at all.
  keyword(2, "$Label4");
  std::string out = updates();
  size_t flags = out.find("* FLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft $Label4)\r\n");
  size_t perm = out.find("* OK [PERMANENTFLAGS (\\Answered \\Flagged \\Draft $Label4 \\Deleted "
                         "\\Seen \\*)]");
  size_t fetch = out.find("* 2 FETCH (UID 2 FLAGS ($Label4))");
  ASSERT_NE(flags, std::string::npos) << out;
  ASSERT_NE(perm, std::string::npos) << out;
  ASSERT_NE(fetch, std::string::npos) << out;
  EXPECT_LT(flags, fetch);
  EXPECT_LT(perm, fetch);
  // Announced once.
  keyword(3, "$Label4");
  EXPECT_EQ(updates(), "* 3 FETCH (UID 3 FLAGS ($Label4))\r\n");
}

TEST_F(SelectedTest, AReadOnlySessionGetsFlagsButKeepsItsEmptyPermanentFlags) {
  auto examined = select(SelectedMailbox::Recent::kPeek, /*read_only=*/true);
  keyword(1, "Work");
  std::string out = updates(examined.get());
  EXPECT_NE(out.find("* FLAGS ("), std::string::npos) << out;
  EXPECT_EQ(out.find("PERMANENTFLAGS"), std::string::npos) << out;
}

TEST_F(SelectedTest, PermanentFlagsFollowTheRights) {
  auto s = select(SelectedMailbox::Recent::kNone, false,
                  mailbox::right::kRead | mailbox::right::kSeen);
  EXPECT_EQ(s->permanentFlags(), "\\Seen");
  EXPECT_EQ(selected_->permanentFlags(), "\\Answered \\Flagged \\Draft \\Deleted \\Seen \\*");
}

TEST_F(SelectedTest, RecentGoesToExactlyOneSelectAndExamineOnlyLooks) {
  // The three messages of SetUp were claimed by nobody (SetUp's session is IMAP4rev2).
  auto examined = select(SelectedMailbox::Recent::kPeek, /*read_only=*/true);
  EXPECT_EQ(examined->recentCount(), 3u) << "EXAMINE shows what no session has claimed";
  auto first = select(SelectedMailbox::Recent::kClaim);
  EXPECT_EQ(first->recentCount(), 3u);
  auto second = select(SelectedMailbox::Recent::kClaim);
  EXPECT_EQ(second->recentCount(), 0u);
  EXPECT_EQ(select(SelectedMailbox::Recent::kPeek, true)->recentCount(), 0u);
  // A delivery while both are selected: recent to whichever looks first, and only to it.
  append(1);
  EXPECT_EQ(updates(second.get()), "* 4 EXISTS\r\n* 1 RECENT\r\n");
  EXPECT_EQ(updates(first.get()), "* 4 EXISTS\r\n");
  EXPECT_TRUE(second->isRecent(4));
  EXPECT_FALSE(first->isRecent(4));
  // A read-write SELECT that has to open read-only (no write rights) only looks, too.
  append(1);
  auto looker = select(SelectedMailbox::Recent::kClaim, /*read_only=*/true);
  EXPECT_EQ(looker->recentCount(), 1u);
  EXPECT_EQ(updates(first.get()), "* 5 EXISTS\r\n* 4 RECENT\r\n");
}

TEST_F(SelectedTest, ANewMessageExpungedBeforeItWasReportedIsNotCountedRecent) {
  auto s = select(SelectedMailbox::Recent::kClaim);
  ASSERT_EQ(s->recentCount(), 3u);
  append(1);
  ASSERT_TRUE(s->refresh().isOk());  // claims UID 4, not yet told
  ASSERT_TRUE(writer_->expunge(std::vector<uint32_t>{4}).ok());
  // Neither an EXISTS nor a RECENT for a message the client never saw.
  EXPECT_EQ(updates(s.get()), "");
  EXPECT_EQ(s->recentCount(), 3u);
}

TEST_F(SelectedTest, OpenReportsTheIndexItsViewWasBuiltFrom) {
  auto s = select(SelectedMailbox::Recent::kClaim);
  EXPECT_EQ(s->openedIndex().uidnext, 4u);
  EXPECT_EQ(s->openedIndex().highest_modseq, s->reportedModseq());
}

// The search contexts' view of a refresh (RFC 5267 §4.3): pendingChecks() names the new and
// the flag-changed messages, this session's own reported changes included (its result may
// change too), never the expunged; the hooks run before the EXPUNGEs and after the FETCHes.
TEST_F(SelectedTest, PendingChecksAndUpdateHooks) {
  flag(1);
  flag(2);
  selected_->noteReported(2, writer_->index().highest_modseq);  // as this session's STORE would
  append(1);
  ASSERT_TRUE(writer_->expunge(std::vector<uint32_t>{3}).ok());
  ASSERT_TRUE(selected_->refresh().isOk());
  EXPECT_EQ(selected_->pendingChecks(), (std::vector<uint32_t>{1, 2, 4}));
  std::vector<uint32_t> gone_seen;
  UpdateHooks hooks;
  hooks.before_expunges = [&](const std::set<uint32_t>& gone, std::string& out) {
    gone_seen.assign(gone.begin(), gone.end());
    EXPECT_EQ(selected_->msnOf(3), 3u);  // still in the view
    out += "<before>\r\n";
  };
  hooks.after_updates = [&](std::string& out) {
    EXPECT_EQ(selected_->msnOf(4), 3u);  // the new message is in the view
    out += "<after>\r\n";
  };
  std::string out;
  ASSERT_TRUE(selected_->writeUpdates(true, UpdateStyle{}, out, &hooks).isOk());
  EXPECT_EQ(gone_seen, (std::vector<uint32_t>{3}));
  EXPECT_EQ(out, "<before>\r\n* 3 EXPUNGE\r\n* 3 EXISTS\r\n"
                 "* 1 FETCH (UID 1 FLAGS (\\Flagged))\r\n<after>\r\n");
  // Reported: nothing pending any more.
  ASSERT_TRUE(selected_->refresh().isOk());
  EXPECT_EQ(selected_->pendingChecks(), std::vector<uint32_t>{});
}

}  // namespace
}  // namespace darius::imapd
