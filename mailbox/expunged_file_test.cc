// Tests of the expunged index `darius.expunged` and its cache `darius.expunged.cache`
// (docs/formats/expunged.md, mailbox/expunged_file.h): the 1.0 and 1.1 golden files of
// tests/data/formats/expunged/ (an independent Python encoder), torn and damaged records,
// duplicate UIDs, bad headers, appendExpunged onto every kind of file the format allows, and
// appendExpunged cut by a power loss after each of its operations (FaultyEnv).
#include "mailbox/expunged_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "lib/io/faulty_env.h"
#include "lib/io/temp_dir.h"
#include "mailbox/cache_format.h"
#include "mailbox/message_stage.h"

namespace darius::mailbox {
namespace expunged_file_test {

using base::Code;
using base::Status;

std::string sourceDir() {
  if (const char* src = std::getenv("DARIUS_SOURCE_DIR")) return src;
  std::string here = __FILE__;  // run by hand: derive the tree from this file's path
  return here.substr(0, here.rfind("/mailbox/"));
}

std::string goldenDir(const std::string& version) {
  return sourceDir() + "/tests/data/formats/expunged/" + version;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void put(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

// The golden messages and what the Python encoder derives from them
// (tests/data/formats/expunged/README.md); kept apart from it on purpose.
std::string goneMessage(uint32_t uid) {
  return "From: a@example.com\r\nSubject: gone " + std::to_string(uid) + "\r\n\r\nbody " +
         std::to_string(uid) + "\r\n";
}

Guid goneGuid(uint32_t uid) { return sha1Of(goneMessage(uid)); }

IndexRecord goneRecord(uint32_t uid, uint32_t flags, uint64_t cache_offset, int64_t expunged_at) {
  std::string m = goneMessage(uid);
  IndexRecord r;
  r.uid = uid;
  r.system_flags = flags | kFlagExpunged;
  r.internal_date = 1790000000 + uid;
  r.save_date = 1790000100 + uid;
  r.size = m.size();
  r.modseq = 50 + uid;
  r.cache_offset = cache_offset;
  r.header_size = static_cast<uint32_t>(m.find("\r\n\r\n") + 4);
  r.tz_offset_minutes = 60;
  r.setUserFlag(static_cast<int>(uid), true);
  r.guid = goneGuid(uid);
  r.thread_id = 1000 + uid;
  r.expunged_at = expunged_at;
  return r;
}

CacheEntry goneCache(uint32_t uid) {
  CacheEntry e;
  e.envelope = "(NIL \"gone " + std::to_string(uid) + "\" NIL NIL NIL NIL NIL NIL NIL NIL)";
  if (uid == 9) {
    e.bodystructure =
        "(\"TEXT\" \"PLAIN\" (\"CHARSET\" \"us-ascii\") NIL NIL \"7BIT\" 8 1 NIL NIL NIL NIL)";
    e.body = "(\"TEXT\" \"PLAIN\" (\"CHARSET\" \"us-ascii\") NIL NIL \"7BIT\" 8 1)";
    e.headers = "From: a@example.com\r\nSubject: gone 9\r\n\r\n";
  }
  e.preview = "body " + std::to_string(uid);
  return e;
}

std::string goneCacheRecord(uint32_t uid) {
  Guid g = goneGuid(uid);
  return encodeCacheRecord(goneCache(uid), guidBytes(g));
}

constexpr uint32_t kSeenFlaggedDeleted = kFlagSeen | kFlagFlagged | kFlagDeleted;

std::vector<uint32_t> uidsOf(const std::vector<IndexRecord>& records) {
  std::vector<uint32_t> out;
  for (const IndexRecord& r : records) out.push_back(r.uid);
  return out;
}

std::vector<uint32_t> uidsOf(const ExpungedIndex& e) { return uidsOf(e.records); }

// A plain expunged record for the synthetic files below.
IndexRecord plain(uint32_t uid) { return goneRecord(uid, kFlagSeen, 0, 1790086400 + uid); }

TEST(ExpungedFile, GoldenV10) {
  std::string file = slurp(goldenDir("v1.0") + "/darius.expunged");
  ASSERT_EQ(file.size(), kExpungedHeaderSize + 2 * kIndexRecordSize);
  // 1.0 records carried offsets into the live cache of their time, and no expunged_at.
  EXPECT_EQ(file, expungedFileHeader(0) + encodeIndexRecord(goneRecord(3, kFlagSeen, 32, 0)) +
                      encodeIndexRecord(goneRecord(4, kSeenFlaggedDeleted, 210, 0)));
  auto e = parseExpungedIndex(file);
  ASSERT_TRUE(e.ok()) << e.status().toString();
  EXPECT_EQ(e->minor, 0);
  EXPECT_EQ(e->end, file.size());
  EXPECT_TRUE(e->damaged.empty());
  // Those offsets must not be followed: they read as none.
  EXPECT_EQ(e->records, (std::vector<IndexRecord>{goneRecord(3, kFlagSeen, 0, 0),
                                                  goneRecord(4, kSeenFlaggedDeleted, 0, 0)}));
  auto read = readExpungedIndex(*io::Env::posix(), goldenDir("v1.0"));
  ASSERT_TRUE(read.ok()) << read.status().toString();
  EXPECT_EQ(read->records, e->records);
}

TEST(ExpungedFile, GoldenV11) {
  std::string index = slurp(goldenDir("v1.1") + "/darius.expunged");
  std::string cache = slurp(goldenDir("v1.1") + "/darius.expunged.cache");
  const std::string dead = goneCacheRecord(8);
  const uint64_t off3 = kCacheHeaderSize + dead.size();
  const uint64_t off9 = off3 + goneCacheRecord(3).size();
  ASSERT_EQ(off3, 127u);  // as the README says
  ASSERT_EQ(off9, 222u);
  const std::vector<IndexRecord> want = {
      goneRecord(3, kFlagSeen, off3, 1790086403),
      goneRecord(4, kSeenFlaggedDeleted, 0, 1790086404),
      goneRecord(9, kFlagAnswered | kFlagDeleted, off9, 1790086409)};
  // The C++ encoders write the same bytes as the Python one.
  std::string encoded = expungedFileHeader(1);
  for (const IndexRecord& r : want) encoded += encodeIndexRecord(r);
  EXPECT_EQ(index, encoded);
  EXPECT_EQ(cache, encodeCacheHeader(1) + dead + goneCacheRecord(3) + goneCacheRecord(9));

  auto e = parseExpungedIndex(index);
  ASSERT_TRUE(e.ok()) << e.status().toString();
  EXPECT_EQ(e->minor, 1);
  EXPECT_EQ(e->end, index.size());
  EXPECT_TRUE(e->damaged.empty());
  EXPECT_EQ(e->records, want);
  auto read = readExpungedIndex(*io::Env::posix(), goldenDir("v1.1"));
  ASSERT_TRUE(read.ok()) << read.status().toString();
  EXPECT_EQ(read->records, want);

  // Each record finds its own cache record, and only that.
  for (const IndexRecord& r : e->records) {
    std::string c = cacheRecordAt(cache, r.cache_offset, guidBytes(r.guid));
    if (r.uid == 4) {
      EXPECT_EQ(c, "") << "UID 4 has no cache record";
      continue;
    }
    EXPECT_EQ(c, goneCacheRecord(r.uid)) << "UID " << r.uid;
    auto entry = decodeCacheRecordOf(c, guidBytes(r.guid));
    ASSERT_TRUE(entry.ok()) << entry.status().toString();
    EXPECT_EQ(*entry, goneCache(r.uid));
  }
  // The dead record at 32 is UID 8's: found for its GUID, refused for another.
  EXPECT_EQ(cacheRecordAt(cache, kCacheHeaderSize, guidBytes(goneGuid(8))), dead);
  EXPECT_EQ(cacheRecordAt(cache, kCacheHeaderSize, guidBytes(goneGuid(3))), "");
  // Offsets that do not start a record of the message read as none.
  EXPECT_EQ(cacheRecordAt(cache, off3 + 1, guidBytes(goneGuid(3))), "");
  EXPECT_EQ(cacheRecordAt(cache, off9, guidBytes(goneGuid(3))), "");
  EXPECT_EQ(cacheRecordAt(cache, 0, guidBytes(goneGuid(3))), "");
  EXPECT_EQ(cacheRecordAt(cache, cache.size(), guidBytes(goneGuid(3))), "");
  EXPECT_EQ(cacheRecordAt(cache, cache.size() + 1000, guidBytes(goneGuid(3))), "");
  EXPECT_EQ(cacheRecordAt(cache.substr(0, cache.size() - 1), off9, guidBytes(goneGuid(9))), "");
  // An offset near 2^64 (a damaged record whose CRC still holds) must not wrap around.
  EXPECT_EQ(cacheRecordAt(cache, UINT64_MAX - 3, guidBytes(goneGuid(3))), "");
}

TEST(ExpungedFile, TornLastRecordIsIgnored) {
  const std::string base = expungedFileHeader() + encodeIndexRecord(plain(1)) +
                           encodeIndexRecord(plain(2));
  const std::string next = encodeIndexRecord(plain(3));
  auto check = [&](const std::string& file, const std::string& what) {
    auto e = parseExpungedIndex(file);
    ASSERT_TRUE(e.ok()) << what << ": " << e.status().toString();
    EXPECT_EQ(uidsOf(*e), (std::vector<uint32_t>{1, 2})) << what;
    EXPECT_EQ(e->end, base.size()) << what;
    EXPECT_TRUE(e->damaged.empty()) << what;
  };
  for (size_t cut = 0; cut < next.size(); ++cut) {
    check(base + next.substr(0, cut), "cut at " + std::to_string(cut));
  }
  // A whole last slot that fails its CRC: the disk kept the size but not all the bytes.
  std::string bad = next;
  bad[40] ^= 0x10;
  check(base + bad, "bad CRC in the last slot");
  check(base + std::string(kIndexRecordSize, '\0'), "zeros in the last slot");
  check(base + bad + next.substr(0, 10), "bad last slot and a torn rest");
  // With nothing torn, the third record is there.
  auto whole = parseExpungedIndex(base + next);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(uidsOf(*whole), (std::vector<uint32_t>{1, 2, 3}));
}

TEST(ExpungedFile, DamagedMiddleRecordIsReported) {
  std::string bad = encodeIndexRecord(plain(2));
  bad[72] ^= 0x01;  // a GUID bit: only the CRC can tell
  std::string file = expungedFileHeader() + encodeIndexRecord(plain(1)) + bad +
                     encodeIndexRecord(plain(3));
  auto e = parseExpungedIndex(file);
  ASSERT_TRUE(e.ok()) << e.status().toString();
  EXPECT_EQ(uidsOf(*e), (std::vector<uint32_t>{1, 3}));
  EXPECT_EQ(e->damaged, (std::vector<uint64_t>{kExpungedHeaderSize + kIndexRecordSize}));
  EXPECT_EQ(e->end, file.size());
  // Still damage when a torn record follows.
  auto torn = parseExpungedIndex(file + encodeIndexRecord(plain(4)).substr(0, 77));
  ASSERT_TRUE(torn.ok()) << torn.status().toString();
  EXPECT_EQ(uidsOf(*torn), (std::vector<uint32_t>{1, 3}));
  EXPECT_EQ(torn->damaged, (std::vector<uint64_t>{kExpungedHeaderSize + kIndexRecordSize}));
  EXPECT_EQ(torn->end, file.size());
}

TEST(ExpungedFile, DuplicateUidKeepsTheLast) {
  IndexRecord first = plain(5);
  IndexRecord again = plain(5);
  again.system_flags |= kFlagAnswered;
  again.modseq = 99;
  again.expunged_at += 60;
  std::string file = expungedFileHeader() + encodeIndexRecord(first) + encodeIndexRecord(plain(2)) +
                     encodeIndexRecord(again);
  auto e = parseExpungedIndex(file);
  ASSERT_TRUE(e.ok()) << e.status().toString();
  EXPECT_EQ(e->records, (std::vector<IndexRecord>{plain(2), again}));
  EXPECT_TRUE(e->damaged.empty());
  EXPECT_EQ(e->end, file.size());
}

TEST(ExpungedFile, BadHeaderIsCorruption) {
  const std::string good = expungedFileHeader() + encodeIndexRecord(plain(1));
  ASSERT_TRUE(parseExpungedIndex(good).ok());
  auto expectCorrupt = [](std::string file, const std::string& what) {
    auto e = parseExpungedIndex(file);
    ASSERT_FALSE(e.ok()) << what;
    EXPECT_EQ(e.status().code(), Code::kCorruption) << what;
  };
  std::string magic = good;
  magic[7] = 'Y';
  expectCorrupt(magic, "bad magic");
  expectCorrupt(std::string(kIndexMagic) + good.substr(8), "the live index's magic");
  for (uint16_t major : {0, 2, 256}) {
    std::string v = good;
    v[8] = static_cast<char>(major & 0xff);
    v[9] = static_cast<char>(major >> 8);
    expectCorrupt(v, "major " + std::to_string(major));
  }
  for (uint32_t size : {0u, 64u, 129u, 256u}) {
    std::string v = good;
    for (int i = 0; i < 4; ++i) v[12 + i] = static_cast<char>((size >> (8 * i)) & 0xff);
    expectCorrupt(v, "record size " + std::to_string(size));
  }
  expectCorrupt(good.substr(0, kExpungedHeaderSize - 1), "short header");
  // A later minor only gives meaning to reserved bytes: read.
  std::string later = good;
  later[10] = 7;
  auto e = parseExpungedIndex(later);
  ASSERT_TRUE(e.ok()) << e.status().toString();
  EXPECT_EQ(e->minor, 7);
  EXPECT_EQ(uidsOf(*e), std::vector<uint32_t>{1});
}

class ExpungedFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto t = io::TempDir::create("expunged-test");
    ASSERT_TRUE(t.ok());
    tmp_ = std::make_unique<io::TempDir>(std::move(*t));
    dir_ = tmp_->path();
  }
  io::Env& env() { return *io::Env::posix(); }
  std::string indexPath() const { return dir_ + "/" + std::string(kExpungedFileName); }
  std::string cachePath() const { return dir_ + "/" + std::string(kExpungedCacheFileName); }
  std::string indexBytes() { return slurp(indexPath()); }
  std::string cacheBytes() { return slurp(cachePath()); }

  // Parses the file, expecting no damage, and checks that every record with a cache offset
  // finds its cache record there.
  ExpungedIndex readAll() {
    auto e = readExpungedIndex(env(), dir_);
    EXPECT_TRUE(e.ok()) << e.status().toString();
    if (!e.ok()) return {};
    EXPECT_TRUE(e->damaged.empty());
    std::string cache = cacheBytes();
    for (const IndexRecord& r : e->records) {
      if (r.cache_offset == 0) continue;
      std::string c = cacheRecordAt(cache, r.cache_offset, guidBytes(r.guid));
      EXPECT_FALSE(c.empty()) << "UID " << r.uid << " at " << r.cache_offset;
      if (!c.empty()) {
        EXPECT_TRUE(decodeCacheRecordOf(c, guidBytes(r.guid)).ok());
      }
    }
    return *e;
  }

  std::unique_ptr<io::TempDir> tmp_;
  std::string dir_;
};

ExpungedEntry withCache(uint32_t uid) {
  // A stale offset from the live cache: appendExpunged must replace it.
  IndexRecord r = goneRecord(uid, kFlagSeen, 4321, 1790086400 + uid);
  return {r, goneCacheRecord(uid)};
}

ExpungedEntry withoutCache(uint32_t uid) {
  return {goneRecord(uid, kFlagSeen, 4321, 1790086400 + uid), ""};
}

TEST_F(ExpungedFileTest, ReadingNoFileGivesAnEmptyIndex) {
  auto e = readExpungedIndex(env(), dir_);
  ASSERT_TRUE(e.ok()) << e.status().toString();
  EXPECT_TRUE(e->records.empty());
  EXPECT_EQ(e->end, kExpungedHeaderSize);
  put(indexPath(), "DARIUSIX" + std::string(200, '\0'));
  auto bad = readExpungedIndex(env(), dir_);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kCorruption);
  EXPECT_NE(bad.status().message().find(indexPath()), std::string::npos) << bad.status().toString();
}

TEST_F(ExpungedFileTest, AppendOntoMissingFileCreatesBoth) {
  std::vector<ExpungedEntry> batch = {withCache(3), withoutCache(4)};
  ASSERT_TRUE(appendExpunged(env(), dir_, batch).isOk());
  EXPECT_EQ(batch[0].record.cache_offset, kCacheHeaderSize);
  EXPECT_EQ(batch[1].record.cache_offset, 0u);
  IndexRecord r3 = goneRecord(3, kFlagSeen, kCacheHeaderSize, 1790086403);
  IndexRecord r4 = goneRecord(4, kFlagSeen, 0, 1790086404);
  EXPECT_EQ(indexBytes(), expungedFileHeader(1) + encodeIndexRecord(r3) + encodeIndexRecord(r4));
  EXPECT_EQ(cacheBytes(), encodeCacheHeader(1) + goneCacheRecord(3));
  EXPECT_EQ(readAll().records, (std::vector<IndexRecord>{r3, r4}));

  // A second append goes after both files' ends.
  std::vector<ExpungedEntry> more = {withCache(9), withCache(7)};
  ASSERT_TRUE(appendExpunged(env(), dir_, more).isOk());
  const uint64_t off9 = kCacheHeaderSize + goneCacheRecord(3).size();
  EXPECT_EQ(more[0].record.cache_offset, off9);
  EXPECT_EQ(more[1].record.cache_offset, off9 + goneCacheRecord(9).size());
  ExpungedIndex e = readAll();
  EXPECT_EQ(uidsOf(e), (std::vector<uint32_t>{3, 4, 7, 9}));
  EXPECT_EQ(e.end, indexBytes().size());
  std::string cache = cacheBytes();
  for (uint32_t uid : {3u, 7u, 9u}) {
    const IndexRecord& r = *std::find_if(e.records.begin(), e.records.end(),
                                         [uid](const IndexRecord& x) { return x.uid == uid; });
    auto entry = decodeCacheRecordOf(cacheRecordAt(cache, r.cache_offset, guidBytes(r.guid)),
                                     guidBytes(r.guid));
    ASSERT_TRUE(entry.ok()) << "UID " << uid << ": " << entry.status().toString();
    EXPECT_EQ(*entry, goneCache(uid));
  }
}

TEST_F(ExpungedFileTest, AppendWithoutCacheRecordsMakesNoCacheFile) {
  std::vector<ExpungedEntry> batch = {withoutCache(3)};
  ASSERT_TRUE(appendExpunged(env(), dir_, batch).isOk());
  EXPECT_EQ(readAll().records,
            (std::vector<IndexRecord>{goneRecord(3, kFlagSeen, 0, 1790086403)}));
  auto exists = env().fileExists(cachePath());
  ASSERT_TRUE(exists.ok());
  EXPECT_FALSE(*exists);
  std::vector<ExpungedEntry> none;
  ASSERT_TRUE(appendExpunged(env(), dir_, none).isOk());
}

TEST_F(ExpungedFileTest, AppendOntoV10RewritesItAsV11) {
  put(indexPath(), slurp(goldenDir("v1.0") + "/darius.expunged"));
  std::vector<ExpungedEntry> batch = {withCache(9)};
  ASSERT_TRUE(appendExpunged(env(), dir_, batch).isOk());
  // The old records lose their offsets into a cache that is not this one.
  IndexRecord r9 = goneRecord(9, kFlagSeen, kCacheHeaderSize, 1790086409);
  EXPECT_EQ(indexBytes(), expungedFileHeader(1) +
                              encodeIndexRecord(goneRecord(3, kFlagSeen, 0, 0)) +
                              encodeIndexRecord(goneRecord(4, kSeenFlaggedDeleted, 0, 0)) +
                              encodeIndexRecord(r9));
  ExpungedIndex e = readAll();
  EXPECT_EQ(e.minor, 1);
  EXPECT_EQ(uidsOf(e), (std::vector<uint32_t>{3, 4, 9}));
  EXPECT_EQ(cacheRecordAt(cacheBytes(), r9.cache_offset, guidBytes(r9.guid)), goneCacheRecord(9));
  // writeFileAtomic's temporary file is gone.
  auto names = env().listDir(dir_);
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{std::string(kExpungedFileName),
                                              std::string(kExpungedCacheFileName)}));
}

