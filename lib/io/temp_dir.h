// TempDir: a fresh, private directory for a test (or a tool's scratch work), made with
// mkdtemp under $TMPDIR (or /tmp) and removed with everything in it on destruction. Every
// test that touches files gets its own, so tests can run in parallel and leave nothing behind.
//
// Ownership: owns the directory tree. Thread-safety: a value; create() is thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "lib/base/result.h"

namespace darius::io {

class TempDir {
 public:
  // `prefix` becomes the start of the directory's name ("<prefix>.XXXXXX").
  static base::Result<TempDir> create(std::string_view prefix = "darius");

  TempDir(TempDir&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }
  TempDir& operator=(TempDir&& other) noexcept;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() { remove(); }

  // Absolute path of the directory, no trailing slash.
  const std::string& path() const { return path_; }
  // path()/name.
  std::string file(std::string_view name) const;

 private:
  explicit TempDir(std::string path) : path_(std::move(path)) {}
  void remove();

  std::string path_;
};

}  // namespace darius::io
