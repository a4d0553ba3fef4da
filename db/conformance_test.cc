// The db conformance suite, part 1: the semantics of db.h (values, order, ranges,
// transactions, persistence, options, limits, check, compact), run alike against every
// backend. Part 2 (concurrency, processes, a random model) is conformance_stress_test.cc.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <string>

#include "db/conformance_test_util.h"
#include "db/db.h"

namespace darius::db {
namespace {

using base::Code;
using std::string_literals::operator""s;

class Conformance : public ConformanceBase {};

TEST_P(Conformance, PutGetRemove) {
  auto db = openOk();
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(putAll(*db, {{"alpha", "1"}, {"beta", "2"}}).isOk());
  EXPECT_EQ(db->get("alpha").valueOr("?"), "1");
  EXPECT_EQ(db->get("beta").valueOr("?"), "2");

  auto txn = db->begin();
  ASSERT_TRUE(txn.ok()) << txn.status().toString();
  ASSERT_TRUE((*txn)->put("alpha", "one").isOk());
  ASSERT_TRUE((*txn)->remove("beta").isOk());
  ASSERT_TRUE((*txn)->commit().isOk());
  EXPECT_EQ(db->get("alpha").valueOr("?"), "one");
  EXPECT_EQ(db->get("beta").status().code(), Code::kNotFound);
}

TEST_P(Conformance, MissingKeysAreNotFound) {
  auto db = openOk();
  ASSERT_NE(db, nullptr);
  EXPECT_EQ(db->get("nothing").status().code(), Code::kNotFound);
  EXPECT_TRUE(dump(*db).empty());
  auto txn = db->begin();
  ASSERT_TRUE(txn.ok()) << txn.status().toString();
  EXPECT_EQ((*txn)->get("nothing").status().code(), Code::kNotFound);
  EXPECT_EQ((*txn)->remove("nothing").code(), Code::kNotFound);
  ASSERT_TRUE((*txn)->commit().isOk());
}

TEST_P(Conformance, EmptyValue) {
  auto db = openOk();
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(putAll(*db, {{"k", ""}}).isOk());
  auto v = db->get("k");
  ASSERT_TRUE(v.ok()) << v.status().toString();
  EXPECT_EQ(*v, "");
  EXPECT_EQ(dump(*db), (Dump{{"k", ""}}));
}

TEST_P(Conformance, BinaryKeysAndValues) {
  auto db = openOk();
  ASSERT_NE(db, nullptr);
  Dump records = {{"\0"s, "\0\0"s},
                  {"a\0b"s, "x\0y\xffz"s},
                  {"\xff"s, "\xff\xfe\x80"s},
                  {"tab\there"s, "line\nbreak\r\n\\"s},
                  {"\x01\x02\x7f"s, std::string(1000, '\0')}};
  ASSERT_TRUE(putAll(*db, records).isOk());
  for (const auto& [k, v] : records) {
    auto got = db->get(k);
    ASSERT_TRUE(got.ok()) << show(k) << ": " << got.status().toString();
    EXPECT_EQ(*got, v) << show(k);
  }
  std::sort(records.begin(), records.end());
  EXPECT_EQ(dump(*db), records);
  db.reset();
  db = openOk();
  ASSERT_NE(db, nullptr);
  EXPECT_EQ(dump(*db), records);
}

TEST_P(Conformance, BytewiseOrder) {
  auto db = openOk();
  ASSERT_NE(db, nullptr);
  // Prefix relations, NUL after a prefix, and bytes 0x80+ (which sort after ASCII as
  // unsigned bytes, not before it as signed chars would).
  std::vector<std::string> keys = {"b"s,     "a"s,    "ab"s,   "a\0"s,      "a\x01"s,
                                   "\x7f"s,  "\x80"s, "\xff"s, "\xff\xff"s, "A"s,
                                   "a\xff"s, "abc"s,  "\x01"s, "aa"s};
  Dump records;
  for (const auto& k : keys) records.emplace_back(k, "v" + k);
  ASSERT_TRUE(putAll(*db, records).isOk());
  std::vector<std::string> expected = {"\x01"s, "A"s,    "a"s,    "a\0"s,     "a\x01"s,
                                       "aa"s,   "ab"s,   "abc"s,  "a\xff"s,   "b"s,
                                       "\x7f"s, "\x80"s, "\xff"s, "\xff\xff"s};
  std::vector<std::string> got;
  for (const auto& [k, v] : dump(*db)) got.push_back(k);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(show(got[i]), show(expected[i])) << i;
}

TEST_P(Conformance, RangesAndPrefixes) {
  auto db = openOk();
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(putAll(*db, {{"a", "1"},
                           {"ab", "2"},
                           {"ab\xff"s, "3"},
                           {"ac", "4"},
                           {"b", "5"},
                           {"\xff"s, "6"},
                           {"\xff\xff\x01"s, "7"}})
                  .isOk());
  auto keys = [&](const Range& r) {
    std::string out;
    for (const auto& [k, v] : dump(*db, r)) out += v;
    return out;
  };
  EXPECT_EQ(keys(Range::all()), "1234567");
  EXPECT_EQ(keys(Range::prefix("a")), "1234");
  EXPECT_EQ(keys(Range::prefix("ab")), "23");
  EXPECT_EQ(keys(Range::prefix("abc")), "");
  EXPECT_EQ(keys(Range::prefix("\xff")), "67");
  EXPECT_EQ(keys(Range::prefix("\xff\xff")), "7");
  EXPECT_EQ(keys(Range{"ab", "b"}), "234");
  EXPECT_EQ(keys(Range{"aa", std::nullopt}), "234567");
  EXPECT_EQ(keys(Range{"b", "b"}), "");
  EXPECT_EQ(keys(Range{"c", "a"}), "");
  EXPECT_EQ(keys(Range{"", "ab\xff"s}), "12");

  // Early stop: the callback's false ends the scan at once.
  int calls = 0;
  ASSERT_TRUE(db->scan(Range::all(), [&](std::string_view, std::string_view) {
                  return ++calls < 3;
                }).isOk());
  EXPECT_EQ(calls, 3);

  auto txn = db->begin();
  ASSERT_TRUE(txn.ok()) << txn.status().toString();
  std::string in_txn;
  for (const auto& [k, v] : dump(**txn, Range::prefix("ab"))) in_txn += v;
  EXPECT_EQ(in_txn, "23");
  calls = 0;
  ASSERT_TRUE(
      (*txn)
          ->scan(Range::all(), [&](std::string_view, std::string_view) { return ++calls < 2; })
          .isOk());
  EXPECT_EQ(calls, 2);
}

TEST_P(Conformance, TxnSeesOwnWritesOthersDoNot) {
  auto db = openOk();
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(putAll(*db, {{"keep", "0"}, {"gone", "0"}, {"change", "0"}}).isOk());
  Dump before = dump(*db);
  // Opened before begin(): opening while this thread holds the writer lock may wait for it.
  auto other = openOk();
  ASSERT_NE(other, nullptr);

  auto txn = db->begin();
  ASSERT_TRUE(txn.ok()) << txn.status().toString();
  Txn& t = **txn;
  ASSERT_TRUE(t.put("new", "1").isOk());
  ASSERT_TRUE(t.put("change", "1").isOk());
  ASSERT_TRUE(t.remove("gone").isOk());
  EXPECT_EQ(t.get("new").valueOr("?"), "1");
  EXPECT_EQ(t.get("change").valueOr("?"), "1");
  EXPECT_EQ(t.get("gone").status().code(), Code::kNotFound);
  EXPECT_EQ(t.remove("gone").code(), Code::kNotFound);
  Dump inside = {{"change", "1"}, {"keep", "0"}, {"new", "1"}};
  EXPECT_EQ(dump(t), inside);
  // Put after remove and remove after put within one transaction.
  ASSERT_TRUE(t.put("gone", "2").isOk());
  ASSERT_TRUE(t.put("temp", "x").isOk());
  ASSERT_TRUE(t.remove("temp").isOk());
  inside = {{"change", "1"}, {"gone", "2"}, {"keep", "0"}, {"new", "1"}};
  EXPECT_EQ(dump(t), inside);

  // The Database (and a second handle) still see the committed state.
  EXPECT_EQ(dump(*db), before);
  EXPECT_EQ(db->get("new").status().code(), Code::kNotFound);
  EXPECT_EQ(db->get("change").valueOr("?"), "0");
  EXPECT_EQ(dump(*other), before);

  ASSERT_TRUE(t.commit().isOk());
  EXPECT_EQ(dump(*db), inside);
  EXPECT_EQ(dump(*other), inside);
}

TEST_P(Conformance, AbortDiscards) {
  auto db = openOk();
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(putAll(*db, {{"a", "1"}}).isOk());
  {
    auto txn = db->begin();
    ASSERT_TRUE(txn.ok()) << txn.status().toString();
    ASSERT_TRUE((*txn)->put("b", "2").isOk());
    ASSERT_TRUE((*txn)->remove("a").isOk());
  }  // destroyed uncommitted: aborted, and the writer lock is free again
  EXPECT_EQ(dump(*db), (Dump{{"a", "1"}}));
  {
    auto txn = db->begin();
    ASSERT_TRUE(txn.ok()) << txn.status().toString();
    ASSERT_TRUE((*txn)->put("c", "3").isOk());
    (*txn)->abort();
  }
  EXPECT_EQ(dump(*db), (Dump{{"a", "1"}}));
  db.reset();
  db = openOk();
  ASSERT_NE(db, nullptr);
  EXPECT_EQ(dump(*db), (Dump{{"a", "1"}}));
  ASSERT_TRUE(putAll(*db, {{"d", "4"}}).isOk());
  EXPECT_EQ(dump(*db), (Dump{{"a", "1"}, {"d", "4"}}));
}

TEST_P(Conformance, CommitPersistsAcrossReopen) {
  {
    auto db = openOk();
    ASSERT_NE(db, nullptr);
    EXPECT_EQ(db->backend(), GetParam());
    EXPECT_EQ(db->path(), path_);
    ASSERT_TRUE(putAll(*db, {{"x", "1"}, {"y", "2"}}).isOk());
    ASSERT_TRUE(putAll(*db, {{"x", "3"}}).isOk());
  }
  OpenOptions no_create;
  no_create.create = false;
  auto db = openOk(no_create);
  ASSERT_NE(db, nullptr);
  EXPECT_EQ(dump(*db), (Dump{{"x", "3"}, {"y", "2"}}));
}

// A cache over the database (mailbox/mailbox_list_cache.h) relies on this: no commit, here or
// through another handle (as another process would), goes unnoticed.
TEST_P(Conformance, CommitStampChangesWithEveryCommit) {
  auto db = openOk();
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(putAll(*db, {{"a", "1"}}).isOk());
  auto first = db->commitStamp();
  ASSERT_TRUE(first.ok()) << first.status().toString();
  if (!first->has_value()) {
    EXPECT_NE(GetParam(), Backend::kSkiplist) << "skiplist must tell its commit stamp";
    return;
  }
  const CommitStamp s0 = **first;
  // A failed or missing stamp after the first compares unequal to every real one.
  auto stampOf = [](Database& d) {
    auto s = d.commitStamp();
    return s.ok() && s->has_value() ? **s : CommitStamp{~0ull, ~0ull, ~0ull};
  };
  EXPECT_EQ(stampOf(*db), s0);  // reads change nothing
  ASSERT_TRUE(db->get("a").ok());
  EXPECT_EQ(stampOf(*db), s0);
  {
    auto txn = db->begin();
    ASSERT_TRUE(txn.ok()) << txn.status().toString();
    ASSERT_TRUE((*txn)->put("b", "2").isOk());
  }  // aborted
  EXPECT_EQ(stampOf(*db), s0);

  ASSERT_TRUE(putAll(*db, {{"a", "1"}}).isOk());  // the same value again is still a commit
  const CommitStamp s1 = stampOf(*db);
  EXPECT_NE(s1, s0);

  auto other = openOk();
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(stampOf(*other), s1);
  ASSERT_TRUE(putAll(*other, {{"c", "3"}}).isOk());
  const CommitStamp s2 = stampOf(*db);
  EXPECT_NE(s2, s1);
  EXPECT_EQ(stampOf(*other), s2);

  ASSERT_TRUE(db->compact().isOk());
  const CommitStamp s3 = stampOf(*other);
  ASSERT_TRUE(putAll(*db, {{"d", "4"}}).isOk());
  EXPECT_NE(stampOf(*other), s3);
  EXPECT_NE(stampOf(*db), s2);
}

TEST_P(Conformance, ReadOnly) {
  {
    auto db = openOk();
    ASSERT_NE(db, nullptr);
    ASSERT_TRUE(putAll(*db, {{"k", "v"}}).isOk());
  }
  OpenOptions ro;
  ro.read_only = true;
  auto db = openOk(ro);
  ASSERT_NE(db, nullptr);
  EXPECT_EQ(db->get("k").valueOr("?"), "v");
  EXPECT_EQ(dump(*db), (Dump{{"k", "v"}}));
  auto txn = db->begin();
  ASSERT_FALSE(txn.ok());
  EXPECT_EQ(txn.status().code(), Code::kPermission) << txn.status().toString();
  EXPECT_EQ(db->compact().code(), Code::kPermission);

  // A read-only handle still sees what a writer commits.
  auto writer = openOk();
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(putAll(*writer, {{"k", "w"}}).isOk());
  EXPECT_EQ(db->get("k").valueOr("?"), "w");
}

TEST_P(Conformance, MissingDatabaseWithoutCreate) {
  OpenOptions no_create;
  no_create.create = false;
  auto db = open(no_create);
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), Code::kNotFound) << db.status().toString();
  OpenOptions ro = no_create;
  ro.read_only = true;
  db = open(ro);
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), Code::kNotFound) << db.status().toString();
  struct stat st;
  EXPECT_NE(::stat(path_.c_str(), &st), 0) << "a failed open created " << path_;
}

