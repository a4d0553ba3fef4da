// Tests of the change log writer and reader on real files: round trip of every record type,
// positioning, rotation, restart, several writer objects, threads sharing fsyncs, processes
// appending at once, size limits, pruning. Damage: change_log_damage_test.cc; crashes:
// change_log_crash_test.cc; the v1 golden file: change_log_golden_test.cc.
#include "mailbox/change_log.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <thread>

#include "lib/io/faulty_env.h"
#include "lib/io/hooked_env.h"
#include "lib/io/temp_dir.h"
#include "mailbox/change_log_reader.h"
#include "mailbox/change_log_segment.h"
#include "mailbox/change_log_test_util.h"

namespace darius::mailbox {
namespace {

using base::Code;
using base::Result;
using base::Status;
using testing::appendRecord;
using testing::readAll;
using testing::sampleRecords;

std::string logDir(const io::TempDir& d) { return changeLogDir(d.path()); }

std::vector<uint64_t> segments(const std::string& dir) {
  auto s = internal::listSegments(*io::Env::posix(), dir);
  EXPECT_TRUE(s.ok());
  return s.ok() ? *s : std::vector<uint64_t>{};
}

TEST(ChangeLogTest, RoundTripsEveryType) {
  auto d = *io::TempDir::create("clog");
  auto log = ChangeLog::open(logDir(d));
  ASSERT_TRUE(log.ok()) << log.status().toString();
  auto records = sampleRecords();
  auto range = (*log)->append(records);
  ASSERT_TRUE(range.ok()) << range.status().toString();
  EXPECT_EQ(*range, (SeqRange{1, records.size()}));
  auto got = readAll(logDir(d));
  ASSERT_EQ(got.size(), records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    ChangeRecord want = records[i];
    want.seq = i + 1;
    EXPECT_EQ(got[i], want) << "record " << i << " " << changeTypeName(want.type);
  }
  EXPECT_EQ(changeTypeName(got.back().type), "type-200");
  // One record at a time; a zero time means "now".
  ChangeRecord r = appendRecord("mb-9", 4);
  r.time_usec = 0;
  auto seq = (*log)->append(r);
  ASSERT_TRUE(seq.ok());
  EXPECT_EQ(*seq, records.size() + 1);
  auto last = readAll(logDir(d), *seq);
  ASSERT_EQ(last.size(), 1u);
  EXPECT_GT(last[0].time_usec, 1600000000000000);
  EXPECT_EQ(last[0].uids, (std::vector<UidModseq>{{4, 104}}));
  EXPECT_EQ(*(*log)->nextSeq(), *seq + 1);
}

TEST(ChangeLogTest, ReadsFromAnyPositionAndWaitsAtTheEnd) {
  auto d = *io::TempDir::create("clog");
  auto log = *ChangeLog::open(logDir(d));
  for (uint32_t i = 1; i <= 5; ++i) ASSERT_EQ(*log->append(appendRecord("m", i)), i);
  ChangeLogReader reader(logDir(d));
  EXPECT_EQ(reader.readFrom(0).code(), Code::kInvalid);
  ASSERT_TRUE(reader.readFrom(3).isOk());
  EXPECT_EQ(reader.position(), 3u);
  for (uint64_t want = 3; want <= 5; ++want) {
    auto r = reader.next();
    ASSERT_TRUE(r.ok() && r->has_value()) << r.status().toString();
    EXPECT_EQ((*r)->seq, want);
  }
  auto end = reader.next();
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(end->has_value());
  // The same reader picks up what is appended later.
  ASSERT_EQ(*log->append(appendRecord("m", 6)), 6u);
  auto six = reader.next();
  ASSERT_TRUE(six.ok() && six->has_value());
  EXPECT_EQ((*six)->seq, 6u);
  // A position beyond the end waits for it.
  ASSERT_TRUE(reader.readFrom(8).isOk());
  EXPECT_TRUE(reader.readAvailable()->empty());
  ASSERT_TRUE(
      log->append(std::vector<ChangeRecord>{appendRecord("m", 7), appendRecord("m", 8)}).ok());
  auto eight = reader.readAvailable();
  ASSERT_TRUE(eight.ok());
  ASSERT_EQ(eight->size(), 1u);
  EXPECT_EQ((*eight)[0].seq, 8u);
  // A reader of a missing directory says so.
  ChangeLogReader nowhere(d.file("missing"));
  EXPECT_TRUE(nowhere.readFrom(1).isNotFound());
}

TEST(ChangeLogTest, RotatesIntoSegmentsNamedByTheirFirstSeq) {
  auto d = *io::TempDir::create("clog");
  ChangeLogOptions o;
  o.segment_bytes = 200;
  auto log = *ChangeLog::open(logDir(d), o);
  uint64_t n = 0;
  for (uint32_t b = 0; b < 30; ++b) {
    std::vector<ChangeRecord> batch(b % 3 + 1, appendRecord("mb", b));
    auto r = log->append(batch);
    ASSERT_TRUE(r.ok()) << r.status().toString();
    EXPECT_EQ(r->first, n + 1);
    n = r->last;
  }
  auto segs = segments(logDir(d));
  ASSERT_GE(segs.size(), 5u);
  EXPECT_EQ(segs.front(), 1u);
  EXPECT_EQ(log->stats().rotations, segs.size() - 1);
  auto all = readAll(logDir(d));
  ASSERT_EQ(all.size(), n);
  for (uint64_t i = 0; i < n; ++i) EXPECT_EQ(all[i].seq, i + 1);
  // Each segment starts where its name says (the reader checks the header against it), and
  // reading can start inside any of them.
  for (uint64_t first : segs) {
    auto from = readAll(logDir(d), first + 1);
    ASSERT_FALSE(from.empty());
    EXPECT_EQ(from.front().seq, first + 1);
    EXPECT_EQ(from.back().seq, n);
  }
}

TEST(ChangeLogTest, ContinuesGapFreeAfterRestarts) {
  auto d = *io::TempDir::create("clog");
  ChangeLogOptions o;
  o.segment_bytes = 150;
  uint64_t next = 1;
  for (int restart = 0; restart < 6; ++restart) {
    auto log = ChangeLog::open(logDir(d), o);
    ASSERT_TRUE(log.ok()) << log.status().toString();
    EXPECT_EQ(*(*log)->nextSeq(), next);
    for (uint32_t i = 0; i < 3; ++i) ASSERT_EQ(*(*log)->append(appendRecord("m", i)), next++);
    EXPECT_EQ((*log)->stats().tail_cuts, 0u);
  }
  auto all = readAll(logDir(d));
  ASSERT_EQ(all.size(), next - 1);
  for (uint64_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i].seq, i + 1);
  EXPECT_GT(segments(logDir(d)).size(), 2u);
}

// Two writer objects stand for two processes: each finds what the other did under the lock,
// including segments the other started.
TEST(ChangeLogTest, TwoWriterObjectsFollowEachOther) {
  auto d = *io::TempDir::create("clog");
  ChangeLogOptions o;
  o.segment_bytes = 120;
  auto a = *ChangeLog::open(logDir(d), o);
  auto b = *ChangeLog::open(logDir(d), o);
  uint64_t last = 0;
  for (uint32_t i = 0; i < 40; ++i) {
    ChangeLog& w = (i % 3 == 0) ? *b : *a;
    auto r = w.append(std::vector<ChangeRecord>(i % 2 + 1, appendRecord(i % 3 ? "a" : "b", i)));
    ASSERT_TRUE(r.ok()) << r.status().toString();
    EXPECT_EQ(r->first, last + 1);
    last = r->last;
  }
  EXPECT_GT(a->stats().rotations + b->stats().rotations, 3u);
  auto all = readAll(logDir(d));
  ASSERT_EQ(all.size(), last);
  EXPECT_EQ(*a->nextSeq(), last + 1);
  EXPECT_EQ(*b->nextSeq(), last + 1);
}

using io::HookedEnv;

TEST(ChangeLogTest, ConcurrentAppendersShareFsyncsAndGetGapFreeSeqs) {
  auto d = *io::TempDir::create("clog");
  HookedEnv env;
  ChangeLogOptions o;
  o.env = &env;
  o.segment_bytes = 4096;
  auto log = *ChangeLog::open(logDir(d), o);
  constexpr int kThreads = 8, kAppends = 25;
  // The first data fsync waits until every thread has queued a batch (or 10 s pass, and the
  // test then fails below): the next leader must take all of them in one group.
  std::atomic<int> syncs{0};
  env.before_sync = [&] {
    if (syncs.fetch_add(1) != 0) return;
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (log->stats().queued < size_t{kThreads} && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  };
  std::vector<std::vector<SeqRange>> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kAppends; ++i) {
        auto r = log->append(std::vector<ChangeRecord>(
            size_t(i % 2 + 1), appendRecord("t" + std::to_string(t), uint32_t(i))));
        if (!r.ok()) {
          ADD_FAILURE() << r.status().toString();
          return;
        }
        got[size_t(t)].push_back(*r);
      }
    });
  }
  for (auto& th : threads) th.join();
  std::map<uint64_t, uint64_t> ranges;  // first -> last, over all threads
  for (const auto& v : got) {
    ASSERT_EQ(v.size(), size_t{kAppends});
    for (size_t i = 0; i < v.size(); ++i) {
      if (i > 0) {
        EXPECT_GT(v[i].first, v[i - 1].last);  // each thread's calls in order
      }
      EXPECT_TRUE(ranges.emplace(v[i].first, v[i].last).second);
    }
  }
  uint64_t next = 1;
  for (auto [first, last] : ranges) {  // disjoint and gap-free
    EXPECT_EQ(first, next);
    next = last + 1;
  }
  auto all = readAll(logDir(d));
  ASSERT_EQ(all.size(), next - 1);
  ChangeLog::Stats s = log->stats();
  EXPECT_EQ(s.appends, uint64_t{kThreads * kAppends});
  EXPECT_EQ(s.records, next - 1);
  // The second group holds the batches of the seven threads that queued behind the first.
  EXPECT_LE(s.groups, s.appends - (kThreads - 2));
  std::printf("[ info ] %llu appends in %llu groups (fsyncs)\n",
              static_cast<unsigned long long>(s.appends),
              static_cast<unsigned long long>(s.groups));
}

