// Golden-file test: tests/data/formats/skiplist/v1/basic.db was written by this code at format
// version 1.0 (see the README next to it). Opening it must keep working, so an incompatible
// format change fails here. DARIUS_WRITE_GOLDEN=1 rewrites the file (only when the version is
// bumped on purpose; add a v2/ directory rather than overwrite v1/).
#include <gtest/gtest.h>

#include <cstdlib>

#include "db/skiplist/skiplist_db.h"
#include "lib/io/atomic_file.h"
#include "lib/io/path.h"
#include "lib/io/temp_dir.h"

namespace darius::db::skiplist {
namespace {

std::string goldenPath() {
  const char* src = std::getenv("DARIUS_SOURCE_DIR");
  std::string root =
      src != nullptr ? src : io::parentDir(io::parentDir(io::parentDir(__FILE__)));
  return root + "/tests/data/formats/skiplist/v1/basic.db";
}

const std::string kBinary("\x00\xff\x01", 3);

void writeGolden(const std::string& path) {
  auto db = *openSkiplist(path, {});
  {
    auto t = *db->begin();
    ASSERT_TRUE(t->put("alpha", "1").isOk());
    ASSERT_TRUE(t->put("beta", "2").isOk());
    ASSERT_TRUE(t->put("delta", "4").isOk());
    ASSERT_TRUE(t->commit().isOk());
  }
  auto t = *db->begin();
  ASSERT_TRUE(t->put("beta", "two").isOk());
  ASSERT_TRUE(t->remove("delta").isOk());
  ASSERT_TRUE(t->put("gamma", kBinary).isOk());
  ASSERT_TRUE(t->commit().isOk());
}

TEST(SkiplistGoldenTest, V1OpensWithItsContents) {
  if (std::getenv("DARIUS_WRITE_GOLDEN") != nullptr) {
    auto dir = *io::TempDir::create("skiplist-golden");
    writeGolden(dir.file("db"));
    auto bytes = *io::Env::posix()->readFile(dir.file("db"));
    ASSERT_TRUE(io::writeFileAtomic(*io::Env::posix(), goldenPath(), bytes).isOk());
  }
  auto bytes = io::Env::posix()->readFile(goldenPath());
  ASSERT_TRUE(bytes.ok()) << bytes.status().toString();
  auto dir = *io::TempDir::create("skiplist-golden");
  ASSERT_TRUE(io::writeFileAtomic(*io::Env::posix(), dir.file("db"), *bytes).isOk());
  OpenOptions ro;
  ro.read_only = true;
  auto db = openSkiplist(dir.file("db"), ro);
  ASSERT_TRUE(db.ok()) << db.status().toString();
  std::string seen;
  ASSERT_TRUE((*db)->scan(Range::all(), [&](std::string_view k, std::string_view v) {
    seen += std::string(k) + "=" + std::string(v) + ";";
    return true;
  }).isOk());
  EXPECT_EQ(seen, "alpha=1;beta=two;gamma=" + kBinary + ";");
  EXPECT_TRUE((*db)->get("delta").status().isNotFound());
  auto rep = (*db)->check();
  ASSERT_TRUE(rep.ok());
  EXPECT_TRUE(rep->ok());
  EXPECT_EQ(rep->records, 3u);
  // And it takes new writes.
  db = base::Status::notFound("closed");
  auto rw = *openSkiplist(dir.file("db"), {});
  auto t = *rw->begin();
  ASSERT_TRUE(t->put("delta", "again").isOk());
  ASSERT_TRUE(t->commit().isOk());
  EXPECT_EQ(*rw->get("delta"), "again");
  EXPECT_TRUE(rw->check()->ok());
}

}  // namespace
}  // namespace darius::db::skiplist
