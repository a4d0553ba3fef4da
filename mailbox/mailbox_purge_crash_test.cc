// Power-cut tests of phase two of two-phase expunge, Mailbox::purgeExpunged
// (mailbox/mailbox_purge.cc; docs/formats/expunged.md, "Purge" and "Crash safety";
// docs/design/expunge.md). The purge rewrites darius.expunged and darius.expunged.cache
// outside the lock, raises purged_modseq, renames both files in and only then unlinks the
// message files; this file checks the claim that a power cut anywhere in that sequence leaves
// every message live, expunged or purged — never two of them, never none — and that
// QRESYNC's purged_modseq never under-reports what has gone.
//
// Set-up (built once, then copied per run): 14 messages; 8 expunged in three batches (three
// modseqs) and moved to darius.expunged by a rewrite, so they have records there and cache
// records in darius.expunged.cache; one more expunged in place, so the purge's step 1
// rewrites the index first. The purge names some of the expunged messages (from the file and
// the one in place), two live UIDs and an unknown UID. The measured part is the purge alone:
// its mutating operations are counted, and it is run again with the power cut after each of
// them (FaultyEnv: unsynced writes lost, directory entries since the last directory fsync
// undone; with and without torn appends). After each cut the machine "reboots", optionally a
// repair runs reconstructMailbox, and the mailbox is opened and checked; then a further purge
// of whatever is still expunged and an append must work.
//
// A second mode does, inside the purge's unlocked window (when it opens its cache temporary),
// what another session may do: expunge three live messages and rewrite the index, which
// appends to darius.expunged, so the purge takes the tail path of its step 3; the cut can fall
// inside that session's work too.
//
// FaultyEnv undoes both renames of the switch together (one directory, one fsync), so the
// window "the cache renamed, the index not" (expunged.md, "Crash safety"), which a real
// filesystem may leave, is built by hand in PurgeCrashWindowTest.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "lib/io/atomic_file.h"
#include "lib/io/faulty_env.h"
#include "lib/io/temp_dir.h"
#include "mailbox/cache_format.h"
#include "mailbox/expunged_file.h"
#include "mailbox/mailbox.h"
#include "mailbox/message_stage.h"
#include "mailbox/reconstruct.h"

namespace darius::mailbox {
namespace mailbox_purge_crash_test {

using base::Result;
using base::Status;

constexpr int64_t kT0 = 1'800'000'000;
constexpr uint32_t kMessages = 14;
// What the set-up leaves: moved to darius.expunged by a rewrite, in three expunge batches.
const std::vector<std::vector<uint32_t>> kExpungeBatches = {{1, 2, 3}, {5, 6}, {8, 9, 11}};
constexpr uint32_t kInPlace = 4;  // expunged after the rewrite: still marked in the index
// What the purge is asked to remove: four from darius.expunged, the one in place, two live
// UIDs (7 stays live; 10 is expunged meanwhile in the concurrent mode) and an unknown one.
const std::vector<uint32_t> kNamed = {1, 2, 4, 5, 7, 8, 10, 99};
// Expunged by another session inside the purge's unlocked window (concurrent mode): one the
// purge names, and two it must keep, so that the tail it takes in has more than one record.
const std::vector<uint32_t> kConcurrent = {10, 12, 13};
constexpr int64_t kConcurrentAt = kT0 + 1000;

const std::string kIndexTemp = "." + std::string(kExpungedFileName) + ".tmp.purge";

std::string message(uint32_t i) {
  return "From: a@example.com\r\nTo: b@example.com\r\nSubject: message " + std::to_string(i) +
         "\r\nMessage-ID: <" + std::to_string(i) + "@example.com>\r\n\r\nbody " +
         std::string(i, 'x') + "\r\n";
}
std::string previewOf(uint32_t i) { return "preview of message " + std::to_string(i); }

bool contains(const std::vector<uint32_t>& v, uint32_t uid) {
  return std::find(v.begin(), v.end(), uid) != v.end();
}

// The real filesystem without its fsyncs. FaultyEnv alone decides what survives a cut, so the
// device flushes buy nothing here, and on a disk they would make the test take minutes.
class NoSyncEnv final : public io::Env {
 public:
  Result<std::unique_ptr<io::WritableFile>> openWritable(const std::string& p,
                                                         OpenMode m) override {
    DARIUS_ASSIGN_OR_RETURN(auto f, base_->openWritable(p, m));
    return std::unique_ptr<io::WritableFile>(new File(std::move(f)));
  }
  Result<std::string> readFile(const std::string& p) override { return base_->readFile(p); }
  Status renameFile(const std::string& f, const std::string& t) override {
    return base_->renameFile(f, t);
  }
  Status linkFile(const std::string& f, const std::string& t) override {
    return base_->linkFile(f, t);
  }
  Status removeFile(const std::string& p) override { return base_->removeFile(p); }
  Status setPermissions(const std::string& p, mode_t m) override {
    return base_->setPermissions(p, m);
  }
  Status createDir(const std::string& p) override { return base_->createDir(p); }
  Status removeDir(const std::string& p) override { return base_->removeDir(p); }
  Status syncDir(const std::string&) override { return Status::ok(); }
  Result<bool> fileExists(const std::string& p) override { return base_->fileExists(p); }
  Result<uint64_t> fileSize(const std::string& p) override { return base_->fileSize(p); }
  Result<std::vector<std::string>> listDir(const std::string& p) override {
    return base_->listDir(p);
  }
  Result<bool> isDirectory(const std::string& p) override { return base_->isDirectory(p); }

