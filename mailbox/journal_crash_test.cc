// The delivery journal (delivery_journal.h) under power cuts and lost page caches: the Store's
// power-cut sweep (store_crash_scenario.h) with appends committed through the journal, and
// replays of deliveries whose mailbox files the disk lost entirely.
#include <gtest/gtest.h>

#include "lib/io/faulty_env.h"
#include "lib/io/temp_dir.h"
#include "mailbox/header_file.h"
#include "mailbox/journal_format.h"
#include "mailbox/store_crash_scenario.h"

namespace darius::mailbox::crash_scenario {
namespace {

class JournalCrashTest : public ::testing::TestWithParam<Mode> {};

TEST_P(JournalCrashTest, PowerCutAfterEveryOperation) {
  runPowerCutSweep(GetParam());
}

Mode journalMode(bool torn, bool files) {
  Mode m;
  m.journal = true;
  m.torn = torn;
  m.journal_files = files;
  return m;
}

INSTANTIATE_TEST_SUITE_P(Journal, JournalCrashTest,
                         ::testing::Values(journalMode(false, false), journalMode(true, false),
                                           journalMode(false, true)),
                         [](const auto& info) {
                           const Mode& m = info.param;
                           if (m.journal_files) return "FileByFileCheckpoint";
                           return m.torn ? "Torn" : "WholeWrites";
                         });

StoreOptions journaledOptions(const io::TempDir& t, io::Env* env) {
  StoreOptions o = options(t, env);
  o.sync_method = SyncMethod::kJournal;
  o.own_journals = true;
  o.journal_background = false;
  return o;
}

std::string journalMessageText(int i) {
  return "Subject: message " + std::to_string(i) + "\r\n\r\nbody " + std::to_string(i) + "\r\n";
}

// Delivers `n` messages to INBOX through the journal and returns their UIDs; the store is
// then dropped without its last checkpoint (as a killed process leaves it: abandon()).
std::vector<uint32_t> deliverJournaledAndAbandon(const io::TempDir& t, int n) {
  std::vector<uint32_t> uids;
  auto store = Store::open(journaledOptions(t, nullptr));
  EXPECT_TRUE(store.ok()) << store.status().toString();
  if (!store.ok()) return uids;
  EXPECT_TRUE((*store)->create(name({})).ok());
  auto p = (*store)->partition("default");
  for (int i = 0; i < n; ++i) {
    auto staged = (*store)->stage(**p, journalMessageText(i), StageSync::kDeferred);
    EXPECT_TRUE(staged.ok());
    EXPECT_NE(staged->journal, nullptr);
    AppendRequest q{&*staged, 1790000000, 0, 0, {}};
    auto a = (*store)->append(name({}), std::span(&q, 1));
    EXPECT_TRUE(a.ok()) << a.status().toString();
    if (a.ok()) uids.push_back((*a)[0].uid);
    (void)(*store)->unstage(*staged);
  }
  (*store)->abandonJournals();
  return uids;
}

void expectJournaledMessages(const io::TempDir& t, const std::vector<uint32_t>& uids) {
  auto store = Store::open(options(t, nullptr));  // a tool: replays the journal
  ASSERT_TRUE(store.ok()) << store.status().toString();
  auto m = (*store)->openMailbox(name({}));
  ASSERT_TRUE(m.ok()) << m.status().toString();
  ASSERT_EQ(m->mailbox->recordCount(), uids.size());
  for (size_t i = 0; i < uids.size(); ++i) {
    auto r = m->mailbox->record(i);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->uid, uids[i]);
    auto bytes = io::Env::posix()->readFile(m->mailbox->messagePath(r->uid));
    ASSERT_TRUE(bytes.ok()) << "UID " << r->uid;
    EXPECT_EQ(*bytes, journalMessageText(static_cast<int>(i)));
    auto c = m->mailbox->cache(*r);
    EXPECT_TRUE(c.ok()) << c.status().toString();
  }
  EXPECT_EQ(m->mailbox->index().uidnext, uids.back() + 1);
}

// What a power cut right after the acknowledgements can leave of journaled deliveries: no
// message files, an index whose header and records never reached the disk, a cache of zeros.
// The replay brings all of it back from the journal.
TEST(JournalReplayTest, RestoresDeliveriesWhoseFilesTheDiskLost) {
  auto t = io::TempDir::create("journal-replay");
  ASSERT_TRUE(t.ok());
  std::vector<uint32_t> uids = deliverJournaledAndAbandon(*t, 5);
  ASSERT_EQ(uids.size(), 5u);
  io::Env& env = *io::Env::posix();
  const std::string dir = t->file("p1/user/alice");
  for (uint32_t uid : uids) ASSERT_TRUE(env.removeFile(dir + "/" + std::to_string(uid) + ".").isOk());
  {
    auto index = env.readFile(dir + "/darius.index");
    ASSERT_TRUE(index.ok());
    auto h = decodeIndexHeader(*index);
    ASSERT_TRUE(h.ok());
    h->num_records = 0;
    h->prev_num_records = 0;
    h->uidnext = 1;
    h->quota_used = 0;
    std::string lost = encodeIndexHeader(*h);
    auto f = env.openWritable(dir + "/darius.index", io::Env::OpenMode::kExisting);
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE((*f)->pwrite(0, lost + std::string(index->size() - lost.size(), '\0')).isOk());
    ASSERT_TRUE((*f)->close().isOk());
    auto cache = env.readFile(dir + "/darius.cache");
    ASSERT_TRUE(cache.ok());
    auto c = env.openWritable(dir + "/darius.cache", io::Env::OpenMode::kExisting);
    ASSERT_TRUE(c.ok());
    ASSERT_TRUE((*c)->pwrite(64, std::string(cache->size() - 64, '\0')).isOk());
    ASSERT_TRUE((*c)->close().isOk());
  }
  expectJournaledMessages(*t, uids);
}

// A killed dariusd leaves its page cache whole: the replay finds everything in place, keeps it
// and syncs it.
TEST(JournalReplayTest, KeepsWhatAKilledProcessLeft) {
  auto t = io::TempDir::create("journal-replay");
  ASSERT_TRUE(t.ok());
  std::vector<uint32_t> uids = deliverJournaledAndAbandon(*t, 3);
  ASSERT_EQ(uids.size(), 3u);
  expectJournaledMessages(*t, uids);
  // And the store goes on from there, journaled again.
  auto store = Store::open(journaledOptions(*t, nullptr));
  ASSERT_TRUE(store.ok()) << store.status().toString();
  auto p = (*store)->partition("default");
  auto staged = (*store)->stage(**p, journalMessageText(3), StageSync::kDeferred);
  ASSERT_TRUE(staged.ok());
  AppendRequest q{&*staged, 1790000000, 0, 0, {}};
  auto a = (*store)->append(name({}), std::span(&q, 1));
  ASSERT_TRUE(a.ok()) << a.status().toString();
  EXPECT_EQ((*a)[0].uid, uids.back() + 1);
}

// A renamed mailbox is found by its unique id.
TEST(JournalReplayTest, FollowsARename) {
  auto t = io::TempDir::create("journal-replay");
  ASSERT_TRUE(t.ok());
  std::vector<uint32_t> uids;
  {
    auto store = Store::open(journaledOptions(*t, nullptr));
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE((*store)->create(name({"A"})).ok());
    auto p = (*store)->partition("default");
    auto staged = (*store)->stage(**p, journalMessageText(0), StageSync::kDeferred);
    ASSERT_TRUE(staged.ok());
    AppendRequest q{&*staged, 1790000000, 0, 0, {}};
    auto a = (*store)->append(name({"A"}), std::span(&q, 1));
    ASSERT_TRUE(a.ok());
    ASSERT_TRUE((*store)->rename(name({"A"}), name({"B"})).ok());
    (*store)->abandonJournals();
  }
  const std::string moved = t->file("p1/user/alice/B/1.");
  ASSERT_TRUE(io::Env::posix()->removeFile(moved).isOk());
  auto store = Store::open(options(*t, nullptr));
  ASSERT_TRUE(store.ok()) << store.status().toString();
  auto bytes = io::Env::posix()->readFile(moved);
  ASSERT_TRUE(bytes.ok()) << bytes.status().toString();
  EXPECT_EQ(*bytes, journalMessageText(0));
}

// Damage that still checks (a record whose message is not the one it names) is not replayed
// into the mailbox: the segment is kept as .unreplayed for a person, the error logged, and the
// store opens and works.
TEST(JournalReplayTest, ASegmentThatDoesNotFitIsKeptAsideAndTheStoreOpens) {
  auto t = io::TempDir::create("journal-replay");
  ASSERT_TRUE(t.ok());
  {
    auto store = Store::open(journaledOptions(*t, nullptr));
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE((*store)->create(name({})).ok());
    (*store)->abandonJournals();
  }
  const std::string jdir = t->file("p1/") + std::string(kJournalDirName);
  auto segs = DeliveryJournal::listSegments(*io::Env::posix(), jdir);
  ASSERT_TRUE(segs.ok());
  ASSERT_FALSE(segs->empty());
  const uint64_t n = segs->back();
  // A message record, and an append naming it with another message's size and GUID.
  std::string seg = encodeJournalSegmentHeader({.segment = n});
  Guid g{};
  g.fill(7);
  const uint64_t at = seg.size();
  seg += encodeJournalMessage(n, g, journalMessageText(0));
  auto header = readMailboxHeader(*io::Env::posix(), t->file("p1/user/alice"));
  ASSERT_TRUE(header.ok());
  JournalAppend a;
  a.mailbox_dir = "user/alice";
  a.unique_id = header->unique_id;
  a.uidvalidity = header->uidvalidity;
  a.generation = 1;
  IndexRecord r;
  r.uid = 1;
  r.size = 3;
  r.guid = g;
  r.modseq = 2;
  a.entries = {{r, at}};
  seg += *encodeJournalAppend(n, a);
  const std::string path = jdir + "/" + journalSegmentName(n);
  auto f = io::Env::posix()->openWritable(path, io::Env::OpenMode::kTruncate);
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE((*f)->append(seg).isOk());
  ASSERT_TRUE((*f)->close().isOk());

  auto store = Store::open(options(*t, nullptr));
  ASSERT_TRUE(store.ok()) << store.status().toString();
  auto kept = io::Env::posix()->fileExists(path + ".unreplayed");
  ASSERT_TRUE(kept.ok());
  EXPECT_TRUE(*kept);
  auto m = (*store)->openMailbox(name({}));
  ASSERT_TRUE(m.ok()) << m.status().toString();
  EXPECT_EQ(m->mailbox->recordCount(), 0u);
  auto there = io::Env::posix()->fileExists(m->mailbox->messagePath(1));
  ASSERT_TRUE(there.ok());
  EXPECT_FALSE(*there);
}

}  // namespace
}  // namespace darius::mailbox::crash_scenario
