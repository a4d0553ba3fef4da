// SeenDb against real mailboxes and databases: updates, modseqs shared with the index,
// UNCHANGEDSINCE, hostile records on disk, and power cuts (FaultyEnv) at every operation of a
// sequence of \Seen changes: nothing acknowledged is lost, and no user's modseq is ever above
// the mailbox's HIGHESTMODSEQ after a restart.
#include "mailbox/seen_db.h"

#include <gtest/gtest.h>

#include <map>

#include "lib/io/faulty_env.h"
#include "lib/io/temp_dir.h"
#include "mailbox/message_stage.h"

namespace darius::mailbox {
namespace seen_db_test {

using base::Code;
using Outcome = FlagResult::Outcome;

constexpr std::string_view kBoxId = "5f0e3c3d2a1b4c5d6e7f8091a2b3c4d5";

class SeenDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto t = io::TempDir::create("seen-db");
    ASSERT_TRUE(t.ok());
    tmp_ = std::make_unique<io::TempDir>(std::move(*t));
    ASSERT_TRUE(makeMailbox(*io::Env::posix(), *tmp_, 5).isOk());
  }

 public:
  // A mailbox "box" with `n` messages, the owner's \Seen on UID 1, and seen.db beside it.
  static base::Status makeMailbox(io::Env& env, io::TempDir& tmp, int n) {
    std::string stage = tmp.file("stage");
    DARIUS_RETURN_IF_ERROR(cleanStageDir(env, stage));
    MailboxHeader h{std::string(kBoxId), "shared\x1f" "box", 1234, {}, ""};
    DARIUS_ASSIGN_OR_RETURN(auto m, Mailbox::create(env, tmp.file("box"), h));
    std::vector<StagedMessage> staged;
    for (int i = 0; i < n; ++i) {
      DARIUS_ASSIGN_OR_RETURN(StagedMessage s,
                              stageMessage(env, stage, "Subject: " + std::to_string(i) + "\r\n\r\nx\r\n"));
      staged.push_back(std::move(s));
    }
    std::vector<AppendRequest> q;
    for (size_t i = 0; i < staged.size(); ++i) {
      q.push_back({&staged[i], 1790000000, 0, i == 0 ? uint32_t{kFlagSeen} : 0u, {}});
    }
    DARIUS_RETURN_IF_ERROR(m->append(q).status());
    for (const StagedMessage& s : staged) DARIUS_RETURN_IF_ERROR(unstage(env, s));
    return base::Status::ok();
  }

 protected:
  std::unique_ptr<Mailbox> openBox(io::Env& env) {
    auto m = Mailbox::open(env, tmp_->file("box"));
    EXPECT_TRUE(m.ok()) << m.status().toString();
    return m.ok() ? std::move(*m) : nullptr;
  }
  std::unique_ptr<SeenDb> openDb(io::Env* env = nullptr, SeenLimits limits = {}) {
    db::OpenOptions o;
    o.env = env;
    auto d = SeenDb::open(tmp_->file("seen.db"), db::Backend::kSkiplist, o, limits);
    EXPECT_TRUE(d.ok()) << d.status().toString();
    return d.ok() ? std::move(*d) : nullptr;
  }

  std::unique_ptr<io::TempDir> tmp_;
};

std::vector<uint32_t> uids(std::initializer_list<uint32_t> l) { return l; }

