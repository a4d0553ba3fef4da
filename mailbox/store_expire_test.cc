// Two-phase expunge's second phase: the expire policy at each of its boundaries (a pure
// function with an explicit clock), Store::expire over an owner's mailboxes with expunge
// times from an injected clock, Mailbox::purgeExpunged (files, records, purged_modseq, the
// change log), undelete (Store::unexpunge), expunge_mode immediate, and a session working on a
// mailbox while expire purges it.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include "lib/io/atomic_file.h"
#include "lib/io/hooked_env.h"
#include "lib/io/temp_dir.h"
#include "mailbox/change_log_reader.h"
#include "mailbox/expire.h"
#include "mailbox/reconstruct.h"
#include "mailbox/store.h"
#include "mailbox/store_internal.h"

namespace darius::mailbox {
namespace store_expire_test {

constexpr int64_t kDay = 86400;
constexpr int64_t kT0 = 1'800'000'000;

// --- planExpire ---

ExpirePolicy smallPolicy() {
  ExpirePolicy p;
  p.vol_min = 300;
  p.vol_max = 500;
  p.timeout_seconds = 10 * kDay;
  return p;
}

std::vector<HeldMessage> heldEvery(int n, uint64_t size, int64_t first, int64_t step) {
  std::vector<HeldMessage> out;
  for (int i = 0; i < n; ++i) {
    out.push_back({0, static_cast<uint32_t>(i + 1), size, first + i * step});
  }
  return out;
}

TEST(ExpirePlan, AgeOfExactlyTheTimeoutIsKeptOneSecondMoreIsNot) {
  ExpirePolicy p = smallPolicy();
  std::vector<HeldMessage> held = {{0, 1, 10, kT0}, {0, 2, 10, kT0 + 1}, {0, 3, 10, kT0 + 2}};
  // now - expunged_at: 10d+1, 10d, 10d-1
  EXPECT_EQ(planExpire(held, p, kT0 + 10 * kDay + 1), (std::vector<size_t>{0}));
  EXPECT_EQ(planExpire(held, p, kT0 + 10 * kDay), (std::vector<size_t>{}));
  EXPECT_EQ(planExpire(held, p, kT0 + 10 * kDay + 3), (std::vector<size_t>{0, 1, 2}));
}

TEST(ExpirePlan, VolumeAtTheMaximumStaysAboveItTrimsDownToTheMinimumOldestFirst) {
  ExpirePolicy p = smallPolicy();
  // 5 x 100 = 500 = vol_max: nothing goes.
  EXPECT_TRUE(planExpire(heldEvery(5, 100, kT0, 60), p, kT0 + kDay).empty());
  // 501: above vol_max, so the oldest go until at most 300 are left: 3 of 6 (100,100,100,100,100,1).
  auto held = heldEvery(5, 100, kT0, 60);
  held.push_back({0, 6, 1, kT0 + 1000});
  EXPECT_EQ(planExpire(held, p, kT0 + kDay), (std::vector<size_t>{0, 1, 2}));
  // The order is by expunge time, not by position or UID.
  std::vector<HeldMessage> shuffled = {{2, 9, 200, kT0 + 50}, {1, 3, 200, kT0 + 10},
                                       {0, 7, 200, kT0 + 30}};
  EXPECT_EQ(planExpire(shuffled, p, kT0 + kDay), (std::vector<size_t>{1, 2}));  // 600 -> 200
}

TEST(ExpirePlan, TimeoutFirstThenVolumeAndEverythingTakesAll) {
  ExpirePolicy p = smallPolicy();
  // 2 x 300 old (past the timeout) and 3 x 150 recent: the old go; 450 left is under vol_max.
  std::vector<HeldMessage> held = {{0, 1, 300, kT0}, {0, 2, 300, kT0 + 1},
                                   {1, 1, 150, kT0 + 20 * kDay}, {1, 2, 150, kT0 + 20 * kDay},
                                   {1, 3, 150, kT0 + 20 * kDay}};
  EXPECT_EQ(planExpire(held, p, kT0 + 21 * kDay), (std::vector<size_t>{0, 1}));
  EXPECT_EQ(planExpire(held, p, kT0 + 21 * kDay, /*everything=*/true),
            (std::vector<size_t>{0, 1, 2, 3, 4}));
  EXPECT_TRUE(planExpire({}, p, kT0).empty());
}

TEST(ExpirePlan, AnOverflowBelowTheMaximumIsACapAndTheMinimumNeverExceedsIt) {
  ExpirePolicy p = smallPolicy();
  auto held = heldEvery(6, 100, kT0, 60);  // 600
  p.vol_min = 200;
  p.vol_max = 1000;
  p.vol_overflow = 450;  // an override under vol_max: past it still means "trim now"
  EXPECT_EQ(planExpire(held, p, kT0 + kDay), (std::vector<size_t>{0, 1, 2, 3}));
  p.vol_min = 800;  // a minimum above the overflow: trimmed to the overflow instead
  EXPECT_EQ(planExpire(held, p, kT0 + kDay), (std::vector<size_t>{0, 1}));
  p.vol_overflow = 0;  // 0: no cap, vol_max alone
  EXPECT_TRUE(planExpire(held, p, kT0 + kDay).empty());
}

TEST(ExpirePlan, RecordsWithoutAnExpungeTimeNeverTimeOutButGoFirstForVolume) {
  ExpirePolicy p = smallPolicy();
  std::vector<HeldMessage> held = {{0, 1, 10, 0}, {0, 2, 10, kT0}};
  EXPECT_EQ(planExpire(held, p, kT0 + 100 * kDay), (std::vector<size_t>{1}));
  held = {{0, 1, 400, 0}, {0, 2, 200, kT0}};  // 600 > vol_max: the unknown age goes first
  EXPECT_EQ(planExpire(held, p, kT0 + 1), (std::vector<size_t>{0}));
}

// --- Store::expire, purge, unexpunge ---

MailboxName personal(std::string owner, std::vector<std::string> c = {}) {
  auto n = MailboxName::personal("", std::move(owner), std::move(c));
  EXPECT_TRUE(n.ok());
  return *n;
}

std::string message(int i) {
  return "From: a@example.com\r\nTo: b@example.com\r\nSubject: message " + std::to_string(i) +
         "\r\nMessage-ID: <" + std::to_string(i) + "@example.com>\r\n\r\nbody " +
         std::to_string(i) + "\r\n";
}

bool exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

class StoreExpireTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto t = io::TempDir::create("expire");
    ASSERT_TRUE(t.ok());
    tmp_ = std::make_unique<io::TempDir>(std::move(*t));
    reopen(true);
  }

