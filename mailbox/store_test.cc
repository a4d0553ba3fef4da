// Store: namespace operations on real directories and a real mailbox list, delivery with group
// commit from many threads, copy and move by hard link, the change log they feed, repair at
// open, and intents: leftovers of a crash are finished by the next open.
#include "mailbox/store.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <set>
#include <thread>

#include "lib/io/atomic_file.h"
#include "lib/io/path.h"
#include "lib/io/temp_dir.h"
#include "mailbox/change_log_reader.h"
#include "mailbox/mailbox_path.h"
#include "mailbox/store_internal.h"

namespace darius::mailbox {
namespace store_test {

MailboxName personal(std::string owner, std::vector<std::string> c = {}) {
  auto n = MailboxName::personal("", std::move(owner), std::move(c));
  EXPECT_TRUE(n.ok());
  return *n;
}

std::string message(int i) {
  return "From: a@example.com\r\nTo: b@example.com\r\nSubject: message " + std::to_string(i) +
         "\r\nMessage-ID: <" + std::to_string(i) + "@example.com>\r\n\r\nbody " +
         std::to_string(i) + "\r\n";
}

ino_t inodeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_ino;
}

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto t = io::TempDir::create("store");
    ASSERT_TRUE(t.ok());
    tmp_ = std::make_unique<io::TempDir>(std::move(*t));
    reopen();
  }

  StoreOptions options() {
    StoreOptions o;
    o.data_dir = tmp_->file("data");
    o.partitions = {{"default", tmp_->file("p1")}, {"second", tmp_->file("p2")}};
    o.list_options.max_name_length = 490;  // the config's default
    return o;
  }

  void reopen() { reopen(options()); }
  void reopen(StoreOptions o) {
    store_.reset();
    auto s = Store::open(std::move(o));
    ASSERT_TRUE(s.ok()) << s.status().toString();
    store_ = std::move(*s);
  }

  // alice's new INBOX with 300 delivered messages (UIDs 1..300), for the compaction tests.
  MailboxName inboxOfThreeHundred() {
    MailboxName inbox = personal("alice");
    EXPECT_TRUE(store_->create(inbox).ok());
    for (int i = 0; i < 6; ++i) deliver(inbox, i * 50, 50);
    return inbox;
  }
  static std::vector<uint32_t> uidsUpTo(uint32_t last) {
    std::vector<uint32_t> uids;
    for (uint32_t uid = 1; uid <= last; ++uid) uids.push_back(uid);
    return uids;
  }

  // Delivers `n` messages into `name` through the group-committed path.
  std::vector<Appended> deliver(const MailboxName& name, int first, int n, uint32_t flags = 0,
                                std::vector<std::string> keywords = {}) {
    auto entry = store_->list().lookup(name);
    EXPECT_TRUE(entry.ok());
    auto p = store_->partition(entry->partition);
    std::vector<StagedMessage> staged;
    for (int i = 0; i < n; ++i) {
      auto s = store_->stage(**p, message(first + i));
      EXPECT_TRUE(s.ok()) << s.status().toString();
      staged.push_back(*s);
    }
    std::vector<AppendRequest> q;
    for (auto& s : staged) q.push_back({&s, 1790000000, 60, flags, keywords});
    auto a = store_->append(name, q);
    EXPECT_TRUE(a.ok()) << a.status().toString();
    for (auto& s : staged) EXPECT_TRUE(store_->unstage(s).isOk());
    return a.ok() ? *a : std::vector<Appended>{};
  }

  std::string dirOf(const MailboxName& name) {
    auto e = store_->list().lookup(name);
    EXPECT_TRUE(e.ok()) << name.toString();
    auto d = store_->directoryOf(name, *e);
    EXPECT_TRUE(d.ok());
    return *d;
  }

  std::vector<ChangeRecord> changes(const std::string& partition_root) {
    ChangeLogReader reader(changeLogDir(partition_root));
    EXPECT_TRUE(reader.readFrom(1).isOk());
    auto r = reader.readAvailable();
    EXPECT_TRUE(r.ok()) << r.status().toString();
    return r.ok() ? *r : std::vector<ChangeRecord>{};
  }

  std::unique_ptr<io::TempDir> tmp_;
  std::unique_ptr<Store> store_;
};

