// The power-cut scenario of the Store (store_crash_test.cc, journal_crash_test.cc): create,
// delivery, copy, expunge, flag change, rename (of a subtree spread over two partitions),
// delete (of a parent with a child, and of a leaf), undelete (of both), cut after every single
// mutating operation in turn, and the invariants a restarted store must show (see
// runPowerCutSweep). Test-only code, shared by the unit and the volume test binaries.
//
// Ownership: plain functions over temporary directories. Thread-safety: one test at a time.
#pragma once

#include <compare>
#include <map>
#include <string>
#include <vector>

#include "lib/io/env.h"
#include "lib/io/temp_dir.h"
#include "mailbox/store.h"

namespace darius::mailbox::crash_scenario {

MailboxName name(std::vector<std::string> c);
StoreOptions options(const io::TempDir& t, io::Env* env);

struct Message {
  uint32_t uid;
  uint32_t flags;
  Guid guid;
  auto operator<=>(const Message&) const = default;
};
using Snapshot = std::map<std::string, std::vector<Message>>;  // listed name -> live messages

std::string describe(const Snapshot& s);
// Opens the store again (finishing what the crash left), checks every invariant, and returns
// what is listed.
Snapshot snapshot(const io::TempDir& t);

struct Mode {
  bool torn = false;
  StageSync stage_sync = StageSync::kNow;
  bool reverse = false;  // FaultyEnv runs concurrent syncs in reverse order
  bool syncfs = false;   // appends commit with one filesystem sync (SyncMethod::kSyncfs)
  bool journal = false;  // appends commit through the delivery journal (SyncMethod::kJournal),
                         // with a checkpoint after the second delivery
  bool journal_files = false;  // ... whose checkpoints sync file by file
};

inline constexpr size_t kSteps = 18;
// The scenario; returns how many steps were acknowledged before the first failure.
size_t runScenario(io::Env& env, const io::TempDir& t, size_t max_steps, const Mode& mode);
// Every cut point (every third with torn writes): after each, the restarted store holds the
// state of the acknowledged steps, or of the one in flight too, and keeps working.
void runPowerCutSweep(const Mode& mode);

}  // namespace darius::mailbox::crash_scenario