TEST_F(SeenDbTest, AChangeTakesTheNextModseqAndLeavesTheIndexRecordsAlone) {
  auto box = openBox(*io::Env::posix());
  auto db = openDb();
  ASSERT_TRUE(box && db);
  const uint64_t before = box->index().highest_modseq;
  std::vector<IndexRecord> records;
  for (size_t i = 0; i < box->recordCount(); ++i) records.push_back(*box->record(i));

  auto empty = db->get("bob", kBoxId);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());

  auto u = db->update(*box, "bob", uids({1, 2, 9}), true, {.now = 1700000000});
  ASSERT_TRUE(u.ok()) << u.status().toString();
  EXPECT_EQ(u->modseq, before + 1);
  ASSERT_EQ(u->results.size(), 3u);
  EXPECT_EQ(u->results[0].outcome, Outcome::kChanged);
  EXPECT_EQ(u->results[1].outcome, Outcome::kChanged);
  EXPECT_EQ(u->results[2].outcome, Outcome::kGone);  // no UID 9
  EXPECT_EQ(u->results[1].record.modseq, before + 1);
  EXPECT_TRUE(u->results[1].record.system_flags & kFlagSeen);
  EXPECT_EQ(u->state.encode(), "1 1700000000 1:2 1:2=" + std::to_string(before + 1));

  // Durable in the index header; no record changed (the owner's view is untouched).
  auto other = openBox(*io::Env::posix());
  ASSERT_TRUE(other);
  EXPECT_EQ(other->index().highest_modseq, before + 1);
  for (size_t i = 0; i < other->recordCount(); ++i) EXPECT_EQ(*other->record(i), records[i]);
  auto got = db->get("bob", kBoxId);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, u->state);
  // Another user has nothing.
  EXPECT_TRUE(db->get("alice", kBoxId)->empty());

  // Nothing to change: no modseq is used and nothing is written.
  auto again = db->update(*box, "bob", uids({1, 2}), true);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->modseq, 0u);
  EXPECT_EQ(again->results[0].outcome, Outcome::kUnchanged);
  ASSERT_TRUE(other->refresh().isOk());
  EXPECT_EQ(other->index().highest_modseq, before + 1);

  // Unseen again, with a new modseq above the owner's later flag change.
  FlagChange c;
  c.uid = 3;
  c.system_flags = kFlagFlagged;
  ASSERT_TRUE(box->store(std::span<const FlagChange>(&c, 1)).ok());
  auto off = db->update(*box, "bob", uids({2}), false);
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(off->modseq, before + 3);
  EXPECT_FALSE(off->state.isSeen(2));
  EXPECT_EQ(off->state.modseqOf(2), before + 3);
  EXPECT_EQ(off->state.modseqOf(1), before + 1);
}

TEST_F(SeenDbTest, UnchangedSinceComparesTheUsersView) {
  auto box = openBox(*io::Env::posix());
  auto db = openDb();
  ASSERT_TRUE(box && db);
  const uint64_t base = box->index().highest_modseq;  // every record has it (one append)
  auto first = db->update(*box, "bob", uids({2}), true);
  ASSERT_TRUE(first.ok());
  // UID 2 changed for bob at base+1: UNCHANGEDSINCE base refuses it, not UID 3.
  auto u = db->update(*box, "bob", uids({2, 3}), false, {.unchanged_since = base});
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->results[0].outcome, Outcome::kModified);
  EXPECT_EQ(u->results[1].outcome, Outcome::kUnchanged);  // not seen: nothing to remove
  EXPECT_TRUE(u->state.isSeen(2));
  // Alice's view of UID 2 did not change: the same condition passes for her.
  auto a = db->update(*box, "alice", uids({2}), true, {.unchanged_since = base});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->results[0].outcome, Outcome::kChanged);
  // A record modseq above the condition fails it, unless the caller checked it already.
  FlagChange c;
  c.uid = 4;
  c.system_flags = kFlagFlagged;
  ASSERT_TRUE(box->store(std::span<const FlagChange>(&c, 1)).ok());
  auto r = db->update(*box, "bob", uids({4}), true, {.unchanged_since = base});
  EXPECT_EQ(r->results[0].outcome, Outcome::kModified);
  auto r2 = db->update(*box, "bob", uids({4}), true,
                       {.unchanged_since = base, .check_record_modseq = false});
  EXPECT_EQ(r2->results[0].outcome, Outcome::kChanged);
}

TEST_F(SeenDbTest, ExpungedMessagesAreGone) {
  auto box = openBox(*io::Env::posix());
  auto db = openDb();
  ASSERT_TRUE(box && db);
  std::vector<uint32_t> gone = {3};
  ASSERT_TRUE(box->expunge(gone).ok());
  auto u = db->update(*box, "bob", uids({3}), true);
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->results[0].outcome, Outcome::kGone);
  EXPECT_EQ(u->modseq, 0u);
}

TEST_F(SeenDbTest, AStateOverTheLimitIsRefusedWithoutUsingAModseq) {
  auto box = openBox(*io::Env::posix());
  SeenLimits tiny;
  tiny.max_value_bytes = 16;
  auto db = openDb(nullptr, tiny);
  ASSERT_TRUE(box && db);
  const uint64_t before = box->index().highest_modseq;
  auto u = db->update(*box, "bob", uids({1, 3, 5}), true);
  ASSERT_FALSE(u.ok());
  EXPECT_EQ(u.status().code(), Code::kTooBig);
  ASSERT_TRUE(box->refresh().isOk());
  EXPECT_EQ(box->index().highest_modseq, before);
  EXPECT_TRUE(db->get("bob", kBoxId)->empty());
}