TEST_F(StoreTest, CreateListsAndOpensAndChildrenFollowTheirParentsPartition) {
  MailboxName inbox = personal("alice"), sent = personal("alice", {"Sent"});
  CreateOptions on_second;
  on_second.partition = "second";
  auto e = store_->create(inbox, on_second);
  ASSERT_TRUE(e.ok()) << e.status().toString();
  EXPECT_EQ(e->partition, "second");
  EXPECT_EQ(e->unique_id.size(), 32u);
  EXPECT_NE(e->uidvalidity, 0u);
  auto child = store_->create(sent);
  ASSERT_TRUE(child.ok());
  EXPECT_EQ(child->partition, "second");
  EXPECT_NE(child->unique_id, e->unique_id);
  EXPECT_EQ(dirOf(sent), tmp_->file("p2") + "/user/alice/Sent");

  EXPECT_EQ(store_->create(inbox).status().code(), base::Code::kExists);
  auto m = store_->openMailbox(sent);
  ASSERT_TRUE(m.ok()) << m.status().toString();
  EXPECT_EQ(m->mailbox->header().unique_id, child->unique_id);
  EXPECT_EQ(m->mailbox->header().name, sent.toString());
  EXPECT_EQ(m->mailbox->index().uidvalidity, child->uidvalidity);
  EXPECT_EQ(store_->openMailbox(personal("bob")).status().code(), base::Code::kNotFound);

  // A new user goes to the default partition; UIDVALIDITY never repeats in a process.
  auto bob = store_->create(personal("bob"));
  ASSERT_TRUE(bob.ok());
  EXPECT_EQ(bob->partition, "default");
  EXPECT_GT(bob->uidvalidity, child->uidvalidity);
}

TEST_F(StoreTest, CreateRefusesUnknownPartitionAndOverlongNames) {
  CreateOptions o;
  o.partition = "nope";
  EXPECT_EQ(store_->create(personal("alice"), o).status().code(), base::Code::kNotFound);
  std::vector<std::string> deep(40, std::string(20, 'x'));
  EXPECT_EQ(store_->create(personal("alice", deep)).status().code(), base::Code::kTooBig);
  // Nothing was left behind: no intents, no list entries.
  auto intents = io::Env::posix()->listDir(tmp_->file("data/darius.intents"));
  ASSERT_TRUE(intents.ok());
  EXPECT_TRUE(intents->empty());
}

TEST_F(StoreTest, ConcurrentDeliveriesShareCommitsAndGetDistinctUids) {
  MailboxName inbox = personal("alice");
  ASSERT_TRUE(store_->create(inbox).ok());
  constexpr int kThreads = 8, kEach = 25;
  std::vector<std::vector<Appended>> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        auto a = deliver(inbox, t * 1000 + i, 1);
        got[t].insert(got[t].end(), a.begin(), a.end());
      }
    });
  }
  for (auto& th : threads) th.join();
  std::set<uint32_t> uids;
  for (auto& v : got) {
    uint32_t last = 0;
    for (const Appended& a : v) {
      EXPECT_GT(a.uid, last) << "a thread's deliveries keep their order";
      last = a.uid;
      uids.insert(a.uid);
    }
  }
  EXPECT_EQ(uids.size(), size_t{kThreads * kEach});
  EXPECT_EQ(*uids.begin(), 1u);
  EXPECT_EQ(*uids.rbegin(), uint32_t{kThreads * kEach});
  auto m = store_->openMailbox(inbox);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->mailbox->recordCount(), size_t{kThreads * kEach});
  for (size_t i = 0; i < m->mailbox->recordCount(); ++i) {
    auto r = m->mailbox->record(i);
    ASSERT_TRUE(r.ok());
    auto bytes = io::Env::posix()->readFile(m->mailbox->messagePath(r->uid));
    ASSERT_TRUE(bytes.ok());
    EXPECT_EQ(sha1Of(*bytes), r->guid);
  }
  // Every append is in the change log, with the UIDs it got.
  std::set<uint32_t> logged;
  for (const ChangeRecord& c : changes(tmp_->file("p1"))) {
    if (c.type != ChangeType::kAppend) continue;
    EXPECT_EQ(c.mailbox_id, m->entry.unique_id);
    for (const UidModseq& u : c.uids) logged.insert(u.uid);
  }
  EXPECT_EQ(logged, uids);
}

