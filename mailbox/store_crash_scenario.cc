// The Store's power-cut scenario (store_crash_scenario.h).
#include "mailbox/store_crash_scenario.h"

#include <gtest/gtest.h>

#include <functional>

#include "lib/io/faulty_env.h"
#include "mailbox/cache_fill.h"
#include "mailbox/change_log_reader.h"
#include "mailbox/reconstruct.h"

namespace darius::mailbox::crash_scenario {

MailboxName name(std::vector<std::string> c) {
  auto n = MailboxName::personal("", "alice", std::move(c));
  EXPECT_TRUE(n.ok());
  return *n;
}

StoreOptions options(const io::TempDir& t, io::Env* env) {
  StoreOptions o;
  o.env = env;
  o.data_dir = t.file("data");
  o.partitions = {{"default", t.file("p1")}, {"second", t.file("p2")}};
  return o;
}

std::string describe(const Snapshot& s) {
  std::string out;
  for (const auto& [n, msgs] : s) {
    out += n + "[";
    for (const Message& m : msgs) out += " " + std::to_string(m.uid) + "/" + std::to_string(m.flags);
    out += " ] ";
  }
  return out;
}

// Opens the store with the real filesystem (finishing what the crash left), checks the
// invariants of every state, and returns what is listed. Through a FaultyEnv that never
// fails: the same files, without a real fsync per step (the cuts are many).
Snapshot snapshot(const io::TempDir& t) {
  Snapshot s;
  io::FaultyEnv calm(io::Env::posix());
  auto store = Store::open(options(t, &calm));
  EXPECT_TRUE(store.ok()) << store.status().toString();
  if (!store.ok()) return s;
  auto intents = io::Env::posix()->listDir(t.file("data/darius.intents"));
  EXPECT_TRUE(intents.ok() && intents->empty());
  std::vector<std::pair<MailboxName, MailboxEntry>> listed;
  EXPECT_TRUE((*store)->list().forEach([&](const MailboxName& n, const MailboxEntry& e) {
    listed.emplace_back(n, e);
    return true;
  }).isOk());
  for (const auto& [n, e] : listed) {
    auto dir = (*store)->directoryOf(n, e);
    EXPECT_TRUE(dir.ok());
    if (!dir.ok()) continue;
    auto m = (*store)->openMailbox(n);
    EXPECT_TRUE(m.ok()) << n.toString() << ": " << m.status().toString();
    if (!m.ok()) continue;
    EXPECT_EQ(m->mailbox->header().unique_id, e.unique_id) << n.toString();
    std::vector<Message>& msgs = s[n.toString()];
    for (size_t i = 0; i < m->mailbox->recordCount(); ++i) {
      auto r = m->mailbox->record(i);
      EXPECT_TRUE(r.ok());
      if (!r.ok() || !r->live()) continue;
      auto bytes = io::Env::posix()->readFile(m->mailbox->messagePath(r->uid));
      EXPECT_TRUE(bytes.ok()) << n.toString() << " UID " << r->uid;
      if (bytes.ok()) {
        EXPECT_EQ(sha1Of(*bytes), r->guid);
      }
      msgs.push_back({r->uid, r->system_flags, r->guid});
    }
    // After the open (which repairs a torn append by itself), nothing is left to repair.
    ReconstructOptions ro;
    ro.dry_run = true;
    ro.fill_cache = buildCacheEntry;
    auto report = reconstructMailbox(*io::Env::posix(), *dir, ro);
    EXPECT_TRUE(report.ok()) << n.toString() << ": " << report.status().toString();
    if (report.ok()) {
      EXPECT_FALSE(report->changed) << n.toString() << ": reconstruct would repair: "
                                    << (report->problems.empty() ? "" : report->problems[0]);
    }
  }
  // A replay leaves no journal segment behind (delivery_journal.h).
  for (const char* part : {"p1", "p2"}) {
    auto names = io::Env::posix()->listDir(t.file(part) + "/" + std::string(kJournalDirName));
    if (!names.ok()) continue;
    for (const std::string& n : *names) {
      EXPECT_EQ(n.find(".journal"), std::string::npos) << part << ": " << n << " left";
    }
  }
  // The change log: whole records from 1 on, whatever the cut left (records of an append
  // whose index commit was lost are allowed: docs/formats/changelog.md, "In flight").
  for (const char* part : {"p1", "p2"}) {
    ChangeLogReader reader(changeLogDir(t.file(part)));
    EXPECT_TRUE(reader.readFrom(1).isOk()) << part;
    auto all = reader.readAvailable();
    EXPECT_TRUE(all.ok()) << part << ": " << all.status().toString();
  }
  return s;
}


// The scenario; returns how many steps were acknowledged before the first failure.
size_t runScenario(io::Env& env, const io::TempDir& t, size_t max_steps, const Mode& mode) {
  const StageSync stage_sync = mode.journal ? StageSync::kDeferred : mode.stage_sync;
  StoreOptions o = options(t, &env);
  if (mode.syncfs) o.sync_method = SyncMethod::kSyncfs;
  if (mode.journal) {
    o.sync_method = SyncMethod::kJournal;
    o.own_journals = true;
    o.journal_background = false;  // checkpoints where the scenario says, not on a timer
    o.journal_checkpoint_syncfs = !mode.journal_files;
  }
  auto opened = Store::open(o);
  if (!opened.ok()) return 0;
  Store& store = **opened;
  size_t done = 0;
  auto deliver = [&](const MailboxName& to, std::string body) {
    auto p = store.partition("default");
    auto staged = store.stage(**p, "Subject: s\r\n\r\n" + body + "\r\n", stage_sync);
    if (!staged.ok()) return false;
    AppendRequest q{&*staged, 1790000000, 0, 0, {}};
    bool ok = store.append(to, std::span(&q, 1)).ok();
    (void)store.unstage(*staged);
    // Journaled: the first two deliveries are checkpointed into their mailbox, the third is
    // still only in the journal when the copy, rename and deletes come.
    if (ok && mode.journal && body == "two") (void)store.checkpointJournals();
    return ok;
  };
  auto withBoxes = [&](const MailboxName& a, const MailboxName& b, auto fn) {
    auto ma = store.openMailbox(a);
    auto mb = store.openMailbox(b);
    return ma.ok() && mb.ok() && fn(*ma->mailbox, *mb->mailbox);
  };
  auto undelete = [&](const MailboxName& was, const MailboxName& to) {
    auto kept = store.listDeleted(was);  // oldest first
    if (!kept.ok()) return false;
    for (const DeletedMailbox& d : *kept) {
      if (d.name == was) return store.undelete(d, to).ok();
    }
    return false;
  };
  CreateOptions second;
  second.partition = "second";
  std::function<bool()> steps[] = {
      [&] { return store.create(name({})).ok(); },
      [&] { return store.create(name({"A"})).ok(); },
      [&] { return store.create(name({"A", "B"}), second).ok(); },
      [&] { return store.create(name({"A", "C"})).ok(); },  // beside A: A's delete keeps it
      [&] { return deliver(name({"A"}), "one"); },
      [&] { return deliver(name({"A"}), "two"); },
      [&] { return deliver(name({"A", "B"}), "three"); },
      [&] {
        return withBoxes(name({"A"}), name({}), [&](Mailbox& a, Mailbox& inbox) {
          return store.copy(a, std::vector<uint32_t>{1, 2}, name({}), inbox).ok();
        });
      },
      [&] {
        auto m = store.openMailbox(name({}));
        return m.ok() &&
               m->mailbox->store(std::vector<FlagChange>{{2, FlagChange::Op::kAdd, kFlagSeen, {}, 0}})
                   .ok();
      },
      [&] { return store.rename(name({"A"}), name({"X"})).ok(); },
      // A move is a copy, then an expunge (store.h): a cut between them leaves the message
      // in both mailboxes, never in neither; so it runs here as its two steps.
      [&] {
        return withBoxes(name({"X"}), name({"X", "B"}), [&](Mailbox& x, Mailbox& xb) {
          return store.copy(x, std::vector<uint32_t>{1}, name({"X", "B"}), xb).ok();
        });
      },
      [&] {
        auto m = store.openMailbox(name({"X"}));
        return m.ok() && store.expunge(name({"X"}), *m->mailbox, std::vector<uint32_t>{1}).ok();
      },
      [&] { return store.remove(name({"X"})).isOk(); },  // a parent: its children stay
      [&] { return store.remove(name({"X", "B"})).isOk(); },
      [&] { return store.create(name({"X"})).ok(); },
      // Undelete (store_deleted.cc): the leaf back under its own name (one rename), then,
      // once the new X is deleted too, the oldest X back around its children (its files
      // moved one by one into their directory).
      [&] { return undelete(name({"X", "B"}), name({"X", "B"})); },
      [&] { return store.remove(name({"X"})).isOk(); },
      [&] { return undelete(name({"X"}), name({"X"})); },
  };
  for (auto& step : steps) {
    if (done == max_steps || !step()) return done;
    ++done;
  }
  return done;
}


void runPowerCutSweep(const Mode& mode) {
  const bool torn = mode.torn;
  std::vector<Snapshot> states;
  uint64_t total_ops = 0;
  {
    auto t = io::TempDir::create("store-crash");
    ASSERT_TRUE(t.ok());
    io::FaultyEnv counting(io::Env::posix());
    counting.reverseConcurrent(mode.reverse);
    ASSERT_EQ(runScenario(counting, *t, 100, mode), kSteps);
    total_ops = counting.opCount();
  }
  for (size_t steps = 0; steps <= kSteps; ++steps) {
    auto t = io::TempDir::create("store-crash");
    ASSERT_TRUE(t.ok());
    ASSERT_EQ(runScenario(*io::Env::posix(), *t, steps, mode), steps);
    states.push_back(snapshot(*t));
  }
  ASSERT_EQ(states.back().size(), 4u) << describe(states.back());

  // Every cut point in the whole-write run; every third in the torn run (the torn model only
  // differs for appends, and the run is long).
  for (uint64_t n = 0; n <= total_ops; n += torn ? 3 : 1) {
    auto t = io::TempDir::create("store-crash");
    ASSERT_TRUE(t.ok());
    size_t acked = 0;
    {
      io::FaultyEnv env(io::Env::posix());
      if (torn) env.tornWrites(true, n + 1);
      env.reverseConcurrent(mode.reverse);
      env.losePowerAfterOps(n);
      acked = runScenario(env, *t, 100, mode);
      env.losePowerNow();
      ASSERT_TRUE(env.recoverFromPowerLoss().isOk()) << "cut " << n;
    }
    Snapshot got = snapshot(*t);
    bool ok = got == states[acked] || (acked < kSteps && got == states[acked + 1]);
    EXPECT_TRUE(ok) << "power cut after op " << n << " of " << total_ops << ", " << acked
                    << " steps acknowledged\n got: " << describe(got)
                    << "\nwant: " << describe(states[acked]);
    if (!ok) break;  // one clear failure is enough to read
    // And the store keeps working after the restart.
    io::FaultyEnv calm(io::Env::posix());
    auto store = Store::open(options(*t, &calm));
    ASSERT_TRUE(store.ok());
    auto made = (*store)->create(name({"after"}));
    ASSERT_TRUE(made.ok()) << made.status().toString();
  }
}


}  // namespace darius::mailbox::crash_scenario