TEST_P(Conformance, Limits) {
  auto db = openOk();
  ASSERT_NE(db, nullptr);
  auto txn = db->begin();
  ASSERT_TRUE(txn.ok()) << txn.status().toString();
  Txn& t = **txn;
  EXPECT_EQ(t.put("", "v").code(), Code::kInvalid);
  EXPECT_EQ(t.put(std::string(kMaxKeySize + 1, 'k'), "v").code(), Code::kTooBig);
  EXPECT_EQ(t.put("k", std::string(kMaxValueSize + 1, 'v')).code(), Code::kTooBig);
  // Refused puts leave the transaction usable; the largest key is fine.
  std::string big_key(kMaxKeySize, '\xfe');
  std::string big_value(1 << 20, '\x01');
  ASSERT_TRUE(t.put(big_key, "max").isOk());
  ASSERT_TRUE(t.put("big", big_value).isOk());
  ASSERT_TRUE(t.commit().isOk());
  EXPECT_EQ(db->get(big_key).valueOr("?"), "max");
  EXPECT_EQ(db->get("big").valueOr("?"), big_value);
  EXPECT_EQ(dump(*db).size(), 2u);
}

TEST_P(Conformance, CheckIsCleanOnHealthyDatabase) {
  auto db = openOk();
  ASSERT_NE(db, nullptr);
  auto empty = db->check();
  ASSERT_TRUE(empty.ok()) << empty.status().toString();
  EXPECT_TRUE(empty->ok());
  EXPECT_EQ(empty->records, 0u);
  for (int round = 0; round < 5; ++round) {
    Dump batch;
    for (int i = 0; i < 50; ++i) {
      batch.emplace_back("key" + std::to_string(i * 7 % 101) + "\0"s,
                         std::string(static_cast<size_t>(round * 10 + i), 'a' + round));
    }
    ASSERT_TRUE(putAll(*db, batch).isOk());
  }
  auto report = db->check();
  ASSERT_TRUE(report.ok()) << report.status().toString();
  EXPECT_TRUE(report->ok()) << (report->problems.empty() ? "" : report->problems.front());
  EXPECT_EQ(report->records, dump(*db).size());
}