  void reopen(bool keep_expunged) {
    store_.reset();
    StoreOptions o;
    o.env = &env_;
    o.data_dir = tmp_->file("data");
    o.partitions = {{"default", tmp_->file("p1")}};
    o.list_options.max_name_length = 490;
    o.keep_expunged = keep_expunged;
    auto s = Store::open(std::move(o));
    ASSERT_TRUE(s.ok()) << s.status().toString();
    store_ = std::move(*s);
  }

  void deliver(const MailboxName& name, int first, int n, uint32_t flags = 0) {
    auto entry = store_->list().lookup(name);
    ASSERT_TRUE(entry.ok());
    auto p = store_->partition(entry->partition);
    std::vector<StagedMessage> staged;
    for (int i = 0; i < n; ++i) {
      auto s = store_->stage(**p, message(first + i));
      ASSERT_TRUE(s.ok()) << s.status().toString();
      staged.push_back(*s);
    }
    std::vector<AppendRequest> q;
    for (auto& s : staged) q.push_back({&s, 1790000000, 60, flags, {"$Work"}});
    auto a = store_->append(name, q);
    ASSERT_TRUE(a.ok()) << a.status().toString();
    for (auto& s : staged) EXPECT_TRUE(store_->unstage(s).isOk());
  }

  // Expunges `uids` of `name` as if at time `at`.
  void expungeAt(const MailboxName& name, std::vector<uint32_t> uids, int64_t at) {
    auto m = store_->openMailbox(name);
    ASSERT_TRUE(m.ok()) << m.status().toString();
    m->mailbox->setClock([at] { return at; });
    auto e = store_->expunge(name, *m->mailbox, uids);
    ASSERT_TRUE(e.ok()) << e.status().toString();
  }

