#include "lib/io/atomic_file.h"

#include <sys/stat.h>

#include <algorithm>
#include <optional>
#include <thread>

#include <gtest/gtest.h>

#include "lib/io/faulty_env.h"
#include "lib/io/temp_dir.h"

namespace darius::io {
namespace {

using base::Code;

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::create("atomic_file_test");
    ASSERT_TRUE(dir.ok()) << dir.status().toString();
    dir_ = std::make_unique<TempDir>(std::move(dir).value());
  }
  std::string path(std::string_view name) const { return dir_->file(name); }
  std::optional<std::string> onDisk(std::string_view name) {
    auto data = Env::posix()->readFile(path(name));
    if (!data.ok()) return std::nullopt;
    return std::move(data).value();
  }
  std::vector<std::string> entries() {
    return Env::posix()->listDir(dir_->path()).valueOr(std::vector<std::string>{});
  }

  std::unique_ptr<TempDir> dir_;
};

TEST_F(AtomicFileTest, WritesANewFileAndLeavesNoTemp) {
  Status s = writeFileAtomic(*Env::posix(), path("header"), "magic v1");
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(onDisk("header"), "magic v1");
  EXPECT_EQ(entries(), std::vector<std::string>{"header"});
}

TEST_F(AtomicFileTest, ReplacesAnExistingFile) {
  ASSERT_TRUE(writeFileAtomic(*Env::posix(), path("f"), "a much longer first version").isOk());
  ASSERT_TRUE(writeFileAtomic(*Env::posix(), path("f"), "v2").isOk());
  ASSERT_TRUE(writeFileAtomic(*Env::posix(), path("f"), "").isOk());
  EXPECT_EQ(onDisk("f"), "");
  EXPECT_EQ(entries(), std::vector<std::string>{"f"});
}

