// Store-wide reconstruct on real directories and a real mailbox list: entries lost from the
// list come back with their unique id and UIDVALIDITY, stale entries go, orphans are reported
// (and adopted on request), damaged records are removed, a dry run changes no byte, and
// messages keep their UIDs, flags and bytes through a rebuild of index and cache.
#include "mailbox/reconstruct_store.h"

#include <gtest/gtest.h>

#include <map>

#include "lib/io/atomic_file.h"
#include "lib/io/path.h"
#include "lib/io/temp_dir.h"
#include "mailbox/header_file.h"

namespace darius::mailbox {
namespace reconstruct_store_test {

MailboxName name(std::string_view text) {
  auto n = MailboxName::parse(text);
  EXPECT_TRUE(n.ok()) << text;
  return *n;
}

std::string message(int i) {
  return "From: a@example.com\r\nTo: b@example.com\r\nSubject: message " + std::to_string(i) +
         "\r\n\r\nbody " + std::to_string(i) + "\r\n";
}

bool mentions(const StoreReconstructReport& r, std::string_view mailbox, std::string_view text) {
  for (const StoreFinding& f : r.findings) {
    if (f.mailbox == mailbox && f.text.find(text) != std::string::npos) return true;
  }
  return false;
}

std::string dump(const StoreReconstructReport& r) {
  std::string out;
  for (const StoreFinding& f : r.findings) out += f.mailbox + ": " + f.text + "\n";
  return out;
}

// Every file below `dir` with its bytes (lock files included: a dry run must not even make
// one).
void snapshot(io::Env& env, const std::string& dir, std::map<std::string, std::string>& out) {
  auto names = env.listDir(dir);
  ASSERT_TRUE(names.ok()) << dir;
  for (const std::string& n : *names) {
    std::string p = dir + "/" + n;
    auto is_dir = env.isDirectory(p);
    ASSERT_TRUE(is_dir.ok());
    if (*is_dir) {
      out[p + "/"] = "";
      snapshot(env, p, out);
    } else {
      auto bytes = env.readFile(p);
      ASSERT_TRUE(bytes.ok()) << p;
      out[p] = *bytes;
    }
  }
}

class ReconstructStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto t = io::TempDir::create("recon-store");
    ASSERT_TRUE(t.ok());
    tmp_ = std::make_unique<io::TempDir>(std::move(*t));
    reopen();
  }

  void reopen() {
    store_.reset();
    StoreOptions o;
    o.data_dir = tmp_->file("data");
    o.partitions = {{"default", tmp_->file("p1")}, {"second", tmp_->file("p2")}};
    o.list_options.max_name_length = 490;
    auto s = Store::open(o);
    ASSERT_TRUE(s.ok()) << s.status().toString();
    store_ = std::move(*s);
  }

  io::Env& env() { return store_->env(); }

  MailboxEntry create(std::string_view n, std::string partition = "") {
    CreateOptions o;
    o.partition = std::move(partition);
    o.acl = "owner\tlrswipkxtean";
    auto e = store_->create(name(n), o);
    EXPECT_TRUE(e.ok()) << n << ": " << e.status().toString();
    return e.ok() ? *e : MailboxEntry{};
  }

  void deliver(std::string_view n, int count, uint32_t flags = 0,
               std::vector<std::string> keywords = {}) {
    auto e = store_->list().lookup(name(n));
    ASSERT_TRUE(e.ok());
    auto p = store_->partition(e->partition);
    ASSERT_TRUE(p.ok());
    for (int i = 0; i < count; ++i) {
      auto s = store_->stage(**p, message(i));
      ASSERT_TRUE(s.ok());
      AppendRequest q{&*s, 1790000000 + i, 0, flags, keywords};
      ASSERT_TRUE(store_->append(name(n), {&q, 1}).ok());
      ASSERT_TRUE(store_->unstage(*s).isOk());
    }
  }