TEST_F(StoreTest, OneStagedMessageIsLinkedIntoManyMailboxes) {
  MailboxName a = personal("alice"), b = personal("bob");
  ASSERT_TRUE(store_->create(a).ok());
  ASSERT_TRUE(store_->create(b).ok());
  auto s = store_->stage(store_->defaultPartition(), message(1));
  ASSERT_TRUE(s.ok());
  AppendRequest q{&*s, 1790000000, 0, 0, {}};
  auto ua = store_->append(a, std::span(&q, 1));
  auto ub = store_->append(b, std::span(&q, 1));
  ASSERT_TRUE(ua.ok() && ub.ok());
  ASSERT_TRUE(store_->unstage(*s).isOk());
  std::string fa = dirOf(a) + "/1.", fb = dirOf(b) + "/1.";
  EXPECT_EQ(inodeOf(fa), inodeOf(fb)) << "single-instance store: one file, two links";
}

TEST_F(StoreTest, CopyLinksKeepsFlagsAndMoveExpunges) {
  MailboxName inbox = personal("alice"), archive = personal("alice", {"Archive"});
  ASSERT_TRUE(store_->create(inbox).ok());
  ASSERT_TRUE(store_->create(archive).ok());
  deliver(inbox, 1, 3, kFlagSeen | kFlagFlagged, {"$Work"});
  auto src = store_->openMailbox(inbox);
  auto dst = store_->openMailbox(archive);
  ASSERT_TRUE(src.ok() && dst.ok());
  auto c = store_->copy(*src->mailbox, std::vector<uint32_t>{3, 1, 99}, archive, *dst->mailbox);
  ASSERT_TRUE(c.ok()) << c.status().toString();
  EXPECT_EQ(c->target_uidvalidity, dst->entry.uidvalidity);
  ASSERT_EQ(c->uids.size(), 2u);
  EXPECT_EQ(c->uids[0].from, 1u);
  EXPECT_EQ(c->uids[0].to, 1u);
  EXPECT_EQ(c->uids[1].from, 3u);
  EXPECT_EQ(c->uids[1].to, 2u);
  EXPECT_EQ(inodeOf(src->mailbox->messagePath(3)), inodeOf(dst->mailbox->messagePath(2)));
  ASSERT_TRUE(dst->mailbox->refresh().isOk());
  auto r = dst->mailbox->record(1);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->system_flags, kFlagSeen | kFlagFlagged);
  EXPECT_EQ(r->internal_date, 1790000000);
  EXPECT_EQ(r->tz_offset_minutes, 60);
  EXPECT_EQ(dst->mailbox->header().findUserFlag("$work"), 0);
  EXPECT_TRUE(r->hasUserFlag(0));
  auto cache = dst->mailbox->cache(*r);
  ASSERT_TRUE(cache.ok());
  EXPECT_NE(cache->envelope.find("message 3"), std::string::npos);

  auto mv = store_->move(inbox, *src->mailbox, std::vector<uint32_t>{2}, archive, *dst->mailbox);
  ASSERT_TRUE(mv.ok());
  ASSERT_EQ(mv->uids.size(), 1u);
  EXPECT_EQ(mv->uids[0].to, 3u);
  ASSERT_TRUE(src->mailbox->refresh().isOk());
  EXPECT_EQ(src->mailbox->index().num_records - src->mailbox->index().num_expunged, 2u);
  // Phase 1 only: the source's file is still there, in its expunged state.
  EXPECT_TRUE(*io::Env::posix()->fileExists(src->mailbox->messagePath(2)));
}