  std::vector<IndexRecord> held(const MailboxName& name) {
    auto m = store_->openMailbox(name);
    EXPECT_TRUE(m.ok());
    auto r = m->mailbox->expungedRecords();
    EXPECT_TRUE(r.ok()) << r.status().toString();
    return r.ok() ? *r : std::vector<IndexRecord>{};
  }

  std::string path(const MailboxName& name, uint32_t uid) {
    auto m = store_->openMailbox(name);
    EXPECT_TRUE(m.ok());
    return m->mailbox->messagePath(uid);
  }

  ExpireOptions options(int64_t now, uint64_t vol_max = 1ull << 30) {
    ExpireOptions o;
    o.policy.timeout_seconds = 28 * kDay;
    o.policy.vol_min = vol_max / 2;
    o.policy.vol_max = vol_max;
    o.now = now;
    return o;
  }

  io::HookedEnv env_;
  std::unique_ptr<io::TempDir> tmp_;
  std::unique_ptr<Store> store_;
};

std::set<uint32_t> uidsOf(const std::vector<IndexRecord>& records) {
  std::set<uint32_t> out;
  for (const IndexRecord& r : records) out.insert(r.uid);
  return out;
}

TEST_F(StoreExpireTest, ExpungedMessagesKeepTheirFilesTimeAndFlagsUntilTheTimeoutPasses) {
  MailboxName inbox = personal("alice"), sent = personal("alice", {"Sent"});
  ASSERT_TRUE(store_->create(inbox).ok());
  ASSERT_TRUE(store_->create(sent).ok());
  deliver(inbox, 0, 10, kFlagFlagged);
  deliver(sent, 100, 4);
  expungeAt(inbox, {1, 2, 3}, kT0);
  expungeAt(sent, {1}, kT0 + 5 * kDay);
  expungeAt(inbox, {4}, kT0 + 10 * kDay);

  auto before = held(inbox);
  ASSERT_EQ(uidsOf(before), (std::set<uint32_t>{1, 2, 3, 4}));
  EXPECT_EQ(before[0].expunged_at, kT0);
  EXPECT_EQ(before[3].expunged_at, kT0 + 10 * kDay);
  EXPECT_TRUE(before[0].system_flags & kFlagFlagged);
  for (uint32_t uid : {1u, 2u, 3u, 4u}) EXPECT_TRUE(exists(path(inbox, uid))) << uid;

  // One second short of 28 days after the first expunge: nothing goes.
  auto r = store_->expire(inbox, options(kT0 + 28 * kDay));
  ASSERT_TRUE(r.ok()) << r.status().toString();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].owner, "alice");
  EXPECT_EQ((*r)[0].held_messages, 5u);
  EXPECT_EQ((*r)[0].removed_messages, 0u);

  // A dry run past it says what would go and removes nothing.
  ExpireOptions dry = options(kT0 + 34 * kDay);
  dry.dry_run = true;
  r = store_->expire(inbox, dry);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].removed_messages, 4u);  // INBOX 1-3 and Sent 1
  EXPECT_EQ(uidsOf(held(inbox)), (std::set<uint32_t>{1, 2, 3, 4}));
  EXPECT_TRUE(exists(path(inbox, 1)));

  r = store_->expire(inbox, options(kT0 + 34 * kDay));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].removed_messages, 4u);
  ASSERT_EQ((*r)[0].mailboxes.size(), 2u);
  EXPECT_EQ(uidsOf(held(inbox)), (std::set<uint32_t>{4}));
  EXPECT_TRUE(held(sent).empty());
  for (uint32_t uid : {1u, 2u, 3u}) EXPECT_FALSE(exists(path(inbox, uid))) << uid;
  EXPECT_TRUE(exists(path(inbox, 4)));
  EXPECT_FALSE(exists(path(sent, 1)));
  // Live messages are untouched.
  for (uint32_t uid = 5; uid <= 10; ++uid) EXPECT_TRUE(exists(path(inbox, uid))) << uid;
  auto m = store_->openMailbox(inbox);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->mailbox->index().num_records, 6u);
  // QRESYNC learns that UIDs at or below this modseq may be gone without a record.
  EXPECT_GT(m->mailbox->index().purged_modseq, 0u);
  EXPECT_LT(m->mailbox->index().purged_modseq, m->mailbox->index().highest_modseq);
}