  std::string dirOf(std::string_view n) {
    auto e = store_->list().lookup(name(n));
    EXPECT_TRUE(e.ok()) << n;
    if (!e.ok()) return "";
    auto d = store_->directoryOf(name(n), *e);
    return d.ok() ? *d : "";
  }

  StoreReconstructReport run(bool dry_run, std::optional<ReconstructScope> scope = std::nullopt,
                             bool adopt = false) {
    StoreReconstructOptions o;
    o.data_dir = tmp_->file("data");
    o.dry_run = dry_run;
    o.adopt_orphans = adopt;
    if (scope) o.scope = *scope;
    auto r = reconstructStore(*store_, o);
    EXPECT_TRUE(r.ok()) << r.status().toString();
    return r.ok() ? *r : StoreReconstructReport{};
  }

  std::map<std::string, std::string> files() {
    std::map<std::string, std::string> out;
    snapshot(env(), tmp_->path(), out);
    return out;
  }

  std::unique_ptr<io::TempDir> tmp_;
  std::unique_ptr<Store> store_;
};

TEST_F(ReconstructStoreTest, HealthyStoreHasNothingToReport) {
  create("user/alice");
  create("user/alice/Sent", "second");
  create("example.com!user/bob");
  create("shared/news");
  deliver("user/alice", 3, kFlagSeen, {"$Label1"});
  deliver("user/alice/Sent", 2);
  auto dry = run(true);
  EXPECT_TRUE(dry.clean()) << dump(dry);
  EXPECT_EQ(dry.mailboxes, 4u);
  EXPECT_EQ(dry.messages, 5u);
  auto real = run(false);
  EXPECT_TRUE(real.clean()) << dump(real);
  EXPECT_EQ(real.list_added + real.list_removed + real.list_updated + real.headers_written, 0u);
}

TEST_F(ReconstructStoreTest, LostListComesBackWithTheSameIdsAndUidvalidity) {
  std::map<std::string, MailboxEntry> before;
  for (auto [n, p] : {std::pair{"user/alice", ""},
                      {"user/alice/Sent", "second"},
                      {"example.com!user/bob/Trash", ""},
                      {"shared/news/comp.lang", "second"}}) {
    before[n] = create(n, p);
  }
  deliver("user/alice/Sent", 2, kFlagFlagged);
  store_.reset();
  ASSERT_TRUE(io::removeTree(*io::Env::posix(), tmp_->file("data/mailboxes.db")).isOk());
  reopen();
  auto r = run(false);
  EXPECT_EQ(r.list_added, 4u) << dump(r);
  EXPECT_TRUE(mentions(r, "user/alice/Sent", "not in the mailbox list; entry added")) << dump(r);
  EXPECT_FALSE(r.unresolved()) << dump(r);
  for (auto& [n, old] : before) {
    auto e = store_->list().lookup(name(n));
    ASSERT_TRUE(e.ok()) << n;
    EXPECT_EQ(e->unique_id, old.unique_id) << n;
    EXPECT_EQ(e->uidvalidity, old.uidvalidity) << n;
    EXPECT_EQ(e->partition, old.partition) << n;
    EXPECT_EQ(e->acl, old.acl) << n;
  }
  EXPECT_EQ(store_->list().lookup(name("user/alice/Sent"))->quota_root, "user/alice");
  EXPECT_EQ(store_->list().lookup(name("example.com!user/bob/Trash"))->quota_root,
            "example.com!user/bob");
  EXPECT_EQ(store_->list().lookup(name("shared/news/comp.lang"))->quota_root, "");
  auto m = store_->openMailbox(name("user/alice/Sent"));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->mailbox->recordCount(), 2u);
  EXPECT_TRUE(run(true).clean());
}