TEST_F(StoreTest, DeleteMovesTheDirectoryToTheDeletedArea) {
  MailboxName trash = personal("alice", {"Trash"});
  ASSERT_TRUE(store_->create(personal("alice")).ok());
  auto e = store_->create(trash);
  ASSERT_TRUE(e.ok());
  deliver(trash, 1, 2);
  std::string dir = dirOf(trash);
  ASSERT_TRUE(store_->remove(trash).isOk());
  EXPECT_EQ(store_->list().lookup(trash).status().code(), base::Code::kNotFound);
  EXPECT_FALSE(*io::Env::posix()->fileExists(dir));
  auto deleted = io::Env::posix()->listDir(tmp_->file("p1/darius.deleted"));
  ASSERT_TRUE(deleted.ok());
  ASSERT_EQ(deleted->size(), 1u);
  std::string moved = tmp_->file("p1/darius.deleted/" + (*deleted)[0]);
  EXPECT_NE((*deleted)[0].find(e->unique_id), std::string::npos);
  EXPECT_TRUE(*io::Env::posix()->fileExists(moved + "/1."));
  EXPECT_TRUE(*io::Env::posix()->fileExists(moved + "/2."));
  // Still a whole mailbox there (for undelete), and the name can be used again at once.
  auto old = Mailbox::open(*io::Env::posix(), moved);
  ASSERT_TRUE(old.ok());
  EXPECT_EQ((*old)->recordCount(), 2u);
  auto again = store_->create(trash);
  ASSERT_TRUE(again.ok());
  EXPECT_NE(again->unique_id, e->unique_id);
  EXPECT_GT(again->uidvalidity, e->uidvalidity);
  bool logged = false;
  for (const ChangeRecord& c : changes(tmp_->file("p1"))) {
    logged = logged || (c.type == ChangeType::kDelete && c.mailbox_id == e->unique_id);
  }
  EXPECT_TRUE(logged);
}

TEST_F(StoreTest, DeleteOfAParentKeepsItsChildren) {
  MailboxName work = personal("alice", {"Work"}), sub = personal("alice", {"Work", "2026"});
  ASSERT_TRUE(store_->create(work).ok());
  ASSERT_TRUE(store_->create(sub).ok());
  deliver(work, 1, 1);
  deliver(sub, 2, 1);
  ASSERT_TRUE(store_->remove(work).isOk());
  EXPECT_EQ(store_->openMailbox(work).status().code(), base::Code::kNotFound);
  auto child = store_->openMailbox(sub);
  ASSERT_TRUE(child.ok()) << child.status().toString();
  EXPECT_EQ(child->mailbox->recordCount(), 1u);
  std::string work_dir = tmp_->file("p1") + "/user/alice/Work";
  EXPECT_FALSE(*io::Env::posix()->fileExists(work_dir + "/darius.header"));
  EXPECT_FALSE(*io::Env::posix()->fileExists(work_dir + "/1."));
  // And the parent can be created again over its children.
  ASSERT_TRUE(store_->create(work).ok());
  auto back = store_->openMailbox(work);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->mailbox->recordCount(), 0u);
}

