// bench/load: "physical" — the machine's limits that bound every server in the table:
// small appends each followed by fsync per second on the bench filesystem (a mail store
// acknowledging one message at a time cannot beat it without group commit), and
// page-cache read bandwidth (reading a 256 MiB file that is already cached).
// Single-threaded; creates and removes its files under Options::dir.
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "bench/load/workloads.h"

namespace darius::bench {

void runPhysical(const Options& o, Result& r) {
  if (o.dir.empty()) throw HarnessError("physical needs --dir");
  std::string path = o.dir + "/fsync-probe.tmp";
  int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) throw HarnessError("cannot create " + path);
  std::vector<char> small(512, 'x');
  size_t n = 0;
  auto t0 = Clock::now();
  while (secondsSince(t0) < 2.0) {
    if (::write(fd, small.data(), small.size()) != static_cast<ssize_t>(small.size()) || ::fsync(fd) != 0) {
      ::close(fd);
      throw HarnessError("write/fsync failed on " + path);
    }
    ++n;
  }
  r.metrics["fsync_per_s"] = static_cast<double>(n) / secondsSince(t0);
  ::close(fd);
  ::unlink(path.c_str());

  path = o.dir + "/read-probe.tmp";
  fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) throw HarnessError("cannot create " + path);
  std::vector<char> block(1 << 20, 'y');
  constexpr size_t kBlocks = 256;
  for (size_t i = 0; i < kBlocks; ++i) {
    if (::write(fd, block.data(), block.size()) != static_cast<ssize_t>(block.size())) {
      ::close(fd);
      throw HarnessError("write failed on " + path);
    }
  }
  double best = 0;
  for (int pass = 0; pass < 3; ++pass) {  // the first pass may still miss the cache
    t0 = Clock::now();
    size_t got = 0;
    for (size_t i = 0; i < kBlocks; ++i) {
      ssize_t k = ::pread(fd, block.data(), block.size(), static_cast<off_t>(i * block.size()));
      if (k <= 0) break;
      got += static_cast<size_t>(k);
    }
    best = std::max(best, static_cast<double>(got) / secondsSince(t0) / (1 << 20));
  }
  r.metrics["page_cache_read_mib_per_s"] = best;
  ::close(fd);
  ::unlink(path.c_str());
}

}  // namespace darius::bench
