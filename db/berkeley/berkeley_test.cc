// Tests of the berkeley backend beyond the shared conformance suite: large ordered scans,
// several handles and processes on one environment, crashes (SIGKILL) and recovery, errors.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "db/berkeley/berkeley_db.h"
#include "lib/io/fd.h"
#include "lib/io/temp_dir.h"

namespace darius::db::berkeley {
namespace {

using base::Code;

class BerkeleyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto t = io::TempDir::create("bdbtest");
    ASSERT_TRUE(t.ok());
    tmp_.emplace(std::move(t).value());
    path_ = tmp_->file("db");
  }
  std::unique_ptr<Database> open(OpenOptions o = {}) {
    auto r = openBerkeley(path_, o);
    EXPECT_TRUE(r.ok()) << r.status().toString();
    return r.ok() ? std::move(r).value() : nullptr;
  }
  static void put(Database& db, const std::string& k, const std::string& v) {
    auto t = db.begin();
    ASSERT_TRUE(t.ok()) << t.status().toString();
    ASSERT_TRUE((*t)->put(k, v).isOk());
    ASSERT_TRUE((*t)->commit().isOk());
  }
  std::optional<io::TempDir> tmp_;
  std::string path_;
};

std::vector<std::pair<std::string, std::string>> scanAll(Database& db, const Range& r) {
  std::vector<std::pair<std::string, std::string>> out;
  EXPECT_TRUE(db.scan(r, [&](std::string_view k, std::string_view v) {
                  out.emplace_back(k, v);
                  return true;
                }).isOk());
  return out;
}

TEST_F(BerkeleyTest, BasicOps) {
  auto db = open();
  ASSERT_TRUE(db);
  EXPECT_EQ(db->backend(), Backend::kBerkeley);
  EXPECT_EQ(db->get("a").status().code(), Code::kNotFound);
  put(*db, "a", "1");
  put(*db, std::string("b\0c", 3), std::string("\0\xff", 2));
  EXPECT_EQ(*db->get("a"), "1");
  EXPECT_EQ(*db->get(std::string("b\0c", 3)), std::string("\0\xff", 2));
  auto t = db->begin();
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE((*t)->remove("a").isOk());
  EXPECT_EQ((*t)->remove("a").code(), Code::kNotFound);
  EXPECT_EQ((*t)->get("a").status().code(), Code::kNotFound);
  EXPECT_EQ(*db->get("a"), "1");  // not committed yet: readers see the old state
  EXPECT_EQ((*t)->put("", "x").code(), Code::kInvalid);
  ASSERT_TRUE((*t)->commit().isOk());
  EXPECT_EQ(db->get("a").status().code(), Code::kNotFound);
  EXPECT_FALSE((*t)->put("z", "z").isOk());  // used after commit
}

TEST_F(BerkeleyTest, BytewiseOrderAndRanges) {
  auto db = open();
  ASSERT_TRUE(db);
  std::vector<std::string> keys = {std::string("a\0", 2), "a", "b", "\x7f", "\x80", "\xff",
                                   "\xff\xff", "ab", "aa"};
  auto t = db->begin();
  ASSERT_TRUE(t.ok());
  for (auto& k : keys) ASSERT_TRUE((*t)->put(k, "v").isOk());
  ASSERT_TRUE((*t)->commit().isOk());
  std::set<std::string> want(keys.begin(), keys.end());  // std::string orders bytewise
  std::vector<std::string> got;
  for (auto& [k, v] : scanAll(*db, Range::all())) got.push_back(k);
  EXPECT_EQ(got, std::vector<std::string>(want.begin(), want.end()));
  got.clear();
  for (auto& [k, v] : scanAll(*db, Range::prefix("a"))) got.push_back(k);
  EXPECT_EQ(got, (std::vector<std::string>{"a", std::string("a\0", 2), "aa", "ab"}));
  got.clear();
  for (auto& [k, v] : scanAll(*db, Range::prefix("\xff"))) got.push_back(k);
  EXPECT_EQ(got, (std::vector<std::string>{"\xff", "\xff\xff"}));
  got.clear();
  for (auto& [k, v] : scanAll(*db, Range{"ab", std::string("\x80")})) got.push_back(k);
  EXPECT_EQ(got, (std::vector<std::string>{"ab", "b", "\x7f"}));
  int n = 0;
  EXPECT_TRUE(db->scan(Range::all(), [&](std::string_view, std::string_view) {
                  return ++n < 2;
                }).isOk());
  EXPECT_EQ(n, 2);
}

