// RunFiles: the files dariusd keeps in run_dir while it runs: `dariusd.pid` (its pid, with
// an exclusive lock held for the life of the process, so a second dariusd on the same
// instance refuses to start) and `listeners` (one "service address" line per bound listener,
// written atomically after binding, so tests and scripts that configure port 0 learn the real
// ports). A kill -9 leaves both behind; the lock dies with the process, so a restart works.
//
// Ownership: owns the pid lock. Thread-safety: main thread only.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lib/base/status.h"
#include "lib/io/file_lock.h"

namespace darius::server {

class RunFiles {
 public:
  explicit RunFiles(std::string run_dir) : dir_(std::move(run_dir)) {}
  // Creates run_dir if needed and takes the pid lock; kLocked names the other pid.
  base::Status lock();
  base::Status writeListeners(const std::vector<std::pair<std::string, std::string>>& bound);

 private:
  std::string dir_;
  std::optional<io::FileLock> lock_;
};

}  // namespace darius::server
