#include "server/run_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <fstream>

#include "lib/io/atomic_file.h"
#include "lib/io/env.h"
#include "lib/io/fd.h"

namespace darius::server {

using base::Status;

Status RunFiles::lock() {
  DARIUS_RETURN_IF_ERROR(io::makeDirs(dir_, 0750));
  const std::string pid_path = dir_ + "/dariusd.pid";
  auto l = io::FileLock::acquire(pid_path, io::LockMode::kExclusive, /*wait=*/false);
  if (!l.ok()) {
    if (l.status().code() == base::Code::kLocked) {
      std::string other;
      std::ifstream in(pid_path);
      std::getline(in, other);
      return Status::locked("another dariusd (pid " + (other.empty() ? "?" : other) +
                            ") is running on " + dir_);
    }
    return l.status().withContext("lock " + pid_path);
  }
  lock_.emplace(std::move(*l));
  // The lock lives on the file itself, so its content is rewritten in place, not replaced.
  auto fd = io::openFile(pid_path, O_WRONLY | O_TRUNC);
  if (!fd.ok()) return fd.status();
  return io::writeAll(fd->get(), std::to_string(getpid()) + "\n");
}

Status RunFiles::writeListeners(const std::vector<std::pair<std::string, std::string>>& bound) {
  std::string text;
  for (const auto& [service, address] : bound) text += service + " " + address + "\n";
  return io::writeFileAtomic(*io::Env::posix(), dir_ + "/listeners", text);
}

}  // namespace darius::server
