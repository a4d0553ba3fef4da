// Two-phase delete (docs/design/expunge.md): DELETE keeps the folder in the deleted area with
// its messages, UIDs, flags and expunged messages, out of quota; undelete brings it back (its
// rules, and a cut undelete finished by the next open); expire removes deleted folders by the
// deleted_* policy at each boundary with an explicit clock; delete_mode immediate; a removal
// cut short is finished.
#include <gtest/gtest.h>

#include <unistd.h>

#include "lib/io/atomic_file.h"
#include "lib/io/path.h"
#include "lib/io/temp_dir.h"
#include "mailbox/header_file.h"
#include "mailbox/mailbox_path.h"
#include "mailbox/store.h"
#include "mailbox/store_internal.h"

namespace darius::mailbox {
namespace store_deleted_test {

constexpr int64_t kDay = 86400;

MailboxName personal(std::string owner, std::vector<std::string> c = {}) {
  auto n = MailboxName::personal("", std::move(owner), std::move(c));
  EXPECT_TRUE(n.ok());
  return *n;
}

class StoreDeletedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto t = io::TempDir::create("deleted");
    ASSERT_TRUE(t.ok());
    tmp_ = std::make_unique<io::TempDir>(std::move(*t));
    reopen(true);
    ASSERT_TRUE(store_->create(inbox_).ok());
  }

  void reopen(bool keep_deleted) {
    store_.reset();
    StoreOptions o;
    o.data_dir = tmp_->file("data");
    o.partitions = {{"default", tmp_->file("p1")}};
    o.list_options.max_name_length = 490;
    o.keep_deleted = keep_deleted;
    auto s = Store::open(std::move(o));
    ASSERT_TRUE(s.ok()) << s.status().toString();
    store_ = std::move(*s);
  }

  // `n` messages of 100 bytes each into `name`, flagged \Flagged.
  void deliver(const MailboxName& name, int n) {
    auto p = store_->partition("default");
    std::vector<StagedMessage> staged;
    for (int i = 0; i < n; ++i) {
      std::string body = "Subject: m" + std::to_string(i) + "\r\n\r\n";
      body.resize(98, 'x');
      body += "\r\n";
      auto s = store_->stage(**p, body);
      ASSERT_TRUE(s.ok());
      staged.push_back(*s);
    }
    std::vector<AppendRequest> q;
    for (auto& s : staged) q.push_back({&s, 1790000000, 0, kFlagFlagged, {}});
    ASSERT_TRUE(store_->append(name, q).ok());
    for (auto& s : staged) EXPECT_TRUE(store_->unstage(s).isOk());
  }

  QuotaUsage usage() {
    auto q = store_->quota(inbox_);
    EXPECT_TRUE(q.ok()) << q.status().toString();
    return q.ok() ? q->usage : QuotaUsage{};
  }

  std::vector<DeletedMailbox> deleted() {
    auto d = store_->listDeleted(std::nullopt);
    EXPECT_TRUE(d.ok()) << d.status().toString();
    return d.ok() ? *d : std::vector<DeletedMailbox>{};
  }

  ExpireOptions policy(int64_t now, uint64_t vol_max = 1ull << 40) {
    ExpireOptions o;
    o.now = now;
    o.deleted_policy.timeout_seconds = 28 * kDay;
    o.deleted_policy.vol_max = vol_max;
    o.deleted_policy.vol_min = vol_max / 2;
    return o;
  }

  std::unique_ptr<io::TempDir> tmp_;
  std::unique_ptr<Store> store_;
  MailboxName inbox_ = personal("alice");
  MailboxName old_ = personal("alice", {"Old"});
};

