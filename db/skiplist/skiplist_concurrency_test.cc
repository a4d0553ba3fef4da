// Concurrency tests of the skiplist backend: one writer and several readers, as threads of one
// process sharing a Database, and as separate processes on one file. Every value carries its
// own checksum, so a torn read shows; every scan must be strictly ordered.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <random>
#include <thread>

#include "db/skiplist/skiplist_db.h"
#include "db/skiplist/skiplist_format.h"
#include "lib/io/temp_dir.h"

namespace darius::db::skiplist {
namespace skiplist_concurrency_test {

std::string makeValue(uint64_t seq, size_t len) {
  std::string v(len, char('a' + seq % 26));
  v += ":" + std::to_string(seq) + ":";
  uint32_t c = crc32c(0, v.data(), v.size());
  return v + std::to_string(c);
}

bool valueOk(std::string_view v) {
  size_t p = v.rfind(':');
  if (p == std::string_view::npos) return false;
  return std::to_string(crc32c(0, v.data(), p + 1)) == v.substr(p + 1);
}

// One writer: `txns` transactions of up to 20 random puts/removes among 300 keys, a
// compaction every 40. Returns false on any error.
bool writer(Database& db, int txns) {
  std::mt19937 rng(42);
  for (int i = 0; i < txns; ++i) {
    if (i % 40 == 39 && !db.compact().isOk()) return false;
    auto t = db.begin();
    if (!t.ok()) return false;
    for (int j = 0; j < 20; ++j) {
      std::string key = "key" + std::to_string(rng() % 300);
      base::Status s = rng() % 5 == 0 ? (*t)->remove(key)
                                      : (*t)->put(key, makeValue(rng(), rng() % 200));
      if (!s.isOk() && !s.isNotFound()) return false;
    }
    if (!(*t)->commit().isOk()) return false;
  }
  return true;
}

// One reader pass: an ordered scan with intact values, and a few gets.
bool readerPass(Database& db, std::mt19937& rng) {
  std::string prev;
  bool ok = true;
  base::Status s = db.scan(Range::all(), [&](std::string_view k, std::string_view v) {
    if (!prev.empty() && k <= prev) ok = false;
    if (!valueOk(v)) ok = false;
    prev = std::string(k);
    return ok;
  });
  if (!s.isOk() || !ok) {
    fprintf(stderr, "scan: %s ok=%d prev=%s\n", s.toString().c_str(), ok, prev.c_str());
    return false;
  }
  for (int i = 0; i < 5; ++i) {
    auto v = db.get("key" + std::to_string(rng() % 300));
    if (v.ok() ? !valueOk(*v) : !v.status().isNotFound()) {
      fprintf(stderr, "get: %s\n", v.status().toString().c_str());
      return false;
    }
  }
  return true;
}

TEST(SkiplistConcurrencyTest, OneWriterFourReaderThreads) {
  auto dir = *io::TempDir::create("skiplist-conc");
  auto db = *openSkiplist(dir.file("db"), {});
  std::atomic<bool> stop{false};
  std::atomic<int> bad{0}, passes{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 4; ++r) {
    readers.emplace_back([&, r] {
      std::mt19937 rng(r);
      while (!stop) {
        if (!readerPass(*db, rng)) ++bad;
        ++passes;
      }
    });
  }
  bool w = writer(*db, 200);
  stop = true;
  for (auto& t : readers) t.join();
  EXPECT_TRUE(w);
  EXPECT_EQ(bad.load(), 0);
  EXPECT_GT(passes.load(), 4);
  EXPECT_TRUE(db->check()->ok());
}

TEST(SkiplistConcurrencyTest, OneWriterThreeReaderProcesses) {
  auto dir = *io::TempDir::create("skiplist-mp");
  std::string path = dir.file("db");
  { ASSERT_TRUE(openSkiplist(path, {}).ok()); }
  std::string done = dir.file("done");
  std::vector<pid_t> kids;
  for (int i = 0; i < 4; ++i) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int code = 0;
      auto db = openSkiplist(path, {});
      if (!db.ok()) _exit(2);
      if (i == 0) {
        code = writer(**db, 150) ? 0 : 3;
        FILE* f = fopen(done.c_str(), "w");
        if (f != nullptr) fclose(f);
      } else {
        std::mt19937 rng(i);
        int passes = 0;
        while (access(done.c_str(), F_OK) != 0 || passes < 3) {
          if (!readerPass(**db, rng)) code = 4;
          ++passes;
        }
      }
      _exit(code);
    }
    kids.push_back(pid);
  }
  for (pid_t pid : kids) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "child " << pid;
  }
  auto db = *openSkiplist(path, {});
  EXPECT_TRUE(db->check()->ok());
}

}  // namespace skiplist_concurrency_test
}  // namespace darius::db::skiplist
