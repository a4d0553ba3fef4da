// Shared fixture of the FaultyEnv tests: a temp dir, a FaultyEnv over Env::posix(), and
// helpers that look at the real disk behind the env's back. Test-only.
//
// Ownership: the fixture owns both. Thread-safety: as gtest fixtures.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "lib/io/faulty_env.h"
#include "lib/io/temp_dir.h"

namespace darius::io {

using OpenMode = Env::OpenMode;

class FaultyEnvTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::create("faulty_env_test");
    ASSERT_TRUE(dir.ok()) << dir.status().toString();
    dir_ = std::make_unique<TempDir>(std::move(dir).value());
    env_ = std::make_unique<FaultyEnv>(Env::posix());
  }

  std::string path(std::string_view name) const { return dir_->file(name); }

  // Written straight to disk behind FaultyEnv's back, as if before the test: durable.
  void preexisting(std::string_view name, std::string_view data) {
    auto f = Env::posix()->openWritable(path(name), OpenMode::kTruncate);
    ASSERT_TRUE(f.ok()) << f.status().toString();
    ASSERT_TRUE((*f)->append(data).isOk());
    ASSERT_TRUE((*f)->close().isOk());
  }
  void preexistingDir(std::string_view name) {
    ASSERT_TRUE(Env::posix()->createDir(path(name)).isOk());
  }

  // What the real disk holds; nullopt if the name is absent.
  std::optional<std::string> onDisk(std::string_view name) {
    auto data = Env::posix()->readFile(path(name));
    if (!data.ok()) {
      EXPECT_TRUE(data.status().isNotFound()) << data.status().toString();
      return std::nullopt;
    }
    return std::move(data).value();
  }
  bool dirOnDisk(std::string_view name) {
    auto d = Env::posix()->isDirectory(path(name));
    return d.ok() && *d;
  }

  std::unique_ptr<WritableFile> open(std::string_view name, OpenMode mode) {
    auto f = env_->openWritable(path(name), mode);
    EXPECT_TRUE(f.ok()) << f.status().toString();
    return f.ok() ? std::move(f).value() : nullptr;
  }

  void ok(const Status& s) { ASSERT_TRUE(s.isOk()) << s.toString(); }

  std::unique_ptr<TempDir> dir_;
  std::unique_ptr<FaultyEnv> env_;
};

}  // namespace darius::io
