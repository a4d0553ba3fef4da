#include "mailbox/mailbox.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/io/fd.h"
#include "lib/io/file_lock.h"
#include "lib/io/hooked_env.h"
#include "lib/io/temp_dir.h"
#include "mailbox/reconstruct.h"

namespace darius::mailbox {
namespace mailbox_test {

using base::Code;

std::string message(int i) {
  return "From: a@example.com\r\nSubject: message " + std::to_string(i) +
         "\r\n\r\nbody " + std::string(static_cast<size_t>(i % 7) * 10, 'x') + "\r\n";
}

class MailboxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto t = io::TempDir::create("mailbox-test");
    ASSERT_TRUE(t.ok());
    tmp_ = std::make_unique<io::TempDir>(std::move(*t));
    stage_ = tmp_->file("stage");
    ASSERT_TRUE(cleanStageDir(env(), stage_).isOk());
    dir_ = tmp_->file("INBOX");
  }
  io::Env& env() { return *io::Env::posix(); }
  MailboxHeader newHeader() { return {"5f0e3c3d2a1b4c5d6e7f8091a2b3c4d5", "user\x1f" "alice", 1234, {}, ""}; }

  std::unique_ptr<Mailbox> createBox() {
    auto m = Mailbox::create(env(), dir_, newHeader());
    EXPECT_TRUE(m.ok()) << m.status().toString();
    return m.ok() ? std::move(*m) : nullptr;
  }

  std::vector<Appended> appendN(Mailbox& m, int first, int n, uint32_t flags = 0,
                                std::vector<std::string> keywords = {}) {
    std::vector<StagedMessage> staged;
    for (int i = first; i < first + n; ++i) {
      auto s = stageMessage(env(), stage_, message(i));
      EXPECT_TRUE(s.ok());
      s->cache.envelope = "envelope " + std::to_string(i);
      staged.push_back(*s);
    }
    std::vector<AppendRequest> reqs;
    for (auto& s : staged) reqs.push_back({&s, 1790000000, 60, flags, keywords});
    auto r = m.append(reqs);
    EXPECT_TRUE(r.ok()) << r.status().toString();
    for (auto& s : staged) EXPECT_TRUE(unstage(env(), s).isOk());
    return r.ok() ? *r : std::vector<Appended>{};
  }

  std::unique_ptr<io::TempDir> tmp_;
  std::string stage_, dir_;
};

TEST_F(MailboxTest, CreateAppendReadBack) {
  auto m = createBox();
  ASSERT_TRUE(m);
  EXPECT_EQ(m->recordCount(), 0u);
  EXPECT_EQ(m->index().uidvalidity, 1234u);
  auto a = appendN(*m, 1, 3, kFlagSeen, {"$Junk"});
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].uid, 1u);
  EXPECT_EQ(a[2].uid, 3u);
  EXPECT_EQ(m->recordCount(), 3u);
  EXPECT_EQ(m->index().uidnext, 4u);
  EXPECT_EQ(m->index().num_seen, 3u);
  EXPECT_EQ(m->header().user_flags, std::vector<std::string>{"$Junk"});
  for (size_t i = 0; i < 3; ++i) {
    auto r = m->record(i);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->uid, i + 1);
    EXPECT_EQ(r->size, message(static_cast<int>(i) + 1).size());
    EXPECT_EQ(r->guid, sha1Of(message(static_cast<int>(i) + 1)));
    EXPECT_TRUE(r->hasUserFlag(0));
    auto c = m->cache(*r);
    ASSERT_TRUE(c.ok()) << c.status().toString();
    EXPECT_EQ(c->envelope, "envelope " + std::to_string(i + 1));
    auto bytes = env().readFile(m->messagePath(r->uid));
    ASSERT_TRUE(bytes.ok());
    EXPECT_EQ(*bytes, message(static_cast<int>(i) + 1));
    EXPECT_EQ(r->header_size, bytes->find("\r\n\r\n") + 4);
  }
  // Reopen: everything is on disk.
  auto again = Mailbox::open(env(), dir_);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)->recordCount(), 3u);
  EXPECT_EQ((*again)->index(), m->index());
}

