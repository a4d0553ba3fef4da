// bench/load: memory and CPU of a server measured from /proc, over the server's whole
// process tree (Dovecot and Cyrus fork a process per session; Darius is one process).
//
// PSS comes from /proc/<pid>/smaps_rollup (shared pages divided among their users, so the
// sum over processes is the real footprint); RSS from the same file. CPU is utime+stime
// plus cutime+cstime (children already reaped by a process in the tree), from
// /proc/<pid>/stat, for every live process of the tree.
//
// Stateless free functions; safe from any thread. Needs permission to read the server's
// /proc files (root, or the same user).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace darius::bench {

struct TreeUsage {
  uint64_t pss_kb = 0;
  uint64_t rss_kb = 0;
  double cpu_s = 0;   // user_s + sys_s
  double user_s = 0;  // utime + cutime
  double sys_s = 0;   // stime + cstime
  size_t processes = 0;
};

// The pid and all its descendants (one scan of /proc).
std::vector<int> processTree(int root);
TreeUsage treeUsage(int root, bool with_memory = true);
// MemAvailable from /proc/meminfo, in KiB.
uint64_t memAvailableKb();

}  // namespace darius::bench
