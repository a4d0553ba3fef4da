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
namespace {

const char kSegment[] = "00000000000000000001.log";

std::string goldenPath() {
  const char* src = std::getenv("DARIUS_SOURCE_DIR");
  std::string root = src != nullptr ? src : io::parentDir(io::parentDir(__FILE__));
  return root + "/tests/data/formats/changelog/v1/" + kSegment;
}

// The segment the current code writes for the sample records.
std::string encodeSample() {
  std::string out = encodeSegmentHeader(1);
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

}  // namespace
}  // namespace darius::mailbox