TEST_F(ExpungedFileTest, AppendWritesOverATornTail) {
  const std::string base = expungedFileHeader() + encodeIndexRecord(plain(1));
  for (size_t torn : {1u, 50u, 127u}) {
    put(indexPath(), base + encodeIndexRecord(plain(2)).substr(0, torn));
    std::vector<ExpungedEntry> batch = {withoutCache(3), withoutCache(4)};
    ASSERT_TRUE(appendExpunged(env(), dir_, batch).isOk());
    EXPECT_EQ(indexBytes().size(), base.size() + 2 * kIndexRecordSize) << "torn " << torn;
    ExpungedIndex e = readAll();
    EXPECT_EQ(uidsOf(e), (std::vector<uint32_t>{1, 3, 4})) << "torn " << torn;
    EXPECT_EQ(e.end, indexBytes().size());
  }
}

// expunged.md: "a torn last record (fewer than 128 bytes, or a bad CRC in the last slot) ...
// is written over by the next append". A whole last slot of zeros is what a filesystem that
// made the size durable before the data leaves; parseExpungedIndex does not count it as damage,
// so the append must not turn it into damage in the middle of the file: it appends at `end`.
TEST_F(ExpungedFileTest, AppendWritesOverABadLastSlot) {
  const std::string base = expungedFileHeader() + encodeIndexRecord(plain(1));
  put(indexPath(), base + std::string(kIndexRecordSize, '\0'));
  std::vector<ExpungedEntry> batch = {withoutCache(3)};
  ASSERT_TRUE(appendExpunged(env(), dir_, batch).isOk());
  EXPECT_EQ(indexBytes().size(), base.size() + kIndexRecordSize);
  ExpungedIndex e = readAll();
  EXPECT_EQ(uidsOf(e), (std::vector<uint32_t>{1, 3}));
}

