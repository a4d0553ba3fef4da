// Maildrop on a real Store: the snapshot, the lock between sessions (and its release), UIDL
// formats that survive a reopen, and commit as a phase-1 expunge.
#include "pop3d/maildrop.h"

#include <gtest/gtest.h>

#include "lib/io/temp_dir.h"

namespace darius::pop3d {
namespace {

class MaildropTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto t = io::TempDir::create("maildrop");
    ASSERT_TRUE(t.ok());
    tmp_ = std::make_unique<io::TempDir>(std::move(*t));
    mailbox::StoreOptions o;
    o.data_dir = tmp_->file("data");
    o.partitions = {{"default", tmp_->file("spool")}};
    auto s = mailbox::Store::open(o);
    ASSERT_TRUE(s.ok());
    store_ = std::move(*s);
    inbox_ = std::make_unique<mailbox::MailboxName>(*mailbox::MailboxName::parse("user/alice"));
  }
  void deliver(const std::string& text) {
    ASSERT_TRUE(store_->ensureInbox(*inbox_).isOk());
    auto staged = store_->stage(store_->defaultPartition(), text);
    ASSERT_TRUE(staged.ok());
    mailbox::AppendRequest r;
    r.message = &*staged;
    ASSERT_TRUE(store_->append(*inbox_, std::span<const mailbox::AppendRequest>(&r, 1)).ok());
  }
  base::Result<std::unique_ptr<Maildrop>> open(UidlFormat f = UidlFormat::kUidvalidityUid) {
    return Maildrop::open(*store_, *inbox_, tmp_->file("locks"), f);
  }

  std::unique_ptr<io::TempDir> tmp_;
  std::unique_ptr<mailbox::Store> store_;
  std::unique_ptr<mailbox::MailboxName> inbox_;
};

TEST_F(MaildropTest, AnEmptyMaildropIsCreatedOnFirstLogin) {
  auto d = open();
  ASSERT_TRUE(d.ok()) << d.status().toString();
  EXPECT_EQ((*d)->count(), 0u);
  EXPECT_TRUE(store_->list().lookup(*inbox_).ok());
}

TEST_F(MaildropTest, TheLockExcludesASecondSessionUntilReleased) {
  auto a = open();
  ASSERT_TRUE(a.ok());
  auto b = open();
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), base::Code::kLocked);
  a->reset();
  EXPECT_TRUE(open().ok());
}

TEST_F(MaildropTest, UidlIsStableAcrossSessionsInEveryFormat) {
  deliver("Subject: a\r\n\r\nx\r\n");
  deliver("Subject: b\r\n\r\ny\r\n");
  for (UidlFormat f : {UidlFormat::kUidvalidityUid, UidlFormat::kUid, UidlFormat::kGuid}) {
    std::vector<std::string> first, second;
    for (auto* out : {&first, &second}) {
      auto d = open(f);
      ASSERT_TRUE(d.ok());
      for (uint32_t i = 1; i <= (*d)->count(); ++i) out->push_back((*d)->uidl(*(*d)->message(i)));
    }
    EXPECT_EQ(first, second);
    EXPECT_NE(first[0], first[1]);
  }
  auto d = open(UidlFormat::kGuid);
  EXPECT_EQ((*d)->uidl(*(*d)->message(1)),
            mailbox::guidHex(mailbox::sha1Of("Subject: a\r\n\r\nx\r\n")));
  EXPECT_TRUE(parseUidlFormat("uidvalidity.uid").ok());
  EXPECT_FALSE(parseUidlFormat("md5").ok());
}

TEST_F(MaildropTest, CommitExpungesOnlyWhatWasDeleted) {
  for (int i = 0; i < 3; ++i) deliver("Subject: " + std::to_string(i) + "\r\n\r\nx\r\n");
  {
    auto d = open();
    ASSERT_TRUE(d.ok());
    EXPECT_TRUE((*d)->dele(2));
    EXPECT_FALSE((*d)->dele(2));
    EXPECT_FALSE((*d)->dele(4));
    EXPECT_FALSE((*d)->dele(0));
    EXPECT_EQ((*d)->liveCount(), 2u);
    auto n = (*d)->commit();
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(*n, 1u);
  }
  auto d = open();
  ASSERT_TRUE(d.ok());
  ASSERT_EQ((*d)->count(), 2u);
  EXPECT_EQ((*d)->message(1)->uid, 1u);
  EXPECT_EQ((*d)->message(2)->uid, 3u);
  EXPECT_EQ((*d)->message(3), nullptr);
}

}  // namespace
}  // namespace darius::pop3d
