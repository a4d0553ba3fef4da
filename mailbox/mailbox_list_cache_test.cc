// MailboxListCache against every db backend: the view is exactly the list (checked against a
// brute-force model of random names and ACLs), it is re-read after every commit, by this
// handle or another one (as the darius CLI's process would), and not otherwise.
#include "mailbox/mailbox_list_cache.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

#include "db/conformance_test_util.h"
#include "mailbox/acl.h"

namespace darius::mailbox {
namespace mailbox_list_cache_test {

using db::Backend;
using std::string_literals::operator""s;

MailboxName N(std::string_view text) {
  auto n = MailboxName::parse(text);
  EXPECT_TRUE(n.ok()) << text << ": " << n.status().toString();
  return std::move(n).value();
}

MailboxEntry E(std::string id, std::string acl) {
  MailboxEntry e;
  e.unique_id = std::move(id);
  e.partition = "default";
  e.acl = std::move(acl);
  e.uidvalidity = 1;
  return e;
}

class MailboxListCacheTest : public db::ConformanceBase {
 protected:
  std::unique_ptr<MailboxList> openList() {
    auto list = MailboxList::open(path_, GetParam(), {});
    EXPECT_TRUE(list.ok()) << list.status().toString();
    return list.ok() ? std::move(list).value() : nullptr;
  }

  // The view, or nullptr; fails the test on an error, and on a skiplist without a view.
  static std::shared_ptr<const MailboxListView> viewOf(MailboxListCache& cache) {
    auto v = cache.view();
    EXPECT_TRUE(v.ok()) << v.status().toString();
    if (!v.ok()) return nullptr;
    return *v;
  }

