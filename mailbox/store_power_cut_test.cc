// The Store's power-cut sweep (store_crash_scenario.h) with appends synced file by file and
// by syncfs: every cut point of the scenario, in each way a commit can sync. Minutes under
// the sanitizers, so these run in the volume binary (the GCC stage); the journaled sweeps,
// the default commit, run in the unit binary (journal_crash_test.cc).
//
// The deliveries also run as lmtpd makes them (the stage file's fsync deferred to the append,
// which runs it beside its other syncs), with those concurrent syncs in the given order and
// reversed, so a cut falls between them in both orders: a durable link to a stage file whose
// bytes are not, a change log record whose index commit is not (and the reverse).
#include <gtest/gtest.h>

#include "mailbox/store_crash_scenario.h"

namespace darius::mailbox::crash_scenario {
namespace {

class StoreCrashTest : public ::testing::TestWithParam<Mode> {};

TEST_P(StoreCrashTest, PowerCutAfterEveryOperation) { runPowerCutSweep(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Torn, StoreCrashTest,
                         ::testing::Values(Mode{false, StageSync::kNow, false},
                                           Mode{true, StageSync::kNow, false},
                                           Mode{false, StageSync::kDeferred, false},
                                           Mode{false, StageSync::kDeferred, true},
                                           Mode{false, StageSync::kDeferred, false, true},
                                           Mode{true, StageSync::kDeferred, false, true},
                                           Mode{false, StageSync::kDeferred, true, true}),
                         [](const auto& info) {
                           const Mode& m = info.param;
                           if (m.syncfs && m.reverse) return "SyncfsReversed";
                           if (m.syncfs) return m.torn ? "SyncfsTorn" : "Syncfs";
                           if (m.stage_sync == StageSync::kNow) {
                             return m.torn ? "TornAppends" : "WholeWrites";
                           }
                           return m.reverse ? "DeferredStageSyncReversed" : "DeferredStageSync";
                         });

}  // namespace
}  // namespace darius::mailbox::crash_scenario
