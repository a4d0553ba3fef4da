// Store quota accounting (RFC 9208) on real directories, real index files and real OFD locks:
// usage stays exact through append, copy, move, expunge, create, delete and rename; a change
// over a limit fails with kOverQuota and changes nothing; threads of two Store instances (as
// dariusd and the darius tool are two processes) racing for the last bytes never cross a
// limit; a record left pending by a killed holder, or written in another boot, is recounted;
// recalc reports and fixes a wrong record.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "lib/io/temp_dir.h"
#include "mailbox/store.h"

namespace darius::mailbox {
namespace store_quota_test {

MailboxName personal(std::string owner, std::vector<std::string> c = {}) {
  auto n = MailboxName::personal("", std::move(owner), std::move(c));
  EXPECT_TRUE(n.ok());
  return *n;
}

std::string message(int i, size_t body = 10) {
  return "From: a@example.com\r\nSubject: quota " + std::to_string(i) + "\r\n\r\n" +
         std::string(body, 'x') + "\r\n";
}

QuotaLimits limits(std::optional<uint64_t> storage_kib, std::optional<uint64_t> messages,
                   std::optional<uint64_t> mailboxes = std::nullopt) {
  QuotaLimits l;
  l[QuotaResource::kStorage] = storage_kib;
  l[QuotaResource::kMessage] = messages;
  l[QuotaResource::kMailbox] = mailboxes;
  return l;
}

class StoreQuotaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto t = io::TempDir::create("store_quota");
    ASSERT_TRUE(t.ok());
    tmp_ = std::make_unique<io::TempDir>(std::move(*t));
    store_ = open();
    ASSERT_NE(store_, nullptr);
  }

  std::unique_ptr<Store> open(std::optional<BootId> boot = std::nullopt) {
    StoreOptions o;
    o.data_dir = tmp_->file("data");
    o.partitions = {{"default", tmp_->file("p1")}};
    o.boot_id = boot;
    auto s = Store::open(std::move(o));
    EXPECT_TRUE(s.ok()) << s.status().toString();
    return s.ok() ? std::move(*s) : nullptr;
  }

  // Appends one message of `bytes` through the group-committed path of `store`.
  static base::Status deliver(Store& store, const MailboxName& name, const std::string& bytes) {
    auto staged = store.stage(store.defaultPartition(), bytes);
    if (!staged.ok()) return staged.status();
    AppendRequest r{&*staged, 1790000000, 0, 0, {}};
    auto a = store.append(name, std::span<const AppendRequest>(&r, 1));
    (void)store.unstage(*staged);
    return a.status();
  }

  QuotaUsage usageOf(const MailboxName& root) {
    auto q = store_->quota(root);
    EXPECT_TRUE(q.ok()) << q.status().toString();
    return q.ok() ? q->usage : QuotaUsage{};
  }

  // The record agrees with a recount from the index headers.
  void expectExact(const MailboxName& root) {
    auto d = store_->recalcQuota({root}, /*dry_run=*/true);
    ASSERT_TRUE(d.ok()) << d.status().toString();
    EXPECT_TRUE(d->empty()) << root.toString() << ": " << d->size() << " differences";
  }

  std::unique_ptr<io::TempDir> tmp_;
  std::unique_ptr<Store> store_;
};

TEST_F(StoreQuotaTest, UsageFollowsEveryOperation) {
  const MailboxName inbox = personal("alice"), archive = personal("alice", {"Archive"});
  ASSERT_TRUE(store_->create(inbox).ok());
  ASSERT_TRUE(store_->create(archive).ok());
  const std::string a = message(1), b = message(2, 100);
  ASSERT_TRUE(deliver(*store_, inbox, a).isOk());
  ASSERT_TRUE(deliver(*store_, inbox, b).isOk());
  QuotaUsage u = usageOf(inbox);
  EXPECT_EQ(u[QuotaResource::kStorage], a.size() + b.size());
  EXPECT_EQ(u[QuotaResource::kMessage], 2u);
  EXPECT_EQ(u[QuotaResource::kMailbox], 2u);

  auto src = store_->openMailbox(inbox);
  auto dst = store_->openMailbox(archive);
  ASSERT_TRUE(src.ok() && dst.ok());
  ASSERT_TRUE(store_->copy(*src->mailbox, std::vector<uint32_t>{1, 2}, archive, *dst->mailbox).ok());
  EXPECT_EQ(usageOf(inbox)[QuotaResource::kMessage], 4u);
  EXPECT_EQ(usageOf(inbox)[QuotaResource::kStorage], 2 * (a.size() + b.size()));
  // A move within the root leaves the usage where it was.
  ASSERT_TRUE(
      store_->move(inbox, *src->mailbox, std::vector<uint32_t>{1}, archive, *dst->mailbox).ok());
  EXPECT_EQ(usageOf(inbox)[QuotaResource::kMessage], 4u);
  expectExact(inbox);
  // Expunged messages do not count (the expunge issue's two-phase area relies on it).
  ASSERT_TRUE(store_->expunge(inbox, *src->mailbox, std::vector<uint32_t>{2}).ok());
  EXPECT_EQ(usageOf(inbox)[QuotaResource::kMessage], 3u);
  EXPECT_EQ(usageOf(inbox)[QuotaResource::kStorage], 2 * a.size() + b.size());
  expectExact(inbox);
  src.value().mailbox.reset();
  dst.value().mailbox.reset();
  // Deleting a mailbox takes it and its messages out.
  ASSERT_TRUE(store_->remove(archive).isOk());
  u = usageOf(inbox);
  EXPECT_EQ(u[QuotaResource::kMailbox], 1u);
  EXPECT_EQ(u[QuotaResource::kMessage], 0u);
  EXPECT_EQ(u[QuotaResource::kStorage], 0u);
  expectExact(inbox);
}