TEST(ChangeLogTest, ConcurrentProcessesGetGapFreeSeqs) {
  auto d = *io::TempDir::create("clog");
  ChangeLogOptions o;
  o.segment_bytes = 2048;
  ASSERT_TRUE(ChangeLog::open(logDir(d), o).ok());
  constexpr int kProcs = 4, kAppends = 30;
  std::vector<pid_t> kids;
  for (int p = 0; p < kProcs; ++p) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto log = ChangeLog::open(logDir(d), o);
      bool ok = log.ok();
      for (uint32_t i = 0; ok && i < kAppends; ++i) {
        ok = (*log)
                 ->append(std::vector<ChangeRecord>(2, appendRecord("p" + std::to_string(p), i)))
                 .ok();
      }
      ::_exit(ok ? 0 : 1);
    }
    kids.push_back(pid);
  }
  for (pid_t pid : kids) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  auto all = readAll(logDir(d));
  ASSERT_EQ(all.size(), size_t{kProcs * kAppends * 2});
  std::map<std::string, std::vector<uint32_t>> per_proc;
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].seq, i + 1);
    per_proc[all[i].mailbox_id].push_back(all[i].uids.at(0).uid);
  }
  ASSERT_EQ(per_proc.size(), size_t{kProcs});
  for (const auto& [id, uids] : per_proc) {
    ASSERT_EQ(uids.size(), size_t{kAppends * 2}) << id;
    for (size_t i = 0; i < uids.size(); ++i) EXPECT_EQ(uids[i], i / 2) << id;  // in order
  }
}

