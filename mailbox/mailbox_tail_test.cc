// The last append's settling (mailbox_tail.cc): an append leaves its tail settled; a tail left
// unsettled by a crash is kept when every file and cache record it names is intact, and rolled
// back, UIDs kept used, when one is not. The power-cut tests (mailbox_crash_test.cc) cover the
// same through FaultyEnv; these make each case explicit on the real filesystem.
#include <optional>
#include <utility>

#include <gtest/gtest.h>

#include "lib/io/faulty_env.h"
#include "lib/io/temp_dir.h"
#include "mailbox/cache_fill.h"
#include "mailbox/index_format.h"
#include "mailbox/mailbox.h"
#include "mailbox/reconstruct.h"

namespace darius::mailbox {
namespace {

class MailboxTailTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto t = io::TempDir::create("mailbox-tail");
    ASSERT_TRUE(t.ok());
    tmp_ = std::make_unique<io::TempDir>(std::move(*t));
    stage_ = tmp_->file("stage");
    ASSERT_TRUE(cleanStageDir(env(), stage_).isOk());
    dir_ = tmp_->file("box");
    auto m = Mailbox::create(env(), dir_, {"0123456789abcdef0123456789abcdef", "u", 77, {}, ""});
    ASSERT_TRUE(m.ok()) << m.status().toString();
  }
  io::Env& env() { return *io::Env::posix(); }
  bool exists(const std::string& p) {
    auto e = env().fileExists(p);
    return e.ok() && *e;
  }

  std::unique_ptr<Mailbox> open() {
    auto m = Mailbox::open(env(), dir_);
    EXPECT_TRUE(m.ok()) << m.status().toString();
    return m.ok() ? std::move(*m) : nullptr;
  }

  void append(Mailbox& m, int first, int n) {
    std::vector<StagedMessage> staged;
    for (int i = first; i < first + n; ++i) {
      auto s = stageMessage(env(), stage_, "Subject: " + std::to_string(i) + "\r\n\r\nbody\r\n");
      ASSERT_TRUE(s.ok());
      staged.push_back(*s);
    }
    std::vector<AppendRequest> q;
    for (auto& s : staged) q.push_back({&s, 1790000000, 0, 0, {}});
    ASSERT_TRUE(m.append(q).ok());
    for (auto& s : staged) ASSERT_TRUE(unstage(env(), s).isOk());
  }

  IndexHeader diskHeader() {
    auto bytes = env().readFile(dir_ + "/" + std::string(kIndexFileName));
    EXPECT_TRUE(bytes.ok());
    auto h = decodeIndexHeader(bytes.ok() ? *bytes : "");
    EXPECT_TRUE(h.ok()) << h.status().toString();
    return h.ok() ? *h : IndexHeader{};
  }

  // What a crash after an append's index write, before its settled mark, leaves: the header
  // names the last `n` records as the unsettled tail, with their CRC.
  void unsettleLast(uint32_t n) {
    std::string path = dir_ + "/" + std::string(kIndexFileName);
    auto bytes = env().readFile(path);
    ASSERT_TRUE(bytes.ok());
    auto h = decodeIndexHeader(*bytes);
    ASSERT_TRUE(h.ok());
    ASSERT_GE(h->num_records, n);
    h->prev_num_records = h->num_records - n;
    size_t from = kIndexHeaderSize + size_t{h->prev_num_records} * kIndexRecordSize;
    h->tail_crc = crc32Of(std::string_view(*bytes).substr(from, size_t{n} * kIndexRecordSize));
    writeDiskHeader(*h);
  }

  void writeDiskHeader(const IndexHeader& h) {
    auto f = env().openWritable(dir_ + "/" + std::string(kIndexFileName),
                                io::Env::OpenMode::kExisting);
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE((*f)->pwrite(0, encodeIndexHeader(h)).isOk());
    ASSERT_TRUE((*f)->close().isOk());
  }