  static std::vector<std::string> keys(const MailboxListView& v, MailboxListView::Range r) {
    std::vector<std::string> out;
    for (size_t i = r.begin; i < r.end; ++i) out.emplace_back(v.at(i).key);
    return out;
  }
};

TEST_P(MailboxListCacheTest, OnlyBackendsWithACommitStampHaveAView) {
  auto list = openList();
  ASSERT_NE(list, nullptr);
  MailboxListCache cache(*list);
  auto v = viewOf(cache);
  if (GetParam() == Backend::kSkiplist) {
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->size(), 0u);
  } else {
    EXPECT_EQ(v, nullptr);  // callers read the list itself
  }
}

// A random list in three domains, with ACLs naming a few identifiers (some negative, some
// unparsable); every view query is compared with a filter over the list itself.
TEST_P(MailboxListCacheTest, ViewMatchesTheList) {
  auto list = openList();
  ASSERT_NE(list, nullptr);
  MailboxListCache cache(*list);
  if (viewOf(cache) == nullptr) GTEST_SKIP() << "no commit stamp on this backend";

  std::mt19937 rng(17);
  const std::vector<std::string> domains = {"", "example.com", "x.org"};
  const std::vector<std::string> ids = {"alice", "bob", "anyone", "carol@example.com"};
  auto pick = [&](const auto& v) { return v[rng() % v.size()]; };
  std::set<std::string> texts;
  while (texts.size() < 300) {
    std::string d = pick(domains);
    std::string t = d.empty() ? "" : d + "!";
    if (rng() % 4 == 0) {
      t += "shared/s" + std::to_string(rng() % 20);
    } else {
      t += "user/" + pick(std::vector<std::string>{"alice", "bob", "al"});
    }
    for (int depth = int(rng() % 3); depth > 0; --depth) t += "/f" + std::to_string(rng() % 4);
    texts.insert(t);
  }
  std::map<std::string, MailboxEntry> model;  // by key
  int n = 0;
  for (const std::string& t : texts) {
    std::string acl;
    switch (rng() % 5) {
      case 0: break;
      case 1: acl = "garbage-without-tabs"; break;  // does not parse: grants nothing
      default:
        for (int k = int(rng() % 3) + 1; k > 0; --k) {
          if (!acl.empty()) acl += '\t';
          acl += (rng() % 4 == 0 ? "-" : "") + pick(ids) + "\tlr";
        }
    }
    MailboxEntry e = E("id" + std::to_string(++n), acl);
    if (rng() % 10 == 0) e.flags = MailboxEntry::kNoSelect;
    if (rng() % 10 == 0) e.special_use = "\\Sent";
    ASSERT_TRUE(list->insert(N(t), e).isOk()) << t;
    model[N(t).key()] = e;
  }

  auto v = viewOf(cache);
  ASSERT_NE(v, nullptr);
  ASSERT_EQ(v->size(), model.size());
  size_t i = 0;
  for (const auto& [key, e] : model) {
    MailboxListView::Item item = v->at(i++);
    EXPECT_EQ(item.key, key);
    EXPECT_EQ(item.acl, e.acl);
    EXPECT_EQ(item.flags, e.flags);
    EXPECT_EQ(item.special_use, e.special_use);
  }
  EXPECT_TRUE(v->damaged().empty());

  for (const std::string& id : ids) {
    std::vector<uint32_t> expected;
    uint32_t pos = 0;
    for (const auto& [key, e] : model) {
      auto acl = Acl::parse(e.acl);
      bool names = false;
      if (acl.ok()) {
        for (const AclEntry& a : acl->entries()) {
          names = names || a.identifier == id || a.identifier == "-" + id;
        }
      }
      if (names) expected.push_back(pos);
      ++pos;
    }
    auto got = v->naming(id);
    EXPECT_EQ(std::vector<uint32_t>(got.begin(), got.end()), expected) << id;
  }
  EXPECT_TRUE(v->naming("nobody").empty());
  EXPECT_GT(v->naming("alice").size(), 20u);  // the model is not trivially empty

  auto modelRange = [&](auto&& in) {
    std::vector<std::string> out;
    for (const auto& [key, e] : model) {
      if (in(key)) out.push_back(key);
    }
    return out;
  };
  for (const std::string& d : domains) {
    EXPECT_EQ(keys(*v, v->domain(d)),
              modelRange([&](const std::string& k) { return k.starts_with(d + "\0"s); }))
        << d;
  }
  for (const std::string& t : texts) {
    const std::string key = N(t).key();
    EXPECT_EQ(keys(*v, v->subtree(key)), modelRange([&](const std::string& k) {
                return k == key || k.starts_with(key + "\0"s);
              }))
        << t;
  }
}

TEST_P(MailboxListCacheTest, EveryCommitHereOrElsewhereIsSeenAndNothingElseRereads) {
  auto list = openList();
  ASSERT_NE(list, nullptr);
  MailboxListCache cache(*list);
  if (viewOf(cache) == nullptr) GTEST_SKIP() << "no commit stamp on this backend";
  ASSERT_TRUE(list->insert(N("user/alice"), E("a", "alice\tlr")).isOk());

  auto v1 = viewOf(cache);
  ASSERT_NE(v1, nullptr);
  const uint64_t reads = cache.reads();
  EXPECT_EQ(viewOf(cache), v1);  // nothing committed: the same view, not read again
  EXPECT_EQ(viewOf(cache), v1);
  EXPECT_EQ(cache.reads(), reads);

  // A change of one ACL through this handle.
  ASSERT_TRUE(list->update(N("user/alice"), E("a", "alice\tlr\tbob\tl")).isOk());
  auto v2 = viewOf(cache);
  ASSERT_NE(v2, nullptr);
  EXPECT_NE(v2, v1);
  EXPECT_EQ(v2->naming("bob").size(), 1u);
  EXPECT_EQ(v1->naming("bob").size(), 0u);  // an old view stays as it was

  // Another handle on the same file, as the darius CLI in another process.
  auto other = openList();
  ASSERT_NE(other, nullptr);
  ASSERT_TRUE(other->insert(N("shared/news"), E("n", "anyone\tlr")).isOk());
  auto v3 = viewOf(cache);
  ASSERT_NE(v3, nullptr);
  EXPECT_EQ(v3->size(), 2u);
  EXPECT_EQ(v3->naming("anyone").size(), 1u);
  ASSERT_TRUE(other->remove(N("user/alice")).isOk());
  auto v4 = viewOf(cache);
  ASSERT_NE(v4, nullptr);
  EXPECT_EQ(keys(*v4, {0, v4->size()}), std::vector<std::string>{N("shared/news").key()});
  // A repack rewrites the file: the view is read again and says the same.
  ASSERT_TRUE(other->database().compact().isOk());
  auto v5 = viewOf(cache);
  ASSERT_NE(v5, nullptr);
  EXPECT_EQ(keys(*v5, {0, v5->size()}), keys(*v4, {0, v4->size()}));
}

TEST_P(MailboxListCacheTest, DamagedRecordsAreKeptApartNotFatal) {
  auto list = openList();
  ASSERT_NE(list, nullptr);
  MailboxListCache cache(*list);
  if (viewOf(cache) == nullptr) GTEST_SKIP() << "no commit stamp on this backend";
  ASSERT_TRUE(list->insert(N("user/a"), E("a", "")).isOk());
  ASSERT_TRUE(list->insert(N("x.org!user/b"), E("b", "")).isOk());
  ASSERT_TRUE(db::putAll(list->database(), {{N("user/a/bad").key(), "\x01\x00garbage"s}}).isOk());
  auto v = viewOf(cache);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->size(), 2u);
  ASSERT_EQ(v->damaged().size(), 1u);
  EXPECT_EQ(v->damaged()[0].key, N("user/a/bad").key());
  EXPECT_EQ(v->damaged()[0].status.code(), base::Code::kCorruption);
}

using db::paramName;
DARIUS_DB_ALL_BACKENDS(MailboxListCacheTest);

}  // namespace mailbox_list_cache_test
}  // namespace darius::mailbox