TEST_F(StoreTest, RenameMovesTheSubtreeOnEveryPartition) {
  MailboxName a = personal("alice", {"A"}), ab = personal("alice", {"A", "B"});
  MailboxName x = personal("alice", {"X"}), xb = personal("alice", {"X", "B"});
  ASSERT_TRUE(store_->create(a).ok());
  CreateOptions o;
  o.partition = "second";
  ASSERT_TRUE(store_->create(ab, o).ok());
  deliver(a, 1, 2, kFlagSeen);
  deliver(ab, 3, 1);
  auto id_a = store_->list().lookup(a)->unique_id;
  auto moved = store_->rename(a, x);
  ASSERT_TRUE(moved.ok()) << moved.status().toString();
  ASSERT_EQ(moved->size(), 2u);
  EXPECT_EQ(store_->list().lookup(a).status().code(), base::Code::kNotFound);
  auto mx = store_->openMailbox(x);
  ASSERT_TRUE(mx.ok()) << mx.status().toString();
  EXPECT_EQ(mx->entry.unique_id, id_a) << "a rename keeps the unique id";
  EXPECT_EQ(mx->mailbox->recordCount(), 2u);
  EXPECT_EQ(mx->mailbox->header().name, x.toString());
  auto mxb = store_->openMailbox(xb);
  ASSERT_TRUE(mxb.ok()) << mxb.status().toString();
  EXPECT_EQ(mxb->mailbox->dir(), tmp_->file("p2") + "/user/alice/X/B");
  EXPECT_EQ(mxb->mailbox->recordCount(), 1u);
  EXPECT_FALSE(*io::Env::posix()->fileExists(tmp_->file("p1") + "/user/alice/A"));

  EXPECT_EQ(store_->rename(x, xb).status().code(), base::Code::kInvalid);
  ASSERT_TRUE(store_->create(a).ok());
  EXPECT_EQ(store_->rename(a, x).status().code(), base::Code::kExists);
  EXPECT_EQ(store_->rename(personal("alice", {"none"}), personal("alice", {"n2"})).status().code(),
            base::Code::kNotFound);
}

TEST_F(StoreTest, RenameOntoAContainerOfExistingChildren) {
  // "Y" is only a level (Y/Kid exists); renaming A to Y merges A's directory into it.
  MailboxName a = personal("alice", {"A"}), y = personal("alice", {"Y"});
  MailboxName kid = personal("alice", {"Y", "Kid"});
  ASSERT_TRUE(store_->create(a).ok());
  ASSERT_TRUE(store_->create(kid).ok());
  deliver(a, 1, 1);
  deliver(kid, 2, 1);
  ASSERT_TRUE(store_->rename(a, y).ok());
  auto my = store_->openMailbox(y);
  ASSERT_TRUE(my.ok()) << my.status().toString();
  EXPECT_EQ(my->mailbox->recordCount(), 1u);
  auto mk = store_->openMailbox(kid);
  ASSERT_TRUE(mk.ok());
  EXPECT_EQ(mk->mailbox->recordCount(), 1u);
}

TEST_F(StoreTest, RenameInboxMovesItsMessagesAndLeavesItEmpty) {
  MailboxName inbox = personal("alice"), old = personal("alice", {"Old"});
  MailboxName sub = personal("alice", {"Sub"});
  ASSERT_TRUE(store_->create(inbox).ok());
  ASSERT_TRUE(store_->create(sub).ok());
  deliver(inbox, 1, 3, kFlagSeen);
  auto e = store_->renameInbox(inbox, old);
  ASSERT_TRUE(e.ok()) << e.status().toString();
  auto mi = store_->openMailbox(inbox);
  auto mo = store_->openMailbox(old);
  ASSERT_TRUE(mi.ok() && mo.ok());
  EXPECT_EQ(mi->mailbox->index().num_records - mi->mailbox->index().num_expunged, 0u);
  EXPECT_EQ(mo->mailbox->recordCount(), 3u);
  EXPECT_TRUE(store_->openMailbox(sub).ok());
}

TEST_F(StoreTest, DamagedIndexIsRepairedWhenOpened) {
  MailboxName inbox = personal("alice");
  ASSERT_TRUE(store_->create(inbox).ok());
  deliver(inbox, 1, 4, kFlagSeen);
  std::string index = dirOf(inbox) + "/darius.index";
  auto bytes = io::Env::posix()->readFile(index);
  ASSERT_TRUE(bytes.ok());
  std::string damaged = *bytes;
  damaged[20] ^= 0x55;  // num_records, under the header CRC
  {
    auto w = io::Env::posix()->openWritable(index, io::Env::OpenMode::kTruncate);
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->append(damaged).isOk());
    ASSERT_TRUE((*w)->close().isOk());
  }
  auto m = store_->openMailbox(inbox);
  ASSERT_TRUE(m.ok()) << m.status().toString();
  EXPECT_EQ(m->mailbox->recordCount(), 4u);
  auto r = m->mailbox->record(3);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->uid, 4u);
  EXPECT_EQ(r->system_flags, kFlagSeen) << "flags kept from the readable records";
}