  // Messages 1, then 2 and 3 in one append left unsettled by a crash; `lost_uid`, if set,
  // names a message file whose link never reached the disk.
  void threeWithTheLastTwoUnsettled(std::optional<uint32_t> lost_uid = std::nullopt) {
    {
      auto m = open();
      ASSERT_NE(m, nullptr);
      append(*m, 1, 1);
      append(*m, 2, 2);
      if (lost_uid) {
        ASSERT_TRUE(env().removeFile(m->messagePath(*lost_uid)).isOk());
      }
    }
    unsettleLast(2);
  }

  // One message through an append-only handle (what a delivery uses), expected to succeed.
  void appendOnly(int number) {
    auto m = Mailbox::openForAppend(env(), dir_);
    ASSERT_TRUE(m.ok()) << m.status().toString();
    append(**m, number, 1);
  }

  // One message through an append-only handle, expected to fail: its status, and whether
  // the handle wrote index records (appendWroteIndex).
  std::pair<base::Status, bool> refusedAppendOnly() {
    auto m = Mailbox::openForAppend(env(), dir_);
    EXPECT_TRUE(m.ok()) << m.status().toString();
    if (!m.ok()) return {m.status(), false};
    auto s = stageMessage(env(), stage_, "Subject: x\r\n\r\nbody\r\n");
    EXPECT_TRUE(s.ok());
    if (!s.ok()) return {s.status(), false};
    std::vector<AppendRequest> q{{&*s, 1790000000, 0, 0, {}}};
    auto r = (*m)->append(q);
    EXPECT_TRUE(unstage(env(), *s).isOk());
    return {r.ok() ? base::Status::ok() : r.status(), (*m)->appendWroteIndex()};
  }

  std::unique_ptr<io::TempDir> tmp_;
  std::string stage_, dir_;
};

TEST_F(MailboxTailTest, AnAppendLeavesItsTailSettled) {
  auto m = open();
  ASSERT_NE(m, nullptr);
  append(*m, 1, 3);
  IndexHeader h = diskHeader();
  EXPECT_EQ(h.num_records, 3u);
  EXPECT_EQ(h.prev_num_records, 3u);
}

// One append of one message through `e`, on a handle of either kind.
base::Result<std::vector<Appended>> appendThrough(io::Env& e, const std::string& dir,
                                                  const std::string& stage, bool append_only) {
  auto m = append_only ? Mailbox::openForAppend(e, dir) : Mailbox::open(e, dir);
  if (!m.ok()) return m.status();
  auto s = stageMessage(e, stage, "Subject: close\r\n\r\nbody\r\n");
  if (!s.ok()) return s.status();
  std::vector<AppendRequest> q{{&*s, 1790000000, 0, 0, {}}};
  auto r = (*m)->append(q);
  EXPECT_TRUE(unstage(e, *s).isOk());
  if (r.ok() && !append_only) {
    EXPECT_EQ((*m)->recordCount(), r->back().uid);
  }
  return r;
}

// NFS and full quotas can report a write-back error at close(). Once the append is durable
// such an error must not be reported: the sender would retry and store the message twice.
TEST_F(MailboxTailTest, ACloseErrorAfterTheCommitDoesNotFailTheAppend) {
  for (bool append_only : {false, true}) {
    io::FaultyEnv faulty(io::Env::posix());
    faulty.failClosesOf(dir_ + "/" + std::string(kIndexFileName));
    auto r = appendThrough(faulty, dir_, stage_, append_only);
    ASSERT_TRUE(r.ok()) << r.status().toString();
    EXPECT_EQ(r->size(), 1u);
  }
  auto m = open();
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(m->recordCount(), 2u);
  EXPECT_EQ(m->record(1)->uid, 2u);
}