TEST_F(MailboxTest, OpenErrors) {
  EXPECT_EQ(Mailbox::open(env(), tmp_->file("nothing")).status().code(), Code::kNotFound);
  auto m = createBox();
  ASSERT_TRUE(m);
  EXPECT_EQ(Mailbox::create(env(), dir_, newHeader()).status().code(), Code::kExists);
  // A damaged header is Corruption naming the file, never a crash.
  {
    auto f = env().openWritable(dir_ + "/darius.index", io::Env::OpenMode::kAppend);
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE((*f)->pwrite(20, "\xff\xff").isOk());
    ASSERT_TRUE((*f)->close().isOk());
  }
  auto bad = Mailbox::open(env(), dir_);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kCorruption);
  EXPECT_NE(bad.status().message().find("darius.index"), std::string::npos);
}

TEST_F(MailboxTest, StoreFlagsWithModseqAndUnchangedSince) {
  auto m = createBox();
  appendN(*m, 1, 4);
  uint64_t before = m->index().highest_modseq;
  std::vector<FlagChange> changes = {
      {1, FlagChange::Op::kAdd, kFlagSeen | kFlagFlagged, {"Work"}, 0},
      {2, FlagChange::Op::kAdd, kFlagDeleted, {}, 0},
      {3, FlagChange::Op::kAdd, kFlagSeen, {}, /*unchanged_since=*/1},  // modseq is higher
      {99, FlagChange::Op::kAdd, kFlagSeen, {}, 0}};
  auto r = m->store(changes);
  ASSERT_TRUE(r.ok()) << r.status().toString();
  EXPECT_EQ((*r)[0].outcome, FlagResult::Outcome::kChanged);
  EXPECT_EQ((*r)[1].outcome, FlagResult::Outcome::kChanged);
  EXPECT_EQ((*r)[2].outcome, FlagResult::Outcome::kModified);
  EXPECT_EQ((*r)[3].outcome, FlagResult::Outcome::kGone);
  EXPECT_EQ((*r)[0].record.modseq, before + 1);
  EXPECT_EQ(m->index().highest_modseq, before + 1);
  EXPECT_EQ(m->index().num_seen, 1u);
  EXPECT_EQ(m->index().num_deleted, 1u);
  EXPECT_EQ(m->index().num_flagged, 1u);
  // The same change again changes nothing and does not bump the modseq.
  auto again = m->store(std::vector<FlagChange>{{1, FlagChange::Op::kAdd, kFlagSeen, {}, 0}});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)[0].outcome, FlagResult::Outcome::kUnchanged);
  EXPECT_EQ(m->index().highest_modseq, before + 1);
  auto rep = m->store(std::vector<FlagChange>{{1, FlagChange::Op::kReplace, kFlagDraft, {}, 0}});
  ASSERT_TRUE(rep.ok());
  EXPECT_EQ((*rep)[0].record.system_flags, uint32_t{kFlagDraft});
  EXPECT_FALSE((*rep)[0].record.hasUserFlag(0));
  EXPECT_EQ(m->index().num_seen, 0u);
  EXPECT_EQ(m->index().num_flagged, 0u);
}