TEST_F(StoreExpireTest, OnlyTheNamedUsersMailboxesAreExpiredAndEachOwnerHasItsOwnVolume) {
  MailboxName alice = personal("alice"), bob = personal("bob");
  ASSERT_TRUE(store_->create(alice).ok());
  ASSERT_TRUE(store_->create(bob).ok());
  deliver(alice, 0, 6);
  deliver(bob, 10, 6);
  expungeAt(alice, {1, 2, 3, 4, 5, 6}, kT0);
  expungeAt(bob, {1, 2, 3}, kT0);
  uint64_t size = held(alice)[0].size;
  // vol_max of five messages: alice (6) is over it and trimmed to vol_min (2.5 -> 2 left);
  // bob (3) is not, whatever alice holds.
  auto r = store_->expire(std::nullopt, options(kT0 + kDay, 5 * size));
  ASSERT_TRUE(r.ok()) << r.status().toString();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].owner, "alice");
  EXPECT_EQ((*r)[0].removed_messages, 4u);
  EXPECT_EQ((*r)[1].owner, "bob");
  EXPECT_EQ((*r)[1].removed_messages, 0u);
  EXPECT_EQ(uidsOf(held(alice)), (std::set<uint32_t>{5, 6}));
  EXPECT_EQ(held(bob).size(), 3u);
  // --user: bob's own run, --now: everything he holds.
  ExpireOptions all = options(kT0 + kDay);
  all.everything = true;
  r = store_->expire(bob, all);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].removed_messages, 3u);
  EXPECT_EQ(held(alice).size(), 2u);
}

TEST_F(StoreExpireTest, PurgeIsLoggedAndExpungedRecordsSurviveTheIndexRewrite) {
  MailboxName inbox = personal("alice");
  ASSERT_TRUE(store_->create(inbox).ok());
  deliver(inbox, 0, 400);
  std::vector<uint32_t> uids;
  for (uint32_t uid = 1; uid <= 300; ++uid) uids.push_back(uid);
  expungeAt(inbox, uids, kT0);  // past the rewrite threshold: they move to darius.expunged
  auto m = store_->openMailbox(inbox);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->mailbox->index().num_records, 100u);
  auto h = held(inbox);
  ASSERT_EQ(h.size(), 300u);
  EXPECT_EQ(h[0].expunged_at, kT0);
  EXPECT_NE(h[0].cache_offset, 0u);  // their cache records moved to darius.expunged.cache
  auto purged = m->mailbox->purgeExpunged(std::vector<uint32_t>{1, 2, 150, 500});
  ASSERT_TRUE(purged.ok()) << purged.status().toString();
  EXPECT_EQ(purged->uids, (std::vector<uint32_t>{1, 2, 150}));
  EXPECT_EQ(held(inbox).size(), 297u);
  // The cache records of what stayed still read back after the rewrite.
  auto all = held(inbox);
  for (const IndexRecord& r : all) EXPECT_NE(r.cache_offset, 0u) << r.uid;
  bool logged = false;
  ChangeLogReader reader(changeLogDir(tmp_->file("p1")));
  ASSERT_TRUE(reader.readFrom(1).isOk());
  auto records = reader.readAvailable();
  ASSERT_TRUE(records.ok());
  for (const ChangeRecord& c : *records) {
    if (c.type != ChangeType::kPurge) continue;
    logged = true;
    ASSERT_EQ(c.uids.size(), 3u);
    EXPECT_EQ(c.uids[0].uid, 1u);
  }
  EXPECT_TRUE(logged);
}