// The same for flag changes and expunges: they are durable once the header is synced.
TEST_F(MailboxTailTest, ACloseErrorAfterAStoreOrExpungeIsNotReported) {
  ASSERT_TRUE(appendThrough(env(), dir_, stage_, /*append_only=*/false).ok());
  ASSERT_TRUE(appendThrough(env(), dir_, stage_, /*append_only=*/false).ok());
  {
    io::FaultyEnv faulty(io::Env::posix());
    faulty.failClosesOf(dir_ + "/" + std::string(kIndexFileName));
    auto m = Mailbox::open(faulty, dir_);
    ASSERT_TRUE(m.ok()) << m.status().toString();
    auto stored = (*m)->store(std::vector<FlagChange>{{1, FlagChange::Op::kAdd, kFlagSeen, {}, 0}});
    EXPECT_TRUE(stored.ok()) << stored.status().toString();
    auto gone = (*m)->expunge(std::vector<uint32_t>{2});
    EXPECT_TRUE(gone.ok()) << gone.status().toString();
  }
  auto m = open();
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(m->recordCount(), 2u);
  EXPECT_EQ(m->record(0)->system_flags & kFlagSeen, kFlagSeen);
  EXPECT_FALSE(m->record(1)->live());
}

// The cache is closed before the commit point: its error rolls the append back and is
// reported, and the mailbox takes the next append as if the failed one had not happened.
TEST_F(MailboxTailTest, ACloseErrorBeforeTheCommitRollsTheAppendBack) {
  {
    io::FaultyEnv faulty(io::Env::posix());
    faulty.failClosesOf(dir_ + "/" + std::string(kCacheFileName));
    EXPECT_FALSE(appendThrough(faulty, dir_, stage_, /*append_only=*/true).ok());
  }
  auto m = open();
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->recordCount(), 0u);
  m.reset();
  auto r = appendThrough(env(), dir_, stage_, /*append_only=*/false);
  ASSERT_TRUE(r.ok()) << r.status().toString();
  m = open();
  ASSERT_EQ(m->recordCount(), 1u);
  auto body = env().readFile(m->messagePath(m->record(0)->uid));
  ASSERT_TRUE(body.ok());
  EXPECT_NE(body->find("Subject: close"), std::string::npos);
}

TEST_F(MailboxTailTest, AnIntactUnsettledTailIsKeptAndSettledOnOpen) {
  threeWithTheLastTwoUnsettled();
  auto m = open();
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->recordCount(), 3u);
  EXPECT_EQ(m->index().uidnext, 4u);
  IndexHeader h = diskHeader();
  EXPECT_EQ(h.prev_num_records, 3u);
  EXPECT_EQ(h.num_records, 3u);
}

TEST_F(MailboxTailTest, AMissingMessageFileRollsTheWholeTailBack) {
  threeWithTheLastTwoUnsettled(/*lost_uid=*/3);
  auto m = open();
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->recordCount(), 1u);
  EXPECT_EQ(m->index().uidnext, 4u) << "UIDs of the rolled-back append stay used";
  EXPECT_FALSE(exists(m->messagePath(2))) << "the group goes as a whole";
  EXPECT_TRUE(exists(m->messagePath(1)));
  // And the next append takes a fresh UID.
  append(*m, 4, 1);
  auto r = m->record(1);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->uid, 4u);
}

// An append-only handle (openForAppend: the index header by pread, no mapping) settles the
// tail before it writes, as a full handle does: an intact tail is kept and the new message
// goes after it; a tail with a file missing is rolled back, its UIDs kept used.
TEST_F(MailboxTailTest, AnAppendOnlyHandleSettlesAnIntactTailBeforeItsAppend) {
  threeWithTheLastTwoUnsettled();
  appendOnly(4);
  IndexHeader h = diskHeader();
  EXPECT_EQ(h.num_records, 4u);
  EXPECT_EQ(h.prev_num_records, 4u);
  EXPECT_EQ(h.uidnext, 5u);
  auto m = open();
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(m->recordCount(), 4u);
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(m->record(i)->uid, i + 1);
}

TEST_F(MailboxTailTest, AnAppendOnlyHandleRollsBackABrokenTailBeforeItsAppend) {
  threeWithTheLastTwoUnsettled(/*lost_uid=*/2);
  appendOnly(4);
  auto m = open();
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(m->recordCount(), 2u);
  EXPECT_EQ(m->record(0)->uid, 1u);
  EXPECT_EQ(m->record(1)->uid, 4u) << "UIDs of the rolled-back append stay used";
  EXPECT_FALSE(exists(m->messagePath(3)));
}

