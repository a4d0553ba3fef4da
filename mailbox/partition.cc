#include "mailbox/partition.h"

#include <set>

#include "lib/io/path.h"
#include "mailbox/change_log.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

std::string Partition::changeLogDir() const { return mailbox::changeLogDir(root); }

bool isValidPartitionName(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

Result<std::vector<Partition>> parsePartitions(const std::vector<std::string>& entries,
                                               std::string_view data_dir) {
  if (entries.empty()) return Status::invalid("partitions: at least one partition is needed");
  std::vector<Partition> out;
  std::set<std::string> names, roots;
  for (const std::string& e : entries) {
    size_t colon = e.find(':');
    if (colon == std::string::npos) {
      return Status::invalid("partitions: '" + e + "' is not name:path");
    }
    Partition p;
    p.name = e.substr(0, colon);
    std::string path = e.substr(colon + 1);
    if (!isValidPartitionName(p.name)) {
      return Status::invalid("partitions: '" + p.name +
                             "' is not a partition name (1-64 of A-Z a-z 0-9 _ -)");
    }
    if (path.empty()) return Status::invalid("partitions: '" + e + "' has an empty path");
    p.root = io::normalizePath(path[0] == '/' ? path : io::joinPath(data_dir, path));
    if (!names.insert(p.name).second) {
      return Status::invalid("partitions: '" + p.name + "' is named twice");
    }
    if (!roots.insert(p.root).second) {
      return Status::invalid("partitions: two partitions share " + p.root);
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace darius::mailbox