TEST_F(StoreExpireTest, AnOwnersOverrideReplacesTheDefaultForThatOwnerOnly) {
  MailboxName alice = personal("alice"), bob = personal("bob"), bob_sent = personal("bob", {"Sent"});
  ASSERT_TRUE(store_->create(alice).ok());
  ASSERT_TRUE(store_->create(bob).ok());
  ASSERT_TRUE(store_->create(bob_sent).ok());
  deliver(alice, 10, 4);
  deliver(bob, 20, 4);
  deliver(bob_sent, 30, 4);
  expungeAt(alice, {1, 2, 3, 4}, kT0);
  expungeAt(bob, {1, 2}, kT0);
  expungeAt(bob_sent, {1, 2}, kT0 + kDay);
  // bob keeps expunged mail for 1 day (the default is 28): at kT0 + 1 day + 1 s his INBOX's
  // expunges are past it, his Sent's are not; alice's are kept.
  ExpireOverrides o;
  o.expunged.timeout_seconds = kDay;
  ASSERT_TRUE(store_->expirePolicies().set(bob, o).isOk());
  auto r = store_->expire(std::nullopt, options(kT0 + kDay + 1));
  ASSERT_TRUE(r.ok()) << r.status().toString();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].owner_name, "user/alice");
  EXPECT_EQ((*r)[0].policy.timeout_seconds, 28 * kDay);
  EXPECT_EQ((*r)[0].removed_messages, 0u);
  EXPECT_EQ((*r)[1].owner_name, "user/bob");
  EXPECT_EQ((*r)[1].policy.timeout_seconds, kDay);
  EXPECT_EQ((*r)[1].removed_messages, 2u);
  EXPECT_EQ(held(alice).size(), 4u);
  EXPECT_TRUE(held(bob).empty());
  EXPECT_EQ(held(bob_sent).size(), 2u);
  // ignore_overrides: the default alone (what `darius expire` is told with --default-policy).
  ExpireOptions plain = options(kT0 + 2 * kDay + 1);
  plain.ignore_overrides = true;
  r = store_->expire(bob, plain);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].removed_messages, 0u);
  // A damaged override does not stop the run: the default applies.
  {
    auto txn = store_->expirePolicies().database().begin();
    ASSERT_TRUE(txn.ok());
    ASSERT_TRUE((*txn)->put("user/bob", "1 garbage").isOk());
    ASSERT_TRUE((*txn)->commit().isOk());
  }
  r = store_->expire(bob, options(kT0 + 2 * kDay + 1));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].policy.timeout_seconds, 28 * kDay);
  EXPECT_EQ(held(bob_sent).size(), 2u);
}

TEST_F(StoreExpireTest, OwnerOnlyLeavesTheSharedMailboxesBelowAlone) {
  auto news = MailboxName::parse("shared/news"), today = MailboxName::parse("shared/news/today");
  ASSERT_TRUE(news.ok() && today.ok());
  ASSERT_TRUE(store_->create(*news).ok());
  ASSERT_TRUE(store_->create(*today).ok());
  deliver(*news, 0, 2);
  deliver(*today, 10, 2);
  expungeAt(*news, {1, 2}, kT0);
  expungeAt(*today, {1, 2}, kT0);
  ExpireOptions all = options(kT0 + 1);
  all.everything = true;
  all.owner_only = true;
  auto r = store_->expire(*news, all);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].owner_name, "shared/news");
  EXPECT_TRUE(held(*news).empty());
  EXPECT_EQ(held(*today).size(), 2u);
}

TEST_F(StoreExpireTest, ExpireCompactsAMailboxWhoseIndexStillHoldsExpungedRecords) {
  MailboxName inbox = personal("alice");
  ASSERT_TRUE(store_->create(inbox).ok());
  deliver(inbox, 0, 400);
  expungeAt(inbox, {1, 2, 3}, kT0);  // below the rewrite threshold: still in the index
  {
    auto m = store_->openMailbox(inbox);
    ASSERT_TRUE(m.ok());
    EXPECT_EQ(m->mailbox->index().num_expunged, 3u);
  }
  ExpireOptions dry = options(kT0 + 1);
  dry.dry_run = true;  // a dry run changes nothing, compaction included
  auto r = store_->expire(inbox, dry);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].compacted_mailboxes, 0u);
  r = store_->expire(inbox, options(kT0 + 1));  // nothing to remove, but tidy
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].removed_messages, 0u);
  EXPECT_EQ((*r)[0].compacted_mailboxes, 1u);
  auto m = store_->openMailbox(inbox);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->mailbox->index().num_expunged, 0u);
  EXPECT_EQ(m->mailbox->index().num_records, 397u);
  EXPECT_EQ(held(inbox).size(), 3u);  // moved to darius.expunged, still held
  // Nothing left to compact: the next run does not rewrite it again.
  r = store_->expire(inbox, options(kT0 + 2));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].compacted_mailboxes, 0u);
}