TEST_P(Conformance, CompactKeepsEveryRecord) {
  auto db = openOk();
  ASSERT_NE(db, nullptr);
  for (int round = 0; round < 10; ++round) {
    auto txn = db->begin();
    ASSERT_TRUE(txn.ok()) << txn.status().toString();
    for (int i = 0; i < 100; ++i) {
      std::string key = "k" + std::to_string((i * 31 + round) % 150);
      if ((i + round) % 4 == 0) {
        (void)(*txn)->remove(key);  // may be absent: kNotFound is fine here
      } else {
        ASSERT_TRUE((*txn)
                        ->put(key, std::string(static_cast<size_t>(i), 'v') + std::to_string(round))
                        .isOk());
      }
    }
    ASSERT_TRUE((*txn)->commit().isOk());
  }
  Dump before = dump(*db);
  ASSERT_FALSE(before.empty());
  auto reader = openOk();
  ASSERT_NE(reader, nullptr);
  ASSERT_TRUE(db->compact().isOk());
  EXPECT_EQ(dump(*db), before);
  EXPECT_EQ(dump(*reader), before);
  auto report = db->check();
  ASSERT_TRUE(report.ok()) << report.status().toString();
  EXPECT_TRUE(report->ok());
  EXPECT_EQ(report->records, before.size());
  ASSERT_TRUE(putAll(*db, {{"after", "compact"}}).isOk());
  db.reset();
  db = openOk();
  ASSERT_NE(db, nullptr);
  before.insert(
      std::lower_bound(before.begin(), before.end(), Dump::value_type{"after", "compact"}),
      {"after", "compact"});
  EXPECT_EQ(dump(*db), before);
}

DARIUS_DB_ALL_BACKENDS(Conformance);

}  // namespace
}  // namespace darius::db