// Issue 23: a STORE's and an EXPUNGE's flush runs after the exclusive lock is released, so a
// SELECT or refresh of the mailbox (the shared lock) never waits for it; the call returns
// only after the flush, and the change is there for every handle.
TEST_F(MailboxTest, StoreAndExpungeFlushWithoutHoldingTheLock) {
  io::HookedEnv hooked;
  auto created = Mailbox::create(hooked, dir_, newHeader());
  ASSERT_TRUE(created.ok()) << created.status().toString();
  auto& m = **created;
  appendN(m, 1, 4);
  bool armed = false;
  int flushes = 0, lock_free = 0;
  hooked.before_sync = [&] {
    if (!armed) return;
    ++flushes;
    auto l = io::FileLock::acquire(dir_ + "/" + std::string(kLockFileName), io::LockMode::kShared,
                                   /*wait=*/false);
    if (l.ok()) ++lock_free;
  };
  armed = true;
  auto r = m.store(std::vector<FlagChange>{{2, FlagChange::Op::kAdd, kFlagSeen, {}, 0}});
  ASSERT_TRUE(r.ok()) << r.status().toString();
  EXPECT_EQ((*r)[0].outcome, FlagResult::Outcome::kChanged);
  EXPECT_EQ(flushes, 1);
  EXPECT_EQ(lock_free, 1);
  auto e = m.expunge(std::vector<uint32_t>{3});
  ASSERT_TRUE(e.ok()) << e.status().toString();
  EXPECT_EQ(flushes, 2);
  EXPECT_EQ(lock_free, 2);
  armed = false;
  auto other = Mailbox::open(env(), dir_);
  ASSERT_TRUE(other.ok());
  EXPECT_EQ((*other)->index().highest_modseq, *e);
  EXPECT_EQ((*other)->index().num_seen, 1u);
  EXPECT_EQ((*other)->index().num_expunged, 1u);
}

// A file at the name of a UID being appended is debris of an append that never committed
// (a crash between the link and the commit): the append replaces it, on the create path and
// on the link path (the second mailbox of one delivery links the first's file).
TEST_F(MailboxTest, DebrisAtAnAppendedUidsNameIsReplaced) {
  auto m = createBox();
  appendN(*m, 1, 1);
  auto writeDebris = [&](const std::string& path) {
    auto f = env().openWritable(path, io::Env::OpenMode::kCreateNew);
    ASSERT_TRUE(f.ok()) << f.status().toString();
    ASSERT_TRUE((*f)->append("debris, not mail").isOk());
    ASSERT_TRUE((*f)->close().isOk());
  };
  writeDebris(m->messagePath(2));
  appendN(*m, 2, 1);
  auto bytes = env().readFile(m->messagePath(2));
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(*bytes, message(2));

  MailboxHeader h = newHeader();
  h.unique_id = "6f0e3c3d2a1b4c5d6e7f8091a2b3c4d6";
  auto other = Mailbox::create(env(), tmp_->file("Other"), h);
  ASSERT_TRUE(other.ok()) << other.status().toString();
  writeDebris((*other)->messagePath(1));
  auto staged = stageMessage(env(), stage_, message(3));
  ASSERT_TRUE(staged.ok());
  std::vector<AppendRequest> req{{&*staged, 1790000000, 60, 0, {}}};
  ASSERT_TRUE(m->append(req).ok());
  auto linked = (*other)->append(req);
  ASSERT_TRUE(linked.ok()) << linked.status().toString();
  bytes = env().readFile((*other)->messagePath(1));
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(*bytes, message(3));
  EXPECT_TRUE(unstage(env(), *staged).isOk());
}

TEST_F(MailboxTest, TooManyKeywordsIsRefused) {
  auto m = createBox();
  appendN(*m, 1, 1);
  for (int i = 0; i < kMaxUserFlags; ++i) {
    auto r = m->store(std::vector<FlagChange>{
        {1, FlagChange::Op::kAdd, 0, {"k" + std::to_string(i)}, 0}});
    ASSERT_TRUE(r.ok()) << i;
  }
  auto r = m->store(std::vector<FlagChange>{{1, FlagChange::Op::kAdd, 0, {"one-too-many"}, 0}});
  EXPECT_EQ(r.status().code(), Code::kTooBig);
  auto reopened = Mailbox::open(env(), dir_);
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ((*reopened)->header().user_flags.size(), static_cast<size_t>(kMaxUserFlags));
  auto rec = (*reopened)->record(0);
  ASSERT_TRUE(rec.ok());
  EXPECT_TRUE(rec->hasUserFlag(kMaxUserFlags - 1));
}

