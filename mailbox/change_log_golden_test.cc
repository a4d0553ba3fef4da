// Golden-file test: tests/data/formats/changelog/v1/00000000000000000001.log is a v1.0 segment
// holding one record of every type (testing::sampleRecords(), see the README next to it).
// Today's encoder must still produce exactly those bytes, the reader must read them back, and a
// writer must continue the log. DARIUS_WRITE_GOLDEN=1 rewrites the file (only when the format
// version is bumped on purpose; add a v2/ directory rather than overwrite v1/).
#include <gtest/gtest.h>

#include <cstdlib>

#include "lib/io/atomic_file.h"
#include "lib/io/path.h"
#include "lib/io/temp_dir.h"
#include "mailbox/change_log.h"
#include "mailbox/change_log_test_util.h"

namespace darius::mailbox {
namespace change_log_golden_test {

const char kSegment[] = "00000000000000000001.log";

std::string goldenPath(const std::string& version = "v1") {
  const char* src = std::getenv("DARIUS_SOURCE_DIR");
  std::string root = src != nullptr ? src : io::parentDir(io::parentDir(__FILE__));
  return root + "/tests/data/formats/changelog/" + version + "/" + kSegment;
}

// The segment the current code writes for the sample records, with a 1.0 header (the records
// of 1.0's types are encoded as they always were).
std::string encodeSample() {
  std::string out = encodeSegmentHeader(1, 0);
  uint64_t seq = 1;
  for (const ChangeRecord& r : testing::sampleRecords()) {
    std::string frame = *encodeFrame(r);
    finishFrame(frame, seq++);
    out += frame;
  }
  return out;
}

TEST(ChangeLogGoldenTest, V1SegmentIsStableAndReadable) {
  if (std::getenv("DARIUS_WRITE_GOLDEN") != nullptr) {
    ASSERT_TRUE(io::writeFileAtomic(*io::Env::posix(), goldenPath(), encodeSample()).isOk());
  }
  auto golden = io::Env::posix()->readFile(goldenPath());
  ASSERT_TRUE(golden.ok()) << golden.status().toString();
  EXPECT_EQ(golden->substr(0, 8), "DRSCHLOG");
  EXPECT_EQ(*golden, encodeSample()) << "the v1 encoding changed: bump the format version";

  auto d = *io::TempDir::create("clog-golden");
  std::string dir = changeLogDir(d.path());
  ASSERT_TRUE(io::createDirs(*io::Env::posix(), dir).isOk());
  ASSERT_TRUE(io::writeFileAtomic(*io::Env::posix(), io::joinPath(dir, kSegment), *golden).isOk());
  auto want = testing::sampleRecords();
  auto got = testing::readAll(dir);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    want[i].seq = i + 1;
    EXPECT_EQ(got[i], want[i]) << "record " << i;
  }
  auto log = ChangeLog::open(dir);
  ASSERT_TRUE(log.ok()) << log.status().toString();
  EXPECT_EQ((*log)->stats().tail_cuts, 0u);
  EXPECT_EQ(*(*log)->append(testing::appendRecord("m", 1)), want.size() + 1);
  EXPECT_EQ(testing::readAll(dir).size(), want.size() + 1);
}

// 1.1 added the purge type (phase two of expunge): a 1.1 segment with one purge record.
std::string encodePurgeSample() {
  std::string out = encodeSegmentHeader(1, 1);
  ChangeRecord r;
  r.type = ChangeType::kPurge;
  r.mailbox_id = "mb-1";
  r.time_usec = 1700000000000000;
  r.uids = {{3, 40}, {7, 41}};
  std::string frame = *encodeFrame(r);
  finishFrame(frame, 1);
  return out + frame;
}

TEST(ChangeLogGoldenTest, V11PurgeRecordIsStableAndReadable) {
  if (std::getenv("DARIUS_WRITE_GOLDEN") != nullptr) {
    ASSERT_TRUE(
        io::writeFileAtomic(*io::Env::posix(), goldenPath("v1.1"), encodePurgeSample()).isOk());
  }
  auto golden = io::Env::posix()->readFile(goldenPath("v1.1"));
  ASSERT_TRUE(golden.ok()) << golden.status().toString();
  EXPECT_EQ(golden->substr(10, 2), std::string("\x01\x00", 2));  // minor 1
  EXPECT_EQ(*golden, encodePurgeSample()) << "the v1.1 encoding changed: bump the format version";
  auto d = *io::TempDir::create("clog-golden11");
  std::string dir = changeLogDir(d.path());
  ASSERT_TRUE(io::createDirs(*io::Env::posix(), dir).isOk());
  ASSERT_TRUE(io::writeFileAtomic(*io::Env::posix(), io::joinPath(dir, kSegment), *golden).isOk());
  auto got = testing::readAll(dir);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].type, ChangeType::kPurge);
  EXPECT_EQ(changeTypeName(got[0].type), "purge");
  ASSERT_EQ(got[0].uids.size(), 2u);
  EXPECT_EQ(got[0].uids[1].uid, 7u);
  EXPECT_EQ(got[0].uids[1].modseq, 41u);
}

}  // namespace change_log_golden_test
}  // namespace darius::mailbox