 private:
  class File final : public io::WritableFile {
   public:
    explicit File(std::unique_ptr<io::WritableFile> f) : f_(std::move(f)) {}
    Status append(std::string_view d) override { return f_->append(d); }
    Status pwrite(uint64_t o, std::string_view d) override { return f_->pwrite(o, d); }
    Result<std::string> pread(uint64_t o, size_t n) override { return f_->pread(o, n); }
    Status sync() override { return Status::ok(); }
    Status close() override { return f_->close(); }
    uint64_t size() const override { return f_->size(); }

   private:
    std::unique_ptr<io::WritableFile> f_;
  };
  io::Env* base_ = io::Env::posix();
};

// Forwards to a FaultyEnv and runs a hook before each openWritable(), outside FaultyEnv's
// mutex, so that the hook's own work goes through (and is counted and cut by) the FaultyEnv.
class WindowEnv final : public io::Env {
 public:
  explicit WindowEnv(io::Env& base) : base_(base) {}
  std::function<void(const std::string& path)> before_open;

  Result<std::unique_ptr<io::WritableFile>> openWritable(const std::string& p,
                                                         OpenMode m) override {
    if (before_open) before_open(p);
    return base_.openWritable(p, m);
  }
  Result<std::string> readFile(const std::string& p) override { return base_.readFile(p); }
  Status renameFile(const std::string& f, const std::string& t) override {
    return base_.renameFile(f, t);
  }
  Status linkFile(const std::string& f, const std::string& t) override {
    return base_.linkFile(f, t);
  }
  Status removeFile(const std::string& p) override { return base_.removeFile(p); }
  Status setPermissions(const std::string& p, mode_t m) override {
    return base_.setPermissions(p, m);
  }
  Status createDir(const std::string& p) override { return base_.createDir(p); }
  Status removeDir(const std::string& p) override { return base_.removeDir(p); }
  Status syncDir(const std::string& p) override { return base_.syncDir(p); }
  Result<bool> fileExists(const std::string& p) override { return base_.fileExists(p); }
  Result<uint64_t> fileSize(const std::string& p) override { return base_.fileSize(p); }
  Result<std::vector<std::string>> listDir(const std::string& p) override {
    return base_.listDir(p);
  }
  Result<bool> isDirectory(const std::string& p) override { return base_.isDirectory(p); }
  Status runConcurrently(std::span<const std::function<Status()>> tasks) override {
    return base_.runConcurrently(tasks);
  }