TEST_F(ExpungedFileTest, AppendStartsACacheShorterThanItsHeaderAgain) {
  put(cachePath(), "DARIUSCA\1");  // a header torn by a crash
  std::vector<ExpungedEntry> batch = {withCache(3)};
  ASSERT_TRUE(appendExpunged(env(), dir_, batch).isOk());
  EXPECT_EQ(cacheBytes(), encodeCacheHeader(1) + goneCacheRecord(3));
  EXPECT_EQ(readAll().records[0].cache_offset, kCacheHeaderSize);
}

TEST_F(ExpungedFileTest, AppendRefusesACorruptFileAndLeavesIt) {
  const std::string junk = "DARIUSEY" + std::string(300, 'x');
  put(indexPath(), junk);
  std::vector<ExpungedEntry> batch = {withCache(3)};
  Status s = appendExpunged(env(), dir_, batch);
  EXPECT_EQ(s.code(), Code::kCorruption) << s.toString();
  EXPECT_EQ(indexBytes(), junk);
}

// Power cut after every mutating operation of appendExpunged in turn, from each kind of
// starting file, with unsynced appends lost whole or torn. What remains must parse without
// damage or corruption, as the old records followed by some leading part of the batch (all of
// it if the call returned ok: expunged.md allows a part, since the records are still in the
// live index until the append returns), and old records must still find their cache records.
// Then the rewrite runs again, as it does after a crash, appending the same batch, and every
// record must be there once, with its cache record, in a file that ends after its last record.
enum class Start { kNone, kV10, kV11, kV11TornTail };

