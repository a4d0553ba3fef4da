// bench/load: /proc readers for server memory and CPU (see procmem.h).
#include "bench/load/procmem.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace darius::bench {

namespace {

// Fields of /proc/<pid>/stat after the "(comm)" field, which may contain spaces.
bool readStat(int pid, int& ppid, double& user_s, double& sys_s) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string s;
  if (!std::getline(f, s)) return false;
  size_t close = s.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream is(s.substr(close + 2));
  std::string field;
  std::vector<std::string> v;
  while (is >> field) v.push_back(field);
  // v[0] = state (field 3), v[1] = ppid (4), utime = field 14 -> v[11], stime v[12],
  // cutime v[13], cstime v[14].
  if (v.size() < 15) return false;
  ppid = std::atoi(v[1].c_str());
  static const double hz = static_cast<double>(sysconf(_SC_CLK_TCK));
  user_s = (std::atof(v[11].c_str()) + std::atof(v[13].c_str())) / hz;
  sys_s = (std::atof(v[12].c_str()) + std::atof(v[14].c_str())) / hz;
  return true;
}

}  // namespace

std::vector<int> processTree(int root) {
  std::multimap<int, int> children;
  DIR* d = opendir("/proc");
  if (!d) return {root};
  while (dirent* e = readdir(d)) {
    int pid = std::atoi(e->d_name);
    if (pid <= 0) continue;
    int ppid = 0;
    double user = 0, sys = 0;
    if (readStat(pid, ppid, user, sys)) children.emplace(ppid, pid);
  }
  closedir(d);
  std::vector<int> out = {root};
  for (size_t i = 0; i < out.size(); ++i) {
    auto [a, b] = children.equal_range(out[i]);
    for (auto it = a; it != b; ++it) out.push_back(it->second);
  }
  return out;
}

TreeUsage treeUsage(int root, bool with_memory) {
  TreeUsage u;
  for (int pid : processTree(root)) {
    int ppid = 0;
    double user = 0, sys = 0;
    if (!readStat(pid, ppid, user, sys)) continue;
    u.user_s += user;
    u.sys_s += sys;
    u.cpu_s += user + sys;
    ++u.processes;
    if (!with_memory) continue;
    std::ifstream f("/proc/" + std::to_string(pid) + "/smaps_rollup");
    std::string line;
    while (std::getline(f, line)) {
      if (line.rfind("Pss:", 0) == 0) u.pss_kb += std::strtoull(line.c_str() + 4, nullptr, 10);
      else if (line.rfind("Rss:", 0) == 0) u.rss_kb += std::strtoull(line.c_str() + 4, nullptr, 10);
    }
  }
  return u;
}

uint64_t memAvailableKb() {
  std::ifstream f("/proc/meminfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("MemAvailable:", 0) == 0) return std::strtoull(line.c_str() + 13, nullptr, 10);
  }
  return 0;
}

}  // namespace darius::bench
