// The schedule of dariusd's expire: expire_at parsing (bad values are config errors), the
// next run time in the local zone, DST days included, and the at-once run of an owner past
// expunge_vol_overflow (no nightly run configured, so nothing but the overflow can run it;
// the runs' clock is injected; the test waits for the scheduler's thread, never sleeps).
#include "server/expire_scheduler.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <mutex>

#include "lib/io/temp_dir.h"

namespace darius::server {
namespace {

// Sets TZ for one test and restores it.
class ZoneTest : public ::testing::Test {
 protected:
  void use(const char* tz) {
    ::setenv("TZ", tz, 1);
    ::tzset();
  }
  void TearDown() override {
    if (old_) {
      ::setenv("TZ", old_->c_str(), 1);
    } else {
      ::unsetenv("TZ");
    }
    ::tzset();
  }
  void SetUp() override {
    if (const char* t = std::getenv("TZ")) old_ = t;
  }
  std::optional<std::string> old_;
};

int64_t utc(int y, int mo, int d, int h, int mi) {
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  return static_cast<int64_t>(::timegm(&tm));
}

TEST(ExpireAt, ParsesHoursAndMinutesAndRefusesTheRest) {
  EXPECT_EQ(**parseExpireAt("03:00"), 180);
  EXPECT_EQ(**parseExpireAt("23:59"), 23 * 60 + 59);
  EXPECT_EQ(**parseExpireAt("00:00"), 0);
  EXPECT_FALSE(parseExpireAt("").value().has_value());
  for (const char* bad : {"3:00", "24:00", "12:60", "12-00", "noon", "12:00:00", " 1:00"}) {
    EXPECT_FALSE(parseExpireAt(bad).ok()) << bad;
  }
}

TEST_F(ZoneTest, NextRunIsTheComingLocalTimeOfDay) {
  use("UTC0");
  EXPECT_EQ(nextRunAfter(utc(2026, 11, 27, 2, 59), 180), utc(2026, 11, 27, 3, 0));
  // Exactly at the time: the next day's (a run just happened).
  EXPECT_EQ(nextRunAfter(utc(2026, 11, 27, 3, 0), 180), utc(2026, 11, 28, 3, 0));
  EXPECT_EQ(nextRunAfter(utc(2026, 12, 31, 23, 0), 180), utc(2027, 1, 1, 3, 0));
  use("CET-1CEST,M3.5.0,M10.5.0/3");
  // 03:00 in Paris in winter is 02:00 UTC.
  EXPECT_EQ(nextRunAfter(utc(2026, 11, 27, 1, 0), 180), utc(2026, 11, 27, 2, 0));
  // The spring-forward night (2027-03-28, 02:00 -> 03:00 local): 03:00 CEST is 01:00 UTC.
  EXPECT_EQ(nextRunAfter(utc(2027, 3, 27, 12, 0), 180), utc(2027, 3, 28, 1, 0));
}

// --- expunge_vol_overflow ---

constexpr int64_t kT0 = 1'800'000'000;

mailbox::MailboxName inboxOf(const std::string& user) {
  auto n = mailbox::MailboxName::personal("", user);
  EXPECT_TRUE(n.ok());
  return *n;
}

class OverflowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto t = io::TempDir::create("expire_scheduler");
    ASSERT_TRUE(t.ok());
    tmp_ = std::make_unique<io::TempDir>(std::move(*t));
    mailbox::StoreOptions o;
    o.data_dir = tmp_->file("data");
    o.partitions = {{"default", tmp_->file("p1")}};
    auto s = mailbox::Store::open(std::move(o));
    ASSERT_TRUE(s.ok()) << s.status().toString();
    store_ = std::move(*s);
  }

  // `n` messages of one size (the numbers have the same number of digits).
  void deliver(const mailbox::MailboxName& name, int n) {
    ASSERT_TRUE(store_->create(name).ok());
    std::vector<mailbox::StagedMessage> staged;
    for (int i = 0; i < n; ++i) {
      std::string m = "From: a@example.com\r\nSubject: message " + std::to_string(100 + i) +
                      "\r\n\r\nbody\r\n";
      auto st = store_->stage(store_->defaultPartition(), m);
      ASSERT_TRUE(st.ok()) << st.status().toString();
      staged.push_back(*st);
      size_ = m.size();
    }
    std::vector<mailbox::AppendRequest> q;
    for (auto& st : staged) q.push_back({&st, kT0 - 100, 0, 0, {}});
    ASSERT_TRUE(store_->append(name, q).ok());
    for (auto& st : staged) EXPECT_TRUE(store_->unstage(st).isOk());
  }

