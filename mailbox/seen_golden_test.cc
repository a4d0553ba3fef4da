// Golden file: tests/data/formats/seen/v1/seen.dump is a `darius db dump` of a seen.db written
// by this code at format 1 (see the README beside it and docs/formats/seen.md). Every backend
// must keep reading it, and writing the same states must keep producing the same bytes, so an
// incompatible change of the key or value encoding fails here. DARIUS_WRITE_GOLDEN=1 rewrites
// the file: only when the format is bumped on purpose, and then into a new v2/ directory.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "db/dump.h"
#include "lib/io/env.h"
#include "lib/io/path.h"
#include "lib/io/temp_dir.h"
#include "mailbox/seen_db.h"

namespace darius::mailbox {
namespace seen_golden_test {

std::string goldenPath() {
  const char* src = std::getenv("DARIUS_SOURCE_DIR");
  std::string root = src != nullptr ? src : io::parentDir(io::parentDir(__FILE__));
  return root + "/tests/data/formats/seen/v1/seen.dump";
}

struct Golden {
  std::string user;
  std::string mailbox_id;
  SeenState state;
};

std::vector<Golden> goldenStates() {
  auto state = [](int64_t t, std::vector<UidRange> seen, std::vector<ModseqRun> runs) {
    auto s = SeenState::fromParts(t, std::move(seen), std::move(runs));
    EXPECT_TRUE(s.ok()) << s.status().toString();
    return s.ok() ? *s : SeenState();
  };
  return {
      // The documented example: seen ranges and per-UID modseq runs.
      {"alice", "0f1e2d3c4b5a69788796a5b4c3d2e1f0",
       state(1700000000, {{1, 20}, {23, 23}, {25, 40}}, {{1, 20, 57}, {23, 23, 60}, {25, 40, 61}})},
      // Everything unseen again: no seen UID, one run remembering the change.
      {"alice@example.com", "5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e", state(1700000100, {}, {{7, 7, 12}})},
      // The extremes: UID 2^32-1, modseq and time 2^63-1.
      {"bob", "0f1e2d3c4b5a69788796a5b4c3d2e1f0",
       state(9223372036854775807, {{1, 1}, {4294967295u, 4294967295u}},
             {{4294967295u, 4294967295u, 9223372036854775807u}})},
  };
}

std::string dumpText(db::Database& db) {
  char* buf = nullptr;
  size_t size = 0;
  std::FILE* f = open_memstream(&buf, &size);
  EXPECT_NE(f, nullptr);
  base::Status s = db::dumpDatabase(db, f, nullptr);
  EXPECT_TRUE(s.isOk()) << s.toString();
  std::fclose(f);
  std::string out(buf, size);
  std::free(buf);
  return out;
}

TEST(SeenGolden, WritingTheGoldenStatesGivesTheGoldenBytes) {
  auto dir = io::TempDir::create("seen_golden");
  ASSERT_TRUE(dir.ok());
  auto seen = SeenDb::open(dir->file("db"), db::Backend::kSkiplist);
  ASSERT_TRUE(seen.ok()) << seen.status().toString();
  auto t = (*seen)->database().begin();
  ASSERT_TRUE(t.ok());
  for (const Golden& g : goldenStates()) {
    ASSERT_TRUE((*t)->put(seenKey(g.user, g.mailbox_id), g.state.encode()).isOk());
  }
  ASSERT_TRUE((*t)->commit().isOk());
  std::string text = dumpText((*seen)->database());
  if (std::getenv("DARIUS_WRITE_GOLDEN") != nullptr) {
    std::FILE* f = std::fopen(goldenPath().c_str(), "wb");
    ASSERT_NE(f, nullptr) << goldenPath();
    ASSERT_EQ(std::fwrite(text.data(), 1, text.size(), f), text.size());
    std::fclose(f);
  }
  auto golden = io::Env::posix()->readFile(goldenPath());
  ASSERT_TRUE(golden.ok()) << golden.status().toString();
  EXPECT_EQ(*golden, text);
}

TEST(SeenGolden, EveryBackendReadsTheGoldenFile) {
  for (db::Backend backend : {db::Backend::kSkiplist, db::Backend::kBerkeley, db::Backend::kFlat}) {
    SCOPED_TRACE(db::backendName(backend));
    auto dir = io::TempDir::create("seen_golden");
    ASSERT_TRUE(dir.ok());
    {
      auto db = db::Database::open(dir->file("db"), backend);
      ASSERT_TRUE(db.ok()) << db.status().toString();
      std::FILE* in = std::fopen(goldenPath().c_str(), "rb");
      ASSERT_NE(in, nullptr) << goldenPath();
      base::Status loaded = db::loadDump(in, **db, 100, nullptr);
      std::fclose(in);
      ASSERT_TRUE(loaded.isOk()) << loaded.toString();
    }
    db::OpenOptions ro;
    ro.read_only = true;
    auto seen = SeenDb::open(dir->file("db"), backend, ro);
    ASSERT_TRUE(seen.ok()) << seen.status().toString();
    size_t records = 0;
    ASSERT_TRUE((*seen)->database().scan(db::Range::all(), [&](std::string_view, std::string_view) {
      ++records;
      return true;
    }).isOk());
    EXPECT_EQ(records, goldenStates().size() + 1);  // and the format record
    for (const Golden& g : goldenStates()) {
      auto s = (*seen)->get(g.user, g.mailbox_id);
      ASSERT_TRUE(s.ok()) << g.user << ": " << s.status().toString();
      EXPECT_EQ(*s, g.state) << g.user;
    }
  }
}

}  // namespace seen_golden_test
}  // namespace darius::mailbox