TEST_F(BerkeleyTest, OrderedScanOf100kRandomKeys) {
  auto db = open();
  ASSERT_TRUE(db);
  std::mt19937_64 rng(42);
  std::map<std::string, std::string> model;
  for (int batch = 0; batch < 10; ++batch) {
    auto t = db->begin();
    ASSERT_TRUE(t.ok()) << t.status().toString();
    for (int i = 0; i < 10000; ++i) {
      std::string k(8 + rng() % 24, '\0'), v(rng() % 64, '\0');
      for (auto& c : k) c = static_cast<char>(rng());
      for (auto& c : v) c = static_cast<char>(rng());
      ASSERT_TRUE((*t)->put(k, v).isOk());
      model[k] = v;
    }
    ASSERT_TRUE((*t)->commit().isOk());
  }
  auto got = scanAll(*db, Range::all());
  ASSERT_EQ(got.size(), model.size());
  EXPECT_TRUE(std::equal(got.begin(), got.end(), model.begin(),
                         [](auto& a, auto& b) { return a.first == b.first && a.second == b.second; }));
  auto rep = db->check();
  ASSERT_TRUE(rep.ok()) << rep.status().toString();
  EXPECT_TRUE(rep->ok()) << rep->problems.front();
  EXPECT_EQ(rep->records, model.size());
}

TEST_F(BerkeleyTest, TxnSeesOwnWritesAndAbortsOnDestruction) {
  auto db = open();
  ASSERT_TRUE(db);
  put(*db, "k1", "old");
  {
    auto t = db->begin();
    ASSERT_TRUE(t.ok());
    ASSERT_TRUE((*t)->put("k1", "new").isOk());
    ASSERT_TRUE((*t)->put("k2", "x").isOk());
    EXPECT_EQ(*(*t)->get("k1"), "new");
    std::vector<std::string> seen;
    ASSERT_TRUE((*t)->scan(Range::all(), [&](std::string_view k, std::string_view v) {
                      seen.push_back(std::string(k) + "=" + std::string(v));
                      return true;
                    }).isOk());
    EXPECT_EQ(seen, (std::vector<std::string>{"k1=new", "k2=x"}));
    // Readers beside the writer never see its uncommitted state.
    EXPECT_EQ(*db->get("k1"), "old");
    EXPECT_EQ(scanAll(*db, Range::all()).size(), 1u);
  }
  EXPECT_EQ(*db->get("k1"), "old");
  EXPECT_EQ(db->get("k2").status().code(), Code::kNotFound);
  auto t = db->begin();  // the write lock was released by the destructor
  ASSERT_TRUE(t.ok());
  (*t)->abort();
}

TEST_F(BerkeleyTest, ReopenKeepsCommittedData) {
  {
    auto db = open();
    ASSERT_TRUE(db);
    put(*db, "persist", "yes");
  }
  auto db = open(OpenOptions{.create = false});
  ASSERT_TRUE(db);
  EXPECT_EQ(*db->get("persist"), "yes");
}

TEST_F(BerkeleyTest, ReadOnly) {
  EXPECT_EQ(openBerkeley(path_, {.create = true, .read_only = true}).status().code(),
            Code::kNotFound);
  {
    auto db = open();
    ASSERT_TRUE(db);
    put(*db, "a", "1");
  }
  auto ro = open(OpenOptions{.create = false, .read_only = true});
  ASSERT_TRUE(ro);
  EXPECT_EQ(*ro->get("a"), "1");
  EXPECT_EQ(ro->begin().status().code(), Code::kPermission);
  EXPECT_EQ(ro->compact().code(), Code::kPermission);
  auto rep = ro->check();
  ASSERT_TRUE(rep.ok()) << rep.status().toString();
  EXPECT_TRUE(rep->ok());
  // A writer beside the read-only handle; the reader sees its commits.
  auto rw = open();
  ASSERT_TRUE(rw);
  put(*rw, "b", "2");
  EXPECT_EQ(*ro->get("b"), "2");
}