TEST_F(ReconstructStoreTest, StaleEntriesGoAndAnotherMailboxInTheirPlaceIsListed) {
  create("user/alice");
  create("user/gone");
  create("user/deleted");
  create("user/other");
  ASSERT_TRUE(io::removeTree(env(), dirOf("user/gone")).isOk());
  // As if a delete had moved the directory and the list update was lost.
  std::string del = tmp_->file("p1") + "/darius.deleted/1700000000-" +
                    store_->list().lookup(name("user/deleted"))->unique_id;
  ASSERT_TRUE(env().renameFile(dirOf("user/deleted"), del).isOk());
  // A directory that now holds another mailbox (another unique id).
  auto h = readMailboxHeader(env(), dirOf("user/other"));
  ASSERT_TRUE(h.ok());
  h->unique_id = "replacement0001";
  ASSERT_TRUE(writeMailboxHeader(env(), dirOf("user/other"), *h).isOk());

  auto r = run(false);
  EXPECT_TRUE(
      mentions(r, "user/gone", "partition default has no mailbox directory for it; entry removed"))
      << dump(r);
  EXPECT_TRUE(mentions(r, "user/deleted", "was deleted (its files are in default:darius.deleted/"))
      << dump(r);
  EXPECT_TRUE(mentions(r, "user/other", "holds another mailbox (unique id replacement0001)"));
  EXPECT_TRUE(mentions(r, "user/other", "entry added from darius.header"));
  EXPECT_EQ(store_->list().lookup(name("user/gone")).status().code(), base::Code::kNotFound);
  EXPECT_EQ(store_->list().lookup(name("user/deleted")).status().code(), base::Code::kNotFound);
  EXPECT_EQ(store_->list().lookup(name("user/other"))->unique_id, "replacement0001");
  EXPECT_TRUE(store_->list().lookup(name("user/alice")).ok());
  EXPECT_TRUE(run(true).clean()) << dump(run(true));
}

TEST_F(ReconstructStoreTest, OrphansAreReportedAndAdoptedOnlyOnRequest) {
  create("user/alice");
  std::string dir = tmp_->file("p1") + "/user/alice/Old";
  ASSERT_TRUE(io::createDirs(env(), dir).isOk());
  ASSERT_TRUE(io::writeFileAtomic(env(), dir + "/3.", message(3)).isOk());
  ASSERT_TRUE(io::writeFileAtomic(env(), dir + "/7.", message(7)).isOk());
  // An empty level (a directory that only holds children) is not an orphan.
  ASSERT_TRUE(io::createDirs(env(), tmp_->file("p1") + "/shared/level/below").isOk());

  auto r = run(false);
  EXPECT_TRUE(mentions(r, "user/alice/Old", "2 message files but no darius.header")) << dump(r);
  EXPECT_TRUE(r.unresolved());
  EXPECT_EQ(r.findings.size(), 1u) << dump(r);
  EXPECT_EQ(store_->list().lookup(name("user/alice/Old")).status().code(), base::Code::kNotFound);

  auto adopted = run(false, std::nullopt, /*adopt=*/true);
  EXPECT_TRUE(mentions(adopted, "user/alice/Old", "adopted as a new mailbox")) << dump(adopted);
  EXPECT_FALSE(adopted.unresolved()) << dump(adopted);
  auto e = store_->list().lookup(name("user/alice/Old"));
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->quota_root, "user/alice");
  auto m = store_->openMailbox(name("user/alice/Old"));
  ASSERT_TRUE(m.ok()) << m.status().toString();
  EXPECT_EQ(m->mailbox->header().unique_id, e->unique_id);
  ASSERT_EQ(m->mailbox->recordCount(), 2u);
  EXPECT_EQ(m->mailbox->record(0)->uid, 3u);
  EXPECT_EQ(m->mailbox->record(1)->uid, 7u);
  EXPECT_EQ(m->mailbox->index().uidnext, 8u);
  EXPECT_TRUE(run(true).clean()) << dump(run(true));
}