 private:
  io::Env& base_;
};

NoSyncEnv& noSync() {
  static NoSyncEnv env;
  return env;
}

// The mailbox before the purge, as read back after a simulated power cut at the end of the
// set-up (so the set-up is known to be durable, not just written).
struct Template {
  explicit Template(io::TempDir t) : tmp(std::move(t)) {}
  io::TempDir tmp;
  std::string box;
  std::map<uint32_t, IndexRecord> records;  // every message, live or expunged, by UID
  std::set<uint32_t> live, held, in_place;  // held: in darius.expunged
  uint64_t purged_modseq = 0;
  std::map<Guid, std::string> preview;  // the cache preview each message was appended with
};

// Destroyed at exit, which removes its directory.
std::unique_ptr<Template> g_template;

void buildTemplate() {
  auto t = io::TempDir::create("purge-crash-template");
  ASSERT_TRUE(t.ok());
  auto tp = std::make_unique<Template>(std::move(*t));
  tp->box = tp->tmp.file("box");
  const std::string stage = tp->tmp.file("stage");
  {
    io::FaultyEnv env(&noSync());
    ASSERT_TRUE(cleanStageDir(env, stage).isOk());
    {
      auto m = Mailbox::create(env, tp->box, {"id-purge", "purge", 99, {}, ""});
      ASSERT_TRUE(m.ok()) << m.status().toString();
      std::vector<StagedMessage> staged;
      for (uint32_t i = 1; i <= kMessages; ++i) {
        auto s = stageMessage(env, stage, message(i));
        ASSERT_TRUE(s.ok()) << s.status().toString();
        s->cache.preview = previewOf(i);
        tp->preview[s->guid] = previewOf(i);
        staged.push_back(*s);
      }
      std::vector<AppendRequest> q;
      for (uint32_t i = 0; i < kMessages; ++i) {
        q.push_back({&staged[i], kT0 - 1000, 0, i % 2 ? kFlagSeen : kFlagFlagged,
                     i % 3 ? std::vector<std::string>{} : std::vector<std::string>{"$Work"}});
      }
      auto a = (*m)->append(q);
      ASSERT_TRUE(a.ok()) << a.status().toString();
      ASSERT_EQ(a->back().uid, kMessages);
      for (auto& s : staged) ASSERT_TRUE(unstage(env, s).isOk());
      // Separate expunges, separate modseqs: purged_modseq must follow the highest purged.
      int64_t at = kT0;
      for (const auto& batch : kExpungeBatches) {
        (*m)->setClock([at] { return at; });
        ASSERT_TRUE((*m)->expunge(batch).ok());
        at += 60;
      }
      ASSERT_TRUE((*m)->compact().isOk());
      (*m)->setClock([at] { return at; });
      ASSERT_TRUE((*m)->expunge(std::vector<uint32_t>{kInPlace}).ok());
    }
    ASSERT_TRUE(env.dropUnsyncedData().isOk());
  }
  auto m = Mailbox::open(noSync(), tp->box);
  ASSERT_TRUE(m.ok()) << m.status().toString();
  for (size_t i = 0; i < (*m)->recordCount(); ++i) {
    auto r = (*m)->record(i);
    ASSERT_TRUE(r.ok());
    tp->records[r->uid] = *r;
    (r->live() ? tp->live : tp->in_place).insert(r->uid);
  }
  auto gone = readExpungedIndex(noSync(), tp->box);
  ASSERT_TRUE(gone.ok());
  for (const IndexRecord& r : gone->records) {
    ASSERT_NE(r.cache_offset, 0u) << "UID " << r.uid << " moved without its cache record";
    tp->records[r.uid] = r;
    tp->held.insert(r.uid);
  }
  ASSERT_EQ(tp->live, (std::set<uint32_t>{7, 10, 12, 13, 14}));
  ASSERT_EQ(tp->in_place, (std::set<uint32_t>{kInPlace}));
  ASSERT_EQ(tp->held, (std::set<uint32_t>{1, 2, 3, 5, 6, 8, 9, 11}));
  ASSERT_EQ(tp->records.size(), kMessages);
  tp->purged_modseq = (*m)->index().purged_modseq;
  g_template = std::move(tp);
}

// A fresh copy of the template's mailbox, with an empty stage directory beside it.
std::string copyTemplate(const io::TempDir& t) {
  std::filesystem::copy(g_template->box, t.file("box"), std::filesystem::copy_options::recursive);
  EXPECT_TRUE(cleanStageDir(noSync(), t.file("stage")).isOk());
  return t.file("box");
}

// What the run under FaultyEnv was told before the power went.
struct Outcome {
  bool purge_ok = false;
  std::set<uint32_t> purged;
  bool concurrent_expunged = false;  // the other session's expunge was acknowledged
  uint64_t concurrent_modseq = 0;
  bool concurrent_compacted = false;  // and its rewrite (the append to darius.expunged)
};

Outcome runPurge(io::Env& faulty, const std::string& box, bool concurrent) {
  Outcome o;
  WindowEnv env(faulty);
  bool fired = false;
  if (concurrent) {
    // At the open of the cache temporary: step 2 has read darius.expunged and written the
    // index temporary, and the purge holds no mailbox lock.
    env.before_open = [&](const std::string& path) {
      if (fired || !path.ends_with("." + std::string(kExpungedCacheFileName) + ".tmp.purge")) {
        return;
      }
      fired = true;
      auto other = Mailbox::open(faulty, box);
      if (!other.ok()) return;
      (*other)->setClock([] { return kConcurrentAt; });
      auto e = (*other)->expunge(kConcurrent);
      if (!e.ok()) return;
      o.concurrent_expunged = true;
      o.concurrent_modseq = *e;
      o.concurrent_compacted = (*other)->compact().isOk();
    };
  }
  auto m = Mailbox::open(env, box);
  if (!m.ok()) return o;
  auto p = (*m)->purgeExpunged(kNamed);
  if (p.ok()) {
    o.purge_ok = true;
    o.purged.insert(p->uids.begin(), p->uids.end());
    EXPECT_EQ(p->messages, p->uids.size());
  }
  return o;
}

struct Expectation {
  std::set<uint32_t> live;                 // must be live, with their files
  std::set<uint32_t> purgeable;            // expunged and named: still expunged, or purged
  std::set<uint32_t> kept;                 // expunged and not named: still expunged
  std::map<uint32_t, IndexRecord> record;  // of every expunged message (cache_offset aside)
  uint64_t new_purged_modseq = 0;          // what the purge raises purged_modseq to
};

Expectation expect(const Outcome& o) {
  const Template& t = *g_template;
  Expectation e;
  std::set<uint32_t> expunged(t.held);
  expunged.insert(t.in_place.begin(), t.in_place.end());
  for (uint32_t uid : expunged) e.record[uid] = t.records.at(uid);
  e.live = t.live;
  if (o.concurrent_expunged) {
    for (uint32_t uid : kConcurrent) {
      e.live.erase(uid);
      expunged.insert(uid);
      IndexRecord r = t.records.at(uid);
      r.system_flags |= kFlagExpunged;
      r.modseq = o.concurrent_modseq;
      r.expunged_at = kConcurrentAt;
      e.record[uid] = r;
    }
  }
  for (uint32_t uid : expunged) (contains(kNamed, uid) ? e.purgeable : e.kept).insert(uid);
  for (uint32_t uid : e.purgeable) {
    // A concurrent expunge not yet rewritten never reaches the purge's tail read: only a cut
    // can stop that rewrite, and then the purge cannot raise purged_modseq either.
    bool seen = !contains(kConcurrent, uid) || o.concurrent_compacted;
    if (seen) e.new_purged_modseq = std::max(e.new_purged_modseq, e.record.at(uid).modseq);
  }
  return e;
}

std::set<uint32_t> messageFiles(const std::string& dir) {
  std::set<uint32_t> out;
  auto names = noSync().listDir(dir);
  EXPECT_TRUE(names.ok());
  if (!names.ok()) return out;
  for (const std::string& n : *names) {
    if (uint32_t uid = uidOfMessageFileName(n)) out.insert(uid);
  }
  return out;
}

// The file of `uid` is there and is the message the record names (IndexRecord::guid is the
// SHA-1 of the file), which is also the message the template had under that UID.
void expectFile(const Mailbox& box, const IndexRecord& r, const std::string& what) {
  auto bytes = noSync().readFile(box.messagePath(r.uid));
  ASSERT_TRUE(bytes.ok()) << what << ": UID " << r.uid << " has a record but no file";
  EXPECT_EQ(sha1Of(*bytes), r.guid) << what << ": UID " << r.uid;
  EXPECT_EQ(r.guid, g_template->records.at(r.uid).guid) << what << ": UID " << r.uid;
}

struct Checked {
  std::set<uint32_t> live, expunged, orphans;  // orphans: files no record names
  bool raised = false;                         // purged_modseq is not the old one
};

// The invariants after a cut (and the repair, if `repaired`). `strict_cache`: every cache
// offset of darius.expunged must read back (FaultyEnv switches both files at once); without
// it a record may find no cache record, but never another message's.
Checked check(const std::string& dir, const Outcome& o, bool repaired, bool strict_cache,
              const std::string& what) {
  const Template& t = *g_template;
  const Expectation e = expect(o);
  Checked c;
  auto m = Mailbox::open(noSync(), dir);
  EXPECT_TRUE(m.ok()) << what << ": " << m.status().toString();
  if (!m.ok()) return c;
  const Mailbox& box = **m;
  const uint64_t highest = box.index().highest_modseq;
  for (size_t i = 0; i < box.recordCount(); ++i) {
    auto r = box.record(i);
    EXPECT_TRUE(r.ok()) << what;
    if (!r.ok() || !r->live()) continue;
    c.live.insert(r->uid);
    // Nothing that was expunged comes back into the folder, and nothing else appears.
    EXPECT_TRUE(t.live.contains(r->uid) &&
                !(o.concurrent_expunged && contains(kConcurrent, r->uid)))
        << what << ": UID " << r->uid << " is live";
    expectFile(box, *r, what);
    EXPECT_TRUE(box.cache(*r).ok()) << what << ": UID " << r->uid;
  }
  for (uint32_t uid : e.live) {
    EXPECT_TRUE(c.live.contains(uid)) << what << ": live UID " << uid << " lost";
  }

  auto gone = box.expungedRecords();
  EXPECT_TRUE(gone.ok()) << what << ": " << gone.status().toString();
  if (!gone.ok()) return c;
  std::map<uint32_t, IndexRecord> held;
  for (const IndexRecord& r : *gone) {
    held[r.uid] = r;
    c.expunged.insert(r.uid);
    EXPECT_FALSE(c.live.contains(r.uid)) << what << ": UID " << r.uid << " both live and expunged";
    EXPECT_TRUE(e.purgeable.contains(r.uid) || e.kept.contains(r.uid))
        << what << ": UID " << r.uid << " is expunged";
    EXPECT_LE(r.modseq, highest) << what << ": UID " << r.uid;
    expectFile(box, r, what);  // never a record whose file is missing
    if (!e.record.contains(r.uid)) continue;
    // The record as it was: flags, modseq, expunge time. Only a repair may stand in a new
    // one, for a file whose record the purge had already removed (restored as expunged); a
    // record the purge was to keep must never need that.
    IndexRecord want = e.record.at(r.uid);
    want.cache_offset = r.cache_offset;
    if (!repaired || e.kept.contains(r.uid)) {
      EXPECT_EQ(r, want) << what << ": UID " << r.uid << "'s record changed";
    }
  }
  for (uint32_t uid : e.kept) {
    EXPECT_TRUE(held.contains(uid)) << what << ": UID " << uid << " was not named, yet it went";
  }
  const uint64_t pm = box.index().purged_modseq;
  c.raised = pm != t.purged_modseq;
  if (c.raised) {
    EXPECT_GE(pm, e.new_purged_modseq) << what << ": purged_modseq raised, but not far enough";
  }
  for (uint32_t uid : e.purgeable) {
    if (held.contains(uid)) {
      EXPECT_FALSE(o.purge_ok) << what << ": the purge returned, yet UID " << uid << " is held";
      continue;
    }
    // Gone: QRESYNC must report it, so purged_modseq covers it.
    EXPECT_GE(pm, e.record.at(uid).modseq)
        << what << ": UID " << uid << " gone below purged_modseq";
    if (o.purge_ok) {
      EXPECT_TRUE(o.purged.contains(uid)) << what << ": UID " << uid;
    }
  }
  if (o.purge_ok) {
    // Exactly what was named and expunged (and seen by the purge): no live, no unknown UID.
    std::set<uint32_t> want;
    for (uint32_t uid : e.purgeable) {
      if (!contains(kConcurrent, uid) || o.concurrent_compacted) want.insert(uid);
    }
    EXPECT_EQ(o.purged, want) << what;
  }
  for (uint32_t uid : messageFiles(dir)) {
    if (c.live.contains(uid) || held.contains(uid)) continue;
    // A file no record names: a purge cut between its switch and its unlinks. A repair
    // restores it as expunged, and a purge that returned has unlinked it durably.
    EXPECT_TRUE(e.purgeable.contains(uid)) << what << ": stray file of UID " << uid;
    EXPECT_FALSE(repaired) << what << ": the repair left UID " << uid << "'s file unnamed";
    EXPECT_FALSE(o.purge_ok) << what << ": the purge returned, yet UID " << uid
                             << "'s file is there";
    c.orphans.insert(uid);
  }

  // Cache records of the records in darius.expunged: each offset reads back as its own
  // message's record, or (when the crash left an old index over a new cache) as nothing;
  // never as another's. Every message had one when it was expunged; only a repair (which
  // moves records without them) or that window may lose it.
  std::string cache;
  if (auto b = noSync().readFile(dir + "/" + std::string(kExpungedCacheFileName)); b.ok()) {
    cache = std::move(*b);
  }
  auto in_file = readExpungedIndex(noSync(), dir);
  EXPECT_TRUE(in_file.ok()) << what;
  if (!in_file.ok()) return c;
  EXPECT_TRUE(in_file->damaged.empty()) << what;
  for (const IndexRecord& r : in_file->records) {
    const uint32_t uid = r.uid;
    if (r.cache_offset == 0) {
      EXPECT_FALSE(strict_cache && !repaired) << what << ": UID " << uid << " has no cache record";
      continue;
    }
    std::string bytes = cacheRecordAt(cache, r.cache_offset, guidBytes(r.guid));
    if (bytes.empty()) {
      EXPECT_FALSE(strict_cache) << what << ": UID " << uid << "'s cache record is lost";
      continue;
    }
    auto entry = decodeCacheRecordOf(bytes, guidBytes(r.guid));
    EXPECT_TRUE(entry.ok()) << what << ": UID " << uid;
    if (entry.ok()) {
      EXPECT_EQ(entry->preview, t.preview.at(r.guid)) << what << ": UID " << uid;
    }
  }
  return c;
}

// After the cut the mailbox keeps working: what is still expunged can be purged (temporaries a
// cut left behind are overwritten), and an append gets a new UID.
void followUp(const std::string& dir, const std::string& stage, const Checked& c,
              const std::string& what) {
  auto m = Mailbox::open(noSync(), dir);
  ASSERT_TRUE(m.ok()) << what;
  Mailbox& box = **m;
  auto before = box.expungedRecords();
  ASSERT_TRUE(before.ok()) << what;
  std::vector<uint32_t> rest;
  uint64_t max_modseq = 0;
  for (const IndexRecord& r : *before) {
    rest.push_back(r.uid);
    max_modseq = std::max(max_modseq, r.modseq);
  }
  ASSERT_FALSE(rest.empty()) << what << ": the messages not named must still be there";
  auto p = box.purgeExpunged(rest);
  ASSERT_TRUE(p.ok()) << what << ": further purge: " << p.status().toString();
  EXPECT_EQ(p->uids, rest) << what;
  ASSERT_TRUE(box.refresh().isOk());
  auto after = box.expungedRecords();
  ASSERT_TRUE(after.ok()) << what;
  EXPECT_TRUE(after->empty()) << what;
  EXPECT_GE(box.index().purged_modseq, max_modseq) << what;
  // The further purge also finishes the unlinks a cut left (darius.purge.pending), so no
  // unnamed file stays.
  EXPECT_EQ(messageFiles(dir), c.live) << what;
  auto names = noSync().listDir(dir);
  ASSERT_TRUE(names.ok());
  for (const std::string& n : *names) {
    EXPECT_FALSE(n.ends_with(".tmp.purge")) << what << ": " << n << " left behind";
  }

  const uint32_t uidnext = box.index().uidnext;
  auto s = stageMessage(noSync(), stage, "Subject: after\r\n\r\nafter the cut\r\n");
  ASSERT_TRUE(s.ok());
  AppendRequest q{&*s, 0, 0, 0, {}};
  auto a = box.append(std::span(&q, 1));
  ASSERT_TRUE(a.ok()) << what << ": append: " << a.status().toString();
  EXPECT_EQ(a->at(0).uid, uidnext) << what;
  EXPECT_GT(a->at(0).uid, kMessages) << what;
  ASSERT_TRUE(unstage(noSync(), *s).isOk());
  auto again = Mailbox::open(noSync(), dir);
  ASSERT_TRUE(again.ok()) << what;
  auto pos = (*again)->findUid(a->at(0).uid);
  ASSERT_TRUE(pos.ok() && *pos >= 0) << what;
  auto r = (*again)->record(static_cast<size_t>(*pos));
  ASSERT_TRUE(r.ok() && r->live()) << what;
  auto bytes = noSync().readFile((*again)->messagePath(r->uid));
  ASSERT_TRUE(bytes.ok()) << what;
  EXPECT_EQ(sha1Of(*bytes), r->guid) << what;
}

Status repair(const std::string& dir) {
  ReconstructOptions ro;
  ro.fill_cache = [](std::string_view) { return CacheEntry{}; };
  auto report = reconstructMailbox(noSync(), dir, ro);
  return report.ok() ? Status::ok() : report.status();
}

struct Mode {
  bool torn = false;
  bool repair = false;      // reconstructMailbox after the cut, as a repair would
  bool concurrent = false;  // another session expunges and rewrites inside the purge
};

class PurgeCrashTest : public ::testing::TestWithParam<Mode> {
 protected:
  static void SetUpTestSuite() {
    if (!g_template) buildTemplate();
  }
};

TEST_P(PurgeCrashTest, PowerCutAfterEveryOperation) {
  ASSERT_TRUE(g_template) << "the set-up failed";
  const Mode mode = GetParam();
  uint64_t total_ops = 0;
  {
    auto t = io::TempDir::create("purge-crash");
    ASSERT_TRUE(t.ok());
    std::string box = copyTemplate(*t);
    io::FaultyEnv counting(&noSync());
    Outcome o = runPurge(counting, box, mode.concurrent);
    total_ops = counting.opCount();
    ASSERT_TRUE(o.purge_ok);
    ASSERT_EQ(o.concurrent_compacted, mode.concurrent);
    Checked c = check(box, o, false, true, "without a cut");
    followUp(box, t->file("stage"), c, "without a cut");
  }
  // Step 1's rewrite, two temporaries written and synced, the header, two renames, a
  // directory fsync, five unlinks and another fsync: far more than a handful.
  ASSERT_GE(total_ops, 20u);

  size_t cuts_held = 0, cuts_purged = 0, cuts_orphaned = 0, cuts_raised_held = 0;
  for (uint64_t n = 0; n <= total_ops; ++n) {
    const std::string what =
        "cut after op " + std::to_string(n) + " of " + std::to_string(total_ops);
    auto t = io::TempDir::create("purge-crash");
    ASSERT_TRUE(t.ok());
    std::string box = copyTemplate(*t);
    Outcome o;
    {
      io::FaultyEnv env(&noSync());
      if (mode.torn) env.tornWrites(true, n + 1);
      env.losePowerAfterOps(n);
      o = runPurge(env, box, mode.concurrent);
      env.losePowerNow();
      ASSERT_TRUE(env.recoverFromPowerLoss().isOk()) << what;
    }
    if (n == total_ops) {
      EXPECT_TRUE(o.purge_ok) << what << ": nothing was cut";
    }
    if (mode.repair) {
      Status s = repair(box);
      ASSERT_TRUE(s.isOk()) << what << ": reconstruct: " << s.toString();
    }
    Checked c = check(box, o, mode.repair, /*strict_cache=*/true, what);
    if (::testing::Test::HasFatalFailure()) return;
    bool any_gone = false;
    for (uint32_t uid : expect(o).purgeable) any_gone = any_gone || !c.expunged.contains(uid);
    (any_gone ? cuts_purged : cuts_held) += 1;
    cuts_raised_held += c.raised && !any_gone ? 1 : 0;
    cuts_orphaned += c.orphans.empty() ? 0 : 1;
    followUp(box, t->file("stage"), c, what);
    if (::testing::Test::HasFatalFailure()) return;
  }
  // Both outcomes happen; some cuts fall between the header write and the switch (purged_modseq
  // raised, nothing gone yet); and without a repair the window between the switch and the
  // unlinks leaves files that no record names (reconstruct's job, expunged.md "Crash safety").
  EXPECT_GT(cuts_held, 0u);
  EXPECT_GT(cuts_purged, 0u);
  EXPECT_GT(cuts_raised_held, 0u);
  if (!mode.repair) {
    EXPECT_GT(cuts_orphaned, 0u);
  }
  std::cout << "  " << total_ops + 1 << " cuts: " << cuts_held << " left the messages held, "
            << cuts_purged << " purged (" << cuts_orphaned << " of them leaving unnamed files), "
            << cuts_raised_held << " raised purged_modseq with nothing gone\n";
}

INSTANTIATE_TEST_SUITE_P(PurgeCrash, PurgeCrashTest,
                         ::testing::Values(Mode{false, true, false}, Mode{true, true, false},
                                           Mode{false, false, false}, Mode{true, false, false},
                                           Mode{false, true, true}, Mode{true, true, true},
                                           Mode{false, false, true}, Mode{true, false, true}),
                         [](const auto& info) {
                           const Mode& m = info.param;
                           return std::string(m.repair ? "Reconstruct" : "OpenOnly") +
                                  (m.concurrent ? "Concurrent" : "") + (m.torn ? "Torn" : "Whole");
                         });

// The state a filesystem that keeps the first of two renames may leave (expunged.md, "Crash
// safety": "Header written, renames not (or only the cache's)"): purged_modseq raised, the new
// darius.expunged.cache in place, the old darius.expunged still naming every record with its
// old cache offset, the index temporary beside it, and no file unlinked. Old offsets into
// the new cache must read as nothing, never as another message's record.
class PurgeCrashWindowTest : public ::testing::TestWithParam<bool> {
 protected:
  static void SetUpTestSuite() {
    if (!g_template) buildTemplate();
  }
};

TEST_P(PurgeCrashWindowTest, CacheRenamedIndexNot) {
  ASSERT_TRUE(g_template) << "the set-up failed";
  const bool repaired = GetParam();
  auto t = io::TempDir::create("purge-window");
  ASSERT_TRUE(t.ok());
  std::string dir = copyTemplate(*t);
  const std::string index_path = dir + "/" + std::string(kExpungedFileName);
  {
    auto m = Mailbox::open(noSync(), dir);
    ASSERT_TRUE(m.ok());
    // Step 1 by hand, so that the darius.expunged kept below is the one the switch replaces.
    ASSERT_TRUE((*m)->compact().isOk());
    auto old_index = noSync().readFile(index_path);
    ASSERT_TRUE(old_index.ok());
    auto p = (*m)->purgeExpunged(kNamed);
    ASSERT_TRUE(p.ok()) << p.status().toString();
    ASSERT_EQ(p->uids, (std::vector<uint32_t>{1, 2, 4, 5, 8}));
    auto new_index = noSync().readFile(index_path);
    ASSERT_TRUE(new_index.ok());
    ASSERT_TRUE(io::writeFileAtomic(noSync(), dir + "/" + kIndexTemp, *new_index).isOk());
    ASSERT_TRUE(io::writeFileAtomic(noSync(), index_path, *old_index).isOk());
    for (uint32_t uid : p->uids) {
      ASSERT_TRUE(io::writeFileAtomic(noSync(), (*m)->messagePath(uid), message(uid)).isOk());
    }
  }
  Outcome o;  // the purge never returned
  if (repaired) {
    ASSERT_TRUE(repair(dir).isOk());
  }
  {
    auto m = Mailbox::open(noSync(), dir);
    ASSERT_TRUE(m.ok());
    EXPECT_GE((*m)->index().purged_modseq, expect(o).new_purged_modseq) << "not the window";
  }
  Checked c = check(dir, o, repaired, /*strict_cache=*/false, "cache renamed, index not");
  EXPECT_EQ(c.expunged, (std::set<uint32_t>{1, 2, 3, 4, 5, 6, 8, 9, 11}));
  followUp(dir, t->file("stage"), c, "cache renamed, index not");
}

INSTANTIATE_TEST_SUITE_P(PurgeCrash, PurgeCrashWindowTest, ::testing::Bool(), [](const auto& info) {
  return std::string(info.param ? "Reconstruct" : "OpenOnly");
});

}  // namespace mailbox_purge_crash_test
}  // namespace darius::mailbox