TEST_F(StoreDeletedTest, DeleteKeepsTheFolderOutOfQuotaAndUndeleteBringsItBackWhole) {
  auto made = store_->create(old_);
  ASSERT_TRUE(made.ok());
  deliver(old_, 5);
  {
    auto m = store_->openMailbox(old_);
    ASSERT_TRUE(m.ok());
    ASSERT_TRUE(store_->expunge(old_, *m->mailbox, std::vector<uint32_t>{2}).ok());
  }
  const QuotaUsage with = usage();
  EXPECT_EQ(with[QuotaResource::kMessage], 4u);
  const int64_t before = ::time(nullptr);
  ASSERT_TRUE(store_->remove(old_).isOk());
  EXPECT_EQ(usage()[QuotaResource::kMessage], 0u);  // released at once
  EXPECT_EQ(usage()[QuotaResource::kStorage], 0u);
  EXPECT_EQ(store_->list().lookup(old_).status().code(), base::Code::kNotFound);

  auto kept = deleted();
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].name, old_);
  EXPECT_EQ(kept[0].unique_id, made->unique_id);
  EXPECT_EQ(kept[0].uidvalidity, made->uidvalidity);
  EXPECT_GE(kept[0].deleted_at, before);
  EXPECT_EQ(kept[0].ordinal, 1u);
  // Its own view is read-only and shows the messages; its expunged view the expunged one.
  {
    auto view = store_->openDeleted(kept[0], false);
    ASSERT_TRUE(view.ok()) << view.status().toString();
    EXPECT_EQ(view->mailbox->index().num_records - view->mailbox->index().num_expunged, 4u);
    EXPECT_EQ(view->entry.uidvalidity, made->uidvalidity);
    EXPECT_EQ(view->mailbox->expunge(std::vector<uint32_t>{1}).status().code(),
              base::Code::kPermission);
    auto bin = store_->openDeleted(kept[0], true);
    ASSERT_TRUE(bin.ok());
    EXPECT_EQ(bin->mailbox->index().num_records, 1u);
  }
  // Scopes: alice's subtree has it, bob's does not.
  EXPECT_EQ(store_->listDeleted(inbox_)->size(), 1u);
  EXPECT_TRUE(store_->listDeleted(personal("bob"))->empty());

  auto back = store_->undelete(kept[0], old_);
  ASSERT_TRUE(back.ok()) << back.status().toString();
  EXPECT_EQ(back->unique_id, made->unique_id);
  EXPECT_EQ(back->uidvalidity, made->uidvalidity);
  EXPECT_TRUE(deleted().empty());
  EXPECT_EQ(usage(), with);
  auto m = store_->openMailbox(old_);
  ASSERT_TRUE(m.ok());
  auto r = m->mailbox->record(0);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->uid, 1u);
  EXPECT_TRUE(r->system_flags & kFlagFlagged);
  EXPECT_EQ(m->mailbox->expungedRecords()->size(), 1u);
  auto h = readMailboxHeader(store_->env(), m->mailbox->dir());
  EXPECT_EQ(h->name, old_.toString());
  // Undelete again: it is gone from the area.
  EXPECT_EQ(store_->undelete(kept[0], personal("alice", {"Again"})).status().code(),
            base::Code::kNotFound);
}

TEST_F(StoreDeletedTest, UndeleteUnderAnotherNameRefusesATakenNameAndAFullQuota) {
  ASSERT_TRUE(store_->create(old_).ok());
  deliver(old_, 3);
  ASSERT_TRUE(store_->remove(old_).isOk());
  ASSERT_TRUE(store_->create(old_).ok());  // the name is taken again
  auto kept = deleted();
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(store_->undelete(kept[0], old_).status().code(), base::Code::kExists);
  QuotaLimits limits;
  limits[QuotaResource::kMessage] = 2;
  ASSERT_TRUE(store_->setQuota(inbox_, limits).isOk());
  const MailboxName restored = personal("alice", {"Restored"});
  EXPECT_EQ(store_->undelete(kept[0], restored).status().code(), base::Code::kOverQuota);
  EXPECT_EQ(deleted().size(), 1u);  // nothing changed
  EXPECT_EQ(store_->list().lookup(restored).status().code(), base::Code::kNotFound);
  limits[QuotaResource::kMessage] = 3;
  ASSERT_TRUE(store_->setQuota(inbox_, limits).isOk());
  ASSERT_TRUE(store_->undelete(kept[0], restored).ok());
  EXPECT_EQ(usage()[QuotaResource::kMessage], 3u);
}

