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
    auto reader = mailbox::Mailbox::open(env(), dir_);
    ASSERT_TRUE(reader.ok());
    auto name = mailbox::MailboxName::personal("", "alice", {});
    ASSERT_TRUE(name.ok());
    auto s = SelectedMailbox::open({mailbox::MailboxEntry{}, std::move(*reader)}, *name,
                                   ~mailbox::Rights{0}, false, false);
    ASSERT_TRUE(s.ok()) << s.status().toString();
    selected_ = std::move(*s);
  }
  io::Env& env() { return *io::Env::posix(); }

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
  std::string updates() {
    EXPECT_TRUE(selected_->refresh().isOk());
    std::string out;
    EXPECT_TRUE(selected_->writeUpdates(true, UpdateStyle{}, out).isOk());
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

}  // namespace
}  // namespace darius::imapd
