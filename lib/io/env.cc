#include "lib/io/env.h"

#include "lib/io/path.h"

namespace darius::io {

Status Env::runConcurrently(std::span<const std::function<Status()>> tasks) {
  Status first = Status::ok();
  for (const auto& task : tasks) {
    Status s = task();
    if (first.isOk() && !s.isOk()) first = s;
  }
  return first;
}

Result<std::unique_ptr<FilesystemSync>> Env::openFilesystemSync(const std::vector<std::string>&) {
  return Status::notSupported("this Env has no filesystem-wide sync");
}

Status createDirs(Env& env, const std::string& path) {
  if (path.empty()) return Status::invalid("createDirs: empty path");
  std::string prefix = path.front() == '/' ? "/" : "";
  std::vector<std::string> created;
  for (const std::string& part : splitPath(path)) {
    prefix = joinPath(prefix, part);
    Result<bool> dir = env.isDirectory(prefix);
    if (dir.ok()) {
      if (!*dir) return Status::exists(prefix + " exists and is not a directory");
      continue;
    }
    if (!dir.status().isNotFound()) return dir.status();
    Status s = env.createDir(prefix);
    // Lost a race with another creator: fine as long as a directory is what they made.
    if (s.code() == base::Code::kExists) {
      DARIUS_ASSIGN_OR_RETURN(bool now_dir, env.isDirectory(prefix));
      if (!now_dir) return Status::exists(prefix + " exists and is not a directory");
      continue;
    }
    DARIUS_RETURN_IF_ERROR(s);
    created.push_back(prefix);
  }
  for (const std::string& dir : created) DARIUS_RETURN_IF_ERROR(env.syncDir(parentDir(dir)));
  return Status::ok();
}

Status removeTree(Env& env, const std::string& path) {
  Result<bool> dir = env.isDirectory(path);
  if (!dir.ok()) return dir.status().isNotFound() ? Status::ok() : dir.status();
  if (!*dir) return env.removeFile(path);
  DARIUS_ASSIGN_OR_RETURN(std::vector<std::string> names, env.listDir(path));
  for (const std::string& name : names) {
    DARIUS_RETURN_IF_ERROR(removeTree(env, joinPath(path, name)));
  }
  return env.removeDir(path);
}

}  // namespace darius::io
