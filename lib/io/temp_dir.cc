#include "lib/io/temp_dir.h"

#include <stdlib.h>

#include <cerrno>
#include <filesystem>
#include <system_error>

#include "lib/io/path.h"

namespace darius::io {

base::Result<TempDir> TempDir::create(std::string_view prefix) {
  const char* env = ::getenv("TMPDIR");
  std::string base = env != nullptr && *env != '\0' ? env : "/tmp";
  DARIUS_ASSIGN_OR_RETURN(std::string dir, absolutePath(base));
  std::string tmpl = joinPath(dir, std::string(prefix) + ".XXXXXX");
  if (::mkdtemp(tmpl.data()) == nullptr) return base::Status::fromErrno(errno, "mkdtemp " + tmpl);
  return TempDir(std::move(tmpl));
}

TempDir& TempDir::operator=(TempDir&& other) noexcept {
  if (this != &other) {
    remove();
    path_ = std::move(other.path_);
    other.path_.clear();
  }
  return *this;
}

std::string TempDir::file(std::string_view name) const { return joinPath(path_, name); }

void TempDir::remove() {
  if (path_.empty()) return;
  std::error_code ec;  // best effort: a destructor has nobody to report to
  std::filesystem::remove_all(path_, ec);
  path_.clear();
}

}  // namespace darius::io