TEST_F(AtomicFileTest, PrivateModeAppliesToTheReplacement) {
  ASSERT_TRUE(writeFileAtomic(*Env::posix(), path("secret"), "v1").isOk());
  struct stat st {};
  ASSERT_EQ(::stat(path("secret").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  ASSERT_TRUE(writeFileAtomic(*Env::posix(), path("secret"), "keys", 0600).isOk());
  ASSERT_EQ(::stat(path("secret").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(onDisk("secret"), "keys");
}

TEST_F(AtomicFileTest, MissingDirectory) {
  Status s = writeFileAtomic(*Env::posix(), path("no/such/f"), "x");
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_NE(s.message().find("no/such/f"), std::string::npos);
}

TEST_F(AtomicFileTest, TempNamesAreRecognisable) {
  EXPECT_TRUE(isAtomicTempName(".index.tmp.123.4.abc"));
  EXPECT_FALSE(isAtomicTempName("index"));
  EXPECT_FALSE(isAtomicTempName(".index"));
  EXPECT_FALSE(isAtomicTempName("index.tmp.1"));
}

TEST_F(AtomicFileTest, FailedWriteOrSyncKeepsOldAndRemovesTemp) {
  ASSERT_TRUE(writeFileAtomic(*Env::posix(), path("f"), "old").isOk());
  FaultyEnv env(Env::posix());
  env.failAfterWrites(0);
  EXPECT_EQ(writeFileAtomic(env, path("f"), "new").code(), Code::kIoError);
  EXPECT_EQ(onDisk("f"), "old");
  EXPECT_EQ(entries(), std::vector<std::string>{"f"});
  env.clearFaults();
  env.failAfterSyncs(0);
  EXPECT_EQ(writeFileAtomic(env, path("f"), "new").code(), Code::kIoError);
  EXPECT_EQ(onDisk("f"), "old");
  EXPECT_EQ(entries(), std::vector<std::string>{"f"});
  env.clearFaults();
  ASSERT_TRUE(writeFileAtomic(env, path("f"), "new").isOk());
  EXPECT_EQ(onDisk("f"), "new");
}

TEST_F(AtomicFileTest, ConcurrentWritersNeverTear) {
  constexpr int kThreads = 4, kRounds = 20;
  std::vector<std::string> versions;
  for (int t = 0; t < kThreads; ++t) versions.push_back(std::string(1000 + t, 'a' + t));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRounds; ++i) {
        EXPECT_TRUE(writeFileAtomic(*Env::posix(), path("shared"), versions[t]).isOk());
        auto got = Env::posix()->readFile(path("shared"));
        EXPECT_TRUE(got.ok() &&
                    std::find(versions.begin(), versions.end(), *got) != versions.end());
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(entries(), std::vector<std::string>{"shared"});
}

enum class Trigger { kOps, kWrites, kSyncs };

struct Outcome {
  bool saw_old = false;
  bool saw_new = false;
  int runs = 0;
};

// Power loss after each possible number of operations of one kind, until the write completes
// without the trigger firing. Returns what the recovered disk showed.
Outcome powerLossSweep(const std::string& dir, Trigger trigger, bool old_exists, bool torn) {
  Outcome out;
  const std::string target = dir + "/mailboxes.db";
  for (uint64_t n = 0;; ++n) {
    EXPECT_LT(n, 100u) << "the write never completed";
    if (n >= 100) break;
    // A fresh start each round: the old version written normally and durably.
    EXPECT_TRUE(removeTree(*Env::posix(), target).isOk());
    if (old_exists) {
      EXPECT_TRUE(writeFileAtomic(*Env::posix(), target, "OLD contents").isOk());
    }

    FaultyEnv env(Env::posix());
    env.tornWrites(torn, n + 7);
    if (old_exists) {
      // Also exercise a file the env itself wrote and synced before the crash.
      EXPECT_TRUE(writeFileAtomic(env, target, "OLD contents").isOk());
    }
    switch (trigger) {
      case Trigger::kOps: env.losePowerAfterOps(n); break;
      case Trigger::kWrites: env.losePowerAfterWrites(n); break;
      case Trigger::kSyncs: env.losePowerAfterSyncs(n); break;
    }
    Status s = writeFileAtomic(env, target, "NEW contents, longer than the old");
    const bool completed = s.isOk() && !env.powerLost();
    if (!env.powerLost()) env.losePowerNow();  // crash right after the acknowledgement
    EXPECT_TRUE(env.recoverFromPowerLoss().isOk());
    ++out.runs;

    auto got = Env::posix()->readFile(target);
    if (got.ok() && *got == "OLD contents" && old_exists) {
      out.saw_old = true;
      EXPECT_FALSE(s.isOk()) << "n=" << n << ": acknowledged write lost";
    } else if (got.ok() && *got == "NEW contents, longer than the old") {
      out.saw_new = true;
    } else if (!got.ok() && !old_exists) {
      EXPECT_TRUE(got.status().isNotFound());
      out.saw_old = true;
      EXPECT_FALSE(s.isOk()) << "n=" << n << ": acknowledged write lost";
    } else {
      ADD_FAILURE() << "n=" << n << ": neither old nor new: "
                    << (got.ok() ? "\"" + *got + "\"" : got.status().toString());
    }
    // Nothing but the target may be left behind: temp files of the crashed write are gone
    // because their names were never made durable.
    auto names = Env::posix()->listDir(dir);
    EXPECT_TRUE(names.ok());
    if (names.ok()) {
      for (const std::string& name : *names) {
        EXPECT_EQ(name, "mailboxes.db") << "n=" << n << ": stray entry";
      }
    }
    if (completed) break;
  }
  return out;
}

TEST_F(AtomicFileTest, PowerLossAtEveryOpLeavesOldOrNew) {
  for (Trigger trigger : {Trigger::kOps, Trigger::kWrites, Trigger::kSyncs}) {
    SCOPED_TRACE(static_cast<int>(trigger));
    Outcome o = powerLossSweep(dir_->path(), trigger, /*old_exists=*/true, /*torn=*/false);
    EXPECT_TRUE(o.saw_old);
    EXPECT_TRUE(o.saw_new);
  }
  // Every mutating op of writeFileAtomic is a possible crash point: open, append, sync,
  // rename, syncDir, plus the final run that completes.
  EXPECT_EQ(powerLossSweep(dir_->path(), Trigger::kOps, true, false).runs, 6);
}

TEST_F(AtomicFileTest, PowerLossAtEveryOpWithoutAnOldFile) {
  Outcome o = powerLossSweep(dir_->path(), Trigger::kOps, /*old_exists=*/false, false);
  EXPECT_TRUE(o.saw_old);  // "old" here means: still absent
  EXPECT_TRUE(o.saw_new);
}

TEST_F(AtomicFileTest, PowerLossWithTornWrites) {
  Outcome o = powerLossSweep(dir_->path(), Trigger::kOps, /*old_exists=*/true, /*torn=*/true);
  EXPECT_TRUE(o.saw_old);
  EXPECT_TRUE(o.saw_new);
}

}  // namespace
}  // namespace darius::io