TEST(ChangeLogTest, RejectsOversizedAndMalformedRecordsWithoutWriting) {
  auto d = *io::TempDir::create("clog");
  auto log = *ChangeLog::open(logDir(d));
  ASSERT_EQ(*log->append(appendRecord("m", 1)), 1u);
  ChangeRecord many = appendRecord("m", 1);
  many.uids.assign(kMaxRecordBody / 12 + 1, UidModseq{1, 1});
  EXPECT_EQ(log->append(many).status().code(), Code::kTooBig);
  ChangeRecord long_name;
  long_name.type = ChangeType::kCreate;
  long_name.name.assign(70000, 'x');
  EXPECT_EQ(log->append(long_name).status().code(), Code::kTooBig);
  ChangeRecord huge;
  huge.type = static_cast<ChangeType>(99);
  huge.raw_payload.assign(kMaxRecordBody, 'p');
  // In a batch: the good record before it is not written either.
  EXPECT_EQ(log->append(std::vector<ChangeRecord>{appendRecord("m", 2), huge}).status().code(),
            Code::kTooBig);
  ChangeRecord mixed = appendRecord("m", 3);
  mixed.name = "not for an append";
  EXPECT_EQ(log->append(mixed).status().code(), Code::kInvalid);
  EXPECT_EQ(log->append(std::span<const ChangeRecord>()).status().code(), Code::kInvalid);
  EXPECT_EQ(*log->nextSeq(), 2u);
  EXPECT_EQ(readAll(logDir(d)).size(), 1u);
  // Exactly at the limit is fine: body = 20 bytes of fixed fields + payload.
  huge.raw_payload.resize(kMaxRecordBody - kMinRecordBody);
  ASSERT_EQ(*log->append(huge), 2u);
  auto back = readAll(logDir(d), 2);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].raw_payload.size(), kMaxRecordBody - kMinRecordBody);
}