TEST_F(StoreExpireTest, UnexpungeRestoresWithNewUidsAndFlagsUntilExpireRemovesTheFiles) {
  MailboxName inbox = personal("alice"), restored = personal("alice", {"Restored"});
  ASSERT_TRUE(store_->create(inbox).ok());
  ASSERT_TRUE(store_->create(restored).ok());
  deliver(inbox, 0, 5, kFlagSeen | kFlagAnswered | kFlagDeleted);
  expungeAt(inbox, {2, 3}, kT0);
  auto from = store_->openMailbox(inbox);
  ASSERT_TRUE(from.ok());
  auto back = store_->unexpunge(*from->mailbox, std::vector<uint32_t>{2, 3, 4},
                                inbox, *from->mailbox);
  ASSERT_TRUE(back.ok()) << back.status().toString();
  ASSERT_EQ(back->uids.size(), 2u);  // 4 is live, not expunged
  EXPECT_EQ(back->uids[0].from, 2u);
  EXPECT_EQ(back->uids[0].to, 6u);
  ASSERT_TRUE(from->mailbox->refresh().isOk());
  auto pos = from->mailbox->findUid(6);
  ASSERT_TRUE(pos.ok() && *pos >= 0);
  auto rec = from->mailbox->record(static_cast<size_t>(*pos));
  ASSERT_TRUE(rec.ok());
  EXPECT_TRUE(rec->live());
  EXPECT_EQ(rec->system_flags, kFlagSeen | kFlagAnswered);  // \Deleted dropped
  auto cached = from->mailbox->cache(*rec);
  ASSERT_TRUE(cached.ok()) << cached.status().toString();
  EXPECT_NE(cached->envelope.find("message 1"), std::string::npos);
  // Into another folder too; then expire removes the expunged copies, and nothing is left to
  // restore, while the restored messages stay.
  auto to = store_->openMailbox(restored);
  ASSERT_TRUE(to.ok());
  back = store_->unexpunge(*from->mailbox, std::vector<uint32_t>{3}, restored, *to->mailbox);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->uids.size(), 1u);
  ExpireOptions all = options(kT0);
  all.everything = true;
  ASSERT_TRUE(store_->expire(inbox, all).ok());
  back = store_->unexpunge(*from->mailbox, std::vector<uint32_t>{2, 3}, inbox, *from->mailbox);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->uids.empty());
  EXPECT_TRUE(exists(path(inbox, 6)));
  EXPECT_TRUE(exists(path(restored, 1)));
}

TEST_F(StoreExpireTest, ImmediateModeRemovesFilesAtOnceAndKeepsNoRecords) {
  reopen(/*keep_expunged=*/false);
  MailboxName inbox = personal("alice");
  ASSERT_TRUE(store_->create(inbox).ok());
  deliver(inbox, 0, 300);
  expungeAt(inbox, {1, 2}, kT0);
  EXPECT_FALSE(exists(path(inbox, 1)));
  EXPECT_TRUE(exists(path(inbox, 3)));
  std::vector<uint32_t> many;
  for (uint32_t uid = 3; uid <= 280; ++uid) many.push_back(uid);
  expungeAt(inbox, many, kT0);  // past the threshold: the rewrite drops the records
  auto m = store_->openMailbox(inbox);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->mailbox->index().num_records, 20u);
  EXPECT_TRUE(held(inbox).empty());
  EXPECT_EQ(m->mailbox->index().purged_modseq, m->mailbox->index().highest_modseq);
}