TEST_F(StoreTest, LeftoverIntentsAreFinishedAtOpen) {
  MailboxName a = personal("alice", {"A"}), b = personal("alice", {"B"});
  ASSERT_TRUE(store_->create(a).ok());
  deliver(a, 1, 1);
  auto entry = store_->list().lookup(a);
  ASSERT_TRUE(entry.ok());
  // A rename that got as far as the list and crashed before moving the directory.
  internal::Intent in;
  in.op = internal::Intent::Op::kRename;
  in.name = a.toString();
  in.to = b.toString();
  in.unique_id = entry->unique_id;
  ASSERT_TRUE(io::writeFileAtomic(*io::Env::posix(),
                                  tmp_->file("data/darius.intents/x.intent"),
                                  internal::encodeIntent(in))
                  .isOk());
  ASSERT_TRUE(store_->list().renameSubtree(a, b).ok());
  reopen();
  ASSERT_EQ(store_->recovery().finished.size(), 1u);
  auto mb = store_->openMailbox(b);
  ASSERT_TRUE(mb.ok()) << mb.status().toString();
  EXPECT_EQ(mb->mailbox->recordCount(), 1u);
  auto intents = io::Env::posix()->listDir(tmp_->file("data/darius.intents"));
  EXPECT_TRUE(intents->empty());

  // A torn intent file is refused with its path, not guessed at.
  ASSERT_TRUE(io::writeFileAtomic(*io::Env::posix(), tmp_->file("data/darius.intents/y.intent"),
                                  "darius-intent 1\nop rename\n")
                  .isOk());
  store_.reset();
  auto s = Store::open(options());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), base::Code::kCorruption);
  EXPECT_NE(s.status().message().find("y.intent"), std::string::npos);
}

TEST_F(StoreTest, ALeftoverCreateIntentNeverMovesAMailboxThatHoldsMail) {
  // A create's intent is removed without a directory sync (docs/formats/intents.md, point 3);
  // if one outlived a crash and the list then lost the entry (a damaged or restored list),
  // replaying it must not take the mail away: reconstruct lists the mailbox again.
  MailboxName a = personal("alice", {"A"});
  ASSERT_TRUE(store_->create(a).ok());
  deliver(a, 1, 2);
  auto entry = store_->list().lookup(a);
  ASSERT_TRUE(entry.ok());
  internal::Intent in;
  in.op = internal::Intent::Op::kCreate;
  in.name = a.toString();
  in.unique_id = entry->unique_id;
  in.partition = entry->partition;
  ASSERT_TRUE(io::writeFileAtomic(*io::Env::posix(),
                                  tmp_->file("data/darius.intents/c.intent"),
                                  internal::encodeIntent(in))
                  .isOk());
  auto m = store_->openMailbox(a);
  ASSERT_TRUE(m.ok());
  std::string one = m->mailbox->messagePath(1);
  m->mailbox.reset();
  ASSERT_TRUE(store_->list().remove(a).ok());
  reopen();
  EXPECT_EQ(store_->recovery().finished.size(), 1u);
  auto there = io::Env::posix()->fileExists(one);
  ASSERT_TRUE(there.ok());
  EXPECT_TRUE(*there) << "the message stayed in its mailbox directory";
}

TEST_F(StoreTest, RecentIsClaimedOnceAndCounted) {
  MailboxName inbox = personal("alice");
  ASSERT_TRUE(store_->create(inbox).ok());
  deliver(inbox, 1, 3);
  auto a = store_->openMailbox(inbox);
  auto b = store_->openMailbox(inbox);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a->mailbox->countAbove(0), 3u);
  auto first = a->mailbox->claimRecent(3);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(*first, 0u) << "all three are recent to the first session";
  auto second = b->mailbox->claimRecent(3);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*second, 3u) << "and to no other";
  deliver(inbox, 4, 2);
  ASSERT_TRUE(b->mailbox->refresh().isOk());
  EXPECT_EQ(*b->mailbox->countAbove(b->mailbox->index().recent_uid), 2u);
  EXPECT_EQ(b->mailbox->index().minor, kIndexMinor);
}