  void expunge(const mailbox::MailboxName& name, std::vector<uint32_t> uids) {
    auto m = store_->openMailbox(name);
    ASSERT_TRUE(m.ok()) << m.status().toString();
    m->mailbox->setClock([] { return kT0; });
    ASSERT_TRUE(store_->expunge(name, *m->mailbox, uids).ok());
  }

  size_t held(const mailbox::MailboxName& name) {
    auto m = store_->openMailbox(name);
    EXPECT_TRUE(m.ok());
    auto r = m->mailbox->expungedRecords();
    EXPECT_TRUE(r.ok());
    return r.ok() ? r->size() : 0;
  }

  // Nightly never (no expire_at): only the overflow can make a run. Sizes in messages.
  std::unique_ptr<ExpireScheduler> scheduler(uint64_t min, uint64_t max, uint64_t overflow) {
    ExpireSchedulerOptions o;
    o.policy.vol_min = min * size_;
    o.policy.vol_max = max * size_;
    o.policy.vol_overflow = overflow * size_;
    o.policy.timeout_seconds = 28 * 86400;
    o.clock = [] { return kT0 + 3600; };
    o.prune_duplicates = [this](int64_t now) -> base::Result<size_t> {
      std::lock_guard<std::mutex> g(mu_);
      pruned_at_.push_back(now);
      return size_t{7};
    };
    o.expire_deleted = [this](const std::optional<mailbox::MailboxName>& owner, int64_t now) {
      std::lock_guard<std::mutex> g(mu_);
      deleted_runs_.push_back((owner ? owner->toString() : "*") + "@" + std::to_string(now));
      return base::Status::ok();
    };
    o.deleted_overflow = [this](const mailbox::MailboxName& owner, int64_t now) {
      std::lock_guard<std::mutex> g(mu_);
      overflow_checks_.push_back(owner.toString() + "@" + std::to_string(now));
      return base::Status::ok();
    };
    return std::make_unique<ExpireScheduler>(*store_, std::move(o));
  }

  std::vector<std::string> overflowChecks() {
    std::lock_guard<std::mutex> g(mu_);
    return overflow_checks_;
  }

  std::vector<std::string> deletedRuns() {
    std::lock_guard<std::mutex> g(mu_);
    return deleted_runs_;
  }

  std::unique_ptr<io::TempDir> tmp_;
  std::unique_ptr<mailbox::Store> store_;
  uint64_t size_ = 0;
  std::mutex mu_;
  std::vector<std::string> deleted_runs_;  // the expire_deleted hook's calls
  std::vector<int64_t> pruned_at_;         // the prune_duplicates hook's calls
  std::vector<std::string> overflow_checks_;  // the deleted_overflow hook's calls
};

TEST_F(OverflowTest, ADeleteThatKeepsAFolderChecksItsOwnersDeletedOverflowAtOnce) {
  const auto alice = inboxOf("alice");
  deliver(alice, 1);
  auto folder = alice.child("Old");
  ASSERT_TRUE(folder.ok());
  deliver(*folder, 2);
  auto s = scheduler(/*min=*/2, /*max=*/4, /*overflow=*/6);
  ASSERT_TRUE(store_->remove(*folder).isOk());
  ASSERT_TRUE(s->waitIdle(1, std::chrono::seconds(30)));
  EXPECT_EQ(overflowChecks(), (std::vector<std::string>{"user/alice@" + std::to_string(kT0 + 3600)}));
  EXPECT_TRUE(deletedRuns().empty());  // the check, not a whole run
  EXPECT_EQ(s->nightlyRuns(), 0u);
}

TEST_F(OverflowTest, AnOwnerPastTheOverflowIsExpiredAtOnceAnOwnerBelowItIsNot) {
  const auto alice = inboxOf("alice"), bob = inboxOf("bob");
  deliver(alice, 10);
  deliver(bob, 10);
  auto s = scheduler(/*min=*/2, /*max=*/4, /*overflow=*/6);

  // bob holds 5 (over vol_max, under the overflow): the night would trim him, nothing now.
  expunge(bob, {1, 2, 3, 4, 5});
  ASSERT_TRUE(s->waitIdle(0, std::chrono::seconds(30)));
  EXPECT_EQ(s->heldEstimate(bob), 5 * size_);  // seeded by one scan, no run
  EXPECT_EQ(s->ownerRuns(), 0u);
  EXPECT_EQ(held(bob), 5u);

  // alice crosses it in two expunges: 3 (seeds her estimate), then 4 more (7 > 6).
  expunge(alice, {1, 2, 3});
  ASSERT_TRUE(s->waitIdle(0, std::chrono::seconds(30)));
  EXPECT_EQ(s->heldEstimate(alice), 3 * size_);
  EXPECT_EQ(s->ownerRuns(), 0u);
  expunge(alice, {4, 5, 6, 7});
  ASSERT_TRUE(s->waitIdle(1, std::chrono::seconds(30)));
  EXPECT_EQ(s->ownerRuns(), 1u);
  EXPECT_EQ(s->nightlyRuns(), 0u);
  // The normal plan: the oldest go down to vol_min. bob's run was not part of it.
  EXPECT_EQ(held(alice), 2u);
  EXPECT_EQ(s->heldEstimate(alice), 2 * size_);
  EXPECT_EQ(held(bob), 5u);

  // One more for bob, still at the overflow (6, not past it): nothing.
  expunge(bob, {6});
  ASSERT_TRUE(s->waitIdle(1, std::chrono::seconds(30)));
  EXPECT_EQ(s->heldEstimate(bob), 6 * size_);
  EXPECT_EQ(held(bob), 6u);
  EXPECT_EQ(s->ownerRuns(), 1u);
}