TEST_F(MailboxTest, ExpungeKeepsFilesAndCompactionMovesRecords) {
  auto m = createBox();
  appendN(*m, 1, 10, kFlagSeen);
  auto ms = m->expunge(std::vector<uint32_t>{2, 5, 5, 77});
  ASSERT_TRUE(ms.ok()) << ms.status().toString();
  EXPECT_EQ(m->index().num_expunged, 2u);
  EXPECT_EQ(m->index().num_seen, 8u);
  auto r = m->record(1);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->live());
  EXPECT_EQ(r->modseq, *ms);
  EXPECT_TRUE(*env().fileExists(m->messagePath(2)));  // phase 1: the file stays
  uint64_t gen = m->index().generation;
  ASSERT_TRUE(m->compact().isOk());
  EXPECT_EQ(m->index().generation, gen + 1);
  EXPECT_EQ(m->recordCount(), 8u);
  EXPECT_EQ(m->index().num_expunged, 0u);
  EXPECT_EQ(m->index().uidnext, 11u);
  auto gone = m->expungedRecords();
  ASSERT_TRUE(gone.ok());
  ASSERT_EQ(gone->size(), 2u);
  EXPECT_EQ((*gone)[0].uid, 2u);
  EXPECT_EQ((*gone)[1].uid, 5u);
  EXPECT_TRUE(*env().fileExists(m->messagePath(5)));
  // New appends continue the UIDs; the expunged UIDs are never reused.
  auto a = appendN(*m, 11, 1);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].uid, 11u);
  EXPECT_EQ(*m->findUid(5), -1);
  EXPECT_EQ(*m->findUid(11), 8);
}

TEST_F(MailboxTest, SecondHandleSeesChangesAtRefreshAndSurvivesRewrite) {
  auto writer = createBox();
  auto reader = Mailbox::open(env(), dir_);
  ASSERT_TRUE(reader.ok());
  appendN(*writer, 1, 3);
  EXPECT_EQ((*reader)->recordCount(), 0u);  // a snapshot until refresh()
  ASSERT_TRUE((*reader)->refresh().isOk());
  EXPECT_EQ((*reader)->recordCount(), 3u);
  ASSERT_TRUE(writer->expunge(std::vector<uint32_t>{1}).ok());
  ASSERT_TRUE(writer->compact().isOk());
  // The reader's old mapping still reads the old generation safely...
  auto old = (*reader)->record(0);
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->uid, 1u);
  // ...and switches at refresh.
  ASSERT_TRUE((*reader)->refresh().isOk());
  EXPECT_EQ((*reader)->recordCount(), 2u);
  EXPECT_EQ((*reader)->record(0)->uid, 2u);
}

TEST_F(MailboxTest, KeywordNamesFromAnotherHandleArriveWithTheIndexThatUsesThem) {
  // A handle learns a keyword another handle created at its next refresh(), also when one of
  // its own writes (claimRecent, expunge) loaded the newer index in between: before, the
  // refresh compared with that newer index, saw nothing new, and the name never arrived, so
  // the bit was shown as no flag at all (and a MOVE would have dropped it).
  auto a = createBox();
  ASSERT_TRUE(a);
  appendN(*a, 1, 3);
  for (int round = 0; round < 3; ++round) {
    auto b = Mailbox::open(env(), dir_);
    ASSERT_TRUE(b.ok());
    std::string name = "$Label" + std::to_string(round);
    ASSERT_TRUE((*b)->store(std::vector<FlagChange>{{1, FlagChange::Op::kAdd, 0, {name}, 0}}).ok());
    if (round == 0) {
      ASSERT_TRUE(a->claimRecent(3).ok());
    } else if (round == 1) {
      ASSERT_TRUE(a->expunge(std::vector<uint32_t>{3}).ok());
    } else {
      ASSERT_TRUE(a->compact().isOk());
    }
    ASSERT_TRUE(a->refresh().isOk());
    EXPECT_GE(a->header().findUserFlag(name), 0) << "round " << round;
  }
}