TEST_F(SeenDbTest, DamagedRecordsAreErrorsNamingTheKey) {
  auto box = openBox(*io::Env::posix());
  auto db = openDb();
  ASSERT_TRUE(box && db);
  const uint64_t before = box->index().highest_modseq;
  for (std::string bad : {std::string("garbage"), std::string("1 0 5:1 -"),
                          std::string(5000000, '1'), std::string("1 0 \xff -")}) {
    auto t = db->database().begin();
    ASSERT_TRUE(t.ok());
    ASSERT_TRUE((*t)->put(std::string("bob") + '\0' + std::string(kBoxId), bad).isOk());
    ASSERT_TRUE((*t)->commit().isOk());
    auto g = db->get("bob", kBoxId);
    ASSERT_FALSE(g.ok());
    EXPECT_EQ(g.status().code(), Code::kCorruption) << g.status().toString();
    EXPECT_NE(g.status().message().find("bob"), std::string::npos);
    auto u = db->update(*box, "bob", uids({2}), true);
    ASSERT_FALSE(u.ok());
    EXPECT_EQ(u.status().code(), Code::kCorruption);
  }
  ASSERT_TRUE(box->refresh().isOk());
  EXPECT_EQ(box->index().highest_modseq, before);
  // Other users are not affected.
  EXPECT_TRUE(db->update(*box, "alice", uids({2}), true).ok());
}

TEST_F(SeenDbTest, BadIdsAreRefused) {
  auto db = openDb();
  ASSERT_TRUE(db);
  EXPECT_EQ(db->get("", kBoxId).status().code(), Code::kInvalid);
  EXPECT_EQ(db->get(std::string("a\0b", 3), kBoxId).status().code(), Code::kInvalid);
  EXPECT_EQ(db->get("\x01" "format", kBoxId).status().code(), Code::kInvalid);
  EXPECT_EQ(db->get("bob", "").status().code(), Code::kInvalid);
}

TEST_F(SeenDbTest, TheFormatRecordIsChecked) {
  { ASSERT_TRUE(openDb()); }
  auto raw = db::Database::open(tmp_->file("seen.db"), db::Backend::kSkiplist);
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(*(*raw)->get("\x01" "format"), "darius-seen 1");
  auto t = (*raw)->begin();
  ASSERT_TRUE((*t)->put("\x01" "format", "darius-seen 2").isOk());
  ASSERT_TRUE((*t)->commit().isOk());
  raw->reset();
  auto newer = SeenDb::open(tmp_->file("seen.db"), db::Backend::kSkiplist);
  EXPECT_EQ(newer.status().code(), Code::kNotSupported);
}

TEST_F(SeenDbTest, RemoveUserTakesOnlyTheirStates) {
  auto box = openBox(*io::Env::posix());
  auto db = openDb();
  ASSERT_TRUE(box && db);
  ASSERT_TRUE(db->update(*box, "bob", uids({1}), true).ok());
  ASSERT_TRUE(db->update(*box, "bobby", uids({2}), true).ok());
  ASSERT_TRUE(db->removeUser("bob").isOk());
  EXPECT_TRUE(db->get("bob", kBoxId)->empty());
  EXPECT_TRUE(db->get("bobby", kBoxId)->isSeen(2));
}

// --- Power cuts ---

struct Step {
  const char* user;
  std::vector<uint32_t> uids;
  bool seen;
};
const std::vector<Step> kSteps = {
    {"bob", {1, 2}, true}, {"alice", {2, 3, 4}, true}, {"bob", {1}, false},
    {"bob", {3, 4, 5}, true}, {"alice", {2}, false},
};

// What the users' states say after a run: user -> encode() without the time field.
using States = std::map<std::string, std::string>;