TEST_F(StoreTest, RecentClaimStopsAtWhatTheClaimantSaw) {
  // A session that looked at UIDs 1..2 claims those; UID 3, delivered after it looked, stays
  // for the next session (claiming "everything" here gave UID 3 to nobody, or to two).
  MailboxName inbox = personal("alice");
  ASSERT_TRUE(store_->create(inbox).ok());
  deliver(inbox, 1, 2);
  auto a = store_->openMailbox(inbox);
  auto b = store_->openMailbox(inbox);
  ASSERT_TRUE(a.ok() && b.ok());
  deliver(inbox, 3, 1);
  auto first = a->mailbox->claimRecent(2);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(*first, 0u);
  auto second = b->mailbox->claimRecent(3);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*second, 2u) << "UID 3 is recent to the second session only";
  // A claim never reaches past the last UID given out.
  auto third = a->mailbox->claimRecent(UINT32_MAX);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(*third, 3u);
  deliver(inbox, 4, 1);
  auto fourth = b->mailbox->claimRecent(4);
  ASSERT_TRUE(fourth.ok());
  EXPECT_EQ(*fourth, 3u) << "UID 4 was not claimed by the claim of everything before it";
}

TEST_F(StoreTest, UidValidityNeverRepeatsAcrossRestartsOrAClockInThePast) {
  auto name = std::optional<MailboxName>(personal("alice", {"Again"}));
  auto first = store_->create(*name);
  ASSERT_TRUE(first.ok()) << first.status().toString();
  ASSERT_TRUE(store_->remove(*name).ok());
  // A new process (the tool beside the server, or after a restart) knows nothing in memory.
  reopen();
  auto second = store_->create(*name);
  ASSERT_TRUE(second.ok()) << second.status().toString();
  EXPECT_GT(second->uidvalidity, first->uidvalidity);
  // The last value is on disk, and one far in the future (a clock that was ahead) is
  // honoured: the golden version-1 file (docs/formats/uidvalidity.md) holds 4000000000.
  std::string path = tmp_->file("data/darius.uidvalidity");
  EXPECT_EQ(*io::Env::posix()->readFile(path), std::to_string(second->uidvalidity) + "\n");
  const char* src = std::getenv("DARIUS_SOURCE_DIR");
  ASSERT_NE(src, nullptr);
  auto golden = io::Env::posix()->readFile(std::string(src) + "/tests/data/formats/uidvalidity/v1");
  ASSERT_TRUE(golden.ok());
  ASSERT_TRUE(io::writeFileAtomic(*io::Env::posix(), path, *golden).isOk());
  reopen();
  auto v = store_->newUidValidity();
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 4000000001u);
  // A damaged file is reported, not silently restarted from the clock.
  ASSERT_TRUE(io::writeFileAtomic(*io::Env::posix(), path, "garbage").isOk());
  EXPECT_EQ(store_->newUidValidity().status().code(), base::Code::kCorruption);
}