struct CrashMode {
  Start start;
  bool torn;
};

class ExpungedAppendCrashTest : public ::testing::TestWithParam<CrashMode> {
 protected:
  static void prepare(const std::string& dir, Start start) {
    const std::string index = dir + "/" + std::string(kExpungedFileName);
    const std::string cache = dir + "/" + std::string(kExpungedCacheFileName);
    switch (start) {
      case Start::kNone:
        break;
      case Start::kV10:
        put(index, slurp(goldenDir("v1.0") + "/darius.expunged"));
        break;
      case Start::kV11:
      case Start::kV11TornTail: {
        std::string bytes = slurp(goldenDir("v1.1") + "/darius.expunged");
        if (start == Start::kV11TornTail) bytes += encodeIndexRecord(plain(10)).substr(0, 40);
        put(index, bytes);
        put(cache, slurp(goldenDir("v1.1") + "/darius.expunged.cache"));
        break;
      }
    }
  }

  // UIDs ascending, so that a leading part of the batch is a leading part of the records.
  static std::vector<ExpungedEntry> batch() {
    return {withCache(11), withoutCache(12), withCache(13)};
  }

  // Parses what is in `dir` through the real filesystem and checks that each cache offset
  // finds its record; for UIDs of the batch (11 and up) only when `new_cache_strict`.
  static ExpungedIndex readBack(const std::string& dir, const std::string& what,
                                bool new_cache_strict = true) {
    auto e = readExpungedIndex(*io::Env::posix(), dir);
    EXPECT_TRUE(e.ok()) << what << ": " << e.status().toString();
    if (!e.ok()) return {};
    EXPECT_TRUE(e->damaged.empty()) << what;
    std::string cache = slurp(dir + "/" + std::string(kExpungedCacheFileName));
    for (const IndexRecord& r : e->records) {
      if (r.cache_offset == 0 || (r.uid >= 11 && !new_cache_strict)) continue;
      EXPECT_EQ(cacheRecordAt(cache, r.cache_offset, guidBytes(r.guid)), goneCacheRecord(r.uid))
          << what << ": UID " << r.uid << " at " << r.cache_offset;
    }
    return *e;
  }
};

