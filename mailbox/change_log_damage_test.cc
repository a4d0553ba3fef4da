// Damaged change logs: a bad record in the middle is kCorruption with segment and offset and
// is never cut; a torn or CRC-bad tail of the last segment reads as "no more yet" and the next
// writer cuts it off and continues gap-free; torn segment headers, unknown versions, and every
// single flipped byte and every truncation length of a small log.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "lib/io/fd.h"
#include "lib/io/path.h"
#include "lib/io/temp_dir.h"
#include "mailbox/change_log.h"
#include "mailbox/change_log_reader.h"
#include "mailbox/change_log_segment.h"
#include "mailbox/change_log_test_util.h"

namespace darius::mailbox {
namespace {

using base::Code;
using testing::appendRecord;
using testing::readAll;
using testing::ScratchDir;

std::string segPath(const std::string& dir, uint64_t first) {
  return io::joinPath(dir, internal::segmentFileName(first));
}

std::string readBytes(const std::string& path) { return *io::Env::posix()->readFile(path); }

// Overwrites the file with `bytes` in place (same inode), outside any Env: this is damage.
void overwrite(const std::string& path, const std::string& bytes) {
  auto fd = io::openFile(path, O_WRONLY | O_CREAT | O_TRUNC, 0640);
  ASSERT_TRUE(fd.ok());
  ASSERT_TRUE(io::writeAll(fd->get(), bytes).isOk());
}

// A one-segment log of `n` single-record appends; returns the record end offsets.
std::vector<uint64_t> makeLog(const std::string& dir, uint32_t n) {
  auto log = *ChangeLog::open(dir);
  for (uint32_t i = 1; i <= n; ++i) EXPECT_EQ(*log->append(appendRecord("m", i)), i);
  std::vector<uint64_t> ends;
  uint64_t at = kSegmentHeaderSize;
  std::string bytes = readBytes(segPath(dir, 1));
  while (at < bytes.size()) {
    FrameDecode f = decodeFrame(std::string_view(bytes).substr(at));
    EXPECT_EQ(f.state, DecodeState::kValid);
    at += f.size;
    ends.push_back(at);
  }
  EXPECT_EQ(ends.size(), n);
  return ends;
}

// next() results until the end or an error: the records, and the error (OK at a clean end).
std::pair<std::vector<ChangeRecord>, base::Status> readUntilError(const std::string& dir) {
  ChangeLogReader r(dir);
  std::vector<ChangeRecord> got;
  base::Status s = r.readFrom(1);
  while (s.isOk()) {
    auto n = r.next();
    if (!n.ok()) return {got, n.status()};
    if (!*n) break;
    got.push_back(std::move(**n));
  }
  return {got, s};
}

TEST(ChangeLogDamageTest, BadRecordInASealedSegmentIsCorruption) {
  auto d = *io::TempDir::create("clog");
  std::string dir = changeLogDir(d.path());
  ChangeLogOptions o;
  o.segment_bytes = 120;
  {
    auto log = *ChangeLog::open(dir, o);
    for (uint32_t i = 1; i <= 12; ++i) ASSERT_TRUE(log->append(appendRecord("m", i)).ok());
  }
  std::string bytes = readBytes(segPath(dir, 1));
  size_t second = kSegmentHeaderSize + decodeFrame(std::string_view(bytes).substr(32)).size;
  bytes[second + 12] ^= 0x40;  // inside the second record's body
  overwrite(segPath(dir, 1), bytes);
  auto [got, s] = readUntilError(dir);
  EXPECT_EQ(got.size(), 1u);
  EXPECT_EQ(s.code(), Code::kCorruption);
  EXPECT_NE(s.message().find("00000000000000000001.log offset " + std::to_string(second)),
            std::string::npos)
      << s.message();
  // The writer works on the last segment and is not hindered; the damage is left for repair.
  auto log = ChangeLog::open(dir, o);
  ASSERT_TRUE(log.ok()) << log.status().toString();
  EXPECT_EQ(*(*log)->append(appendRecord("m", 13)), 13u);
  EXPECT_EQ(readBytes(segPath(dir, 1)), bytes);
}

TEST(ChangeLogDamageTest, BadRecordFollowedByAnIntactOneIsCorruptionNotATail) {
  ScratchDir d;
  std::string dir = changeLogDir(d.path());
  auto ends = makeLog(dir, 5);
  std::string bytes = readBytes(segPath(dir, 1));
  bytes[ends[1] + 10] ^= 0x01;  // third record
  overwrite(segPath(dir, 1), bytes);
  auto [got, s] = readUntilError(dir);
  EXPECT_EQ(got.size(), 2u);
  EXPECT_EQ(s.code(), Code::kCorruption);
  EXPECT_NE(s.message().find("offset " + std::to_string(ends[1])), std::string::npos);
  auto log = ChangeLog::open(dir);
  EXPECT_EQ(log.status().code(), Code::kCorruption);
  EXPECT_EQ(readBytes(segPath(dir, 1)), bytes);  // nothing cut
}

TEST(ChangeLogDamageTest, TornTailIsCutOffByTheNextWriter) {
  ScratchDir d;
  std::string dir = changeLogDir(d.path());
  auto ends = makeLog(dir, 5);
  std::string bytes = readBytes(segPath(dir, 1));
  overwrite(segPath(dir, 1), bytes.substr(0, ends[3] + 7));  // record 5 torn
  ChangeLogReader reader(dir);
  ASSERT_TRUE(reader.readFrom(1).isOk());
  EXPECT_EQ(reader.readAvailable()->size(), 4u);
  EXPECT_TRUE(reader.readAvailable()->empty());
  auto log = *ChangeLog::open(dir);
  EXPECT_EQ(log->stats().tail_cuts, 1u);
  EXPECT_EQ(readBytes(segPath(dir, 1)), bytes.substr(0, ends[3]));
  ChangeRecord fresh = appendRecord("new", 50);
  EXPECT_EQ(*log->append(fresh), 5u);
  // The reader still has the replaced file open; it notices and reads the new record 5.
  auto more = reader.readAvailable();
  ASSERT_TRUE(more.ok()) << more.status().toString();
  ASSERT_EQ(more->size(), 1u);
  EXPECT_EQ((*more)[0].mailbox_id, "new");
  auto names = *io::Env::posix()->listDir(dir);
  EXPECT_EQ(names, (std::vector<std::string>{"00000000000000000001.log", "lock"}));
}

TEST(ChangeLogDamageTest, CrcBadOrZeroFilledTailIsCutOff) {
  for (bool zeros : {false, true}) {
    SCOPED_TRACE(zeros ? "zero-filled tail" : "CRC-bad last record");
    ScratchDir d;
    std::string dir = changeLogDir(d.path());
    auto ends = makeLog(dir, 4);
    std::string bytes = readBytes(segPath(dir, 1));
    if (zeros) {
      bytes.append(4096, '\0');
    } else {
      bytes[ends[3] - 1] ^= 0x20;
    }
    overwrite(segPath(dir, 1), bytes);
    auto [got, s] = readUntilError(dir);
    EXPECT_TRUE(s.isOk()) << s.toString();
    EXPECT_EQ(got.size(), zeros ? 4u : 3u);
    auto log = *ChangeLog::open(dir);
    EXPECT_EQ(log->stats().tail_cuts, 1u);
    EXPECT_EQ(*log->append(appendRecord("m", 9)), zeros ? 5u : 4u);
    EXPECT_EQ(readAll(dir).size(), zeros ? 5u : 4u);
  }
}

// A crash while a segment was being started leaves a file with part of a header (or none).
TEST(ChangeLogDamageTest, TornSegmentHeaderIsWrittenAgain) {
  for (size_t keep : {size_t{0}, size_t{10}, size_t{31}}) {
    SCOPED_TRACE("header bytes kept: " + std::to_string(keep));
    ScratchDir d;
    std::string dir = changeLogDir(d.path());
    makeLog(dir, 3);
    overwrite(segPath(dir, 4), encodeSegmentHeader(4).substr(0, keep));
    ChangeLogReader reader(dir);
    ASSERT_TRUE(reader.readFrom(1).isOk());
    EXPECT_EQ(reader.readAvailable()->size(), 3u);
    auto log = ChangeLog::open(dir);
    ASSERT_TRUE(log.ok()) << log.status().toString();
    EXPECT_EQ((*log)->stats().tail_cuts, 1u);
    EXPECT_EQ(readBytes(segPath(dir, 4)), encodeSegmentHeader(4));
    EXPECT_EQ(*(*log)->append(appendRecord("m", 4)), 4u);
    auto more = reader.readAvailable();
    ASSERT_TRUE(more.ok()) << more.status().toString();
    ASSERT_EQ(more->size(), 1u);
    EXPECT_EQ((*more)[0].seq, 4u);
  }
}

TEST(ChangeLogDamageTest, UnknownMajorVersionAndBadMagic) {
  ScratchDir d;
  std::string dir = changeLogDir(d.path());
  makeLog(dir, 2);
  std::string good = readBytes(segPath(dir, 1));
  std::string v2 = good;
  v2[8] = 2;  // major version 2
  overwrite(segPath(dir, 1), v2);
  EXPECT_EQ(readUntilError(dir).second.code(), Code::kNotSupported);
  EXPECT_EQ(ChangeLog::open(dir).status().code(), Code::kNotSupported);
  std::string magic = good;
  magic[0] = 'X';
  overwrite(segPath(dir, 1), magic);
  EXPECT_EQ(readUntilError(dir).second.code(), Code::kCorruption);
  EXPECT_EQ(ChangeLog::open(dir).status().code(), Code::kCorruption);
  EXPECT_EQ(readBytes(segPath(dir, 1)), magic);
}

// Whatever single byte is flipped, a reader returns only original records, in order, then
// stops or reports the damage; a writer either refuses or continues right after what is read.
TEST(ChangeLogDamageTest, EveryFlippedByteIsCaught) {
  ScratchDir src;
  std::string src_dir = changeLogDir(src.path());
  makeLog(src_dir, 4);
  const std::string good = readBytes(segPath(src_dir, 1));
  const std::vector<ChangeRecord> original = readAll(src_dir);
  int refused = 0, cut = 0;
  for (size_t i = 0; i < good.size(); ++i) {
    SCOPED_TRACE("flipped byte " + std::to_string(i));
    ScratchDir d;
    std::string dir = changeLogDir(d.path());
    ASSERT_TRUE(io::createDirs(*io::Env::posix(), dir).isOk());
    std::string bad = good;
    bad[i] ^= 0x10;
    overwrite(segPath(dir, 1), bad);
    auto [got, s] = readUntilError(dir);
    ASSERT_LE(got.size(), original.size());
    for (size_t k = 0; k < got.size(); ++k) EXPECT_EQ(got[k], original[k]);
    EXPECT_TRUE(s.isOk() || s.code() == Code::kCorruption || s.code() == Code::kNotSupported)
        << s.toString();
    auto log = ChangeLog::open(dir);
    if (!log.ok()) {
      ++refused;
      continue;
    }
    ++cut;
    EXPECT_TRUE(s.isOk()) << "writer accepted what the reader called damage";
    EXPECT_EQ(*(*log)->append(appendRecord("m", 9)), got.size() + 1);
    EXPECT_EQ(readAll(dir).size(), got.size() + 1);
  }
  EXPECT_GT(refused, 0);
  EXPECT_GT(cut, 0);
}

// A file cut at any length (what a crash leaves of appends) is never corruption.
TEST(ChangeLogDamageTest, EveryTruncationIsATornTail) {
  ScratchDir src;
  std::string src_dir = changeLogDir(src.path());
  auto ends = makeLog(src_dir, 3);
  const std::string good = readBytes(segPath(src_dir, 1));
  for (size_t len = 0; len <= good.size(); ++len) {
    SCOPED_TRACE("length " + std::to_string(len));
    ScratchDir d;
    std::string dir = changeLogDir(d.path());
    ASSERT_TRUE(io::createDirs(*io::Env::posix(), dir).isOk());
    overwrite(segPath(dir, 1), good.substr(0, len));
    size_t whole = 0;
    while (whole < ends.size() && ends[whole] <= len) ++whole;
    auto [got, s] = readUntilError(dir);
    EXPECT_TRUE(s.isOk()) << s.toString();
    EXPECT_EQ(got.size(), whole);
    auto log = ChangeLog::open(dir);
    ASSERT_TRUE(log.ok()) << log.status().toString();
    EXPECT_EQ(*(*log)->append(appendRecord("m", 9)), whole + 1);
  }
}

}  // namespace
}  // namespace darius::mailbox