TEST(ChangeLogTest, PruneRemovesWholeOldSegmentsOnly) {
  auto d = *io::TempDir::create("clog");
  ChangeLogOptions o;
  o.segment_bytes = 150;
  auto log = *ChangeLog::open(logDir(d), o);
  for (uint32_t i = 0; i < 30; ++i) ASSERT_TRUE(log->append(appendRecord("m", i)).ok());
  auto segs = segments(logDir(d));
  ASSERT_GE(segs.size(), 5u);
  // A reader in the first segment keeps going through a prune of it, into the next one.
  ChangeLogReader early(logDir(d));
  ASSERT_TRUE(early.readFrom(1).isOk());
  ASSERT_TRUE(early.next().ok());
  EXPECT_EQ(*log->pruneBefore(segs[1]), 1u);
  auto rest = early.readAvailable();
  ASSERT_TRUE(rest.ok()) << rest.status().toString();
  EXPECT_EQ(rest->size(), 29u);
  // One whose next segment went too cannot go on.
  ChangeLogReader stale(logDir(d));
  ASSERT_TRUE(stale.readFrom(segs[1]).isOk());
  ASSERT_TRUE(stale.next().ok());
  // Records below segs[3] live in segs[1] and segs[2] only.
  EXPECT_EQ(*log->pruneBefore(segs[3]), 2u);
  EXPECT_EQ(*log->pruneBefore(segs[3]), 0u);
  EXPECT_TRUE(stale.readAvailable().status().isNotFound());
  EXPECT_EQ(*ChangeLogReader::oldestSeq(logDir(d)), segs[3]);
  ChangeLogReader late(logDir(d));
  EXPECT_TRUE(late.readFrom(segs[3] - 1).isNotFound());
  EXPECT_EQ(readAll(logDir(d), segs[3]).size(), 30 - (segs[3] - 1));
  // Pruning everything keeps the last segment, so the sequence goes on.
  size_t left = segments(logDir(d)).size();
  EXPECT_EQ(*log->pruneBefore(UINT64_MAX), left - 1);
  EXPECT_EQ(segments(logDir(d)).size(), 1u);
  EXPECT_EQ(*log->append(appendRecord("m", 99)), 31u);
  auto again = *ChangeLog::open(logDir(d), o);
  EXPECT_EQ(*again->nextSeq(), 32u);
}

}  // namespace
}  // namespace darius::mailbox

namespace darius::mailbox {
namespace {

// Sync::kByCaller leaves the fsync to the caller's filesystem sync: without one the records
// are lost with the power, with one they stay; a kNow append syncs what came before it too.
TEST(ChangeLogTest, ByCallerAppendsWaitForTheCallersFilesystemSync) {
  auto d = *io::TempDir::create("clog");
  io::FaultyEnv env(io::Env::posix());
  ChangeLogOptions o;
  o.env = &env;
  auto log = ChangeLog::open(logDir(d), o);
  ASSERT_TRUE(log.ok()) << log.status().toString();
  const uint64_t syncs = env.syncCount();
  ASSERT_TRUE((*log)->append(std::vector<ChangeRecord>{appendRecord("mb-1", 1)},
                             ChangeLog::Sync::kByCaller).ok());
  EXPECT_EQ(env.syncCount(), syncs);  // written, not synced
  EXPECT_EQ(readAll(logDir(d)).size(), 1u);  // readers see it at once
  log->reset();  // a crash: nobody syncs on the way out
  ASSERT_TRUE(env.dropUnsyncedData().isOk());
  EXPECT_EQ(readAll(logDir(d)).size(), 0u);

  log = ChangeLog::open(logDir(d), o);
  ASSERT_TRUE(log.ok()) << log.status().toString();
  auto fs = env.openFilesystemSync({logDir(d)});
  ASSERT_TRUE(fs.ok()) << fs.status().toString();
  ASSERT_TRUE((*log)->append(std::vector<ChangeRecord>{appendRecord("mb-1", 1)},
                             ChangeLog::Sync::kByCaller).ok());
  ASSERT_TRUE((*fs)->sync().isOk());
  ASSERT_TRUE((*log)->append(std::vector<ChangeRecord>{appendRecord("mb-2", 2)},
                             ChangeLog::Sync::kByCaller).ok());
  ASSERT_TRUE((*log)->append(appendRecord("mb-3", 3)).ok());  // kNow: syncs mb-2 too
  log->reset();
  ASSERT_TRUE(env.dropUnsyncedData().isOk());
  auto got = readAll(logDir(d));
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].mailbox_id, "mb-1");
  EXPECT_EQ(got[1].mailbox_id, "mb-2");
  EXPECT_EQ(got[2].mailbox_id, "mb-3");
}

}  // namespace
}  // namespace darius::mailbox