TEST_P(ExpungedAppendCrashTest, PowerCutAfterEveryOperation) {
  const Start start = GetParam().start;
  std::vector<IndexRecord> before, after;
  uint64_t total_ops = 0;
  {
    auto t = io::TempDir::create("expunged-crash");
    ASSERT_TRUE(t.ok());
    prepare(t->path(), start);
    before = readExpungedIndex(*io::Env::posix(), t->path())->records;
    io::FaultyEnv counting(io::Env::posix());
    std::vector<ExpungedEntry> entries = batch();
    ASSERT_TRUE(appendExpunged(counting, t->path(), entries).isOk());
    total_ops = counting.opCount();
    after = readBack(t->path(), "without a cut").records;
  }
  ASSERT_EQ(after.size(), before.size() + 3);
  ASSERT_GE(total_ops, 6u);  // at least open, write and sync of each file
  // A cache file this append creates is named durably before any record names it
  // (expunged.md, "Append"), so every start is checked strictly.
  const bool new_cache_strict = true;

  for (uint64_t n = 0; n <= total_ops; ++n) {
    const std::string what = "cut after op " + std::to_string(n) + " of " +
                             std::to_string(total_ops);
    auto t = io::TempDir::create("expunged-crash");
    ASSERT_TRUE(t.ok());
    prepare(t->path(), start);
    bool acked = false;
    {
      io::FaultyEnv env(io::Env::posix());
      if (GetParam().torn) env.tornWrites(true, n + 1);
      env.losePowerAfterOps(n);
      std::vector<ExpungedEntry> entries = batch();
      acked = appendExpunged(env, t->path(), entries).isOk();
      env.losePowerNow();
      ASSERT_TRUE(env.recoverFromPowerLoss().isOk()) << what;
    }
    ExpungedIndex got = readBack(t->path(), what, new_cache_strict);
    ASSERT_GE(got.records.size(), before.size()) << what;
    ASSERT_LE(got.records.size(), after.size()) << what;
    std::vector<IndexRecord> old(got.records.begin(),
                                 got.records.begin() + static_cast<ptrdiff_t>(before.size()));
    EXPECT_EQ(old, before) << what;
    for (size_t i = before.size(); i < got.records.size(); ++i) {
      IndexRecord want = after[i];
      if (!new_cache_strict) want.cache_offset = got.records[i].cache_offset;
      EXPECT_EQ(got.records[i], want) << what << ": record " << i;
    }
    if (acked) {
      EXPECT_EQ(got.records, after) << what << ": acknowledged, so all must be there";
    }

    // The rewrite, not having finished, runs again with the same records.
    std::vector<ExpungedEntry> again = batch();
    Status s = appendExpunged(*io::Env::posix(), t->path(), again);
    ASSERT_TRUE(s.isOk()) << what << ": " << s.toString();
    ExpungedIndex healed = readBack(t->path(), what + ", then the append again");
    EXPECT_EQ(uidsOf(healed), uidsOf(after)) << what;
    EXPECT_EQ(healed.end, slurp(t->path() + "/" + std::string(kExpungedFileName)).size()) << what;
  }
}

std::string crashModeName(const ::testing::TestParamInfo<CrashMode>& p) {
  static const char* const kNames[] = {"None", "V10", "V11", "V11TornTail"};
  return std::string(kNames[static_cast<int>(p.param.start)]) + (p.param.torn ? "Torn" : "Whole");
}

INSTANTIATE_TEST_SUITE_P(
    Starts, ExpungedAppendCrashTest,
    ::testing::Values(CrashMode{Start::kNone, false}, CrashMode{Start::kNone, true},
                      CrashMode{Start::kV10, false}, CrashMode{Start::kV10, true},
                      CrashMode{Start::kV11, false}, CrashMode{Start::kV11, true},
                      CrashMode{Start::kV11TornTail, false},
                      CrashMode{Start::kV11TornTail, true}),
    crashModeName);

}  // namespace expunged_file_test
}  // namespace darius::mailbox
