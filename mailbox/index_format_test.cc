// Tests of the byte formats of the mailbox files: the index (docs/formats/index.md), the cache
// (cache.md) and the mailbox header (header.md), golden files of every version included.
#include "mailbox/index_format.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "mailbox/cache_format.h"
#include "mailbox/header_file.h"
#include "mailbox/message_stage.h"

namespace darius::mailbox {
namespace index_format_test {

IndexHeader sampleHeader() {
  IndexHeader h;
  h.generation = 3;
  h.num_records = 2;
  h.num_expunged = 1;
  h.uidvalidity = 1700000000;
  h.uidnext = 8;
  h.highest_modseq = 42;
  h.quota_used = 12345;
  h.num_deleted = 1;
  h.num_seen = 1;
  h.num_answered = 0;
  h.num_flagged = 1;
  h.last_append_date = 1790000000;
  h.cache_generation = 1;
  h.prev_num_records = 1;
  h.tail_crc = 0xdeadbeef;
  h.recent_uid = 17;
  h.purged_modseq = 38;
  return h;
}

// The sample header as each version's writer made it, with the minor pinned, so that the
// golden files of a version keep being compared with that version's bytes when kIndexMinor
// moves on.
IndexHeader sampleHeaderV12() {
  IndexHeader h = sampleHeader();
  h.minor = 2;
  return h;
}

// 1.1: no purged_modseq.
IndexHeader sampleHeaderV11() {
  IndexHeader h = sampleHeaderV12();
  h.minor = 1;
  h.purged_modseq = 0;
  return h;
}

// 1.0: no recent_uid either.
IndexHeader sampleHeaderV10() {
  IndexHeader h = sampleHeaderV11();
  h.minor = 0;
  h.recent_uid = 0;
  return h;
}

IndexRecord sampleRecord(uint32_t uid) {
  IndexRecord r;
  r.uid = uid;
  r.system_flags = kFlagSeen | kFlagFlagged;
  r.internal_date = 1790000000 + uid;
  r.save_date = 1790000100;
  r.size = 4096 + uid;
  r.modseq = 40 + uid;
  r.cache_offset = 32 + 100 * uid;
  r.header_size = 700;
  r.tz_offset_minutes = -300;
  r.setUserFlag(0, true);
  r.setUserFlag(127, true);
  for (size_t i = 0; i < r.guid.size(); ++i) r.guid[i] = static_cast<uint8_t>(i * 7 + uid);
  r.thread_id = 99;
  return r;
}

// A sample record after EXPUNGE under 1.2: the expunged bit and the expunge's time.
IndexRecord expungedRecord(uint32_t uid) {
  IndexRecord r = sampleRecord(uid);
  r.system_flags |= kFlagExpunged;
  r.expunged_at = 1790086400;
  return r;
}

std::string sourceDir() {
  if (const char* src = std::getenv("DARIUS_SOURCE_DIR")) return src;
  std::string here = __FILE__;  // run by hand: derive the tree from this file's path
  return here.substr(0, here.rfind("/mailbox/"));
}

TEST(IndexFormat, HeaderRoundTripAndSize) {
  std::string b = encodeIndexHeader(sampleHeader());
  ASSERT_EQ(b.size(), kIndexHeaderSize);
  auto h = decodeIndexHeader(b);
  ASSERT_TRUE(h.ok()) << h.status().toString();
  EXPECT_EQ(*h, sampleHeader());
}

TEST(IndexFormat, RecordRoundTripAndSize) {
  std::string b = encodeIndexRecord(sampleRecord(5));
  ASSERT_EQ(b.size(), kIndexRecordSize);
  auto r = decodeIndexRecord(b);
  ASSERT_TRUE(r.ok()) << r.status().toString();
  EXPECT_EQ(*r, sampleRecord(5));
  EXPECT_TRUE(r->hasUserFlag(0));
  EXPECT_TRUE(r->hasUserFlag(127));
  EXPECT_FALSE(r->hasUserFlag(64));
}

TEST(IndexFormat, EveryFlippedByteIsDetected) {
  std::string h = encodeIndexHeader(sampleHeader());
  for (size_t i = 0; i < h.size(); ++i) {
    std::string bad = h;
    bad[i] ^= 0x20;
    EXPECT_FALSE(decodeIndexHeader(bad).ok()) << "header byte " << i;
  }
  std::string r = encodeIndexRecord(sampleRecord(5));
  for (size_t i = 0; i < r.size(); ++i) {
    std::string bad = r;
    bad[i] ^= 0x01;
    EXPECT_FALSE(decodeIndexRecord(bad).ok()) << "record byte " << i;
  }
}

TEST(IndexFormat, RefusesWrongVersionTruncationAndNonsense) {
  std::string h = encodeIndexHeader(sampleHeader());
  EXPECT_FALSE(decodeIndexHeader(h.substr(0, 100)).ok());
  IndexHeader v2 = sampleHeader();
  v2.major = 2;
  auto r = decodeIndexHeader(encodeIndexHeader(v2));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("version 2"), std::string::npos);
  IndexHeader nonsense = sampleHeader();
  nonsense.num_expunged = 9;  // more than num_records
  EXPECT_FALSE(decodeIndexHeader(encodeIndexHeader(nonsense)).ok());
  IndexRecord zero = sampleRecord(0);
  EXPECT_FALSE(decodeIndexRecord(encodeIndexRecord(zero)).ok());
  IndexRecord bad_flags = sampleRecord(3);
  bad_flags.system_flags |= 1u << 10;
  EXPECT_FALSE(decodeIndexRecord(encodeIndexRecord(bad_flags)).ok());
}

TEST(IndexFormat, AccountingAddsAndRemoves) {
  IndexHeader h;
  IndexRecord r = sampleRecord(1);
  r.system_flags |= kFlagDeleted;
  accountRecord(h, r, +1);
  EXPECT_EQ(h.num_seen, 1u);
  EXPECT_EQ(h.num_deleted, 1u);
  EXPECT_EQ(h.num_flagged, 1u);
  EXPECT_EQ(h.quota_used, r.size);
  accountRecord(h, r, -1);
  EXPECT_EQ(h, IndexHeader{});
  r.system_flags |= kFlagExpunged;  // expunged records count for nothing
  accountRecord(h, r, +1);
  EXPECT_EQ(h, IndexHeader{});
}

TEST(CacheFormat, RoundTripSkipsUnknownTagsAndDetectsDamage) {
  CacheEntry e{"(NIL \"s\")", "(\"TEXT\" \"PLAIN\")", "(\"TEXT\")", "From: a\r\n\r\n",
               std::string("\0\1\2", 3), "hello"};
  std::string rec = encodeCacheRecord(e);
  auto back = decodeCacheRecord(rec + "trailing bytes of the next record");
  ASSERT_TRUE(back.ok()) << back.status().toString();
  EXPECT_EQ(*back, e);
  for (size_t i = 0; i < rec.size(); ++i) {
    std::string bad = rec;
    bad[i] ^= 0x40;
    EXPECT_FALSE(decodeCacheRecord(bad).ok()) << "byte " << i;
  }
  EXPECT_FALSE(decodeCacheRecord(rec.substr(0, rec.size() - 1)).ok());
  auto gen = decodeCacheHeader(encodeCacheHeader(7));
  ASSERT_TRUE(gen.ok());
  EXPECT_EQ(*gen, 7u);
}

// The cache golden file (tests/data/formats/cache/v1, written from docs/formats/cache.md):
// a record from before field 7 and one with the GUID must decode the same forever.
TEST(CacheFormat, GoldenFileV1) {
  std::ifstream in(sourceDir() + "/tests/data/formats/cache/v1/darius.cache", std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string file = ss.str();
  ASSERT_EQ(file.size(), 32u + 68u + 93u);
  auto gen = decodeCacheHeader(file);
  ASSERT_TRUE(gen.ok()) << gen.status().toString();
  EXPECT_EQ(*gen, 3u);
  EXPECT_EQ(file.substr(0, 32), encodeCacheHeader(3));
  CacheEntry want;
  want.envelope = "(NIL \"golden\" NIL NIL NIL NIL NIL NIL NIL NIL)";
  want.preview = "body";
  std::string guid = "x";
  auto old = decodeCacheRecord(std::string_view(file).substr(32), &guid);
  ASSERT_TRUE(old.ok()) << old.status().toString();
  EXPECT_EQ(*old, want);
  EXPECT_TRUE(guid.empty());
  EXPECT_EQ(file.substr(32, 68), encodeCacheRecord(want));
  Guid g = sha1Of("Subject: golden\r\n\r\nbody\r\n");
  std::string_view gv(reinterpret_cast<const char*>(g.data()), g.size());
  auto rec = decodeCacheRecord(std::string_view(file).substr(100), &guid);
  ASSERT_TRUE(rec.ok()) << rec.status().toString();
  EXPECT_EQ(*rec, want);
  EXPECT_EQ(guid, gv);
  EXPECT_EQ(file.substr(100), encodeCacheRecord(want, gv));
}

TEST(CacheFormat, ARecordIsTakenOnlyForItsOwnMessage) {
  CacheEntry e;
  e.envelope = "(NIL)";
  Guid mine = sha1Of("mine"), other = sha1Of("other");
  EXPECT_TRUE(decodeCacheRecordOf(encodeCacheRecord(e, guidBytes(mine)), guidBytes(mine)).ok());
  EXPECT_EQ(decodeCacheRecordOf(encodeCacheRecord(e, guidBytes(other)), guidBytes(mine)).status().code(),
            base::Code::kCorruption);
  // Zeros, as a crash leaves unwritten bytes: a valid CRC of an empty payload.
  EXPECT_EQ(decodeCacheRecordOf(std::string(16, '\0'), guidBytes(mine)).status().code(),
            base::Code::kCorruption);
  // A record from before field 7 is taken when it holds anything.
  EXPECT_TRUE(decodeCacheRecordOf(encodeCacheRecord(e), guidBytes(mine)).ok());
}

TEST(HeaderFile, RoundTripEscapesAndRefusesDamage) {
  MailboxHeader h{"0123abcd", "user\x1f" "alice\x1f" "Sent", 77, {"$Junk", "Work\nInjected"},
                  "alice\tlrswipkxtecdan\t"};
  std::string text = encodeMailboxHeader(h);
  auto back = decodeMailboxHeader(text);
  ASSERT_TRUE(back.ok()) << back.status().toString();
  EXPECT_EQ(*back, h);
  EXPECT_EQ(back->findUserFlag("$JUNK"), 0);
  EXPECT_EQ(back->findUserFlag("other"), -1);
  EXPECT_FALSE(decodeMailboxHeader("nonsense\n").ok());
  EXPECT_FALSE(decodeMailboxHeader(text.substr(0, text.size() - 1)).ok());
  EXPECT_FALSE(decodeMailboxHeader("darius-mailbox-header 1\nuniqueid\tx\n").ok());
}

// The v1 golden files: bytes written by the first version must decode the same forever.
TEST(IndexFormat, GoldenFilesV1) {
  std::string dir = sourceDir() + "/tests/data/formats/index/v1/";
  auto slurp = [&](const std::string& name) {
    std::ifstream in(dir + name, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  std::string index = slurp("darius.index");
  ASSERT_EQ(index.size(), kIndexHeaderSize + 2 * kIndexRecordSize) << dir;
  EXPECT_EQ(index, encodeIndexHeader(sampleHeaderV10()) + encodeIndexRecord(sampleRecord(5)) +
                       encodeIndexRecord(sampleRecord(7)));
  auto h = decodeIndexHeader(index);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(*h, sampleHeaderV10());
  std::string header = slurp("darius.header");
  auto mh = decodeMailboxHeader(header);
  ASSERT_TRUE(mh.ok()) << mh.status().toString();
  EXPECT_EQ(mh->unique_id, "9f86d081884c7d659a2feaa0c55ad015");
  EXPECT_EQ(mh->uidvalidity, 1700000000u);
  EXPECT_EQ(mh->user_flags, (std::vector<std::string>{"$Junk", "$Forwarded"}));
}

// Version 1.1 added recent_uid in reserved header bytes; records are unchanged. Its bytes
// 104-111 are zero, which 1.2 reads as purged_modseq 0.
TEST(IndexFormat, GoldenFilesV11) {
  std::ifstream in(sourceDir() + "/tests/data/formats/index/v1.1/darius.index.header",
                   std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string header = ss.str();
  ASSERT_EQ(header.size(), kIndexHeaderSize);
  EXPECT_EQ(header, encodeIndexHeader(sampleHeaderV11()));
  auto h = decodeIndexHeader(header);
  ASSERT_TRUE(h.ok()) << h.status().toString();
  EXPECT_EQ(*h, sampleHeaderV11());
  EXPECT_EQ(h->recent_uid, 17u);
  EXPECT_EQ(h->minor, 1);
  EXPECT_EQ(h->purged_modseq, 0u);
}

// Version 1.2 added purged_modseq (header bytes 104-111) and expunged_at (record bytes
// 104-111); tests/data/formats/index/v1.2/make_golden.py wrote the file from the document.
TEST(IndexFormat, GoldenFilesV12) {
  std::ifstream in(sourceDir() + "/tests/data/formats/index/v1.2/darius.index", std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string index = ss.str();
  ASSERT_EQ(index.size(), kIndexHeaderSize + 2 * kIndexRecordSize);
  EXPECT_EQ(index, encodeIndexHeader(sampleHeaderV12()) + encodeIndexRecord(sampleRecord(5)) +
                       encodeIndexRecord(expungedRecord(7)));
  auto h = decodeIndexHeader(index);
  ASSERT_TRUE(h.ok()) << h.status().toString();
  EXPECT_EQ(*h, sampleHeaderV12());
  EXPECT_EQ(h->minor, 2);
  EXPECT_EQ(h->purged_modseq, 38u);
  auto live = decodeIndexRecord(std::string_view(index).substr(kIndexHeaderSize, kIndexRecordSize));
  ASSERT_TRUE(live.ok()) << live.status().toString();
  EXPECT_EQ(*live, sampleRecord(5));
  EXPECT_TRUE(live->live());
  EXPECT_EQ(live->expunged_at, 0);
  auto gone = decodeIndexRecord(
      std::string_view(index).substr(kIndexHeaderSize + kIndexRecordSize, kIndexRecordSize));
  ASSERT_TRUE(gone.ok()) << gone.status().toString();
  EXPECT_EQ(*gone, expungedRecord(7));
  EXPECT_FALSE(gone->live());
  EXPECT_EQ(gone->expunged_at, 1790086400);
}

// The 1.2 fields survive a round trip at their extremes (expunged_at is signed), and the
// bytes that were reserved before 1.2 read as 0.
TEST(IndexFormat, PurgedModseqAndExpungedAtRoundTrip) {
  IndexHeader h = sampleHeader();
  h.purged_modseq = 0xfedcba9876543210u;
  auto hb = decodeIndexHeader(encodeIndexHeader(h));
  ASSERT_TRUE(hb.ok()) << hb.status().toString();
  EXPECT_EQ(hb->purged_modseq, 0xfedcba9876543210u);
  EXPECT_EQ(*hb, h);
  for (int64_t at : {int64_t{1790086400}, int64_t{-1}, INT64_MIN, INT64_MAX}) {
    IndexRecord r = expungedRecord(9);
    r.expunged_at = at;
    std::string b = encodeIndexRecord(r);
    auto back = decodeIndexRecord(b);
    ASSERT_TRUE(back.ok()) << back.status().toString();
    EXPECT_EQ(back->expunged_at, at);
    EXPECT_EQ(*back, r);
    // A 1.1 writer left bytes 104-111 zero (and computed its CRC over them).
    std::string v11 = b;
    std::fill(v11.begin() + 104, v11.begin() + 112, '\0');
    uint32_t crc = crc32Of(std::string_view(v11).substr(0, 124));
    for (int i = 0; i < 4; ++i) v11[124 + i] = static_cast<char>((crc >> (8 * i)) & 0xff);
    auto old = decodeIndexRecord(v11);
    ASSERT_TRUE(old.ok()) << old.status().toString();
    EXPECT_EQ(old->expunged_at, 0);
    IndexRecord want = r;
    want.expunged_at = 0;
    EXPECT_EQ(*old, want);
  }
  // The records of the 1.0 golden file, written before expunged_at existed.
  std::ifstream in(sourceDir() + "/tests/data/formats/index/v1/darius.index", std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string v1 = ss.str();
  ASSERT_EQ(v1.size(), kIndexHeaderSize + 2 * kIndexRecordSize);
  for (size_t i = 0; i < 2; ++i) {
    auto r = decodeIndexRecord(std::string_view(v1).substr(kIndexHeaderSize + i * kIndexRecordSize,
                                                           kIndexRecordSize));
    ASSERT_TRUE(r.ok()) << r.status().toString();
    EXPECT_EQ(r->expunged_at, 0);
  }
  auto v1h = decodeIndexHeader(v1);
  ASSERT_TRUE(v1h.ok()) << v1h.status().toString();
  EXPECT_EQ(v1h->purged_modseq, 0u);
}

}  // namespace index_format_test
}  // namespace darius::mailbox