TEST_F(ReconstructStoreTest, DamagedRecordsAreRemovedAndRebuiltFromTheHeader) {
  MailboxEntry sent = create("user/alice/Sent");
  create("user/alice");
  {
    auto txn = store_->list().database().begin();
    ASSERT_TRUE(txn.ok());
    ASSERT_TRUE((*txn)->put(name("user/alice/Sent").key(), std::string("\x07garbage", 8)).isOk());
    ASSERT_TRUE((*txn)->put(std::string("zz\0x\0y", 6), "whatever").isOk());
    ASSERT_TRUE((*txn)->commit().isOk());
  }
  auto dry = run(true);
  EXPECT_TRUE(mentions(dry, "user/alice/Sent", "damaged list record")) << dump(dry);
  EXPECT_TRUE(mentions(dry, "mailbox list key zz\\x00x\\x00y", "would remove it")) << dump(dry);
  auto r = run(false);
  EXPECT_FALSE(r.unresolved()) << dump(r);
  EXPECT_EQ(r.list_removed, 2u);
  EXPECT_EQ(r.list_added, 1u);
  auto e = store_->list().lookup(name("user/alice/Sent"));
  ASSERT_TRUE(e.ok()) << e.status().toString();
  EXPECT_EQ(e->unique_id, sent.unique_id);
  EXPECT_EQ(e->uidvalidity, sent.uidvalidity);
  std::vector<DamagedRecord> damaged;
  ASSERT_TRUE(store_->list().forEach([](auto&, auto&) { return true; }, &damaged).isOk());
  EXPECT_TRUE(damaged.empty());
  EXPECT_TRUE(run(true).clean());
}

TEST_F(ReconstructStoreTest, DryRunChangesNoByte) {
  create("user/alice");
  create("user/alice/Sent", "second");
  create("user/bob");
  deliver("user/alice", 3, kFlagSeen);
  deliver("user/alice/Sent", 2);
  std::string alice = dirOf("user/alice");
  ASSERT_TRUE(io::removeTree(env(), dirOf("user/bob")).isOk());        // stale entry
  ASSERT_TRUE(store_->list().remove(name("user/alice/Sent")).isOk());  // lost entry
  ASSERT_TRUE(env().removeFile(alice + "/darius.cache").isOk());       // damaged mailbox
  std::string orphan = tmp_->file("p1") + "/shared/orphan";
  ASSERT_TRUE(io::createDirs(env(), orphan).isOk());
  ASSERT_TRUE(io::writeFileAtomic(env(), orphan + "/1.", message(1)).isOk());
  {
    auto txn = store_->list().database().begin();
    ASSERT_TRUE(txn.ok());
    ASSERT_TRUE((*txn)->put(std::string("\0s\0bad\xff", 7), "x").isOk());
    ASSERT_TRUE((*txn)->commit().isOk());
  }

  auto before = files();
  auto dry = run(true, std::nullopt, /*adopt=*/true);
  EXPECT_EQ(files(), before);
  EXPECT_TRUE(mentions(dry, "user/bob", "would be removed")) << dump(dry);
  EXPECT_TRUE(mentions(dry, "user/alice/Sent", "would be added")) << dump(dry);
  EXPECT_TRUE(mentions(dry, "user/alice", "cache:")) << dump(dry);
  EXPECT_TRUE(mentions(dry, "shared/orphan", "would adopt it")) << dump(dry);
  EXPECT_FALSE(dry.unresolved()) << dump(dry);

  auto real = run(false, std::nullopt, true);
  EXPECT_NE(files(), before);
  auto again = run(true);
  EXPECT_TRUE(again.clean()) << dump(again);
}

