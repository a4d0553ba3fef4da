// Fuzzes the /proc/self/mountinfo parser (lib/io/mount_info.h), which sync_method auto reads
// at startup: arbitrary bytes must give entries or a Corruption/TooBig naming the line,
// never a crash. What parses must survive a round trip: each entry written back as a line
// (its path fields escaped as the kernel does) parses to the same entry, and asking whether
// its mount point is a whole, unshared filesystem answers without an error.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "lib/io/mount_info.h"

namespace {

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\\') {
      const auto u = static_cast<unsigned char>(c);
      out += '\\';
      out += static_cast<char>('0' + (u >> 6));
      out += static_cast<char>('0' + ((u >> 3) & 7));
      out += static_cast<char>('0' + (u & 7));
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto mounts = darius::io::parseMountInfo(in);
  if (!mounts.ok()) return 0;
  for (const darius::io::MountEntry& m : *mounts) {
    if (m.root.empty() || m.mount_point.empty() || m.fs_type.empty()) std::abort();
    std::string line = "1 1 " + std::to_string(m.major) + ":" + std::to_string(m.minor) + " " +
                       escape(m.root) + " " + escape(m.mount_point) + " rw - " +
                       escape(m.fs_type) + " " + escape(m.source) + " rw\n";
    auto again = darius::io::parseMountInfo(line);
    if (!again.ok() || again->size() != 1) std::abort();
    const darius::io::MountEntry& r = (*again)[0];
    if (r.major != m.major || r.minor != m.minor || r.root != m.root ||
        r.mount_point != m.mount_point || r.fs_type != m.fs_type || r.source != m.source) {
      std::abort();
    }
    if (m.mount_point[0] == '/' &&
        !darius::io::isWholeUnsharedFilesystem(*mounts, m.mount_point).ok()) {
      std::abort();
    }
  }
  return 0;
}
