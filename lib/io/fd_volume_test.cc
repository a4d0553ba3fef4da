// fd.h on inputs too big for the unit run (seconds and gigabytes each): labelled "volume",
// which the sanitizer stage of CI skips (lib/io/CMakeLists.txt).
#include <sys/mman.h>

#include <gtest/gtest.h>

#include "lib/io/fd.h"

namespace darius::io {
namespace {

// One read(2) returns at most 2 GiB - 4 KiB: readAll must not take that short read for the
// end of a bigger file. A sparse memfd is a regular file whose holes read from the zero page,
// so the test writes 3 bytes and copies 2 GiB.
TEST(FdVolumeTest, ReadAllReadsPastTheLimitOfOneRead) {
  constexpr uint64_t kSize = (uint64_t{2} << 30) + 8192;
  UniqueFd fd(::memfd_create("readall", MFD_CLOEXEC));
  ASSERT_TRUE(fd.valid());
  ASSERT_TRUE(pwriteAll(fd.get(), kSize - 3, "end").isOk());
  auto data = readAll(fd.get());
  ASSERT_TRUE(data.ok()) << data.status().toString();
  EXPECT_EQ(data->size(), kSize);
  EXPECT_EQ(data->substr(data->size() - 3), "end");
}

}  // namespace
}  // namespace darius::io
