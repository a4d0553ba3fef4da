// HookedEnv (tests only): an Env that forwards to the real one and runs a test's hook before
// each openWritable() (with the path) and each WritableFile::sync(), so a test can make
// another thread act at an exact point inside an operation (a concurrent append inside a
// group commit, an index rewrite inside a purge).
//
// Ownership: forwards to Env::posix(). Thread-safety: as the real Env; the hooks are set
// before the threads start and run on whichever thread opens or syncs.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lib/io/env.h"

namespace darius::io {

class HookedEnv : public Env {
 public:
  std::function<void()> before_sync;
  std::function<void(const std::string& path)> before_open;
  Result<std::unique_ptr<WritableFile>> openWritable(const std::string& p,
                                                     OpenMode m) override {
    if (before_open) before_open(p);
    DARIUS_ASSIGN_OR_RETURN(auto f, base_->openWritable(p, m));
    return std::unique_ptr<WritableFile>(new File(std::move(f), this));
  }
  Result<std::string> readFile(const std::string& p) override { return base_->readFile(p); }
  Status renameFile(const std::string& f, const std::string& t) override {
    return base_->renameFile(f, t);
  }
  Status linkFile(const std::string& f, const std::string& t) override {
    return base_->linkFile(f, t);
  }
  Status removeFile(const std::string& p) override { return base_->removeFile(p); }
  Status setPermissions(const std::string& p, mode_t m) override {
    return base_->setPermissions(p, m);
  }
  Status createDir(const std::string& p) override { return base_->createDir(p); }
  Status removeDir(const std::string& p) override { return base_->removeDir(p); }
  Status syncDir(const std::string& p) override { return base_->syncDir(p); }
  Result<bool> fileExists(const std::string& p) override { return base_->fileExists(p); }
  Result<uint64_t> fileSize(const std::string& p) override { return base_->fileSize(p); }
  Result<std::vector<std::string>> listDir(const std::string& p) override {
    return base_->listDir(p);
  }
  Result<bool> isDirectory(const std::string& p) override { return base_->isDirectory(p); }

 private:
  class File : public WritableFile {
   public:
    File(std::unique_ptr<WritableFile> f, HookedEnv* env) : f_(std::move(f)), env_(env) {}
    Status append(std::string_view d) override { return f_->append(d); }
    Status pwrite(uint64_t o, std::string_view d) override { return f_->pwrite(o, d); }
    Result<std::string> pread(uint64_t o, size_t n) override { return f_->pread(o, n); }
    Status sync() override {
      if (env_->before_sync) env_->before_sync();
      return f_->sync();
    }
    Status close() override { return f_->close(); }
    uint64_t size() const override { return f_->size(); }

   private:
    std::unique_ptr<WritableFile> f_;
    HookedEnv* env_;
  };
  Env* base_ = Env::posix();
};

}  // namespace darius::io
