#include "lib/io/atomic_file.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>

#include "lib/io/path.h"

namespace darius::io {

namespace {

constexpr std::string_view kTempMarker = ".tmp.";

// pid + a process-wide counter + the clock: unique across threads, processes and restarts
// of a process that reused a pid.
std::string tempName(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  uint64_t n = counter.fetch_add(1, std::memory_order_relaxed);
  auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  char suffix[64];
  std::snprintf(suffix, sizeof suffix, "%ld.%llu.%llx", static_cast<long>(::getpid()),
                static_cast<unsigned long long>(n), static_cast<unsigned long long>(now));
  std::string name = ".";
  name += baseName(path);
  name += kTempMarker;
  name += suffix;
  return joinPath(parentDir(path), name);
}

}  // namespace

bool isAtomicTempName(std::string_view name) {
  return name.size() > 1 && name.front() == '.' && name.find(kTempMarker, 1) != name.npos;
}

Status writeFileAtomic(Env& env, const std::string& path, std::string_view contents,
                       mode_t mode) {
  std::string tmp = tempName(path);
  Result<std::unique_ptr<WritableFile>> opened = env.openWritable(tmp, Env::OpenMode::kCreateNew);
  if (!opened.ok()) return opened.status().withContext("atomic write of " + path);
  std::unique_ptr<WritableFile> file = std::move(opened).value();

  Status s = mode == 0640 ? Status::ok() : env.setPermissions(tmp, mode);
  if (s.isOk()) s = file->append(contents);
  if (s.isOk()) s = file->sync();
  Status closed = file->close();
  if (s.isOk()) s = closed;
  if (s.isOk()) s = env.renameFile(tmp, path);
  if (!s.isOk()) {
    (void)env.removeFile(tmp);  // best effort; a leftover is recognisable by its name
    return s.withContext("atomic write of " + path);
  }
  // The rename has happened; only its durability is at stake now. There is no undoing it, so a
  // failure here says "new contents visible but maybe not durable".
  return env.syncDir(parentDir(path)).withContext("atomic write of " + path);
}

Result<std::string> writeTempFile(Env& env, const std::string& path, std::string_view contents) {
  std::string tmp = tempName(path);
  Result<std::unique_ptr<WritableFile>> opened = env.openWritable(tmp, Env::OpenMode::kCreateNew);
  if (!opened.ok()) return opened.status().withContext("atomic write of " + path);
  std::unique_ptr<WritableFile> file = std::move(opened).value();
  Status s = file->append(contents);
  if (s.isOk()) s = file->sync();
  Status closed = file->close();
  if (s.isOk()) s = closed;
  if (!s.isOk()) {
    (void)env.removeFile(tmp);
    return s.withContext("atomic write of " + path);
  }
  return tmp;
}

Status commitTempFile(Env& env, const std::string& tmp, const std::string& path) {
  Status s = env.renameFile(tmp, path);
  if (!s.isOk()) {
    (void)env.removeFile(tmp);
    return s.withContext("atomic write of " + path);
  }
  return env.syncDir(parentDir(path)).withContext("atomic write of " + path);
}

}  // namespace darius::io
