#include "mailbox/deleted_area.h"

#include <gtest/gtest.h>

#include <vector>

namespace darius::mailbox {
namespace {

TEST(DeletedArea, EntryNames) {
  auto e = parseDeletedEntryName("1764244800-ab_C-9");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->deleted_at, 1764244800);
  EXPECT_EQ(e->unique_id, "ab_C-9");
  e = parseDeletedEntryName("1764244800.000000042-ab");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->deleted_at, 1764244800);
  EXPECT_EQ(e->deleted_ns, 42);
  EXPECT_EQ(e->unique_id, "ab");
  EXPECT_EQ(deletedEntryName(1764244800, 42, "ab"), "1764244800.000000042-ab");
  EXPECT_EQ(parseDeletedEntryName("1764244800-ab")->deleted_ns, 0);
  for (const char* bad : {"", "-", "12-", "-abc", "12x-abc", "1764244800-abc.uncreated",
                          "1764244800.42-ab", "1764244800.-ab", ".000000042-ab",
                          "1764244800.00000004x-ab", "1764244800.000000042-ab.purging",
                          "1764244800-abc.purging", "1764244800-a/b", "99999999999999999999-a"}) {
    EXPECT_FALSE(parseDeletedEntryName(bad)) << bad;
  }
}

TEST(DeletedArea, SuffixRoundTrips) {
  // 2025-11-27 12:00:00 UTC.
  EXPECT_EQ(deletedSuffix(1764244800, 1), "-20251127-12:00:00");
  EXPECT_EQ(deletedSuffix(1764244800, 3), "-20251127-12:00:00-3");
  auto d = parseDeletedDisplayName("Lists/foo-20251127-12:00:00");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->folder, "Lists/foo");
  EXPECT_EQ(d->deleted_at, 1764244800);
  EXPECT_EQ(d->ordinal, 1u);
  d = parseDeletedDisplayName("Old-20251127-12:00:00-2");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->folder, "Old");
  EXPECT_EQ(d->ordinal, 2u);
  // A folder whose own name looks like a stamp keeps it.
  d = parseDeletedDisplayName("x-20200101-00:00:00-20251127-12:00:00");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->folder, "x-20200101-00:00:00");
}

TEST(DeletedArea, MalformedDisplayNames) {
  for (const char* bad : {"", "Old", "Old-", "-20251127-12:00:00", "Old-20251127-12:00",
                          "Old-20251127-24:00:00", "Old-20250231-12:00:00",
                          "Old-01621127-12:29:42", "Old-19691231-23:59:59",
                          "Old-20251127-12:00:00-1", "Old-20251127-12:00:00-02",
                          "Old-20251127-12:00:00-", "Old-20251127-12:00:00-x",
                          "Old-2025112-712:00:00", "Old-20251127-12:00:00-99999999999"}) {
    EXPECT_FALSE(parseDeletedDisplayName(bad)) << bad;
  }
}

TEST(DeletedArea, OrdinalsNumberSameSecondDeletes) {
  auto name = [](const char* s) { return *MailboxName::parse(s); };
  std::vector<DeletedMailbox> d;
  d.push_back({.name = name("user/alice/Old"), .deleted_at = 10});
  d.push_back({.name = name("user/alice/Old"), .deleted_at = 10});
  d.push_back({.name = name("user/alice/Other"), .deleted_at = 10});
  d.push_back({.name = name("user/alice/Old"), .deleted_at = 11});
  numberDeleted(d);
  EXPECT_EQ(d[0].ordinal, 1u);
  EXPECT_EQ(d[1].ordinal, 2u);
  EXPECT_EQ(d[2].ordinal, 1u);
  EXPECT_EQ(d[3].ordinal, 1u);
}

}  // namespace
}  // namespace darius::mailbox