TEST_F(StoreQuotaTest, OverALimitFailsAndChangesNothing) {
  const MailboxName inbox = personal("alice"), box = personal("alice", {"Box"});
  ASSERT_TRUE(store_->create(inbox).ok());
  ASSERT_TRUE(store_->setQuota(inbox, limits(1, std::nullopt, 2)).isOk());  // 1 KiB, 2 boxes
  const std::string m = message(1, 290);  // 333 bytes: three fit in 1024, a fourth does not
  ASSERT_EQ(m.size(), 333u);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(deliver(*store_, inbox, m).isOk()) << i;
  base::Status over = deliver(*store_, inbox, m);
  EXPECT_EQ(over.code(), base::Code::kOverQuota) << over.toString();
  auto opened = store_->openMailbox(inbox);
  ASSERT_TRUE(opened.ok());
  EXPECT_EQ(opened->mailbox->index().num_records, 3u);
  EXPECT_EQ(usageOf(inbox)[QuotaResource::kStorage], 3 * m.size());

  // The MAILBOX limit: the INBOX and one more.
  ASSERT_TRUE(store_->create(box).ok());
  EXPECT_EQ(store_->create(personal("alice", {"Third"})).status().code(), base::Code::kOverQuota);
  EXPECT_EQ(store_->list().lookup(personal("alice", {"Third"})).status().code(),
            base::Code::kNotFound);

  // A copy that would cross is refused whole.
  auto dst = store_->openMailbox(box);
  ASSERT_TRUE(dst.ok());
  EXPECT_EQ(store_->copy(*opened->mailbox, std::vector<uint32_t>{1}, box, *dst->mailbox)
                .status()
                .code(),
            base::Code::kOverQuota);
  EXPECT_EQ(dst->mailbox->index().num_records, 0u);
  // Expunging still works over a limit, and makes room.
  ASSERT_TRUE(store_->expunge(inbox, *opened->mailbox, std::vector<uint32_t>{1}).ok());
  EXPECT_TRUE(deliver(*store_, inbox, m).isOk());
  expectExact(inbox);
}

TEST_F(StoreQuotaTest, ASubtreeRootTakesItsMailboxesAndLimitsCheckedAtSixtyFourBits) {
  const MailboxName inbox = personal("alice"), archive = personal("alice", {"Archive"});
  ASSERT_TRUE(store_->create(inbox).ok());
  ASSERT_TRUE(store_->create(archive).ok());
  ASSERT_TRUE(deliver(*store_, archive, message(1)).isOk());
  ASSERT_TRUE(store_->setQuota(archive, limits(std::nullopt, 1)).isOk());
  auto root = store_->quotaRootOf(archive);
  ASSERT_TRUE(root.ok() && *root);
  EXPECT_EQ(**root, archive);
  EXPECT_EQ(usageOf(archive)[QuotaResource::kMessage], 1u);
  EXPECT_EQ(usageOf(inbox)[QuotaResource::kMessage], 0u);
  EXPECT_EQ(deliver(*store_, archive, message(2)).code(), base::Code::kOverQuota);
  EXPECT_TRUE(deliver(*store_, inbox, message(3)).isOk());  // the INBOX's root has no limit

  QuotaLimits huge;
  huge[QuotaResource::kStorage] = kMaxQuotaLimit + 1;
  EXPECT_EQ(store_->setQuota(inbox, huge).code(), base::Code::kInvalid);
  huge[QuotaResource::kStorage] = kMaxQuotaLimit;  // the largest number64 is a valid limit
  EXPECT_TRUE(store_->setQuota(inbox, huge).isOk());
  EXPECT_TRUE(deliver(*store_, inbox, message(4)).isOk());
  // Only a listed mailbox or a user's INBOX can be a root.
  EXPECT_EQ(store_->setQuota(personal("alice", {"Nope"}), limits(1, 1)).code(),
            base::Code::kInvalid);

  auto all = store_->listQuotas("");
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].root, inbox);
  EXPECT_EQ((*all)[1].root, archive);
}