TEST_F(ReconstructStoreTest, IndexAndCacheRebuiltWithTheSameUidsFlagsAndBytes) {
  create("user/alice");
  deliver("user/alice", 4, kFlagSeen | kFlagAnswered, {"$Forwarded", "work"});
  deliver("user/alice", 2, kFlagFlagged);
  std::vector<IndexRecord> before;
  std::vector<std::string> bytes_before;
  {
    auto m = store_->openMailbox(name("user/alice"));
    ASSERT_TRUE(m.ok());
    ASSERT_TRUE(m->mailbox->expunge(std::vector<uint32_t>{2}).ok());
    ASSERT_TRUE(m->mailbox->refresh().isOk());
    for (size_t i = 0; i < m->mailbox->recordCount(); ++i) {
      auto r = m->mailbox->record(i);
      if (!r->live()) continue;
      before.push_back(*r);
      bytes_before.push_back(*env().readFile(m->mailbox->messagePath(r->uid)));
    }
  }
  std::string dir = dirOf("user/alice");
  auto index = env().readFile(dir + "/darius.index");
  ASSERT_TRUE(index.ok());
  std::string bad = *index;
  bad[124] ^= 0x5a;  // the header's CRC
  ASSERT_TRUE(io::writeFileAtomic(env(), dir + "/darius.index", bad).isOk());
  ASSERT_TRUE(io::writeFileAtomic(env(), dir + "/darius.cache", "not a cache").isOk());

  auto r = run(false);
  EXPECT_TRUE(mentions(r, "user/alice", "index:")) << dump(r);
  EXPECT_FALSE(r.unresolved()) << dump(r);
  auto m = store_->openMailbox(name("user/alice"));
  ASSERT_TRUE(m.ok()) << m.status().toString();
  std::vector<IndexRecord> after;
  for (size_t i = 0; i < m->mailbox->recordCount(); ++i) {
    auto rec = m->mailbox->record(i);
    if (rec->live()) after.push_back(*rec);
  }
  ASSERT_EQ(after.size(), before.size());
  for (size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after[i].uid, before[i].uid);
    EXPECT_EQ(after[i].system_flags, before[i].system_flags);
    EXPECT_EQ(after[i].user_flags, before[i].user_flags);
    EXPECT_EQ(after[i].guid, before[i].guid);
    EXPECT_EQ(*env().readFile(m->mailbox->messagePath(after[i].uid)), bytes_before[i]);
    auto c = m->mailbox->cache(after[i]);
    ASSERT_TRUE(c.ok()) << c.status().toString();
  }
  EXPECT_TRUE(run(true).clean());
}

TEST_F(ReconstructStoreTest, RebuildKeepsWhatWasAlreadyShownAsRecent) {
  create("user/alice");
  deliver("user/alice", 3);
  {
    auto m = store_->openMailbox(name("user/alice"));
    ASSERT_TRUE(m.ok());
    ASSERT_TRUE(m->mailbox->claimRecent(UINT32_MAX).ok());
  }
  deliver("user/alice", 1);
  ASSERT_TRUE(env().removeFile(dirOf("user/alice") + "/darius.cache").isOk());
  EXPECT_FALSE(run(false).clean());
  auto m = store_->openMailbox(name("user/alice"));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->mailbox->index().recent_uid, 3u);
  EXPECT_EQ(m->mailbox->recordCount(), 4u);
}

TEST_F(ReconstructStoreTest, LostHeaderIsRebuiltFromTheList) {
  MailboxEntry e = create("user/alice");
  deliver("user/alice", 2, kFlagSeen);
  std::string dir = dirOf("user/alice");
  ASSERT_TRUE(io::writeFileAtomic(env(), dir + "/darius.header", "damaged\n").isOk());
  auto r = run(false);
  EXPECT_TRUE(mentions(r, "user/alice", "darius.header is unreadable")) << dump(r);
  EXPECT_EQ(r.headers_written, 1u);
  auto h = readMailboxHeader(env(), dir);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->unique_id, e.unique_id);
  EXPECT_EQ(h->uidvalidity, e.uidvalidity);
  EXPECT_EQ(*env().readFile(dir + "/darius.header.damaged"), "damaged\n");
  auto m = store_->openMailbox(name("user/alice"));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->mailbox->recordCount(), 2u);
  EXPECT_EQ(m->mailbox->record(0)->system_flags, kFlagSeen);
}