TEST_F(StoreDeletedTest, TwoDeletesOfOneNameBothStayAndAFolderWithChildrenComesBackAroundThem) {
  const MailboxName child = personal("alice", {"Old", "Child"});
  ASSERT_TRUE(store_->create(old_).ok());
  ASSERT_TRUE(store_->create(child).ok());
  deliver(old_, 2);
  deliver(child, 1);
  ASSERT_TRUE(store_->remove(old_).isOk());  // own files only: Child stays
  ASSERT_TRUE(store_->create(old_).ok());
  deliver(old_, 1);
  ASSERT_TRUE(store_->remove(old_).isOk());
  auto kept = deleted();
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_NE(kept[0].entry, kept[1].entry);
  if (kept[0].deleted_at == kept[1].deleted_at) {
    EXPECT_EQ(kept[0].ordinal, 1u);
    EXPECT_EQ(kept[1].ordinal, 2u);
  } else {
    EXPECT_EQ(kept[1].ordinal, 1u);
  }
  // The first comes back where it was, around its child.
  ASSERT_TRUE(store_->undelete(kept[0], old_).ok());
  auto m = store_->openMailbox(old_);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->mailbox->index().num_records, 2u);
  auto c = store_->openMailbox(child);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->mailbox->index().num_records, 1u);
  EXPECT_EQ(deleted().size(), 1u);
}

TEST_F(StoreDeletedTest, ACutUndeleteIsFinishedByTheNextOpen) {
  auto made = store_->create(old_);
  ASSERT_TRUE(made.ok());
  deliver(old_, 2);
  ASSERT_TRUE(store_->remove(old_).isOk());
  auto kept = deleted();
  ASSERT_EQ(kept.size(), 1u);
  const MailboxName to = personal("alice", {"Back"});
  // The intent is written and the directory moved; then the power went.
  internal::Intent in;
  in.op = internal::Intent::Op::kUndelete;
  in.name = to.toString();
  in.unique_id = kept[0].unique_id;
  in.partition = kept[0].partition;
  in.target = kept[0].entry;
  auto text = internal::encodeIntent(in);
  auto decoded = internal::decodeIntent(text);
  ASSERT_TRUE(decoded.ok()) << decoded.status().toString();
  EXPECT_EQ(decoded->target, kept[0].entry);
  ASSERT_TRUE(io::writeFileAtomic(store_->env(), tmp_->file("data/darius.intents/cut.intent"),
                                  text)
                  .isOk());
  auto dir = mailboxDir(tmp_->file("p1"), to);
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(internal::mergeMove(store_->env(), kept[0].dir, *dir).isOk());
  reopen(true);
  ASSERT_EQ(store_->recovery().finished.size(), 1u);
  auto e = store_->list().lookup(to);
  ASSERT_TRUE(e.ok()) << e.status().toString();
  EXPECT_EQ(e->uidvalidity, made->uidvalidity);
  auto h = readMailboxHeader(store_->env(), *dir);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->name, to.toString());
  EXPECT_TRUE(deleted().empty());
  // Its intent without a target is refused, not guessed at.
  in.target.clear();
  EXPECT_FALSE(internal::decodeIntent(internal::encodeIntent(in)).ok());
}

TEST_F(StoreDeletedTest, ExpireRemovesDeletedFoldersAtTheTimeoutAndAboveTheVolume) {
  ASSERT_TRUE(store_->create(old_).ok());
  deliver(old_, 3);
  ASSERT_TRUE(store_->remove(old_).isOk());
  auto kept = deleted();
  ASSERT_EQ(kept.size(), 1u);
  const int64_t t = kept[0].deleted_at;
  // An age of exactly the timeout is kept; one second more is not (dry run first).
  auto none = store_->expireDeleted(std::nullopt, policy(t + 28 * kDay));
  ASSERT_TRUE(none.ok());
  ASSERT_EQ(none->size(), 1u);
  EXPECT_EQ((*none)[0].owner, "alice");
  EXPECT_EQ((*none)[0].held_messages, 1u);
  EXPECT_GT((*none)[0].held_bytes, 300u);
  EXPECT_EQ((*none)[0].removed_messages, 0u);
  ExpireOptions dry = policy(t + 28 * kDay + 1);
  dry.dry_run = true;
  auto would = store_->expireDeleted(std::nullopt, dry);
  ASSERT_TRUE(would.ok());
  EXPECT_EQ((*would)[0].removed_messages, 1u);
  EXPECT_EQ(deleted().size(), 1u);
  // Volume: under vol_max nothing goes; above it, down to vol_min.
  const uint64_t size = (*none)[0].held_bytes;
  EXPECT_EQ((*store_->expireDeleted(std::nullopt, policy(t + 1, size)))[0].removed_messages, 0u);
  auto gone = store_->expireDeleted(std::nullopt, policy(t + 1, size - 1));
  ASSERT_TRUE(gone.ok());
  EXPECT_EQ((*gone)[0].removed_messages, 1u);
  EXPECT_EQ((*gone)[0].removed_bytes, size);
  ASSERT_EQ((*gone)[0].folders.size(), 1u);
  EXPECT_TRUE(deleted().empty());
  auto left = store_->env().listDir(tmp_->file("p1/darius.deleted"));
  ASSERT_TRUE(left.ok());
  EXPECT_TRUE(left->empty());
}