TEST_F(MailboxTest, HeaderWithoutItsRecordsIsRolledBack) {
  auto m = createBox();
  appendN(*m, 1, 2);
  // Simulate a crash where the header of a 2-message append reached the disk, the records
  // did not: write a header claiming 4 records with a tail CRC that cannot match, and leave
  // a message file for UID 3 behind.
  IndexHeader h = m->index();
  h.prev_num_records = 2;
  h.num_records = 4;
  h.uidnext = 5;
  h.tail_crc = 12345;
  {
    auto f = env().openWritable(dir_ + "/darius.index", io::Env::OpenMode::kAppend);
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE((*f)->pwrite(kIndexHeaderSize + 2 * kIndexRecordSize,
                             std::string(2 * kIndexRecordSize, '\0')).isOk());
    ASSERT_TRUE((*f)->pwrite(0, encodeIndexHeader(h)).isOk());
    ASSERT_TRUE((*f)->close().isOk());
    auto stray = env().openWritable(m->messagePath(3), io::Env::OpenMode::kCreateNew);
    ASSERT_TRUE(stray.ok());
    ASSERT_TRUE((*stray)->close().isOk());
  }
  auto again = Mailbox::open(env(), dir_);
  ASSERT_TRUE(again.ok()) << again.status().toString();
  EXPECT_EQ((*again)->recordCount(), 2u);
  EXPECT_EQ((*again)->index().uidnext, 5u);  // UIDs never go backwards
  EXPECT_FALSE(*env().fileExists(m->messagePath(3)));
  auto a = appendN(**again, 3, 1);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].uid, 5u);
  EXPECT_EQ((*again)->recordCount(), 3u);
}

// Writers in several processes serialise on the lock: every append gets its own UIDs and the
// index ends up with all of them in order.
TEST_F(MailboxTest, AppendersInSeveralProcesses) {
  auto m = createBox();
  constexpr int kProcs = 4, kEach = 25;
  std::vector<pid_t> kids;
  for (int p = 0; p < kProcs; ++p) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto mine = Mailbox::open(env(), dir_);
      if (!mine.ok()) ::_exit(2);
      for (int i = 0; i < kEach; ++i) {
        auto s = stageMessage(env(), stage_, message(p * 100 + i));
        if (!s.ok()) ::_exit(3);
        AppendRequest q{&*s, 0, 0, 0, {}};
        if (!(*mine)->append(std::span(&q, 1)).ok()) ::_exit(4);
        (void)unstage(env(), *s);
      }
      ::_exit(0);
    }
    kids.push_back(pid);
  }
  for (pid_t pid : kids) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  ASSERT_TRUE(m->refresh().isOk());
  ASSERT_EQ(m->recordCount(), static_cast<size_t>(kProcs * kEach));
  for (size_t i = 0; i < m->recordCount(); ++i) {
    auto r = m->record(i);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->uid, i + 1);
    auto bytes = env().readFile(m->messagePath(r->uid));
    ASSERT_TRUE(bytes.ok());
    EXPECT_EQ(sha1Of(*bytes), r->guid);
  }
}

CacheEntry fillFromBytes(std::string_view m) {
  CacheEntry e;
  e.envelope = "envelope " + std::string(m.substr(m.find("message ") + 8, m.find("\r\n\r\n") - m.find("message ") - 8));
  return e;
}

struct Seen {
  uint32_t uid, flags;
  Guid guid;
  bool operator==(const Seen&) const = default;
};
std::vector<Seen> contents(Mailbox& m) {
  EXPECT_TRUE(m.refresh().isOk());
  std::vector<Seen> out;
  for (size_t i = 0; i < m.recordCount(); ++i) {
    auto r = m.record(i);
    EXPECT_TRUE(r.ok());
    if (r.ok() && r->live()) out.push_back({r->uid, r->system_flags, r->guid});
  }
  return out;
}

TEST_F(MailboxTest, ReconstructOfAHealthyMailboxFindsNothing) {
  auto m = createBox();
  appendN(*m, 1, 5, kFlagSeen);
  ASSERT_TRUE(m->expunge(std::vector<uint32_t>{2}).ok());
  auto r = reconstructMailbox(env(), dir_, {.dry_run = true, .fill_cache = {}});
  ASSERT_TRUE(r.ok()) << r.status().toString();
  EXPECT_TRUE(r->problems.empty()) << r->problems.front();
  EXPECT_FALSE(r->changed);
  EXPECT_EQ(r->messages, 4u);
}