TEST_F(StoreTest, ExpungesPastTheThresholdRewriteIndexAndCache) {
  MailboxName inbox = inboxOfThreeHundred();
  auto m = store_->openMailbox(inbox);
  ASSERT_TRUE(m.ok());
  std::string cache = dirOf(inbox) + "/darius.cache";
  uint64_t before = *io::Env::posix()->fileSize(cache);
  std::vector<uint32_t> doomed = uidsUpTo(280);
  // A reader holding the old snapshot while the rewrite happens.
  auto reader = store_->openMailbox(inbox);
  ASSERT_TRUE(reader.ok());
  ASSERT_TRUE(m->mailbox->expunge(doomed).ok());
  EXPECT_EQ(m->mailbox->recordCount(), 20u) << "expunged records left the index";
  uint64_t after = *io::Env::posix()->fileSize(cache);
  EXPECT_LT(after * 5, before) << "dead cache space reclaimed: " << before << " -> " << after;
  for (auto* box : {m->mailbox.get(), reader->mailbox.get()}) {
    ASSERT_TRUE(box->refresh().isOk());
    ASSERT_EQ(box->recordCount(), 20u);
    for (size_t i = 0; i < box->recordCount(); ++i) {
      auto r = box->record(i);
      ASSERT_TRUE(r.ok());
      auto c = box->cache(*r);
      ASSERT_TRUE(c.ok()) << c.status().toString();
      EXPECT_NE(c->envelope.find("message " + std::to_string(r->uid - 1)), std::string::npos)
          << "UID " << r->uid;
    }
  }
  // The expunged ones are still known (QRESYNC) and their files are still there (phase 1).
  auto gone = m->mailbox->expungedRecords();
  ASSERT_TRUE(gone.ok());
  EXPECT_EQ(gone->size(), 280u);
  EXPECT_TRUE(*io::Env::posix()->fileExists(m->mailbox->messagePath(1)));
}

TEST_F(StoreTest, CacheCompactionFollowsTheConfiguredThreshold) {
  // A threshold above the dead space: the index is rewritten, the cache is left as it is.
  StoreOptions o = options();
  o.compact_policy.min_dead_bytes = 1ull << 40;
  reopen(o);
  MailboxName inbox = inboxOfThreeHundred();
  auto m = store_->openMailbox(inbox);
  ASSERT_TRUE(m.ok());
  std::string cache = dirOf(inbox) + "/darius.cache";
  uint64_t before = *io::Env::posix()->fileSize(cache);
  std::vector<uint32_t> doomed = uidsUpTo(280);
  ASSERT_TRUE(m->mailbox->expunge(doomed).ok());
  EXPECT_EQ(m->mailbox->recordCount(), 20u) << "expunged records left the index";
  EXPECT_EQ(*io::Env::posix()->fileSize(cache), before);
}

TEST(IntentFormat, RoundTripsAndRefusesDamage) {
  internal::Intent in;
  in.op = internal::Intent::Op::kDelete;
  in.name = "user/alice/Trash bin";
  in.unique_id = "0123abcd";
  in.partition = "default";
  in.target = "1790000000-0123abcd";
  in.own_files_only = true;
  auto back = internal::decodeIntent(internal::encodeIntent(in));
  ASSERT_TRUE(back.ok()) << back.status().toString();
  EXPECT_EQ(back->name, in.name);
  EXPECT_EQ(back->target, in.target);
  EXPECT_TRUE(back->own_files_only);
  std::string text = internal::encodeIntent(in);
  for (size_t cut = 0; cut < text.size(); ++cut) {
    EXPECT_FALSE(internal::decodeIntent(text.substr(0, cut)).ok()) << cut;
  }
  EXPECT_FALSE(internal::decodeIntent("darius-intent 2\nop create\nend\n").ok());
  std::string traversal = text;
  traversal.replace(traversal.find("1790000000-0123abcd"), 19, "../../etc");
  EXPECT_FALSE(internal::decodeIntent(traversal).ok());
}

TEST(PartitionConfig, ParsesAndRefuses) {
  auto p = parsePartitions({"default:spool", "fast:/srv/fast/"}, "/var/lib/darius");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)[0].root, "/var/lib/darius/spool");
  EXPECT_EQ((*p)[1].root, "/srv/fast");
  EXPECT_EQ((*p)[1].stageDir(), "/srv/fast/darius.stage");
  EXPECT_FALSE(parsePartitions({}, "/d").ok());
  EXPECT_FALSE(parsePartitions({"nocolon"}, "/d").ok());
  EXPECT_FALSE(parsePartitions({"a:x", "a:y"}, "/d").ok());
  EXPECT_FALSE(parsePartitions({"a:x", "b:x"}, "/d").ok());
  EXPECT_FALSE(parsePartitions({"bad name:x"}, "/d").ok());
  EXPECT_FALSE(parsePartitions({"a:"}, "/d").ok());
}

}  // namespace store_test
}  // namespace darius::mailbox
