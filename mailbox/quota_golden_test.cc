// Golden files of docs/formats/quota.md, format 1 (tests/data/formats/quota/v1/, README
// beside them): quotas.dump is a `darius db dump` of a quotas.db, usage.bin one usage record.
// Every backend must keep reading the dump, and writing the same limits and the same usage
// must keep producing the same bytes, so an incompatible change of either encoding fails here.
// DARIUS_WRITE_GOLDEN=1 rewrites the files: only when the format is bumped on purpose, and
// then into a new v2/ directory.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "db/dump.h"
#include "lib/io/env.h"
#include "lib/io/path.h"
#include "lib/io/temp_dir.h"
#include "mailbox/quota_db.h"
#include "mailbox/quota_format.h"

namespace darius::mailbox {
namespace quota_golden_test {

std::string goldenPath(const std::string& file) {
  const char* src = std::getenv("DARIUS_SOURCE_DIR");
  std::string root = src != nullptr ? src : io::parentDir(io::parentDir(__FILE__));
  return root + "/tests/data/formats/quota/v1/" + file;
}

struct GoldenRoot {
  std::string name;
  QuotaLimits limits;
};

std::vector<GoldenRoot> goldenRoots() {
  QuotaLimits alice;  // the documented example: 1 GiB and 100000 messages
  alice[QuotaResource::kStorage] = 1048576;
  alice[QuotaResource::kMessage] = 100000;
  QuotaLimits archive;  // a subtree root limited to 0 mailboxes more than it has
  archive[QuotaResource::kMailbox] = 0;
  QuotaLimits news;  // the extremes: 2^63-1 everywhere
  for (QuotaResource r : kQuotaResources) news[r] = kMaxQuotaLimit;
  QuotaLimits none;  // a root with no limit left (SETQUOTA with an empty list)
  return {{"example.com!user/bob", none},
          {"shared/news", news},
          {"user/alice", alice},
          {"user/alice/Archive", archive}};
}

QuotaUsageRecord goldenUsage() {
  QuotaUsageRecord r;
  r.pending = false;
  for (size_t i = 0; i < r.boot.size(); ++i) r.boot[i] = static_cast<uint8_t>(0xa0 + i);
  r.usage[QuotaResource::kStorage] = 123456789;
  r.usage[QuotaResource::kMessage] = 4242;
  r.usage[QuotaResource::kMailbox] = 7;
  r.root = "user/alice";
  return r;
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

void writeGolden(const std::string& file, const std::string& bytes) {
  std::FILE* f = std::fopen(goldenPath(file).c_str(), "wb");
  ASSERT_NE(f, nullptr) << goldenPath(file);
  ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
  std::fclose(f);
}

TEST(QuotaGolden, WritingTheGoldenLimitsGivesTheGoldenBytes) {
  auto dir = io::TempDir::create("quota_golden");
  ASSERT_TRUE(dir.ok());
  auto q = QuotaDb::open(dir->file("db"), db::Backend::kSkiplist);
  ASSERT_TRUE(q.ok()) << q.status().toString();
  for (const GoldenRoot& g : goldenRoots()) {
    auto name = MailboxName::parse(g.name);
    ASSERT_TRUE(name.ok()) << g.name;
    ASSERT_TRUE((*q)->put(*name, g.limits).isOk());
  }
  std::string text = dumpText((*q)->database());
  if (std::getenv("DARIUS_WRITE_GOLDEN") != nullptr) writeGolden("quotas.dump", text);
  auto golden = io::Env::posix()->readFile(goldenPath("quotas.dump"));
  ASSERT_TRUE(golden.ok()) << golden.status().toString();
  EXPECT_EQ(*golden, text);
}

TEST(QuotaGolden, EveryBackendReadsTheGoldenLimits) {
  for (db::Backend backend : {db::Backend::kSkiplist, db::Backend::kBerkeley, db::Backend::kFlat}) {
    SCOPED_TRACE(db::backendName(backend));
    auto dir = io::TempDir::create("quota_golden");
    ASSERT_TRUE(dir.ok());
    {
      auto db = db::Database::open(dir->file("db"), backend);
      ASSERT_TRUE(db.ok()) << db.status().toString();
      std::FILE* in = std::fopen(goldenPath("quotas.dump").c_str(), "rb");
      ASSERT_NE(in, nullptr) << goldenPath("quotas.dump");
      base::Status loaded = db::loadDump(in, **db, 100, nullptr);
      std::fclose(in);
      ASSERT_TRUE(loaded.isOk()) << loaded.toString();
    }
    db::OpenOptions ro;
    ro.read_only = true;
    auto q = QuotaDb::open(dir->file("db"), backend, ro);
    ASSERT_TRUE(q.ok()) << q.status().toString();
    std::vector<std::string> seen;
    ASSERT_TRUE((*q)->scanPrefix("", [&](const MailboxName& n, const QuotaLimits&) {
      seen.push_back(n.toString());
      return true;
    }).isOk());
    ASSERT_EQ(seen.size(), goldenRoots().size());
    for (const GoldenRoot& g : goldenRoots()) {
      auto name = MailboxName::parse(g.name);
      ASSERT_TRUE(name.ok());
      auto l = (*q)->get(*name);
      ASSERT_TRUE(l.ok()) << g.name << ": " << l.status().toString();
      ASSERT_TRUE(l->has_value()) << g.name;
      EXPECT_EQ(**l, g.limits) << g.name;
    }
  }
}

TEST(QuotaGolden, UsageRecordBytes) {
  const std::string bytes = encodeQuotaUsageRecord(goldenUsage());
  if (std::getenv("DARIUS_WRITE_GOLDEN") != nullptr) writeGolden("usage.bin", bytes);
  auto golden = io::Env::posix()->readFile(goldenPath("usage.bin"));
  ASSERT_TRUE(golden.ok()) << golden.status().toString();
  EXPECT_EQ(*golden, bytes);
  auto decoded = decodeQuotaUsageRecord(*golden);
  ASSERT_TRUE(decoded.ok()) << decoded.status().toString();
  EXPECT_EQ(*decoded, goldenUsage());
}

}  // namespace quota_golden_test
}  // namespace darius::mailbox