TEST_F(StoreQuotaTest, RenameIntoAFullRootIsRefused) {
  const MailboxName inbox = personal("alice"), full = personal("alice", {"Full"}),
                    big = personal("alice", {"Big"});
  ASSERT_TRUE(store_->create(inbox).ok());
  ASSERT_TRUE(store_->create(full).ok());
  ASSERT_TRUE(store_->create(big).ok());
  ASSERT_TRUE(deliver(*store_, big, message(1)).isOk());
  ASSERT_TRUE(store_->setQuota(full, limits(std::nullopt, 0)).isOk());
  EXPECT_EQ(store_->rename(big, personal("alice", {"Full", "Big"})).status().code(),
            base::Code::kOverQuota);
  EXPECT_TRUE(store_->list().lookup(big).ok());
  // Out of the limited root is always allowed.
  ASSERT_TRUE(store_->setQuota(full, limits(std::nullopt, 5)).isOk());
  ASSERT_TRUE(store_->rename(big, personal("alice", {"Full", "Big"})).ok());
  EXPECT_EQ(usageOf(full)[QuotaResource::kMessage], 1u);
  EXPECT_EQ(usageOf(inbox)[QuotaResource::kMessage], 0u);
  expectExact(full);
  expectExact(inbox);
}

// Eight threads on two Store instances (two "processes": each has its own descriptors, so
// only the OFD lock on the usage record serialises them) race for room for exactly five.
TEST_F(StoreQuotaTest, RacingAppendsNeverCrossTheLimit) {
  const MailboxName inbox = personal("alice");
  ASSERT_TRUE(store_->create(inbox).ok());
  const std::string m = message(1, 200);
  const uint64_t room = 5 * m.size();
  ASSERT_TRUE(store_->setQuota(inbox, limits((room + 1023) / 1024, 5)).isOk());
  std::unique_ptr<Store> other = open();
  ASSERT_NE(other, nullptr);
  for (int round = 0; round < 3; ++round) {
    std::atomic<int> ok{0}, over{0}, other_errors{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&, t] {
        base::Status s = deliver(t % 2 == 0 ? *store_ : *other, inbox, m);
        if (s.isOk()) {
          ++ok;
        } else if (s.code() == base::Code::kOverQuota) {
          ++over;
        } else {
          ++other_errors;
        }
      });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(other_errors.load(), 0);
    EXPECT_EQ(ok.load(), 5) << "round " << round;
    EXPECT_EQ(over.load(), 3);
    auto opened = store_->openMailbox(inbox);
    ASSERT_TRUE(opened.ok());
    EXPECT_EQ(opened->mailbox->index().num_records - opened->mailbox->index().num_expunged, 5u);
    expectExact(inbox);
    // Make room again for the next round.
    std::vector<uint32_t> uids;
    for (size_t i = 0; i < opened->mailbox->recordCount(); ++i) {
      auto r = opened->mailbox->record(i);
      ASSERT_TRUE(r.ok());
      if (r->live()) uids.push_back(r->uid);
    }
    ASSERT_TRUE(store_->expunge(inbox, *opened->mailbox, uids).ok());
  }
}

// A holder killed between begin() and commit() leaves the record pending: the next user
// recounts it. A record that is wrong but trusted (what no protocol run produces) is what
// recalc reports and fixes.
TEST_F(StoreQuotaTest, PendingOrForeignBootRecordsAreRecountedAndRecalcFixes) {
  const MailboxName inbox = personal("alice");
  ASSERT_TRUE(store_->create(inbox).ok());
  const std::string m = message(1);
  ASSERT_TRUE(deliver(*store_, inbox, m).isOk());
  QuotaUsage wrong;
  wrong[QuotaResource::kStorage] = 999999;
  {
    auto hold = store_->quotaUsage().lock(inbox.toString());
    ASSERT_TRUE(hold.ok());
    ASSERT_TRUE(hold->begin(wrong).isOk());  // and "dies" here
  }
  EXPECT_EQ(usageOf(inbox)[QuotaResource::kStorage], m.size());

  // Another boot's record is not trusted either (a power cut may have lost its writes).
  {
    auto hold = store_->quotaUsage().lock(inbox.toString());
    ASSERT_TRUE(hold.ok());
    ASSERT_TRUE(hold->commit(wrong).isOk());
  }
  BootId next = store_->quotaUsage().boot();
  next[0] ^= 1;
  store_.reset();
  store_ = open(next);
  ASSERT_NE(store_, nullptr);
  EXPECT_EQ(usageOf(inbox)[QuotaResource::kStorage], m.size());

  {
    auto hold = store_->quotaUsage().lock(inbox.toString());
    ASSERT_TRUE(hold.ok());
    ASSERT_TRUE(hold->commit(wrong).isOk());
  }
  auto dry = store_->recalcQuota({inbox}, /*dry_run=*/true);
  ASSERT_TRUE(dry.ok());
  ASSERT_EQ(dry->size(), 3u);  // STORAGE, MESSAGE and MAILBOX all differ
  EXPECT_EQ((*dry)[0].resource, QuotaResource::kStorage);
  EXPECT_EQ((*dry)[0].stored, 999999u);
  EXPECT_EQ((*dry)[0].actual, m.size());
  auto fixed = store_->recalcQuota({inbox}, /*dry_run=*/false);
  ASSERT_TRUE(fixed.ok());
  EXPECT_EQ(fixed->size(), 3u);
  auto again = store_->recalcQuota({inbox}, /*dry_run=*/false);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->empty());
}

}  // namespace store_quota_test
}  // namespace darius::mailbox