// A session keeps working on the mailbox (flag changes, refreshes, reading expunged records
// as FETCH of a not yet reported expunge does) while expire purges it, and a concurrent
// expunge-and-rewrite never makes a message vanish without either staying or being purged.
TEST_F(StoreExpireTest, SessionsGoOnWhileExpirePurgesAndNothingIsLost) {
  MailboxName inbox = personal("alice");
  ASSERT_TRUE(store_->create(inbox).ok());
  deliver(inbox, 0, 1500);
  std::vector<uint32_t> first;
  for (uint32_t uid = 1; uid <= 1000; ++uid) first.push_back(uid);
  expungeAt(inbox, first, kT0);
  std::atomic<bool> done{false};
  std::atomic<int> session_ops{0};
  std::set<uint32_t> expunged_later;
  std::thread session([&] {
    auto m = store_->openMailbox(inbox);
    ASSERT_TRUE(m.ok());
    uint32_t next = 1001;
    while (!done.load() || next < 1100) {
      FlagChange c;
      c.uid = 1400 + static_cast<uint32_t>(session_ops.load() % 100);
      c.system_flags = kFlagFlagged;
      c.op = session_ops.load() % 2 ? FlagChange::Op::kAdd : FlagChange::Op::kRemove;
      ASSERT_TRUE(m->mailbox->store(std::span<const FlagChange>(&c, 1)).ok());
      ASSERT_TRUE(m->mailbox->refresh().isOk());
      ASSERT_TRUE(m->mailbox->expungedRecords().ok());
      if (next < 1100) {
        std::vector<uint32_t> one{next};
        ASSERT_TRUE(store_->expunge(inbox, *m->mailbox, one).ok());
        expunged_later.insert(next++);
        if (next % 30 == 0) {
          ASSERT_TRUE(m->mailbox->compact().isOk());
        }
      }
      ++session_ops;
    }
  });
  auto m = store_->openMailbox(inbox);
  ASSERT_TRUE(m.ok());
  auto purged = m->mailbox->purgeExpunged(first);
  done = true;
  session.join();
  ASSERT_TRUE(purged.ok()) << purged.status().toString();
  EXPECT_EQ(purged->messages, 1000u);
  EXPECT_GT(session_ops.load(), 0);
  // Every message expunged meanwhile is still held with its file; nothing else went.
  auto h = held(inbox);
  EXPECT_EQ(uidsOf(h), expunged_later);
  for (uint32_t uid : expunged_later) EXPECT_TRUE(exists(path(inbox, uid))) << uid;
  for (uint32_t uid = 1; uid <= 1000; uid += 97) EXPECT_FALSE(exists(path(inbox, uid))) << uid;
  ASSERT_TRUE(m->mailbox->refresh().isOk());
  EXPECT_EQ(m->mailbox->index().num_records - m->mailbox->index().num_expunged,
            500u - expunged_later.size());
}

// Exactly in the window the purge leaves open (after it read darius.expunged, before it
// takes the lock), another session expunges and the index rewrite appends to the file: the
// purge takes the appended records into its new file, so they are not lost.
TEST_F(StoreExpireTest, RecordsAppendedWhileThePurgeWritesItsFilesAreKept) {
  MailboxName inbox = personal("alice");
  ASSERT_TRUE(store_->create(inbox).ok());
  deliver(inbox, 0, 1000);
  std::vector<uint32_t> first, later;
  for (uint32_t uid = 1; uid <= 300; ++uid) first.push_back(uid);
  for (uint32_t uid = 301; uid <= 600; ++uid) later.push_back(uid);
  expungeAt(inbox, first, kT0);
  bool fired = false;
  env_.before_open = [&](const std::string& path) {
    if (fired || path.find(".darius.expunged.cache.tmp.purge") == std::string::npos) return;
    fired = true;
    expungeAt(inbox, later, kT0 + 1);  // past the threshold: rewritten into darius.expunged
  };
  auto m = store_->openMailbox(inbox);
  ASSERT_TRUE(m.ok());
  auto purged = m->mailbox->purgeExpunged(std::vector<uint32_t>{1, 2, 3, 400});
  env_.before_open = nullptr;
  ASSERT_TRUE(fired);
  ASSERT_TRUE(purged.ok()) << purged.status().toString();
  // 400 came in the appended tail and was named, so it goes too.
  EXPECT_EQ(purged->uids, (std::vector<uint32_t>{1, 2, 3, 400}));
  auto h = held(inbox);
  EXPECT_EQ(h.size(), 300u + 300u - 4u);
  std::set<uint32_t> got = uidsOf(h);
  for (uint32_t uid = 301; uid <= 600; ++uid) EXPECT_EQ(got.count(uid), uid == 400 ? 0u : 1u) << uid;
  // Their cache records came along too.
  for (const IndexRecord& r : h) EXPECT_NE(r.cache_offset, 0u) << r.uid;
}