TEST_F(MailboxTailTest, AnAppendOnlyHandleRepairsAHeaderWhoseRecordsAreMissing) {
  {
    auto m = open();
    ASSERT_NE(m, nullptr);
    append(*m, 1, 2);
  }
  // A crash after the header of a third record's append reached the disk, before the record
  // did: the file ends before the records the header counts.
  IndexHeader h = diskHeader();
  h.prev_num_records = 2;
  h.num_records = 3;
  h.uidnext = 4;
  h.tail_crc = 12345;
  writeDiskHeader(h);
  appendOnly(4);
  auto m = open();
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(m->recordCount(), 3u);
  EXPECT_EQ(m->record(2)->uid, 4u) << "the torn append's UID 3 stays used";
}

// A header that calls its records settled while the file ends before them is no state an
// append leaves (the settled mark follows the records' sync): the append-only handle must
// not take its fast path and write records past the end of the file. It refuses, as the
// full open does, and writes nothing.
TEST_F(MailboxTailTest, AnAppendOnlyHandleRefusesASettledHeaderWhoseRecordsAreMissing) {
  {
    auto m = open();
    ASSERT_NE(m, nullptr);
    append(*m, 1, 2);
  }
  const std::string index = dir_ + "/" + std::string(kIndexFileName);
  IndexHeader h = diskHeader();
  h.num_records = h.prev_num_records = 3;
  h.uidnext = 4;
  writeDiskHeader(h);
  const uint64_t size = *env().fileSize(index);
  auto [status, wrote] = refusedAppendOnly();
  ASSERT_FALSE(status.isOk());
  EXPECT_EQ(status.code(), base::Code::kCorruption) << status.toString();
  EXPECT_EQ(Mailbox::open(env(), dir_).status().code(), base::Code::kCorruption);
  EXPECT_EQ(*env().fileSize(index), size) << "nothing written past the end";
  EXPECT_FALSE(exists(dir_ + "/4."));
}

TEST_F(MailboxTailTest, AnAppendOnlyHandleOfAMailboxWithoutIndexFailsWithoutMakingOne) {
  ASSERT_TRUE(env().removeFile(dir_ + "/" + std::string(kIndexFileName)).isOk());
  auto [status, wrote] = refusedAppendOnly();
  ASSERT_FALSE(status.isOk());
  EXPECT_EQ(status.code(), base::Code::kNotFound);
  EXPECT_FALSE(wrote);
  EXPECT_FALSE(exists(dir_ + "/" + std::string(kIndexFileName)));
}

TEST_F(MailboxTailTest, AShortMessageFileRollsTheTailBack) {
  {
    auto m = open();
    ASSERT_NE(m, nullptr);
    append(*m, 1, 2);
    // A durable link whose bytes were not: the file is there, empty.
    auto f = env().openWritable(m->messagePath(2), io::Env::OpenMode::kTruncate);
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE((*f)->close().isOk());
  }
  unsettleLast(2);
  auto m = open();
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->recordCount(), 0u);
  EXPECT_EQ(m->index().uidnext, 3u);
}

TEST_F(MailboxTailTest, AZeroedCacheRecordIsMadeAgainNotLost) {
  {
    auto m = open();
    ASSERT_NE(m, nullptr);
    append(*m, 1, 1);
    append(*m, 2, 1);
    auto r = m->record(1);
    ASSERT_TRUE(r.ok());
    // The cache record's bytes never reached the disk: zeros where it was. The message file
    // is intact, so the append may have been acknowledged: it must stay.
    auto f = env().openWritable(dir_ + "/" + std::string(kCacheFileName), io::Env::OpenMode::kAppend);
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE((*f)->pwrite(r->cache_offset, std::string(16, '\0')).isOk());
    ASSERT_TRUE((*f)->close().isOk());
  }
  unsettleLast(1);
  auto m = open();
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->recordCount(), 2u);
  auto r = m->record(1);
  ASSERT_TRUE(r.ok());
  auto c = m->cache(*r);
  ASSERT_TRUE(c.ok()) << c.status().toString();
  EXPECT_NE(c->envelope.find("\"2\""), std::string::npos) << c->envelope;
  EXPECT_EQ(diskHeader().prev_num_records, 2u);
}