TEST_F(OverflowTest, AnOwnersOverrideOfTheOverflowIsHonouredAndRequestOwnerRunsAtOnce) {
  const auto alice = inboxOf("alice"), bob = inboxOf("bob");
  deliver(alice, 10);
  deliver(bob, 10);
  // bob's own limits: overflow at 3 messages, keep 1.
  mailbox::ExpireOverrides o;
  o.expunged.vol_overflow = 3 * size_;
  o.expunged.vol_min = 1 * size_;
  o.expunged.vol_max = 2 * size_;
  ASSERT_TRUE(store_->expirePolicies().set(bob, o).isOk());
  auto s = scheduler(/*min=*/2, /*max=*/4, /*overflow=*/6);

  expunge(bob, {1, 2, 3, 4});  // 4 > bob's 3: run at once, down to 1
  ASSERT_TRUE(s->waitIdle(1, std::chrono::seconds(30)));
  EXPECT_EQ(held(bob), 1u);
  expunge(alice, {1, 2, 3, 4});  // 4 < the global 6: kept
  ASSERT_TRUE(s->waitIdle(1, std::chrono::seconds(30)));
  EXPECT_EQ(held(alice), 4u);
  EXPECT_EQ(s->ownerRuns(), 1u);

  // An explicit request runs the owner's normal plan now: alice holds 4, not more than
  // vol_max, so nothing goes, but the run happens and its outcome sets the estimate.
  auto sub = mailbox::MailboxName::personal("", "alice", {"Sent"});
  ASSERT_TRUE(sub.ok());
  s->requestOwner(*sub);  // any of alice's mailboxes names her
  ASSERT_TRUE(s->waitIdle(2, std::chrono::seconds(30)));
  EXPECT_EQ(s->ownerRuns(), 2u);
  EXPECT_EQ(held(alice), 4u);
  EXPECT_EQ(s->heldEstimate(alice), 4 * size_);
  // Each owner run also ran the deleted-folder expire for that owner, with the run's clock.
  const std::string at = "@" + std::to_string(kT0 + 3600);
  EXPECT_EQ(deletedRuns(), (std::vector<std::string>{"user/bob" + at, "user/alice" + at}));
}

TEST_F(OverflowTest, TheNightlyJobExpiresEveryOwnerSeedsTheirEstimatesAndTidies) {
  const auto alice = inboxOf("alice"), bob = inboxOf("bob");
  deliver(alice, 10);
  deliver(bob, 10);
  auto s = scheduler(/*min=*/2, /*max=*/4, /*overflow=*/100);
  expunge(alice, {1, 2, 3, 4, 5});  // over vol_max: the night trims her to vol_min
  expunge(bob, {1, 2, 3});          // under it: kept
  ASSERT_TRUE(s->waitIdle(0, std::chrono::seconds(30)));
  EXPECT_EQ(held(alice), 5u);
  s->requestNightly();
  ASSERT_TRUE(s->waitIdle(0, std::chrono::seconds(30)));
  EXPECT_EQ(s->nightlyRuns(), 1u);
  EXPECT_EQ(s->ownerRuns(), 0u);
  EXPECT_EQ(held(alice), 2u);
  EXPECT_EQ(held(bob), 3u);
  EXPECT_EQ(s->heldEstimate(alice), 2 * size_);
  EXPECT_EQ(s->heldEstimate(bob), 3 * size_);
  std::lock_guard<std::mutex> g(mu_);
  EXPECT_EQ(pruned_at_, (std::vector<int64_t>{kT0 + 3600}));  // duplicates.db, the run's clock
  EXPECT_EQ(deleted_runs_, (std::vector<std::string>{"*@" + std::to_string(kT0 + 3600)}));
}

}  // namespace
}  // namespace darius::server