TEST_F(ReconstructStoreTest, HeaderCopiesFollowTheListAndUidvalidityTheHeader) {
  MailboxEntry e = create("user/alice");
  std::string dir = dirOf("user/alice");
  auto h = readMailboxHeader(env(), dir);
  h->name = "user/somebody";
  h->acl = "somebody\tlr";
  ASSERT_TRUE(writeMailboxHeader(env(), dir, *h).isOk());
  MailboxEntry moved = e;
  moved.uidvalidity = e.uidvalidity + 5;
  ASSERT_TRUE(store_->list().update(name("user/alice"), moved).isOk());
  auto r = run(false);
  EXPECT_TRUE(mentions(r, "user/alice", "darius.header names it user/somebody")) << dump(r);
  EXPECT_TRUE(mentions(r, "user/alice", "copy of the ACL differs")) << dump(r);
  EXPECT_TRUE(mentions(r, "user/alice", "UIDVALIDITY")) << dump(r);
  auto after = readMailboxHeader(env(), dir);
  EXPECT_EQ(after->name, "user/alice");
  EXPECT_EQ(after->acl, e.acl);
  EXPECT_EQ(store_->list().lookup(name("user/alice"))->uidvalidity, e.uidvalidity);
  EXPECT_TRUE(run(true).clean());
}

TEST_F(ReconstructStoreTest, ScopeLimitsWhatIsCheckedAndChanged) {
  create("user/alice");
  create("user/alice/Sent");
  create("user/alice2");
  create("user/bob");
  ASSERT_TRUE(env().removeFile(dirOf("user/bob") + "/darius.cache").isOk());
  ASSERT_TRUE(env().removeFile(dirOf("user/alice2") + "/darius.cache").isOk());
  ASSERT_TRUE(env().removeFile(dirOf("user/alice/Sent") + "/darius.cache").isOk());

  ReconstructScope alice{name("user/alice"), /*recursive=*/true};
  auto r = run(false, alice);
  EXPECT_EQ(r.mailboxes, 2u);
  EXPECT_TRUE(mentions(r, "user/alice/Sent", "cache:")) << dump(r);
  EXPECT_FALSE(mentions(r, "user/alice2", "")) << dump(r);
  EXPECT_FALSE(mentions(r, "user/bob", "")) << dump(r);

  ReconstructScope just_bob{name("user/bob"), false};
  auto b = run(true, just_bob);
  EXPECT_EQ(b.mailboxes, 1u);
  EXPECT_TRUE(mentions(b, "user/bob", "cache:"));

  StoreReconstructOptions o;
  o.data_dir = tmp_->file("data");
  o.scope.root = name("user/nobody");
  EXPECT_EQ(reconstructStore(*store_, o).status().code(), base::Code::kNotFound);
}

TEST_F(ReconstructStoreTest, PendingIntentsStopTheRunUntilTheStoreIsReopened) {
  create("user/alice");
  ASSERT_TRUE(io::writeFileAtomic(env(), tmp_->file("data/darius.intents/0123.intent"),
                                  "darius-intent 1\nop create\nname user/zed\nid zed0001\n"
                                  "partition default\nend\n")
                  .isOk());
  StoreReconstructOptions o;
  o.data_dir = tmp_->file("data");
  EXPECT_EQ(reconstructStore(*store_, o).status().code(), base::Code::kTemporary);
  reopen();  // finishes (here: rolls back) the create
  EXPECT_TRUE(run(true).clean());
}

TEST_F(ReconstructStoreTest, EntriesOfAnEmptyPartitionAreLeftAlone) {
  create("user/alice");
  create("user/carol", "second");
  store_.reset();
  ASSERT_TRUE(io::removeTree(*io::Env::posix(), tmp_->file("p2/user")).isOk());  // "unmounted"
  reopen();
  auto r = run(false);
  EXPECT_TRUE(mentions(r, "user/carol", "not mounted?")) << dump(r);
  EXPECT_TRUE(r.unresolved());
  EXPECT_TRUE(store_->list().lookup(name("user/carol")).ok());
}

}  // namespace reconstruct_store_test
}  // namespace darius::mailbox