TEST_F(MailboxTailTest, AReaderDoesNotSeeAnUnsettledTailUntilAWriterSettlesIt) {
  auto reader = open();
  ASSERT_NE(reader, nullptr);
  {
    auto m = open();
    ASSERT_NE(m, nullptr);
    append(*m, 1, 2);
  }
  unsettleLast(2);  // as a writer killed before its mark leaves it
  // A long-lived handle does not show it: the round may not have finished, and a COPY of
  // its file would be acknowledged before the bytes are durable.
  ASSERT_TRUE(reader->refresh().isOk());
  EXPECT_EQ(reader->recordCount(), 0u);
  // And the view is the header before that append: a client told UIDNEXT and HIGHESTMODSEQ
  // now sees the tail as new when it stays.
  EXPECT_EQ(reader->index().uidnext, 1u);
  EXPECT_EQ(reader->index().highest_modseq, 1u);
  EXPECT_EQ(reader->index().quota_used, 0u);
  // Its next write settles it first.
  ASSERT_TRUE(reader->claimRecent(UINT32_MAX).ok());
  EXPECT_EQ(reader->recordCount(), 2u);
  IndexHeader h = diskHeader();
  EXPECT_EQ(h.prev_num_records, 2u);
  EXPECT_EQ(h.num_records, 2u);
}

TEST_F(MailboxTailTest, ReconstructRollsBackAnUnfinishedTailInsteadOfTrustingItsFiles) {
  {
    auto m = open();
    ASSERT_NE(m, nullptr);
    append(*m, 1, 1);
    append(*m, 2, 2);
    auto f = env().openWritable(m->messagePath(3), io::Env::OpenMode::kTruncate);
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE((*f)->close().isOk());
  }
  unsettleLast(2);
  ReconstructOptions o;
  o.fill_cache = buildCacheEntry;
  auto report = reconstructMailbox(env(), dir_, o);
  ASSERT_TRUE(report.ok()) << report.status().toString();
  EXPECT_EQ(report->debris.size(), 2u) << "the unfinished append's files are debris, not mail";
  auto m = open();
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->recordCount(), 1u);
  EXPECT_GE(m->index().uidnext, 4u);
}

TEST_F(MailboxTailTest, ReconstructDropsATornTailAndEveryFileAboveTheCommittedOnes) {
  {
    auto m = open();
    ASSERT_NE(m, nullptr);
    append(*m, 1, 1);
    append(*m, 2, 2);
  }
  unsettleLast(2);
  // The header reached the disk, the last record did not.
  std::string path = dir_ + "/" + std::string(kIndexFileName);
  auto bytes = env().readFile(path);
  ASSERT_TRUE(bytes.ok());
  auto f = env().openWritable(path, io::Env::OpenMode::kTruncate);
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE((*f)->append(bytes->substr(0, bytes->size() - kIndexRecordSize)).isOk());
  ASSERT_TRUE((*f)->close().isOk());
  ReconstructOptions o;
  o.fill_cache = buildCacheEntry;
  auto report = reconstructMailbox(env(), dir_, o);
  ASSERT_TRUE(report.ok()) << report.status().toString();
  EXPECT_EQ(report->debris.size(), 2u);
  auto m = open();
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->recordCount(), 1u);
}

TEST_F(MailboxTailTest, ALostCacheFileDoesNotHoldTheMailbox) {
  {
    auto m = open();
    ASSERT_NE(m, nullptr);
    append(*m, 1, 2);
  }
  unsettleLast(2);
  ASSERT_TRUE(env().removeFile(dir_ + "/" + std::string(kCacheFileName)).isOk());
  auto m = open();
  ASSERT_NE(m, nullptr) << "settled without a cache; reconstruct makes one";
  EXPECT_EQ(m->recordCount(), 2u);
}

}  // namespace
}  // namespace darius::mailbox
