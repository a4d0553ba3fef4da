// Golden file: tests/data/formats/mailbox-list/v1/mailboxes.dump is a `darius db dump` of a
// mailbox list written by this code at format 1 (keys and values 1.0; see the README beside
// it). Every backend must keep reading it, and writing the same list must keep producing the
// same bytes, so an incompatible change of the key or value encoding fails here.
// DARIUS_WRITE_GOLDEN=1 rewrites the file: only when the format is bumped on purpose, and
// then into a new v2/ directory rather than over v1/.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "db/dump.h"
#include "lib/io/env.h"
#include "lib/io/path.h"
#include "lib/io/temp_dir.h"
#include "mailbox/mailbox_list.h"

namespace darius::mailbox {
namespace mailbox_list_golden_test {

std::string goldenPath() {
  const char* src = std::getenv("DARIUS_SOURCE_DIR");
  std::string root = src != nullptr ? src : io::parentDir(io::parentDir(__FILE__));
  return root + "/tests/data/formats/mailbox-list/v1/mailboxes.dump";
}

std::vector<std::pair<MailboxName, MailboxEntry>> goldenEntries() {
  auto entry = [](std::string id, uint32_t uidvalidity, uint64_t modseq) {
    MailboxEntry e;
    e.unique_id = std::move(id);
    e.partition = "default";
    e.uidvalidity = uidvalidity;
    e.created_modseq = modseq;
    return e;
  };
  std::vector<std::pair<MailboxName, MailboxEntry>> out;
  MailboxEntry inbox = entry("0f1e2d3c4b5a69788796a5b4c3d2e1f0", 1700000001, 1);
  inbox.acl = "alice\tlrswipkxtecdan\tanyone\tp\t";
  inbox.quota_root = "user/alice";
  out.emplace_back(*MailboxName::parse("user/alice"), inbox);
  MailboxEntry sent = entry("1a2b3c4d5e6f708192a3b4c5d6e7f801", 1700000002, 5);
  sent.acl = inbox.acl;
  sent.quota_root = "user/alice";
  sent.special_use = "\\Sent";
  out.emplace_back(*MailboxName::parse("user/alice/Sent"), sent);
  MailboxEntry drafts = entry("ffffffffffffffffffffffffffffffff", 4294967295u, 18446744073709551615u);
  drafts.partition = "part-2";
  drafts.special_use = "\\Drafts";
  out.emplace_back(*MailboxName::parse("user/alice/a.b/Entwürfe"), drafts);
  MailboxEntry bob = entry("00000000000000000000000000000001", 1, 0);
  bob.acl = "bob@example.com\tlrswipkxtecdan\t";
  bob.quota_root = "example.com!user/bob";
  out.emplace_back(*MailboxName::parse("example.com!user/bob"), bob);
  MailboxEntry news = entry("5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e", 1600000000, 2);
  news.flags = MailboxEntry::kNoSelect;
  out.emplace_back(*MailboxName::parse("shared/news"), news);
  MailboxEntry gone = entry("de1e7edde1e7edde1e7edde1e7edde1e", 1600000001, 3);
  gone.flags = MailboxEntry::kDeleted;
  gone.acl = "anyone\tlrs\t";
  out.emplace_back(*MailboxName::parse("shared/news/comp.lang"), gone);
  return out;
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

TEST(MailboxListGolden, WritingTheGoldenListGivesTheGoldenBytes) {
  auto dir = io::TempDir::create("mailbox_golden");
  ASSERT_TRUE(dir.ok());
  auto list = MailboxList::open(dir->file("db"), db::Backend::kSkiplist);
  ASSERT_TRUE(list.ok()) << list.status().toString();
  auto t = (*list)->begin();
  ASSERT_TRUE(t.ok());
  for (const auto& [name, entry] : goldenEntries()) {
    ASSERT_TRUE((*t)->insert(name, entry).isOk()) << name.toString();
  }
  ASSERT_TRUE((*t)->commit().isOk());
  std::string text = dumpText((*list)->database());
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

TEST(MailboxListGolden, EveryBackendReadsTheGoldenFile) {
  for (db::Backend backend : {db::Backend::kSkiplist, db::Backend::kBerkeley, db::Backend::kFlat}) {
    SCOPED_TRACE(db::backendName(backend));
    auto dir = io::TempDir::create("mailbox_golden");
    ASSERT_TRUE(dir.ok());
    auto db = db::Database::open(dir->file("db"), backend);
    ASSERT_TRUE(db.ok()) << db.status().toString();
    std::FILE* in = std::fopen(goldenPath().c_str(), "rb");
    ASSERT_NE(in, nullptr) << goldenPath();
    base::Status loaded = db::loadDump(in, **db, 100, nullptr);
    std::fclose(in);
    ASSERT_TRUE(loaded.isOk()) << loaded.toString();
    auto list = MailboxList::attach(std::move(*db));
    ASSERT_TRUE(list.ok()) << list.status().toString();
    std::vector<std::pair<MailboxName, MailboxEntry>> got;
    std::vector<DamagedRecord> damaged;
    ASSERT_TRUE((*list)->forEach(
                           [&](const MailboxName& n, const MailboxEntry& e) {
                             got.emplace_back(n, e);
                             return true;
                           },
                           &damaged)
                    .isOk());
    EXPECT_TRUE(damaged.empty());
    auto expected = goldenEntries();
    std::sort(expected.begin(), expected.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].first, expected[i].first) << i;
      EXPECT_EQ(got[i].second, expected[i].second) << got[i].first.toString();
    }
  }
}

}  // namespace mailbox_list_golden_test
}  // namespace darius::mailbox
