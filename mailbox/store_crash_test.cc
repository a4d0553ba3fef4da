// Write-back errors and syncfs: an append under way across a failed filesystem sync.
#include <gtest/gtest.h>

#include "lib/io/faulty_env.h"
#include "lib/io/temp_dir.h"
#include "mailbox/store_crash_scenario.h"

namespace darius::mailbox::crash_scenario {
namespace {

// Write-back errors reach whichever syncfs comes next (sync_barrier.h, "Errors"): a message
// staged before another append's syncfs failed may have lost its bytes in that failure, so
// its own append is refused although its own syncfs succeeds. A message staged afterwards
// is not affected.
TEST(StoreSyncfsTest, AnAppendUnderWayAcrossAFailedSyncIsRefused) {
  auto t = io::TempDir::create("store-syncfs");
  ASSERT_TRUE(t.ok());
  io::FaultyEnv env(io::Env::posix());
  StoreOptions o = options(*t, &env);
  o.sync_method = SyncMethod::kSyncfs;
  auto store = Store::open(o);
  ASSERT_TRUE(store.ok()) << store.status().toString();
  ASSERT_TRUE((*store)->create(name({"a"})).ok());
  ASSERT_TRUE((*store)->create(name({"b"})).ok());
  auto p = (*store)->partition("default");
  ASSERT_TRUE(p.ok());
  auto stage = [&](const std::string& body) {
    auto s = (*store)->stage(**p, "Subject: s\r\n\r\n" + body + "\r\n", StageSync::kDeferred);
    EXPECT_TRUE(s.ok()) << s.status().toString();
    return *s;
  };
  StagedMessage early = stage("staged before the failure");
  StagedMessage other = stage("the append whose sync fails");
  AppendRequest q_other{&other, 1790000000, 0, 0, {}};
  env.failAfterSyncs(0);
  EXPECT_FALSE((*store)->append(name({"a"}), std::span(&q_other, 1)).ok());
  env.clearFaults();
  AppendRequest q_early{&early, 1790000000, 0, 0, {}};
  auto refused = (*store)->append(name({"b"}), std::span(&q_early, 1));
  EXPECT_EQ(refused.status().code(), base::Code::kIoError) << refused.status().toString();
  StagedMessage late = stage("staged after the failure");
  AppendRequest q_late{&late, 1790000000, 0, 0, {}};
  auto taken = (*store)->append(name({"b"}), std::span(&q_late, 1));
  EXPECT_TRUE(taken.ok()) << taken.status().toString();
}

}  // namespace
}  // namespace darius::mailbox::crash_scenario