// Runs the steps through `env`; returns how many were acknowledged.
size_t runSteps(io::Env& env, const std::string& dir, const std::string& db_path) {
  auto box = Mailbox::open(env, dir);
  if (!box.ok()) return 0;
  db::OpenOptions o;
  o.env = &env;
  auto db = SeenDb::open(db_path, db::Backend::kSkiplist, o);
  if (!db.ok()) return 0;
  size_t acked = 0;
  for (const Step& s : kSteps) {
    if (!(*db)->update(**box, s.user, s.uids, s.seen, {.now = 7}).ok()) break;
    ++acked;
  }
  return acked;
}

// Reads back the states and checks the invariant that must hold after any crash: no user's
// modseq is above the mailbox's HIGHESTMODSEQ (else a later change of the mailbox could take
// a modseq a client of that user has already been given).
States readBack(io::TempDir& tmp) {
  States out;
  auto box = Mailbox::open(*io::Env::posix(), tmp.file("box"));
  EXPECT_TRUE(box.ok()) << box.status().toString();
  auto db = SeenDb::open(tmp.file("seen.db"), db::Backend::kSkiplist);
  EXPECT_TRUE(db.ok()) << db.status().toString();
  if (!box.ok() || !db.ok()) return out;
  for (const char* user : {"alice", "bob"}) {
    auto s = (*db)->get(user, kBoxId);
    EXPECT_TRUE(s.ok()) << s.status().toString();
    if (!s.ok()) continue;
    EXPECT_LE(s->highestModseq(), (*box)->index().highest_modseq) << user;
    std::string seen;
    for (const UidRange& r : s->seen()) seen += std::to_string(r.first) + ":" + std::to_string(r.last) + ",";
    out[user] = seen;
  }
  return out;
}

TEST(SeenDbCrashTest, PowerCutAfterEveryOperation) {
  std::vector<States> expected;
  uint64_t total_ops = 0;
  for (size_t steps = 0; steps <= kSteps.size(); ++steps) {
    auto t = io::TempDir::create("seen-crash");
    ASSERT_TRUE(t.ok());
    ASSERT_TRUE(SeenDbTest::makeMailbox(*io::Env::posix(), *t, 5).isOk());
    io::FaultyEnv counting(io::Env::posix());  // no faults: counts the operations
    {
      auto box = Mailbox::open(counting, t->file("box"));
      ASSERT_TRUE(box.ok());
      db::OpenOptions o;
      o.env = &counting;
      auto db = SeenDb::open(t->file("seen.db"), db::Backend::kSkiplist, o);
      ASSERT_TRUE(db.ok());
      for (size_t i = 0; i < steps; ++i) {
        ASSERT_TRUE((*db)->update(**box, kSteps[i].user, kSteps[i].uids, kSteps[i].seen).ok());
      }
    }
    if (steps == kSteps.size()) total_ops = counting.opCount();
    expected.push_back(readBack(*t));
  }
  ASSERT_GT(total_ops, 10u);
  for (uint64_t n = 0; n <= total_ops; ++n) {
    auto t = io::TempDir::create("seen-crash");
    ASSERT_TRUE(t.ok());
    ASSERT_TRUE(SeenDbTest::makeMailbox(*io::Env::posix(), *t, 5).isOk());
    size_t acked = 0;
    {
      io::FaultyEnv env(io::Env::posix());
      env.losePowerAfterOps(n);
      acked = runSteps(env, t->file("box"), t->file("seen.db"));
      env.losePowerNow();
      ASSERT_TRUE(env.recoverFromPowerLoss().isOk()) << "cut " << n;
    }
    States got = readBack(*t);
    bool ok = got == expected[acked] || (acked < kSteps.size() && got == expected[acked + 1]);
    ASSERT_TRUE(ok) << "power cut after op " << n << " of " << total_ops << ", " << acked
                    << " changes acknowledged";
    // And it keeps working: the next change gets a modseq above every user's.
    auto box = Mailbox::open(*io::Env::posix(), t->file("box"));
    ASSERT_TRUE(box.ok());
    auto db = SeenDb::open(t->file("seen.db"), db::Backend::kSkiplist);
    ASSERT_TRUE(db.ok());
    auto u = (*db)->update(**box, "carol", std::vector<uint32_t>{1}, true);
    ASSERT_TRUE(u.ok()) << u.status().toString();
    for (const char* user : {"alice", "bob"}) {
      EXPECT_LT((*db)->get(user, kBoxId)->highestModseq(), u->modseq);
    }
  }
}

}  // namespace seen_db_test
}  // namespace darius::mailbox