// A purge that crashed between its rename and its unlinks leaves a file that no index names.
// Reconstruct restores it as expunged, never live: it does not reappear in the folder.
TEST_F(StoreExpireTest, ReconstructRestoresAFileInNeitherIndexAsExpunged) {
  MailboxName inbox = personal("alice");
  ASSERT_TRUE(store_->create(inbox).ok());
  deliver(inbox, 0, 5);
  expungeAt(inbox, {2, 4}, kT0);
  auto m = store_->openMailbox(inbox);
  ASSERT_TRUE(m.ok());
  auto bytes = io::Env::posix()->readFile(m->mailbox->messagePath(2));
  ASSERT_TRUE(bytes.ok());
  auto purged = m->mailbox->purgeExpunged(std::vector<uint32_t>{2, 4});
  ASSERT_TRUE(purged.ok());
  ASSERT_TRUE(io::writeFileAtomic(*io::Env::posix(), m->mailbox->messagePath(2), *bytes).isOk());
  ReconstructOptions ro;
  auto report = reconstructMailbox(*io::Env::posix(), m->mailbox->dir(), ro);
  ASSERT_TRUE(report.ok()) << report.status().toString();
  EXPECT_EQ(report->messages, 3u);
  bool said = false;
  for (const std::string& p : report->problems) said = said || p.find("restored as expunged") != std::string::npos;
  EXPECT_TRUE(said);
  auto again = store_->openMailbox(inbox);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->mailbox->index().num_records, 3u);
  auto h = held(inbox);
  ASSERT_EQ(h.size(), 1u);
  EXPECT_EQ(h[0].uid, 2u);
  EXPECT_GT(h[0].expunged_at, 0);
  EXPECT_LE(h[0].modseq, again->mailbox->index().highest_modseq);  // no modseq reused
  // And expire takes it like any other.
  ExpireOptions all = options(kT0);
  all.everything = true;
  ASSERT_TRUE(store_->expire(inbox, all).ok());
  EXPECT_FALSE(exists(path(inbox, 2)));
}

// A darius.expunged whose header is damaged cannot be appended to: reconstruct keeps it aside
// and starts a new one, restoring the expunged messages whose files are there as expunged.
TEST_F(StoreExpireTest, ReconstructReplacesADamagedExpungedIndex) {
  MailboxName inbox = personal("alice");
  ASSERT_TRUE(store_->create(inbox).ok());
  deliver(inbox, 0, 400);
  std::vector<uint32_t> uids;
  for (uint32_t uid = 1; uid <= 300; ++uid) uids.push_back(uid);
  expungeAt(inbox, uids, kT0);  // rewritten into darius.expunged
  auto m = store_->openMailbox(inbox);
  ASSERT_TRUE(m.ok());
  const std::string dir = m->mailbox->dir();
  auto bytes = io::Env::posix()->readFile(dir + "/darius.expunged");
  ASSERT_TRUE(bytes.ok());
  std::string damaged = *bytes;
  damaged[0] = 'X';
  ASSERT_TRUE(io::writeFileAtomic(*io::Env::posix(), dir + "/darius.expunged", damaged).isOk());
  EXPECT_FALSE(m->mailbox->expungedRecords().ok());
  auto report = reconstructMailbox(*io::Env::posix(), dir, ReconstructOptions{});
  ASSERT_TRUE(report.ok()) << report.status().toString();
  EXPECT_EQ(report->messages, 100u);
  auto h = held(inbox);
  EXPECT_EQ(h.size(), 300u);
  auto names = io::Env::posix()->listDir(dir);
  ASSERT_TRUE(names.ok());
  bool aside = false;
  for (const std::string& n : *names) aside = aside || n.rfind("darius.expunged.damaged-", 0) == 0;
  EXPECT_TRUE(aside);
}

}  // namespace store_expire_test
}  // namespace darius::mailbox
