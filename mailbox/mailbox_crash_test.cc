// Power-cut tests of the store core with FaultyEnv (docs/design/io.md): a sequence of appends,
// flag changes, an expunge and an index rewrite runs with power cut after every single
// mutating operation in turn (with and without torn appends); after recovery the mailbox opens,
// shows exactly the state after the acknowledged operations (or, for the one in flight, after
// it too), every live record's message file is there with its GUID, and nothing half-written
// is visible. It runs again with the stage files' fsync deferred to the append (as lmtpd
// stages), the append's concurrent syncs in the given order and reversed, and with the appends
// committed by one filesystem sync (SyncBarrier, sync_method syncfs).
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "lib/io/faulty_env.h"
#include "lib/io/sync_barrier.h"
#include "lib/io/temp_dir.h"
#include "mailbox/cache_fill.h"
#include "mailbox/mailbox.h"

namespace darius::mailbox {
namespace mailbox_crash_test {

struct Live {
  uint32_t uid;
  uint32_t flags;
  std::set<std::string> keywords;
  Guid guid;
  auto operator<=>(const Live&) const = default;
};
struct Snapshot {
  std::vector<Live> live;
  std::set<uint32_t> expunged;
  bool operator==(const Snapshot&) const = default;
};

std::string describe(const Snapshot& s) {
  std::string out = "live:";
  for (const Live& l : s.live) out += " " + std::to_string(l.uid) + "/" + std::to_string(l.flags) + "/" + std::to_string(l.keywords.size());
  out += " expunged:";
  for (uint32_t u : s.expunged) out += " " + std::to_string(u);
  return out;
}

// Reads the mailbox back as the crash test compares it, and checks the invariants that hold
// in every state: files of live records present and intact, modseqs and UIDs bounded.
Snapshot snapshot(io::Env& env, const std::string& dir) {
  Snapshot s;
  auto m = Mailbox::open(env, dir);
  EXPECT_TRUE(m.ok()) << m.status().toString();
  if (!m.ok()) return s;
  const Mailbox& box = **m;
  uint32_t last_uid = 0;
  for (size_t i = 0; i < box.recordCount(); ++i) {
    auto r = box.record(i);
    EXPECT_TRUE(r.ok()) << r.status().toString();
    if (!r.ok()) continue;
    EXPECT_GT(r->uid, last_uid);
    last_uid = r->uid;
    EXPECT_LT(r->uid, box.index().uidnext);
    EXPECT_LE(r->modseq, box.index().highest_modseq);
    if (!r->live()) {
      s.expunged.insert(r->uid);
      continue;
    }
    Live l{r->uid, r->system_flags, {}, r->guid};
    for (int b = 0; b < kMaxUserFlags; ++b) {
      if (!r->hasUserFlag(b)) continue;
      EXPECT_LT(static_cast<size_t>(b), box.header().user_flags.size());
      if (static_cast<size_t>(b) < box.header().user_flags.size()) l.keywords.insert(box.header().user_flags[b]);
    }
    auto bytes = env.readFile(box.messagePath(r->uid));
    EXPECT_TRUE(bytes.ok()) << "message file of UID " << r->uid;
    if (bytes.ok()) {
      EXPECT_EQ(sha1Of(*bytes), r->guid) << "UID " << r->uid;
    }
    auto c = box.cache(*r);
    EXPECT_TRUE(c.ok()) << c.status().toString();
    if (c.ok()) {
      // As appended, or made again from the file when a cut lost it (index.md, "Settling").
      std::string rebuilt = bytes.ok() ? buildCacheEntry(*bytes).preview : "";
      EXPECT_TRUE(c->preview == "preview of " + std::to_string(r->size) || c->preview == rebuilt)
          << "UID " << r->uid << ": " << c->preview;
    }
    s.live.push_back(l);
  }
  auto gone = box.expungedRecords();
  EXPECT_TRUE(gone.ok());
  if (gone.ok()) {
    for (const IndexRecord& r : *gone) s.expunged.insert(r.uid);
  }
  return s;
}

// The scenario, stopped after `max_steps` steps. Returns how many steps were acknowledged
// before the first failure.
size_t runScenario(io::Env& env, const std::string& dir, const std::string& stage,
                   size_t max_steps = 100, StageSync stage_sync = StageSync::kNow,
                   bool syncfs = false) {
  auto m = Mailbox::open(env, dir);
  if (!m.ok()) return 0;
  Mailbox& box = **m;
  std::unique_ptr<io::SyncBarrier> barrier;
  if (syncfs) {
    auto fs = env.openFilesystemSync({dir, stage});
    if (!fs.ok()) return 0;
    barrier = std::make_unique<io::SyncBarrier>(std::move(*fs));
    box.setSyncBarrier(barrier.get());
  }
  size_t done = 0;
  auto appendMsgs = [&](std::vector<std::string> bodies, std::vector<std::string> keywords) {
    std::vector<StagedMessage> staged;
    for (const std::string& b : bodies) {
      auto s = stageMessage(env, stage, b, stage_sync);
      if (!s.ok()) return false;
      s->cache.preview = "preview of " + std::to_string(b.size());
      staged.push_back(*s);
    }
    std::vector<AppendRequest> q;
    for (auto& s : staged) q.push_back({&s, 1790000000, 0, kFlagSeen, keywords});
    if (!box.append(q).ok()) return false;
    for (auto& s : staged) (void)unstage(env, s);
    return true;
  };
  std::string hdr = "From: x@example.com\r\nSubject: s\r\n\r\n";
  if (!appendMsgs({hdr + "one\r\n", hdr + "two two\r\n"}, {})) return done;
  if (++done == max_steps) return done;
  if (!box.store(std::vector<FlagChange>{{1, FlagChange::Op::kAdd, kFlagFlagged, {"Work"}, 0}}).ok()) return done;
  if (++done == max_steps) return done;
  if (!appendMsgs({hdr + "three three three\r\n"}, {"$Junk"})) return done;
  if (++done == max_steps) return done;
  if (!box.expunge(std::vector<uint32_t>{2}).ok()) return done;
  if (++done == max_steps) return done;
  if (!box.compact().ok()) return done;
  if (++done == max_steps) return done;
  if (!box.store(std::vector<FlagChange>{{3, FlagChange::Op::kRemove, kFlagSeen, {"$Junk"}, 0}}).ok()) return done;
  if (++done == max_steps) return done;
  if (!appendMsgs({hdr + "four\r\n"}, {})) return done;
  if (++done == max_steps) return done;
  return done;
}

constexpr size_t kSteps = 7;

struct Mode {
  bool torn = false;
  StageSync stage_sync = StageSync::kNow;
  bool reverse = false;  // FaultyEnv runs concurrent syncs in reverse order
  bool syncfs = false;   // appends commit with one filesystem sync (SyncBarrier)
};

class MailboxCrashTest : public ::testing::TestWithParam<Mode> {};

TEST_P(MailboxCrashTest, PowerCutAfterEveryOperation) {
  const bool torn = GetParam().torn;
  const StageSync stage_sync = GetParam().stage_sync;
  const bool syncfs = GetParam().syncfs;
  // The states after 0..kSteps acknowledged steps.
  std::vector<Snapshot> states;
  uint64_t total_ops = 0;
  {
    auto t = io::TempDir::create("mailbox-crash");
    ASSERT_TRUE(t.ok());
    ASSERT_TRUE(cleanStageDir(*io::Env::posix(), t->file("stage")).isOk());
    ASSERT_TRUE(Mailbox::create(*io::Env::posix(), t->file("box"), {"id1", "n", 99, {}, ""}).ok());
    io::FaultyEnv counting(io::Env::posix());
    counting.reverseConcurrent(GetParam().reverse);
    ASSERT_EQ(runScenario(counting, t->file("box"), t->file("stage"), 100, stage_sync, syncfs),
              kSteps);
    total_ops = counting.opCount();
  }
  // Reference states: the scenario stopped after each step.
  for (size_t steps = 0; steps <= kSteps; ++steps) {
    auto t = io::TempDir::create("mailbox-crash");
    ASSERT_TRUE(t.ok());
    ASSERT_TRUE(cleanStageDir(*io::Env::posix(), t->file("stage")).isOk());
    ASSERT_TRUE(Mailbox::create(*io::Env::posix(), t->file("box"), {"id1", "n", 99, {}, ""}).ok());
    if (steps > 0) {
      ASSERT_EQ(runScenario(*io::Env::posix(), t->file("box"), t->file("stage"), steps, stage_sync,
                            syncfs),
                steps);
    }
    states.push_back(snapshot(*io::Env::posix(), t->file("box")));
  }
  ASSERT_EQ(states.back().live.size(), 3u) << describe(states.back());

  for (uint64_t n = 0; n <= total_ops; ++n) {
    auto t = io::TempDir::create("mailbox-crash");
    ASSERT_TRUE(t.ok());
    std::string box = t->file("box"), stage = t->file("stage");
    ASSERT_TRUE(cleanStageDir(*io::Env::posix(), stage).isOk());
    ASSERT_TRUE(Mailbox::create(*io::Env::posix(), box, {"id1", "n", 99, {}, ""}).ok());
    size_t acked = 0;
    {
      io::FaultyEnv env(io::Env::posix());
      if (torn) env.tornWrites(true, n + 1);
      env.reverseConcurrent(GetParam().reverse);
      env.losePowerAfterOps(n);
      acked = runScenario(env, box, stage, 100, stage_sync, syncfs);
      env.losePowerNow();
      ASSERT_TRUE(env.recoverFromPowerLoss().isOk()) << "cut " << n;
    }
    ASSERT_TRUE(cleanStageDir(*io::Env::posix(), stage).isOk());
    Snapshot got = snapshot(*io::Env::posix(), box);
    bool ok = got == states[acked] || (acked < kSteps && got == states[acked + 1]);
    EXPECT_TRUE(ok) << "power cut after op " << n << " of " << total_ops << ", " << acked
                    << " steps acknowledged\n got: " << describe(got)
                    << "\nwant: " << describe(states[acked]);
    // And the mailbox keeps working: an append after recovery succeeds.
    auto m = Mailbox::open(*io::Env::posix(), box);
    ASSERT_TRUE(m.ok());
    auto s = stageMessage(*io::Env::posix(), stage, "Subject: after\r\n\r\nx\r\n");
    ASSERT_TRUE(s.ok());
    AppendRequest q{&*s, 0, 0, 0, {}};
    auto a = (*m)->append(std::span(&q, 1));
    ASSERT_TRUE(a.ok()) << a.status().toString();
  }
}

INSTANTIATE_TEST_SUITE_P(Torn, MailboxCrashTest,
                         ::testing::Values(Mode{false, StageSync::kNow, false},
                                           Mode{true, StageSync::kNow, false},
                                           Mode{false, StageSync::kDeferred, false},
                                           Mode{true, StageSync::kDeferred, false},
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
                           if (m.reverse) return "DeferredStageSyncReversed";
                           return m.torn ? "DeferredStageSyncTorn" : "DeferredStageSync";
                         });

}  // namespace mailbox_crash_test
}  // namespace darius::mailbox
