// bench/db: the key-value backends side by side on the same data (issue 3): bulk load, random
// get, full ordered scan, random update with a commit per update (fsync-bound) and with a
// commit per 100 updates; ops/s and file size per backend, printed as a table.
//
//   darius_db_bench [--keys N] [--updates N] [--backends skiplist,berkeley,flat] [--dir D]
//
// Keys are 16-64 random bytes, values 16-512, from a fixed seed so runs compare. Timings are
// wall-clock on this machine; compare backends within one run, not across machines.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "db/db.h"

using namespace darius;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  size_t keys = 1000000;
  size_t updates = 2000;
  std::vector<std::string> backends = {"skiplist", "berkeley", "flat"};
  std::string dir;
};

std::string randomBytes(std::mt19937_64& rng, size_t lo, size_t hi) {
  std::uniform_int_distribution<size_t> len(lo, hi);
  std::string s(len(rng), '\0');
  for (auto& c : s) c = static_cast<char>(rng() & 0xff);
  return s;
}

uint64_t diskUsage(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    uint64_t n = 0;
    for (auto& e : fs::recursive_directory_iterator(path, ec)) {
      if (e.is_regular_file(ec)) n += e.file_size(ec);
    }
    return n;
  }
  return fs::exists(path, ec) ? fs::file_size(path, ec) : 0;
}

double seconds(Clock::time_point a) {
  return std::chrono::duration<double>(Clock::now() - a).count();
}

void die(const std::string& what, const base::Status& s) {
  std::fprintf(stderr, "db_bench: %s: %s\n", what.c_str(), s.toString().c_str());
  std::exit(1);
}

struct Row {
  std::string backend;
  double load = 0, get = 0, scan = 0, update1 = 0, update100 = 0;
  uint64_t bytes = 0;
};

Row run(const std::string& name, const Options& o, const std::vector<std::string>& keys,
        const std::vector<std::string>& values) {
  auto backend = db::parseBackend(name);
  if (!backend.ok()) die(name, backend.status());
  std::string path = o.dir + "/" + name;
  std::filesystem::remove_all(path);
  auto opened = db::Database::open(path, *backend);
  if (!opened.ok()) die("open " + path, opened.status());
  db::Database& d = **opened;
  Row r{name};

  // Bulk load in transactions of 10,000 (how `darius db load` writes).
  auto t = Clock::now();
  for (size_t i = 0; i < keys.size();) {
    auto txn = d.begin();
    if (!txn.ok()) die("begin", txn.status());
    for (size_t j = 0; j < 10000 && i < keys.size(); ++j, ++i) {
      if (auto s = (*txn)->put(keys[i], values[i]); !s.isOk()) die("put", s);
    }
    if (auto s = (*txn)->commit(); !s.isOk()) die("commit", s);
  }
  r.load = keys.size() / seconds(t);

  std::mt19937_64 rng(7);
  size_t gets = std::min<size_t>(keys.size(), 200000);
  t = Clock::now();
  for (size_t i = 0; i < gets; ++i) {
    auto v = d.get(keys[rng() % keys.size()]);
    if (!v.ok()) die("get", v.status());
  }
  r.get = gets / seconds(t);

  t = Clock::now();
  size_t n = 0;
  if (auto s = d.scan(db::Range::all(), [&](std::string_view, std::string_view) {
        ++n;
        return true;
      });
      !s.isOk()) {
    die("scan", s);
  }
  r.scan = n / seconds(t);

  t = Clock::now();
  for (size_t i = 0; i < o.updates; ++i) {
    auto txn = d.begin();
    if (!txn.ok()) die("begin", txn.status());
    if (auto s = (*txn)->put(keys[rng() % keys.size()], values[rng() % values.size()]); !s.isOk()) {
      die("put", s);
    }
    if (auto s = (*txn)->commit(); !s.isOk()) die("commit", s);
  }
  r.update1 = o.updates / seconds(t);

  size_t updates100 = o.updates * 10;
  t = Clock::now();
  for (size_t i = 0; i < updates100;) {
    auto txn = d.begin();
    if (!txn.ok()) die("begin", txn.status());
    for (size_t j = 0; j < 100 && i < updates100; ++j, ++i) {
      if (auto s = (*txn)->put(keys[rng() % keys.size()], values[rng() % values.size()]);
          !s.isOk()) {
        die("put", s);
      }
    }
    if (auto s = (*txn)->commit(); !s.isOk()) die("commit", s);
  }
  r.update100 = updates100 / seconds(t);
  r.bytes = diskUsage(path);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "db_bench: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--keys") {
      o.keys = std::stoul(next());
    } else if (a == "--updates") {
      o.updates = std::stoul(next());
    } else if (a == "--dir") {
      o.dir = next();
    } else if (a == "--backends") {
      o.backends.clear();
      std::string list = next();
      for (size_t p = 0; p <= list.size();) {
        size_t c = list.find(',', p);
        if (c == std::string::npos) c = list.size();
        o.backends.push_back(list.substr(p, c - p));
        p = c + 1;
      }
    } else {
      std::fprintf(stderr,
                   "usage: darius_db_bench [--keys N] [--updates N] [--backends a,b] [--dir D]\n");
      return 2;
    }
  }
  bool own_dir = o.dir.empty();
  if (own_dir) {
    char tmpl[] = "/tmp/darius-db-bench-XXXXXX";
    o.dir = mkdtemp(tmpl);
  }
  std::mt19937_64 rng(42);
  std::vector<std::string> keys, values;
  keys.reserve(o.keys);
  values.reserve(o.keys);
  for (size_t i = 0; i < o.keys; ++i) {
    keys.push_back(randomBytes(rng, 16, 64));
    values.push_back(randomBytes(rng, 16, 512));
  }
  std::printf("db_bench: %zu keys (16-64 B), values 16-512 B, %zu single-commit updates\n",
              o.keys, o.updates);
  std::printf("%-10s %12s %12s %12s %12s %12s %10s\n", "backend", "load/s", "get/s", "scan/s",
              "upd1/s", "upd100/s", "MiB");
  constexpr size_t kFlatKeys = 20000;
  for (const auto& b : o.backends) {
    // flat rewrites the whole file on every commit by design (tiny databases only): a 1M-key
    // load would write tens of GB, so it runs on the first kFlatKeys keys.
    bool subset = b == "flat" && keys.size() > kFlatKeys;
    std::vector<std::string> k2, v2;
    if (subset) {
      k2.assign(keys.begin(), keys.begin() + kFlatKeys);
      v2.assign(values.begin(), values.begin() + kFlatKeys);
    }
    Row r = run(b, o, subset ? k2 : keys, subset ? v2 : values);
    if (subset) r.backend += "*";
    std::printf("%-10s %12.0f %12.0f %12.0f %12.0f %12.0f %10.1f\n", r.backend.c_str(), r.load,
                r.get, r.scan, r.update1, r.update100, r.bytes / 1048576.0);
    std::fflush(stdout);
  }
  std::printf("* flat: first %zu keys only (it rewrites the file on every commit)\n", kFlatKeys);
  if (own_dir) std::filesystem::remove_all(o.dir);
  return 0;
}
