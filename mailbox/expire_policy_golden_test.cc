// Golden file of docs/formats/expire_policy.md, format 1 (tests/data/formats/expire_policy/v1/,
// README beside it): expire_policies.dump is a `darius db dump` of an expire_policies.db.
// Every backend must keep reading it, and writing the same overrides must keep producing the
// same bytes, so an incompatible change of the record fails here. DARIUS_WRITE_GOLDEN=1
// rewrites the file: only when the format is bumped on purpose, and then into a new v2/.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "db/dump.h"
#include "lib/io/env.h"
#include "lib/io/path.h"
#include "lib/io/temp_dir.h"
#include "mailbox/expire_policy_db.h"

namespace darius::mailbox {
namespace expire_policy_golden_test {

std::string goldenPath(const std::string& file) {
  const char* src = std::getenv("DARIUS_SOURCE_DIR");
  std::string root = src != nullptr ? src : io::parentDir(io::parentDir(__FILE__));
  return root + "/tests/data/formats/expire_policy/v1/" + file;
}

struct GoldenOwner {
  std::string name;
  ExpireOverrides overrides;
};

std::vector<GoldenOwner> goldenOwners() {
  ExpireOverrides bob;  // every value, each a different number
  bob.expunged = {1 << 20, 2 << 20, 3 << 20, 3600};
  bob.deleted = {4 << 20, 5 << 20, 6 << 20, 7200};
  ExpireOverrides news;  // the extremes: 0 (never at once) and 2^63-1
  news.expunged.vol_overflow = 0;
  news.deleted.vol_max = 9223372036854775807ull;
  ExpireOverrides alice;  // the documented example: a longer timeout, a bigger bin
  alice.expunged.vol_max = 200ull << 20;
  alice.expunged.timeout_seconds = 90 * 86400;
  return {{"example.com!user/bob", bob}, {"shared/news", news}, {"user/alice", alice}};
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

TEST(ExpirePolicyGolden, WritingTheGoldenOverridesGivesTheGoldenBytes) {
  auto dir = io::TempDir::create("expire_policy_golden");
  ASSERT_TRUE(dir.ok());
  auto p = ExpirePolicyDb::open(dir->file("db"), db::Backend::kSkiplist);
  ASSERT_TRUE(p.ok()) << p.status().toString();
  for (const GoldenOwner& g : goldenOwners()) {
    auto name = MailboxName::parse(g.name);
    ASSERT_TRUE(name.ok()) << g.name;
    ASSERT_TRUE((*p)->set(*name, g.overrides).isOk());
  }
  std::string text = dumpText((*p)->database());
  if (std::getenv("DARIUS_WRITE_GOLDEN") != nullptr) {
    std::FILE* f = std::fopen(goldenPath("expire_policies.dump").c_str(), "wb");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(std::fwrite(text.data(), 1, text.size(), f), text.size());
    std::fclose(f);
  }
  auto golden = io::Env::posix()->readFile(goldenPath("expire_policies.dump"));
  ASSERT_TRUE(golden.ok()) << golden.status().toString();
  EXPECT_EQ(*golden, text);
}

TEST(ExpirePolicyGolden, EveryBackendReadsTheGoldenOverrides) {
  for (db::Backend backend : {db::Backend::kSkiplist, db::Backend::kBerkeley, db::Backend::kFlat}) {
    SCOPED_TRACE(db::backendName(backend));
    auto dir = io::TempDir::create("expire_policy_golden");
    ASSERT_TRUE(dir.ok());
    {
      auto db = db::Database::open(dir->file("db"), backend);
      ASSERT_TRUE(db.ok()) << db.status().toString();
      std::FILE* in = std::fopen(goldenPath("expire_policies.dump").c_str(), "rb");
      ASSERT_NE(in, nullptr) << goldenPath("expire_policies.dump");
      base::Status loaded = db::loadDump(in, **db, 100, nullptr);
      std::fclose(in);
      ASSERT_TRUE(loaded.isOk()) << loaded.toString();
    }
    db::OpenOptions ro;
    ro.read_only = true;
    auto p = ExpirePolicyDb::open(dir->file("db"), backend, ro);
    ASSERT_TRUE(p.ok()) << p.status().toString();
    size_t n = 0;
    ASSERT_TRUE((*p)->list([&](const MailboxName&, const ExpireOverrides&) {
      ++n;
      return true;
    }).isOk());
    ASSERT_EQ(n, goldenOwners().size());
    for (const GoldenOwner& g : goldenOwners()) {
      auto name = MailboxName::parse(g.name);
      ASSERT_TRUE(name.ok());
      auto o = (*p)->get(*name);
      ASSERT_TRUE(o.ok()) << g.name << ": " << o.status().toString();
      ASSERT_TRUE(o->has_value()) << g.name;
      EXPECT_EQ(**o, g.overrides) << g.name;
    }
  }
}

}  // namespace expire_policy_golden_test
}  // namespace darius::mailbox
