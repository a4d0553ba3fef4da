// The delivery journal's byte layout (journal_format.h, docs/formats/journal.md): round trips,
// the golden v1 segment in tests/data/formats/journal/v1/, and what a reader makes of torn,
// damaged, misplaced and hostile bytes. DARIUS_WRITE_GOLDEN=1 rewrites the golden file (only
// when the format version is bumped on purpose; add a v2/ directory rather than overwrite v1/).
#include "mailbox/journal_format.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "lib/io/atomic_file.h"
#include "lib/io/path.h"

namespace darius::mailbox {
namespace {

IndexRecord sampleJournalRecord(uint32_t uid) {
  IndexRecord r;
  r.uid = uid;
  r.system_flags = kFlagSeen;
  r.internal_date = 1790000000;
  r.save_date = 1790000001;
  r.size = 42;
  r.modseq = 7 + uid;
  r.cache_offset = 64 * uid;
  r.header_size = 20;
  r.tz_offset_minutes = 60;
  r.guid.fill(static_cast<uint8_t>(uid));
  return r;
}

// Segment 1: two messages, then an append of both to one mailbox.
std::string sampleJournalSegment() {
  const uint64_t seg = 1;
  std::string out = encodeJournalSegmentHeader({.segment = seg});
  Guid g1{}, g2{};
  g1.fill(1);
  g2.fill(2);
  const uint64_t m1 = out.size();
  out += encodeJournalMessage(seg, g1, "Subject: one\r\n\r\nbody\r\n");
  const uint64_t m2 = out.size();
  out += encodeJournalMessage(seg, g2, "Subject: two\r\n\r\nbody\r\n");
  JournalAppend a;
  a.mailbox_dir = "user/alice";
  a.unique_id = "0123456789abcdef";
  a.uidvalidity = 1790000000;
  a.generation = 3;
  a.first_position = 10;
  a.entries = {{sampleJournalRecord(11), m1}, {sampleJournalRecord(12), m2}};
  out += *encodeJournalAppend(seg, a);
  return out;
}

std::string goldenJournalPath() {
  const char* src = std::getenv("DARIUS_SOURCE_DIR");
  std::string root = src != nullptr ? src : io::parentDir(io::parentDir(__FILE__));
  return root + "/tests/data/formats/journal/v1/" + journalSegmentName(1);
}

// Reads a whole segment as a replay does: the frames up to the first that does not check.
struct JournalReadBack {
  std::vector<JournalFrame> frames;
  base::Status end;  // kNotFound: a clean end
};
JournalReadBack readJournalAll(std::string_view seg, uint64_t number) {
  JournalReadBack out;
  for (uint64_t at = kJournalHeaderSize;;) {
    auto f = readJournalFrame(seg, number, at);
    if (!f.ok()) {
      out.end = f.status();
      return out;
    }
    out.frames.push_back(*f);
    at = f->next;
  }
}

TEST(JournalFormatTest, GoldenV1SegmentIsStableAndReadable) {
  if (std::getenv("DARIUS_WRITE_GOLDEN") != nullptr) {
    ASSERT_TRUE(io::createDirs(*io::Env::posix(), io::parentDir(goldenJournalPath())).isOk());
    ASSERT_TRUE(io::writeFileAtomic(*io::Env::posix(), goldenJournalPath(), sampleJournalSegment()).isOk());
  }
  auto golden = io::Env::posix()->readFile(goldenJournalPath());
  ASSERT_TRUE(golden.ok()) << golden.status().toString();
  EXPECT_EQ(golden->substr(0, 8), "DRSJRNAL");
  EXPECT_EQ(*golden, sampleJournalSegment()) << "the v1 encoding changed: bump the format version";
  auto h = decodeJournalSegmentHeader(*golden);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->segment, 1u);
  EXPECT_EQ(h->major, 1);
  JournalReadBack r = readJournalAll(*golden, 1);
  EXPECT_EQ(r.end.code(), base::Code::kNotFound);
  ASSERT_EQ(r.frames.size(), 3u);
  ASSERT_EQ(r.frames[0].type, JournalRecordType::kMessage);
  auto m = decodeJournalMessage(r.frames[0].body);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->bytes, "Subject: one\r\n\r\nbody\r\n");
  ASSERT_EQ(r.frames[2].type, JournalRecordType::kAppend);
  auto a = decodeJournalAppend(r.frames[2].body);
  ASSERT_TRUE(a.ok()) << a.status().toString();
  EXPECT_EQ(a->mailbox_dir, "user/alice");
  EXPECT_EQ(a->unique_id, "0123456789abcdef");
  EXPECT_EQ(a->uidvalidity, 1790000000u);
  EXPECT_EQ(a->generation, 3u);
  EXPECT_EQ(a->first_position, 10u);
  ASSERT_EQ(a->entries.size(), 2u);
  EXPECT_EQ(a->entries[1].record, sampleJournalRecord(12));
  EXPECT_EQ(a->entries[0].message_offset, kJournalHeaderSize);
}

TEST(JournalFormatTest, EveryTruncationEndsAtTheLastWholeRecord) {
  const std::string seg = sampleJournalSegment();
  const size_t whole = readJournalAll(seg, 1).frames.size();
  std::vector<uint64_t> ends;
  for (const JournalFrame& f : readJournalAll(seg, 1).frames) ends.push_back(f.next);
  for (size_t cut = kJournalHeaderSize; cut < seg.size(); ++cut) {
    JournalReadBack r = readJournalAll(std::string_view(seg).substr(0, cut), 1);
    size_t want = 0;
    while (want < whole && ends[want] <= cut) ++want;
    EXPECT_EQ(r.frames.size(), want) << "cut at " << cut;
    // A cut inside a frame is a torn write; at a frame's end the segment ends cleanly.
    const bool at_end = cut == kJournalHeaderSize || (want > 0 && ends[want - 1] == cut);
    EXPECT_EQ(r.end.code(), at_end ? base::Code::kNotFound : base::Code::kCorruption) << cut;
  }
}