// Issue 4: deleting or corrupting the index and cache, then reconstructing, gives back the
// same UIDs, flags and message bytes.
TEST_F(MailboxTest, ReconstructAfterLosingIndexAndCacheKeepsUidsAndFiles) {
  auto m = createBox();
  appendN(*m, 1, 6);
  ASSERT_TRUE(m->store(std::vector<FlagChange>{{3, FlagChange::Op::kAdd, kFlagFlagged, {}, 0}}).ok());
  ASSERT_TRUE(m->expunge(std::vector<uint32_t>{4}).ok());
  auto before = contents(*m);
  m.reset();

  // 1. A flipped byte in one record and a damaged cache: flags of intact records survive.
  {
    auto f = env().openWritable(dir_ + "/darius.index", io::Env::OpenMode::kAppend);
    ASSERT_TRUE((*f)->pwrite(kIndexHeaderSize + 1 * kIndexRecordSize + 30, "\x55").isOk());
    ASSERT_TRUE((*f)->close().isOk());
    auto c = env().openWritable(dir_ + "/darius.cache", io::Env::OpenMode::kAppend);
    ASSERT_TRUE((*c)->pwrite(kCacheHeaderSize + 10, "garbage").isOk());
    ASSERT_TRUE((*c)->close().isOk());
  }
  ReconstructOptions opts{.dry_run = true, .fill_cache = fillFromBytes};
  auto dry = reconstructMailbox(env(), dir_, opts);
  ASSERT_TRUE(dry.ok());
  EXPECT_TRUE(dry->changed);
  EXPECT_FALSE(dry->problems.empty());
  opts.dry_run = false;
  auto fixed = reconstructMailbox(env(), dir_, opts);
  ASSERT_TRUE(fixed.ok()) << fixed.status().toString();
  auto again = Mailbox::open(env(), dir_);
  ASSERT_TRUE(again.ok()) << again.status().toString();
  auto after = contents(**again);
  ASSERT_EQ(after.size(), before.size());
  for (size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after[i].uid, before[i].uid);
    EXPECT_EQ(after[i].guid, before[i].guid);
    if (after[i].uid != 2) {
      EXPECT_EQ(after[i].flags, before[i].flags) << after[i].uid;
    }
  }
  EXPECT_EQ((*again)->index().uidnext, 7u);
  for (size_t i = 0; i < (*again)->recordCount(); ++i) {
    auto r = (*again)->record(i);
    auto c = (*again)->cache(*r);
    ASSERT_TRUE(c.ok()) << c.status().toString();
    EXPECT_EQ(c->envelope, "envelope " + std::to_string(r->uid));
  }
  // Expunged UID 4 stays expunged, its file kept.
  EXPECT_EQ(*(*again)->findUid(4), -1);
  EXPECT_TRUE(*env().fileExists((*again)->messagePath(4)));
  auto gone = (*again)->expungedRecords();
  ASSERT_TRUE(gone.ok());
  ASSERT_EQ(gone->size(), 1u);
  auto clean = reconstructMailbox(env(), dir_, {.dry_run = true, .fill_cache = {}});
  ASSERT_TRUE(clean.ok());
  EXPECT_TRUE(clean->problems.empty()) << clean->problems.front();
  again->reset();

  // 2. Both files deleted: UIDs and bytes come back from the files (flags are lost with them).
  ASSERT_TRUE(env().removeFile(dir_ + "/darius.index").isOk());
  ASSERT_TRUE(env().removeFile(dir_ + "/darius.cache").isOk());
  EXPECT_EQ(Mailbox::open(env(), dir_).status().code(), Code::kNotFound);
  auto rebuilt = reconstructMailbox(env(), dir_, opts);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().toString();
  auto third = Mailbox::open(env(), dir_);
  ASSERT_TRUE(third.ok()) << third.status().toString();
  auto last = contents(**third);
  ASSERT_EQ(last.size(), before.size());
  for (size_t i = 0; i < last.size(); ++i) {
    EXPECT_EQ(last[i].uid, before[i].uid);
    EXPECT_EQ(last[i].guid, before[i].guid);
  }
  EXPECT_EQ((*third)->index().uidnext, 7u);
}

}  // namespace mailbox_test
}  // namespace darius::mailbox
