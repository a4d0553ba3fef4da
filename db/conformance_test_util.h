// Shared fixture and helpers of the db conformance suites (conformance_test.cc,
// conformance_stress_test.cc): every test runs once per backend, in a fresh temp directory,
// on the path "<tmp>/db" (a file for skiplist and flat, a directory for berkeley: each backend
// decides). Test-only.
//
// Ownership: the fixture owns the temp dir. Thread-safety: as gtest fixtures; the free helpers
// are reentrant.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "db/db.h"
#include "lib/io/temp_dir.h"

namespace darius::db {

using Dump = std::vector<std::pair<std::string, std::string>>;

inline std::string paramName(const ::testing::TestParamInfo<Backend>& info) {
  return std::string(backendName(info.param));
}

// The instantiation every conformance file uses: all three backends, always (a backend that
// is not implemented yet fails its instances rather than silently vanishing).
#define DARIUS_DB_ALL_BACKENDS(Suite) \
  INSTANTIATE_TEST_SUITE_P(           \
      AllBackends, Suite,             \
      ::testing::Values(Backend::kSkiplist, Backend::kBerkeley, Backend::kFlat), paramName)

class ConformanceBase : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    auto dir = io::TempDir::create("db_conformance");
    ASSERT_TRUE(dir.ok()) << dir.status().toString();
    dir_ = std::make_unique<io::TempDir>(std::move(dir).value());
    path_ = dir_->file("db");
  }

  base::Result<std::unique_ptr<Database>> open(const OpenOptions& options = {}) {
    return Database::open(path_, GetParam(), options);
  }

  // Opens or fails the test (callers ASSERT_NE(db, nullptr)).
  std::unique_ptr<Database> openOk(const OpenOptions& options = {}) {
    auto db = open(options);
    EXPECT_TRUE(db.ok()) << backendName(GetParam()) << ": " << db.status().toString();
    return db.ok() ? std::move(db).value() : nullptr;
  }

  std::unique_ptr<io::TempDir> dir_;
  std::string path_;
};

// One committed transaction of puts.
inline base::Status putAll(Database& db, const Dump& records) {
  auto txn = db.begin();
  if (!txn.ok()) return txn.status();
  for (const auto& [k, v] : records) DARIUS_RETURN_IF_ERROR((*txn)->put(k, v));
  return (*txn)->commit();
}

inline Dump dump(Database& db, const Range& range = Range::all()) {
  Dump out;
  base::Status s = db.scan(range, [&](std::string_view k, std::string_view v) {
    out.emplace_back(k, v);
    return true;
  });
  EXPECT_TRUE(s.isOk()) << s.toString();
  return out;
}

inline Dump dump(Txn& txn, const Range& range = Range::all()) {
  Dump out;
  base::Status s = txn.scan(range, [&](std::string_view k, std::string_view v) {
    out.emplace_back(k, v);
    return true;
  });
  EXPECT_TRUE(s.isOk()) << s.toString();
  return out;
}

// Printable form of a byte string for failure messages.
inline std::string show(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (char ch : bytes) {
    auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(ch);
    } else {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

}  // namespace darius::db
