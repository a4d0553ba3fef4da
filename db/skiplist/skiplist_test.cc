// Tests of the skiplist backend beyond the shared conformance suite: format, crash, corruption
// and concurrency. Crash and multi-process tests are in skiplist_crash_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "db/skiplist/skiplist_db.h"
#include "db/skiplist/skiplist_format.h"
#include "lib/io/temp_dir.h"

namespace darius::db::skiplist {
namespace {

std::unique_ptr<Database> mustOpen(const std::string& path, OpenOptions o = {}) {
  auto db = openSkiplist(path, o);
  EXPECT_TRUE(db.ok()) << db.status().toString();
  return db.ok() ? std::move(*db) : nullptr;
}

std::vector<std::pair<std::string, std::string>> all(Database& db) {
  std::vector<std::pair<std::string, std::string>> out;
  base::Status s = db.scan(Range::all(), [&](std::string_view k, std::string_view v) {
    out.emplace_back(k, v);
    return true;
  });
  EXPECT_TRUE(s.isOk()) << s.toString();
  return out;
}

TEST(SkiplistTest, BasicOps) {
  auto dir = *io::TempDir::create("skiplist");
  auto db = mustOpen(dir.file("db"));
  ASSERT_TRUE(db);
  EXPECT_TRUE(db->get("a").status().isNotFound());
  {
    auto t = *db->begin();
    ASSERT_TRUE(t->put("b", "2").isOk());
    ASSERT_TRUE(t->put("a", "1").isOk());
    ASSERT_TRUE(t->put("c", "3").isOk());
    EXPECT_EQ(*t->get("a"), "1");
    ASSERT_TRUE(t->commit().isOk());
  }
  EXPECT_EQ(*db->get("a"), "1");
  EXPECT_EQ(*db->get("b"), "2");
  {
    auto t = *db->begin();
    ASSERT_TRUE(t->put("b", "22").isOk());
    ASSERT_TRUE(t->remove("a").isOk());
    EXPECT_TRUE(t->remove("zz").isNotFound());
    std::string seen;
    ASSERT_TRUE(t->scan(Range::all(), [&](std::string_view k, std::string_view v) {
      seen += std::string(k) + "=" + std::string(v) + ";";
      return true;
    }).isOk());
    EXPECT_EQ(seen, "b=22;c=3;");
    ASSERT_TRUE(t->commit().isOk());
  }
  auto v = all(*db);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0], std::make_pair(std::string("b"), std::string("22")));
  {
    auto t = *db->begin();
    ASSERT_TRUE(t->put("a", "back").isOk());
    ASSERT_TRUE(t->put("d", "4").isOk());
    // destroyed without commit: aborted
  }
  EXPECT_TRUE(db->get("d").status().isNotFound());
  auto rep = *db->check();
  EXPECT_TRUE(rep.ok()) << rep.problems[0];
  EXPECT_EQ(rep.records, 2u);
}

TEST(SkiplistTest, ManyKeysRandomOrderThenScanReopenCompact) {
  auto dir = *io::TempDir::create("skiplist");
  std::vector<std::string> keys;
  for (int i = 0; i < 100000; ++i) keys.push_back("key" + std::to_string(i * 7919 % 1000003));
  std::mt19937 rng(7);
  std::shuffle(keys.begin(), keys.end(), rng);
  {
    auto db = mustOpen(dir.file("db"));
    for (size_t i = 0; i < keys.size(); i += 1000) {
      auto t = *db->begin();
      for (size_t j = i; j < i + 1000; ++j) ASSERT_TRUE(t->put(keys[j], "v" + keys[j]).isOk());
      ASSERT_TRUE(t->commit().isOk());
    }
  }
  std::sort(keys.begin(), keys.end());
  auto db = mustOpen(dir.file("db"));
  auto v = all(*db);
  ASSERT_EQ(v.size(), keys.size());
  for (size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(v[i].first, keys[i]);
  EXPECT_EQ(*db->get(keys[500]), "v" + keys[500]);
  EXPECT_TRUE(db->check()->ok());
  ASSERT_TRUE(db->compact().isOk());
  EXPECT_EQ(all(*db).size(), keys.size());
  auto rep = *db->check();
  EXPECT_TRUE(rep.ok());
  EXPECT_EQ(rep.records, keys.size());
}

// A salvage replaces the file without marking the old one superseded: a handle still mapping
// the old file must not report an unchanged commit stamp while others commit to the new one.
TEST(SkiplistTest, CommitStampFollowsAFileReplacedBySalvage) {
  auto dir = *io::TempDir::create("skiplist");
  auto db = mustOpen(dir.file("db"));
  ASSERT_TRUE(db);
  {
    auto t = *db->begin();
    ASSERT_TRUE(t->put("a", "1").isOk());
    ASSERT_TRUE(t->commit().isOk());
  }
  auto before = db->commitStamp();
  ASSERT_TRUE(before.ok() && before->has_value());
  auto kept = salvageSkiplist(dir.file("db"), nullptr);
  ASSERT_TRUE(kept.ok()) << kept.status().toString();
  EXPECT_EQ(*kept, 1u);
  auto other = mustOpen(dir.file("db"));
  ASSERT_TRUE(other);
  {
    auto t = *other->begin();
    ASSERT_TRUE(t->put("b", "2").isOk());
    ASSERT_TRUE(t->commit().isOk());
  }
  auto after = db->commitStamp();
  ASSERT_TRUE(after.ok() && after->has_value()) << after.status().toString();
  EXPECT_NE(**after, **before);
  EXPECT_EQ(**after, **other->commitStamp());
  EXPECT_EQ(db->get("b").valueOr("?"), "2");  // and reads follow the new file from then on
}

TEST(SkiplistTest, ReadOnly) {
  auto dir = *io::TempDir::create("skiplist");
  OpenOptions ro;
  ro.read_only = true;
  EXPECT_TRUE(openSkiplist(dir.file("db"), ro).status().isNotFound());
  {
    auto db = mustOpen(dir.file("db"));
    auto t = *db->begin();
    ASSERT_TRUE(t->put("k", "v").isOk());
    ASSERT_TRUE(t->commit().isOk());
  }
  std::string before = *io::Env::posix()->readFile(dir.file("db"));
  auto db = mustOpen(dir.file("db"), ro);
  EXPECT_EQ(*db->get("k"), "v");
  EXPECT_TRUE(db->check()->ok());
  EXPECT_EQ(*io::Env::posix()->readFile(dir.file("db")), before);  // nothing written
  EXPECT_EQ(db->begin().status().code(), base::Code::kPermission);
  EXPECT_EQ(db->compact().code(), base::Code::kPermission);
}

}  // namespace
}  // namespace darius::db::skiplist
