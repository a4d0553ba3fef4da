// The db conformance suite, part 2: concurrency and volume, run alike against every backend —
// two handles on one path, one writer across threads, a writer process beside reader
// processes, and 10k random operations checked against a std::map model.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <thread>

#include "db/conformance_test_util.h"
#include "db/db.h"

namespace darius::db {
namespace conformance_stress_test {

using base::Code;

class ConformanceStress : public ConformanceBase {};

TEST_P(ConformanceStress, TwoHandlesSeeEachOthersCommits) {
  auto a = openOk();
  ASSERT_NE(a, nullptr);
  auto b = openOk();
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(putAll(*a, {{"from", "a"}}).isOk());
  EXPECT_EQ(b->get("from").valueOr("?"), "a");
  ASSERT_TRUE(putAll(*b, {{"from", "b"}, {"only", "b"}}).isOk());
  EXPECT_EQ(a->get("from").valueOr("?"), "b");
  EXPECT_EQ(dump(*a), dump(*b));
  // A transaction on one handle starts from the other's latest commit.
  auto txn = a->begin();
  ASSERT_TRUE(txn.ok()) << txn.status().toString();
  EXPECT_EQ((*txn)->get("only").valueOr("?"), "b");
}

TEST_P(ConformanceStress, OneWriterAcrossThreads) {
  auto db = openOk();
  ASSERT_NE(db, nullptr);
  auto first = db->begin();
  ASSERT_TRUE(first.ok()) << first.status().toString();
  ASSERT_TRUE((*first)->put("counter", "1").isOk());

  std::atomic<bool> began{false};
  std::string seen;
  base::Status second_status;
  std::thread second([&] {
    auto txn = db->begin();  // must wait for the first transaction to finish
    began = true;
    if (!txn.ok()) {
      second_status = txn.status();
      return;
    }
    seen = (*txn)->get("counter").valueOr("absent");
    second_status = (*txn)->put("counter", seen + "+1");
    if (second_status.isOk()) second_status = (*txn)->commit();
  });
  // Not a timing assertion on speed: if begin() did not wait, `began` would flip at once.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(began.load()) << "a second writer began while the first was open";
  // Readers go on beside the writer.
  EXPECT_EQ(db->get("counter").status().code(), Code::kNotFound);
  ASSERT_TRUE((*first)->commit().isOk());
  second.join();
  ASSERT_TRUE(second_status.isOk()) << second_status.toString();
  EXPECT_EQ(seen, "1");
  EXPECT_EQ(db->get("counter").valueOr("?"), "1+1");
}

// ---- 10k random operations against a model --------------------------------------------

TEST_P(ConformanceStress, RandomOperationsMatchModel) {
  std::mt19937_64 rng(20261122);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  auto bytes = [&](size_t len) {
    std::string s(len, '\0');
    for (char& c : s) c = static_cast<char>(rng() & 0xff);
    return s;
  };
  std::vector<std::string> pool;
  for (int i = 0; i < 300; ++i) {
    // Some keys share prefixes with others so ranges and order get exercised.
    std::string k = i % 3 == 0 && !pool.empty() ? pool[pick(pool.size())] + bytes(1 + pick(3))
                                                : bytes(1 + pick(12));
    pool.push_back(k);
  }
  std::map<std::string, std::string> committed;

  auto db = openOk();
  ASSERT_NE(db, nullptr);
  int ops = 0;
  bool reopened = false;
  while (ops < 10000) {
    if (!reopened && ops >= 5000) {
      db.reset();
      db = openOk();
      ASSERT_NE(db, nullptr);
      reopened = true;
      ASSERT_EQ(dump(*db), Dump(committed.begin(), committed.end())) << "after reopen";
    }
    auto txn = db->begin();
    ASSERT_TRUE(txn.ok()) << txn.status().toString();
    Txn& t = **txn;
    auto model = committed;
    size_t n = 1 + pick(40);
    for (size_t i = 0; i < n; ++i, ++ops) {
      const std::string& key = pool[pick(pool.size())];
      switch (pick(10)) {
        case 0:
        case 1:
        case 2:
        case 3:
        case 4: {
          std::string value = bytes(pick(8) == 0 ? 0 : pick(100));
          ASSERT_TRUE(t.put(key, value).isOk());
          model[key] = value;
          break;
        }
        case 5:
        case 6: {
          Code expected = model.erase(key) ? Code::kOk : Code::kNotFound;
          ASSERT_EQ(t.remove(key).code(), expected) << show(key);
          break;
        }
        case 7: {
          auto got = t.get(key);
          auto it = model.find(key);
          if (it == model.end()) {
            ASSERT_EQ(got.status().code(), Code::kNotFound) << show(key);
          } else {
            ASSERT_TRUE(got.ok()) << show(key) << ": " << got.status().toString();
            ASSERT_EQ(*got, it->second) << show(key);
          }
          break;
        }
        case 8: {  // the Database still shows the committed state
          auto got = db->get(key);
          auto it = committed.find(key);
          ASSERT_EQ(got.ok(), it != committed.end()) << show(key);
          if (got.ok()) {
            ASSERT_EQ(*got, it->second) << show(key);
          }
          break;
        }
        default: {
          Range r = Range::prefix(key.substr(0, 1 + pick(key.size())));
          Dump expected;
          for (auto it = model.lower_bound(r.start);
               it != model.end() && (!r.end || it->first < *r.end); ++it) {
            expected.emplace_back(it->first, it->second);
          }
          ASSERT_EQ(dump(t, r), expected) << "prefix " << show(r.start);
        }
      }
    }
    if (pick(6) == 0) {
      if (pick(2) == 0) t.abort();
      txn->reset();  // abort, explicitly or by destruction
    } else {
      ASSERT_TRUE(t.commit().isOk());
      committed = std::move(model);
    }
  }
  ASSERT_EQ(dump(*db), Dump(committed.begin(), committed.end()));
  db.reset();
  db = openOk();
  ASSERT_NE(db, nullptr);
  ASSERT_EQ(dump(*db), Dump(committed.begin(), committed.end()));
  auto report = db->check();
  ASSERT_TRUE(report.ok()) << report.status().toString();
  EXPECT_TRUE(report->ok());
  EXPECT_EQ(report->records, committed.size());
}

// ---- a writer process and reader processes ---------------------------------------------

constexpr int kGenerations = 300;
constexpr int kKeys = 20;

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

std::string keyName(int i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "key%02d", i);
  return buf;
}

// "<gen>|<key>|<filler>|<checksum of the rest>": a reader can tell a torn or misplaced value
// and which transaction wrote it. The filler's length varies so the records move around.
std::string makeValue(int gen, int i) {
  std::string body = std::to_string(gen) + "|" + keyName(i) + "|" +
                     std::string(static_cast<size_t>((gen * 37 + i * 11) % 300), "xyz"[gen % 3]);
  char sum[24];
  std::snprintf(sum, sizeof sum, "|%016llx", static_cast<unsigned long long>(fnv1a(body)));
  return body + sum;
}

// The generation of a self-consistent value for `key`, or -1.
int checkValue(std::string_view key, std::string_view value) {
  if (value.size() < 17) return -1;
  std::string_view body = value.substr(0, value.size() - 17);
  char sum[24];
  std::snprintf(sum, sizeof sum, "|%016llx", static_cast<unsigned long long>(fnv1a(body)));
  if (value.substr(body.size()) != sum) return -1;
  size_t bar = body.find('|');
  if (bar == body.npos) return -1;
  int gen = std::atoi(std::string(body.substr(0, bar)).c_str());
  return makeValue(gen, std::atoi(std::string(key.substr(3)).c_str())) == value ? gen : -1;
}

// Exit codes of the children (0: all good).
enum ChildExit {
  kOk = 0,
  kOpen = 10,
  kBegin,
  kWrite,
  kScan,
  kTorn,
  kOrder,
  kMixed,
  kBackwards,
  kCount,
  kTimeout
};

int writerMain(const std::string& path, Backend backend) {
  auto db = Database::open(path, backend, {});
  if (!db.ok()) return kOpen;
  for (int gen = 1; gen <= kGenerations; ++gen) {
    auto txn = (*db)->begin();
    if (!txn.ok()) return kBegin;
    for (int i = 0; i < kKeys; ++i) {
      if (!(*txn)->put(keyName(i), makeValue(gen, i)).isOk()) return kWrite;
    }
    if (!(*txn)->commit().isOk()) return kWrite;
  }
  return kOk;
}

int readerMain(const std::string& path, Backend backend, bool read_only) {
  OpenOptions options;
  options.read_only = read_only;
  auto opened = Database::open(path, backend, options);
  if (!opened.ok()) return kOpen;
  Database& db = **opened;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(240);
  int last_gen = 0;
  while (last_gen < kGenerations) {
    if (std::chrono::steady_clock::now() > deadline) return kTimeout;
    std::string prev;
    int count = 0, gen = -2, bad = kOk;
    base::Status s = db.scan(Range::all(), [&](std::string_view k, std::string_view v) {
      int g = checkValue(k, v);
      if (g < 0)
        bad = kTorn;
      else if (count > 0 && !(prev < k))
        bad = kOrder;
      else if (gen != -2 && g != gen)
        bad = kMixed;
      gen = g;
      prev = std::string(k);
      ++count;
      return bad == kOk;
    });
    if (!s.isOk()) return kScan;
    if (bad != kOk) return bad;
    if (count == 0) continue;  // before the first commit
    if (count != kKeys) return kCount;
    if (gen < last_gen) return kBackwards;
    last_gen = gen;
    auto one = db.get(keyName(gen % kKeys));
    if (!one.ok()) return kScan;
    int g = checkValue(keyName(gen % kKeys), *one);
    if (g < 0) return kTorn;
    if (g < last_gen) return kBackwards;
  }
  return kOk;
}

TEST_P(ConformanceStress, WriterAndReaderProcesses) {
  {
    auto db = openOk();  // created up front, so readers never race the creation
    ASSERT_NE(db, nullptr);
  }
  auto spawn = [&](auto&& body) {
    pid_t pid = ::fork();
    if (pid == 0) {
      ::alarm(300);  // a hung child dies rather than hanging the suite
      ::_exit(body());
    }
    return pid;
  };
  std::vector<pid_t> readers;
  for (int r = 0; r < 3; ++r) {
    readers.push_back(spawn([&] { return readerMain(path_, GetParam(), r != 0); }));
    ASSERT_GT(readers.back(), 0);
  }
  pid_t writer = spawn([&] { return writerMain(path_, GetParam()); });
  ASSERT_GT(writer, 0);
  auto reap = [](pid_t pid) {
    int status = 0;
    if (::waitpid(pid, &status, 0) != pid) return std::string("waitpid failed");
    if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
    return "exit " + std::to_string(WEXITSTATUS(status));
  };
  EXPECT_EQ(reap(writer), "exit 0") << "writer (10 open, 11 begin, 12 write)";
  for (pid_t pid : readers) {
    EXPECT_EQ(reap(pid), "exit 0")
        << "reader (10 open, 13 scan, 14 torn, 15 order, 16 mixed generations, "
           "17 backwards, 18 count, 19 timeout)";
  }
  auto db = openOk();
  ASSERT_NE(db, nullptr);
  for (int i = 0; i < kKeys; ++i) {
    EXPECT_EQ(checkValue(keyName(i), db->get(keyName(i)).valueOr("")), kGenerations);
  }
}

DARIUS_DB_ALL_BACKENDS(ConformanceStress);

}  // namespace conformance_stress_test
}  // namespace darius::db
