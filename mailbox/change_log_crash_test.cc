// Crash tests of the change log with FaultyEnv (lib/io/faulty_env.h). A fixed sequence (open,
// six append batches with segment rotations, a prune, two more batches) is run once without
// faults to count its writes, syncs and operations; then power is cut after every single one
// of them in turn, with and without torn writes. After each "reboot":
//  - every batch whose append returned OK is there, with the sequence numbers it was given;
//  - past the last acknowledged record, only whole records of the batch in flight, in order
//    (all, a prefix, or none of it: the documented outcome, change_log.h);
//  - sequence numbers are gap-free from the oldest segment on, and the prune removed nothing
//    it must keep;
//  - the next writer leaves no temp file, and its append continues right after what is read.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>

#include "lib/io/faulty_env.h"
#include "mailbox/change_log.h"
#include "mailbox/change_log_reader.h"
#include "mailbox/change_log_test_util.h"

namespace darius::mailbox {
namespace change_log_crash_test {

using testing::ScratchDir;

constexpr int kPruneStep = 6;  // step index of the prune; every other step is a batch

std::vector<std::vector<ChangeRecord>> batches() {
  auto sample = testing::sampleRecords();
  std::vector<std::vector<ChangeRecord>> b;
  b.push_back({sample[0]});
  b.push_back({sample[1], sample[2], sample[3]});
  b.push_back({sample[4], sample[5]});
  ChangeRecord big = sample[4];
  big.old_name.assign(150, 'o');
  big.name.assign(150, 'n');
  b.push_back({big});
  b.push_back({sample[6], sample[7], sample[8], sample[1]});
  b.push_back({sample[2], sample[3]});
  b.push_back({});  // the prune
  b.push_back({sample[0], sample[5], sample[7]});
  b.push_back({sample[1]});
  return b;
}

ChangeLogOptions crashOptions(io::Env* env) {
  ChangeLogOptions o;
  o.env = env;
  o.segment_bytes = 256;  // several rotations within the sequence
  return o;
}

struct Outcome {
  std::vector<ChangeRecord> acked;      // in seq order, seq set; acked[i].seq == i + 1
  std::vector<ChangeRecord> in_flight;  // the batch whose append did not return OK
  uint64_t prune_target = 0;            // 0: no prune was attempted
};

// Runs the sequence against `env` until the first failure.
Outcome runSequence(io::Env& env, const std::string& dir) {
  Outcome out;
  auto log = ChangeLog::open(dir, crashOptions(&env));
  if (!log.ok()) return out;
  auto steps = batches();
  for (size_t i = 0; i < steps.size(); ++i) {
    if (int(i) == kPruneStep) {
      out.prune_target = out.acked.size() - 2;  // inside the log, before its last segment
      if (!(*log)->pruneBefore(out.prune_target).ok()) return out;
      continue;
    }
    auto r = (*log)->append(steps[i]);
    if (!r.ok()) {
      out.in_flight = steps[i];
      return out;
    }
    EXPECT_EQ(r->first, out.acked.size() + 1);
    for (ChangeRecord rec : steps[i]) {
      rec.seq = out.acked.size() + 1;
      out.acked.push_back(std::move(rec));
    }
  }
  return out;
}

// Returns how many records of the batch in flight survived.
size_t checkAfterCrash(const std::string& dir, const Outcome& o) {
  // The next writer recovers (cutting any torn tail) before anyone looks.
  auto log = ChangeLog::open(dir, crashOptions(nullptr));
  EXPECT_TRUE(log.ok()) << log.status().toString();
  if (!log.ok()) return 0;
  uint64_t oldest = *ChangeLogReader::oldestSeq(dir);
  EXPECT_LE(oldest, o.prune_target == 0 ? 1 : o.prune_target);
  std::vector<ChangeRecord> got = testing::readAll(dir, oldest);
  for (size_t i = 0; i < got.size(); ++i) {
    uint64_t seq = oldest + i;
    EXPECT_EQ(got[i].seq, seq);
    if (seq <= o.acked.size()) {
      EXPECT_EQ(got[i], o.acked[seq - 1]) << "seq " << seq;
    } else {
      size_t k = seq - o.acked.size() - 1;  // only whole records of the batch in flight
      EXPECT_LT(k, o.in_flight.size()) << "seq " << seq << " was never appended";
      if (k >= o.in_flight.size()) return 0;
      ChangeRecord want = o.in_flight[k];
      want.seq = seq;
      EXPECT_EQ(got[i], want) << "seq " << seq;
    }
  }
  uint64_t last = got.empty() ? oldest - 1 : got.back().seq;
  EXPECT_GE(last, o.acked.size()) << "an acknowledged record was lost";
  auto names = io::Env::posix()->listDir(dir);
  EXPECT_TRUE(names.ok());
  for (const std::string& n : names.valueOr(std::vector<std::string>{}))
    EXPECT_EQ(n.find(".tmp"), std::string::npos) << n;
  EXPECT_EQ(*(*log)->nextSeq(), last + 1);
  EXPECT_EQ(*(*log)->append(testing::appendRecord("after", 1)), last + 1);
  EXPECT_EQ(testing::readAll(dir, last + 1).size(), 1u);
  return last > o.acked.size() ? last - o.acked.size() : 0;
}

enum class Cut { kWrites, kSyncs, kOps };

struct Counts {
  uint64_t writes = 0, syncs = 0, ops = 0;
};

Counts dryRun() {
  ScratchDir d;
  io::FaultyEnv env(io::Env::posix());
  Outcome o = runSequence(env, changeLogDir(d.path()));
  EXPECT_TRUE(o.in_flight.empty());
  EXPECT_EQ(o.acked.size(), 17u);
  return {env.writeCount(), env.syncCount(), env.opCount()};
}

// Cuts the power after n = 0, 1, ..., total operations of the kind; the last run completes.
// With torn writes, each cut point is tried with kTornSeeds seeds (each keeps another prefix).
constexpr uint64_t kTornSeeds = 6;

void crashLoop(Cut cut, bool torn) {
  Counts c = dryRun();
  uint64_t total = cut == Cut::kWrites ? c.writes : cut == Cut::kSyncs ? c.syncs : c.ops;
  ASSERT_GT(total, 10u);
  auto start = std::chrono::steady_clock::now();
  int none = 0, part = 0, all = 0;  // what was left of the batch in flight
  uint64_t runs = 0;
  for (uint64_t i = 0; i < (total + 1) * (torn ? kTornSeeds : 1); ++i, ++runs) {
    uint64_t n = torn ? i / kTornSeeds : i;
    SCOPED_TRACE("power cut after " + std::to_string(n) + " of " + std::to_string(total) +
                 (cut == Cut::kWrites  ? " writes"
                  : cut == Cut::kSyncs ? " syncs"
                                       : " ops") +
                 (torn ? ", torn writes, seed " + std::to_string(i + 1) : ""));
    ScratchDir d;
    ASSERT_TRUE(d.ok());
    std::string dir = changeLogDir(d.path());
    Outcome o;
    bool finished;
    {
      io::FaultyEnv env(io::Env::posix());
      if (torn) env.tornWrites(true, i + 1);
      if (cut == Cut::kWrites) env.losePowerAfterWrites(n);
      if (cut == Cut::kSyncs) env.losePowerAfterSyncs(n);
      if (cut == Cut::kOps) env.losePowerAfterOps(n);
      o = runSequence(env, dir);
      finished = !env.powerLost();
      env.losePowerNow();  // a crash right after the last acknowledgement, if none before
      ASSERT_TRUE(env.recoverFromPowerLoss().isOk());
    }
    EXPECT_EQ(finished, n == total) << "the dry run's count does not match";
    if (finished) {
      EXPECT_EQ(o.acked.size(), 17u);
    }
    size_t survived = checkAfterCrash(dir, o);
    if (!o.in_flight.empty()) {
      ++(survived == 0 ? none : survived == o.in_flight.size() ? all : part);
    }
    if (::testing::Test::HasFatalFailure()) return;
  }
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "[ info ] %llu cut points, %llu runs in %.0f ms; batch in flight kept whole %d, in part "
      "%d, not at all %d\n",
      static_cast<unsigned long long>(total + 1), static_cast<unsigned long long>(runs), ms, all,
      part, none);
}

TEST(ChangeLogCrashTest, PowerCutAfterEveryWrite) { crashLoop(Cut::kWrites, false); }
TEST(ChangeLogCrashTest, PowerCutAfterEverySync) { crashLoop(Cut::kSyncs, false); }
TEST(ChangeLogCrashTest, PowerCutAfterEveryOp) { crashLoop(Cut::kOps, false); }
TEST(ChangeLogCrashTest, PowerCutAfterEveryWriteWithTornWrites) { crashLoop(Cut::kWrites, true); }
TEST(ChangeLogCrashTest, PowerCutAfterEverySyncWithTornWrites) { crashLoop(Cut::kSyncs, true); }
TEST(ChangeLogCrashTest, PowerCutAfterEveryOpWithTornWrites) { crashLoop(Cut::kOps, true); }

// A failed fsync is not an acknowledgement; the records may stay (as whole records, in flight
// forever, change_log.h), but the sequence never has a gap and the next append continues.
TEST(ChangeLogCrashTest, FailedSyncLeavesAWholeLogBehind) {
  ScratchDir d;
  std::string dir = changeLogDir(d.path());
  io::FaultyEnv env(io::Env::posix());
  auto log = *ChangeLog::open(dir, crashOptions(&env));
  ASSERT_EQ(*log->append(testing::appendRecord("m", 1)), 1u);
  env.failAfterSyncs(0);
  EXPECT_FALSE(log->append(testing::appendRecord("m", 2)).ok());
  env.clearFaults();
  auto next = log->append(testing::appendRecord("m", 3));
  ASSERT_TRUE(next.ok()) << next.status().toString();
  auto all = testing::readAll(dir);
  // The failed batch was written before its fsync failed: it stays, whole, as number 2.
  EXPECT_EQ(*next, 3u);
  ASSERT_EQ(all.size(), *next);
  EXPECT_EQ(all[1].uids.at(0).uid, 2u);
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i].seq, i + 1);
  EXPECT_EQ(all.back().uids.at(0).uid, 3u);
}

}  // namespace change_log_crash_test
}  // namespace darius::mailbox
