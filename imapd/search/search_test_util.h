// Test support for the SEARCH tests: a scratch directory for a real Store, on tmpfs when the
// machine has one. The store fsyncs every staged message; on a slow disk that alone makes a
// 10,000-message mailbox take minutes, and durability is not what these tests are about
// (mailbox/ has its crash tests). Same files, same code paths, only the fsyncs are cheap, as
// tests/fuzz/changelog_fuzz.cc does.
//
// Ownership: a ScratchDir removes its tree when destroyed. Thread-safety: one per test.
#pragma once

#include <stdlib.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace darius::imapd::search {

class ScratchDir {
 public:
  explicit ScratchDir(std::string_view prefix) {
    std::string base = "/tmp";
    if (const char* t = ::getenv("TMPDIR"); t != nullptr && *t != '\0') base = t;
    struct statvfs fs {};
    if (::access("/dev/shm", W_OK) == 0 && ::statvfs("/dev/shm", &fs) == 0 &&
        fs.f_bavail * fs.f_frsize >= (512ull << 20)) {
      base = "/dev/shm";
    }
    std::string tmpl = base + "/" + std::string(prefix) + ".XXXXXX";
    if (::mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  bool ok() const { return !path_.empty(); }
  std::string file(std::string_view name) const { return path_ + "/" + std::string(name); }

 private:
  std::string path_;
};

}  // namespace darius::imapd::search