TEST(JournalFormatTest, ZerosAfterTheLastRecordAreACleanEnd) {
  std::string seg = sampleJournalSegment() + std::string(4096, '\0');
  JournalReadBack r = readJournalAll(seg, 1);
  EXPECT_EQ(r.frames.size(), 3u);
  EXPECT_EQ(r.end.code(), base::Code::kNotFound);
}

TEST(JournalFormatTest, AnyFlippedByteStopsTheReadAtItsRecord) {
  const std::string seg = sampleJournalSegment();
  std::vector<uint64_t> starts = {kJournalHeaderSize};
  for (const JournalFrame& f : readJournalAll(seg, 1).frames) starts.push_back(f.next);
  for (size_t at = kJournalHeaderSize; at < seg.size(); ++at) {
    std::string bad = seg;
    bad[at] = static_cast<char>(bad[at] ^ 0x5a);
    JournalReadBack r = readJournalAll(bad, 1);
    size_t frame = 0;
    while (frame + 1 < starts.size() && starts[frame + 1] <= at) ++frame;
    EXPECT_EQ(r.frames.size(), frame) << "byte " << at;
    EXPECT_EQ(r.end.code(), base::Code::kCorruption) << "byte " << at;
  }
}

TEST(JournalFormatTest, RecordsOfAnotherSegmentDoNotCheck) {
  const std::string seg = sampleJournalSegment();
  JournalReadBack r = readJournalAll(seg, 2);  // the same bytes read as segment 2's
  EXPECT_TRUE(r.frames.empty());
  EXPECT_EQ(r.end.code(), base::Code::kCorruption);
}

TEST(JournalFormatTest, HeaderDamageIsRefused) {
  std::string h = encodeJournalSegmentHeader({.segment = 9});
  EXPECT_TRUE(decodeJournalSegmentHeader(h).ok());
  EXPECT_FALSE(decodeJournalSegmentHeader(h.substr(0, 31)).ok());
  std::string bad = h;
  bad[16] = 8;
  EXPECT_EQ(decodeJournalSegmentHeader(bad).status().code(), base::Code::kCorruption);
  bad = h;
  bad[0] = 'X';
  EXPECT_EQ(decodeJournalSegmentHeader(bad).status().code(), base::Code::kCorruption);
}

TEST(JournalFormatTest, AppendBodiesThatDoNotAddUpAreCorruption) {
  JournalAppend a;
  a.mailbox_dir = "user/bob";
  a.unique_id = "x";
  a.entries = {{sampleJournalRecord(1), 32}};
  auto frame = encodeJournalAppend(5, a);
  ASSERT_TRUE(frame.ok());
  const std::string seg = encodeJournalSegmentHeader({.segment = 5}) + *frame;  // f views it
  auto f = readJournalFrame(seg, 5, kJournalHeaderSize);
  ASSERT_TRUE(f.ok());
  std::string body(f->body);
  EXPECT_TRUE(decodeJournalAppend(body).ok());
  for (size_t cut = 0; cut < body.size(); ++cut) {
    EXPECT_FALSE(decodeJournalAppend(body.substr(0, cut)).ok()) << cut;
  }
  EXPECT_FALSE(decodeJournalAppend(body + "x").ok());
  EXPECT_FALSE(decodeJournalMessage("short").ok());
  // No mailbox, no entries: refused on both sides.
  JournalAppend empty;
  empty.mailbox_dir = "user/bob";
  auto e = encodeJournalAppend(5, empty);
  ASSERT_TRUE(e.ok());
  const std::string eseg = encodeJournalSegmentHeader({.segment = 5}) + *e;
  auto ef = readJournalFrame(eseg, 5, kJournalHeaderSize);
  ASSERT_TRUE(ef.ok());
  EXPECT_FALSE(decodeJournalAppend(ef->body).ok());
  JournalAppend long_name;
  long_name.mailbox_dir = std::string(70000, 'a');
  EXPECT_EQ(encodeJournalAppend(5, long_name).status().code(), base::Code::kTooBig);
}

TEST(JournalFormatTest, HostileLengthsAreRefusedWithoutReadingPastTheEnd) {
  std::string seg = encodeJournalSegmentHeader({.segment = 1});
  for (uint32_t len : {1u, 0x7fffffffu, 0xffffffffu, kMaxJournalBody + 1}) {
    std::string frame(8, '\0');
    for (int i = 0; i < 4; ++i) frame[i] = static_cast<char>((len >> (8 * i)) & 0xff);
    frame[4] = 1;
    auto f = readJournalFrame(seg + frame, 1, kJournalHeaderSize);
    EXPECT_EQ(f.status().code(), base::Code::kCorruption) << len;
  }
}

TEST(JournalFormatTest, SegmentNamesRoundTrip) {
  uint64_t n = 0;
  EXPECT_EQ(journalSegmentName(26), "000000000000001a.journal");
  EXPECT_TRUE(parseJournalSegmentName("000000000000001a.journal", &n));
  EXPECT_EQ(n, 26u);
  EXPECT_FALSE(parseJournalSegmentName("000000000000001A.journal", &n));
  EXPECT_FALSE(parseJournalSegmentName("000000000000001a.journal.unreplayed", &n));
  EXPECT_FALSE(parseJournalSegmentName("lock", &n));
}

}  // namespace
}  // namespace darius::mailbox
