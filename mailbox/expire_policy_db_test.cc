// Per-owner expire policy overrides (expire_policy_db.h): the record codec and its refusals,
// get/set/update/clear/list on every backend, the overlay over the global default, the owner
// a mailbox belongs to, and Store::expire applying an owner's override (and only theirs).
#include "mailbox/expire_policy_db.h"

#include <gtest/gtest.h>

#include "lib/io/temp_dir.h"
#include "mailbox/store.h"

namespace darius::mailbox {
namespace expire_policy_db_test {

MailboxName name(std::string_view text) {
  auto n = MailboxName::parse(text);
  EXPECT_TRUE(n.ok()) << text;
  return *n;
}

ExpireOverrides sample() {
  ExpireOverrides o;
  o.expunged.vol_min = 10;
  o.expunged.timeout_seconds = 86400;
  o.deleted.vol_overflow = 1ull << 40;
  return o;
}

TEST(ExpireOverridesCodec, RoundTripsAndWritesFieldsInTheirOrder) {
  EXPECT_EQ(encodeExpireOverrides({}), "1");
  EXPECT_EQ(encodeExpireOverrides(sample()),
            "1 expunge_vol_min=10 expunge_timeout=86400 deleted_vol_overflow=1099511627776");
  auto d = decodeExpireOverrides(encodeExpireOverrides(sample()), "k");
  ASSERT_TRUE(d.ok()) << d.status().toString();
  EXPECT_EQ(*d, sample());
  ExpireOverrides all;
  for (size_t i = 0; i < std::size(kExpireOverrideFields); ++i) {
    if (auto* s = overrideSize(all, i)) *s = i + 1;
    if (auto* t = overrideTimeout(all, i)) *t = static_cast<int64_t>(i + 1);
  }
  auto a = decodeExpireOverrides(encodeExpireOverrides(all), "k");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, all);
  EXPECT_EQ(all.deleted.timeout_seconds, 8);
  EXPECT_EQ(all.expunged.vol_overflow, 3u);
}

TEST(ExpireOverridesCodec, RefusesWhatAWriterCouldNotProduce) {
  for (const char* bad : {"", "x", "1 ", "1  expunge_vol_min=1", "1 expunge_vol_min",
                          "1 expunge_vol_min=", "1 expunge_vol_min=-1", "1 expunge_vol_min=01",
                          "1 expunge_vol_min=1x", "1 nope=1",
                          "1 expunge_vol_max=1 expunge_vol_min=1",
                          "1 expunge_vol_min=1 expunge_vol_min=2",
                          "1 expunge_vol_min=9223372036854775808"}) {
    auto d = decodeExpireOverrides(bad, "user/alice");
    ASSERT_FALSE(d.ok()) << bad;
    EXPECT_EQ(d.status().code(), base::Code::kCorruption) << bad;
    EXPECT_NE(d.status().message().find("user/alice"), std::string::npos);
  }
  auto newer = decodeExpireOverrides("2 expunge_vol_min=1", "k");
  ASSERT_FALSE(newer.ok());
  EXPECT_EQ(newer.status().code(), base::Code::kNotSupported);
  EXPECT_TRUE(decodeExpireOverrides("1 expunge_vol_min=9223372036854775807", "k").ok());
}

TEST(ExpirePolicyOverlay, SetValuesReplaceTheDefaultTheOthersStay) {
  ExpirePolicy global;
  ExpirePolicyOverride o;
  EXPECT_EQ(o.over(global), global);
  o.vol_max = 5;
  o.timeout_seconds = 7;
  ExpirePolicy p = o.over(global);
  EXPECT_EQ(p.vol_max, 5u);
  EXPECT_EQ(p.timeout_seconds, 7);
  EXPECT_EQ(p.vol_min, global.vol_min);
  EXPECT_EQ(p.vol_overflow, global.vol_overflow);
  ExpirePolicyOverride more;
  more.vol_max = 9;
  more.vol_min = 1;
  o.merge(more);
  EXPECT_EQ(o.vol_max, 9u);
  EXPECT_EQ(o.vol_min, 1u);
  EXPECT_EQ(o.timeout_seconds, 7);
  EXPECT_TRUE(global.overflows(global.vol_overflow + 1));
  EXPECT_FALSE(global.overflows(global.vol_overflow));
  global.vol_overflow = 0;
  EXPECT_FALSE(global.overflows(~0ull));
}

TEST(ExpireOwner, AUsersMailboxesBelongToTheirInboxASharedMailboxToItself) {
  EXPECT_EQ(expireOwnerOf(name("user/alice/Sent/2026")).toString(), "user/alice");
  EXPECT_EQ(expireOwnerOf(name("user/alice")).toString(), "user/alice");
  EXPECT_EQ(expireOwnerOf(name("example.com!user/bob/x")).toString(), "example.com!user/bob");
  EXPECT_EQ(expireOwnerOf(name("shared/news/today")).toString(), "shared/news/today");
}

class ExpirePolicyDbTest : public ::testing::TestWithParam<db::Backend> {
 protected:
  void SetUp() override {
    auto t = io::TempDir::create("expire_policy_db");
    ASSERT_TRUE(t.ok());
    tmp_ = std::make_unique<io::TempDir>(std::move(*t));
    auto d = ExpirePolicyDb::open(tmp_->file("expire_policies.db"), GetParam());
    ASSERT_TRUE(d.ok()) << d.status().toString();
    db_ = std::move(*d);
  }
  std::unique_ptr<io::TempDir> tmp_;
  std::unique_ptr<ExpirePolicyDb> db_;
};

TEST_P(ExpirePolicyDbTest, GetSetUpdateClearList) {
  const MailboxName alice = name("user/alice"), news = name("shared/news");
  auto none = db_->get(alice);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  ASSERT_TRUE(db_->set(alice, sample()).isOk());
  auto got = db_->get(alice);
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ(**got, sample());

  // update() edits in one transaction; an edit that leaves nothing removes the record.
  auto u = db_->update(news, [](ExpireOverrides& o) { o.deleted.timeout_seconds = 60; });
  ASSERT_TRUE(u.ok()) << u.status().toString();
  EXPECT_EQ(u->deleted.timeout_seconds, 60);
  u = db_->update(alice, [](ExpireOverrides& o) { o.expunged.vol_min.reset(); });
  ASSERT_TRUE(u.ok());
  EXPECT_FALSE(u->expunged.vol_min.has_value());
  EXPECT_EQ(u->expunged.timeout_seconds, 86400);

  std::vector<std::string> keys;
  ASSERT_TRUE(db_->list([&](const MailboxName& n, const ExpireOverrides&) {
    keys.push_back(n.toString());
    return true;
  }).isOk());
  EXPECT_EQ(keys, (std::vector<std::string>{"shared/news", "user/alice"}));

  u = db_->update(news, [](ExpireOverrides& o) { o = {}; });
  ASSERT_TRUE(u.ok());
  EXPECT_FALSE(db_->get(news)->has_value());
  ASSERT_TRUE(db_->set(alice, {}).isOk());  // an empty record is no record
  EXPECT_FALSE(db_->get(alice)->has_value());
  EXPECT_TRUE(db_->clear(alice).isOk());  // absent: still OK

  ExpireOverrides negative;
  negative.expunged.timeout_seconds = -1;
  EXPECT_EQ(db_->set(alice, negative).code(), base::Code::kInvalid);
  ExpireOverrides huge;
  huge.deleted.vol_min = ~0ull;
  EXPECT_EQ(db_->set(alice, huge).code(), base::Code::kInvalid);
}

TEST_P(ExpirePolicyDbTest, EffectiveIsTheDefaultOverlaidByTheOwnersOwnArea) {
  const MailboxName alice = name("user/alice");
  ExpirePolicy global;
  auto e = db_->effective(alice, ExpireArea::kExpunged, global);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(*e, global);
  ASSERT_TRUE(db_->set(alice, sample()).isOk());
  e = db_->effective(alice, ExpireArea::kExpunged, global);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->vol_min, 10u);
  EXPECT_EQ(e->timeout_seconds, 86400);
  EXPECT_EQ(e->vol_overflow, global.vol_overflow);
  e = db_->effective(alice, ExpireArea::kDeleted, global);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->vol_overflow, 1ull << 40);
  EXPECT_EQ(e->vol_min, global.vol_min);
}

TEST_P(ExpirePolicyDbTest, ADamagedRecordOrAForeignFormatIsReported) {
  {
    auto txn = db_->database().begin();
    ASSERT_TRUE(txn.ok());
    ASSERT_TRUE((*txn)->put("user/alice", "1 bogus=1").isOk());
    ASSERT_TRUE((*txn)->commit().isOk());
  }
  auto g = db_->get(name("user/alice"));
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), base::Code::kCorruption);
  {
    auto txn = db_->database().begin();
    ASSERT_TRUE(txn.ok());
    ASSERT_TRUE((*txn)->put("\xff" "format", "darius-expire-policy 2").isOk());
    ASSERT_TRUE((*txn)->commit().isOk());
  }
  db_.reset();
  auto again = ExpirePolicyDb::open(tmp_->file("expire_policies.db"), GetParam());
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), base::Code::kNotSupported);
}

INSTANTIATE_TEST_SUITE_P(Backends, ExpirePolicyDbTest,
                         ::testing::Values(db::Backend::kSkiplist, db::Backend::kBerkeley,
                                           db::Backend::kFlat),
                         [](const auto& info) { return std::string(db::backendName(info.param)); });

}  // namespace expire_policy_db_test
}  // namespace darius::mailbox