TEST_F(StoreDeletedTest, OverflowOnlyRunsTouchOnlyOwnersPastTheirDeletedOverflow) {
  ASSERT_TRUE(store_->create(old_).ok());
  deliver(old_, 3);
  ASSERT_TRUE(store_->remove(old_).isOk());
  auto kept = deleted();
  ASSERT_EQ(kept.size(), 1u);
  const int64_t t = kept[0].deleted_at;
  ExpireOptions o = policy(t + 1, /*vol_max=*/1);  // far over vol_max: a normal run trims
  o.overflow_only = true;
  auto probe = store_->expireDeleted(std::nullopt, o);
  ASSERT_TRUE(probe.ok());
  const uint64_t size = (*probe)[0].held_bytes;
  o.deleted_policy.vol_overflow = size;  // at the overflow, not past it: nothing goes
  EXPECT_EQ((*store_->expireDeleted(std::nullopt, o))[0].removed_messages, 0u);
  EXPECT_EQ(deleted().size(), 1u);
  o.deleted_policy.vol_overflow = size - 1;
  EXPECT_EQ((*store_->expireDeleted(std::nullopt, o))[0].removed_messages, 1u);
  EXPECT_TRUE(deleted().empty());
}

TEST_F(StoreDeletedTest, ADamagedDeletedFolderIsRebuiltFromItsFilesWhenOpened) {
  ASSERT_TRUE(store_->create(old_).ok());
  deliver(old_, 3);
  ASSERT_TRUE(store_->remove(old_).isOk());
  auto kept = deleted();
  ASSERT_EQ(kept.size(), 1u);
  ASSERT_TRUE(io::writeFileAtomic(store_->env(), kept[0].dir + "/" + std::string(kIndexFileName),
                                  "garbage")
                  .isOk());
  auto view = store_->openDeleted(kept[0], false);
  ASSERT_TRUE(view.ok()) << view.status().toString();
  EXPECT_EQ(view->mailbox->index().num_records, 3u);
  EXPECT_EQ(view->entry.uidvalidity, kept[0].uidvalidity);
  ASSERT_TRUE(store_->undelete(kept[0], old_).ok());
  EXPECT_EQ(usage()[QuotaResource::kMessage], 3u);
}

TEST_F(StoreDeletedTest, ImmediateModeLeavesNothingAndACutRemovalIsFinishedByExpire) {
  ASSERT_TRUE(store_->create(old_).ok());
  deliver(old_, 2);
  ASSERT_TRUE(store_->remove(old_).isOk());
  // A removal cut after its rename: the next expire finishes it.
  auto kept = deleted();
  ASSERT_EQ(kept.size(), 1u);
  ASSERT_TRUE(store_->env().renameFile(kept[0].dir, kept[0].dir + ".purging").isOk());
  EXPECT_TRUE(deleted().empty());
  ASSERT_TRUE(store_->expireDeleted(std::nullopt, policy(0)).ok());
  EXPECT_TRUE(store_->env().listDir(tmp_->file("p1/darius.deleted"))->empty());

  reopen(/*keep_deleted=*/false);
  ASSERT_TRUE(store_->create(old_).ok());
  deliver(old_, 2);
  ASSERT_TRUE(store_->remove(old_).isOk());
  EXPECT_TRUE(deleted().empty());
  EXPECT_TRUE(store_->env().listDir(tmp_->file("p1/darius.deleted"))->empty());
  EXPECT_EQ(usage()[QuotaResource::kMessage], 0u);
}

}  // namespace store_deleted_test
}  // namespace darius::mailbox