TEST_F(BerkeleyTest, TwoDatabasesOnOnePathInOneProcess) {
  auto db1 = open();
  auto db2 = open();
  ASSERT_TRUE(db1 && db2);
  put(*db1, "x", "1");
  EXPECT_EQ(*db2->get("x"), "1");
  // One writer at a time: a second begin() waits until the first transaction ends.
  auto t1 = db1->begin();
  ASSERT_TRUE(t1.ok());
  ASSERT_TRUE((*t1)->put("x", "2").isOk());
  std::atomic<bool> began{false};
  std::thread other([&] {
    auto t2 = db2->begin();
    began = true;
    ASSERT_TRUE(t2.ok());
    EXPECT_EQ(*(*t2)->get("x"), "2");
    ASSERT_TRUE((*t2)->put("x", "3").isOk());
    ASSERT_TRUE((*t2)->commit().isOk());
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(began.load());
  EXPECT_EQ(*db2->get("x"), "1");
  ASSERT_TRUE((*t1)->commit().isOk());
  other.join();
  EXPECT_EQ(*db1->get("x"), "3");
  db1.reset();
  EXPECT_EQ(*db2->get("x"), "3");
}

// failchk's thread table (set_thread_count) must not fill up in a long-lived process whose
// threads come and go (a server's worker pool).
TEST_F(BerkeleyTest, ManyShortLivedThreads) {
  auto db = open();
  ASSERT_TRUE(db);
  put(*db, "k", "v");
  for (int i = 0; i < 1500; ++i) {
    std::thread th([&] { EXPECT_TRUE(db->get("k").ok()); });
    th.join();
  }
  std::thread w([&] { put(*db, "k", "w"); });
  w.join();
  EXPECT_EQ(*db->get("k"), "w");
}

TEST_F(BerkeleyTest, CompactAndCheck) {
  auto db = open();
  ASSERT_TRUE(db);
  for (int round = 0; round < 3; ++round) {
    auto t = db->begin();
    ASSERT_TRUE(t.ok());
    for (int i = 0; i < 5000; ++i) {
      ASSERT_TRUE((*t)->put("key" + std::to_string(i), std::string(200, 'v')).isOk());
    }
    ASSERT_TRUE((*t)->commit().isOk());
    t = db->begin();
    ASSERT_TRUE(t.ok());
    for (int i = 0; i < 5000; i += 2) ASSERT_TRUE((*t)->remove("key" + std::to_string(i)).isOk());
    ASSERT_TRUE((*t)->commit().isOk());
  }
  ASSERT_TRUE(db->compact().isOk());
  auto rep = db->check();
  ASSERT_TRUE(rep.ok()) << rep.status().toString();
  EXPECT_TRUE(rep->ok());
  EXPECT_EQ(rep->records, 2500u);
}

TEST_F(BerkeleyTest, OpenErrors) {
  EXPECT_EQ(openBerkeley(path_, {.create = false}).status().code(), Code::kNotFound);
  // A regular file (say a skiplist database) is not a berkeley environment.
  std::string file = tmp_->file("plain");
  ASSERT_TRUE(io::writeAll(io::openFile(file, O_CREAT | O_WRONLY, 0644)->get(), "hello").isOk());
  EXPECT_EQ(openBerkeley(file, {}).status().code(), Code::kInvalid);
  // A directory with foreign files.
  std::string dir = tmp_->file("other");
  ASSERT_TRUE(io::makeDirs(dir).isOk());
  ASSERT_TRUE(io::openFile(dir + "/mailboxes.db", O_CREAT | O_WRONLY, 0644).ok());
  EXPECT_EQ(openBerkeley(dir, {}).status().code(), Code::kInvalid);
  // A data.db that is not a Berkeley DB file.
  std::string bad = tmp_->file("bad");
  ASSERT_TRUE(io::makeDirs(bad).isOk());
  {
    auto fd = io::openFile(bad + "/data.db", O_CREAT | O_WRONLY, 0644);
    ASSERT_TRUE(fd.ok());
    ASSERT_TRUE(io::writeAll(fd->get(), std::string(16384, 'x')).isOk());
  }
  auto r = openBerkeley(bad, {});
  EXPECT_EQ(r.status().code(), Code::kInvalid) << r.status().toString();
}

}  // namespace
}  // namespace darius::db::berkeley
