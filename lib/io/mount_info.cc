#include "lib/io/mount_info.h"

#include <fcntl.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <memory>

#include "lib/base/split.h"
#include "lib/io/fd.h"

namespace darius::io {

namespace {

using base::Result;
using base::Status;

constexpr const char* kMountInfoPath = "/proc/self/mountinfo";

Status malformed(size_t line_no, std::string_view why) {
  std::string m = "mountinfo line ";
  m += std::to_string(line_no);
  m += ": ";
  m += why;
  return Status::corruption(std::move(m));
}

bool parseDecimal(std::string_view s, uint32_t* out) {
  if (s.empty()) return false;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, *out);
  return ec == std::errc() && ptr == end;
}

bool isOctal(char c) { return c >= '0' && c <= '7'; }

// The kernel writes ' ', '\t', '\n' and '\\' in these fields as a backslash and three octal
// digits, so a backslash followed by anything else is not mountinfo. Any octal escape is
// decoded, so that a kernel escaping more characters still parses.
bool unescape(std::string_view s, std::string* out) {
  out->clear();
  out->reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      out->push_back(s[i]);
      continue;
    }
    if (s.size() - i < 4) return false;
    if (!isOctal(s[i + 1]) || !isOctal(s[i + 2]) || !isOctal(s[i + 3])) return false;
    const int value = (s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0');
    if (value > 0xff) return false;  // \400 and up are not a byte
    out->push_back(static_cast<char>(value));
    i += 3;
  }
  return true;
}

// proc(5): ID, parent ID, major:minor, root, mount point, options, optional fields, "-",
// type, source, super options.
Status parseLine(std::string_view line, size_t line_no, MountEntry* entry) {
  // Fields are separated by exactly one space. Splitting on runs of spaces would be wrong:
  // an empty source (mount -t tmpfs "" /mnt) shows as an empty field between two spaces.
  const std::vector<std::string_view> f = base::split(line, ' ');
  // The optional fields are "tag[:value]", never a lone "-", so the first "-" from the
  // seventh field on is the separator.
  size_t sep = 6;
  while (sep < f.size() && f[sep] != "-") ++sep;
  if (f.size() < 7) return malformed(line_no, "too few fields");
  if (sep == f.size()) return malformed(line_no, "no \"-\" separator");
  // Later kernels may append fields after the super options, as they did optional fields.
  if (f.size() - sep - 1 < 3) return malformed(line_no, "too few fields after \"-\"");

  uint32_t id = 0;
  if (!parseDecimal(f[0], &id) || !parseDecimal(f[1], &id)) {
    return malformed(line_no, "bad mount ID");
  }
  const size_t colon = f[2].find(':');
  if (colon == std::string_view::npos || !parseDecimal(f[2].substr(0, colon), &entry->major) ||
      !parseDecimal(f[2].substr(colon + 1), &entry->minor)) {
    return malformed(line_no, "bad major:minor");
  }
  if (!unescape(f[3], &entry->root) || !unescape(f[4], &entry->mount_point) ||
      !unescape(f[sep + 1], &entry->fs_type) || !unescape(f[sep + 2], &entry->source)) {
    return malformed(line_no, "bad escape");
  }
  if (entry->root.empty() || entry->mount_point.empty() || entry->fs_type.empty()) {
    return malformed(line_no, "empty root, mount point or type");
  }
  return Status::ok();
}

}  // namespace

Result<std::vector<MountEntry>> parseMountInfo(std::string_view text) {
  if (text.size() > kMaxMountInfoBytes) {
    return Status::tooBig("mountinfo: over " + std::to_string(kMaxMountInfoBytes) + " bytes");
  }
  std::vector<MountEntry> mounts;
  size_t line_no = 0;
  size_t start = 0;
  while (start < text.size()) {
    ++line_no;
    if (line_no > kMaxMountInfoLines) {
      return Status::tooBig("mountinfo: over " + std::to_string(kMaxMountInfoLines) + " lines");
    }
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();  // a last line without '\n'
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (line.size() > kMaxMountInfoLineBytes) {
      return Status::tooBig("mountinfo line " + std::to_string(line_no) + ": over " +
                            std::to_string(kMaxMountInfoLineBytes) + " bytes");
    }
    MountEntry entry;
    DARIUS_RETURN_IF_ERROR(parseLine(line, line_no, &entry));
    mounts.push_back(std::move(entry));
  }
  // Every process has at least its root mounted: empty text was not read from mountinfo.
  if (mounts.empty()) return Status::corruption("mountinfo: no mounts");
  return mounts;
}

Result<bool> isWholeUnsharedFilesystem(std::span<const MountEntry> mounts,
                                       std::string_view mount_point) {
  if (mount_point.empty() || mount_point.front() != '/') {
    return Status::invalid("mount point not absolute: " + std::string(mount_point));
  }
  // The kernel lists a namespace's mounts in the order they were attached, so of several
  // stacked on one point the last is on top, and the only one a path there reaches.
  const MountEntry* visible = nullptr;
  for (const MountEntry& m : mounts) {
    if (m.mount_point == mount_point) visible = &m;
  }
  if (visible == nullptr || visible->root != "/") return false;
  for (const MountEntry& m : mounts) {
    // A hidden mount of the same filesystem still shares it: its files can be open.
    if (&m != visible && m.major == visible->major && m.minor == visible->minor) return false;
  }
  return true;
}

Result<bool> isWholeUnsharedFilesystemNow(const std::string& path) {
  // mountinfo names mount points with symlinks resolved, relative to the process's root,
  // which is how realpath(3) spells them too.
  std::unique_ptr<char, decltype(&std::free)> resolved(::realpath(path.c_str(), nullptr),
                                                       &std::free);
  if (resolved == nullptr) return Status::fromErrno(errno, "realpath " + path);
  // readAll reads on to EOF, not to st_size, which is 0 for files of /proc.
  DARIUS_ASSIGN_OR_RETURN(UniqueFd fd, openFile(kMountInfoPath, O_RDONLY));
  Result<std::string> text = readAll(fd.get());
  if (!text.ok()) return text.status().withContext(kMountInfoPath);
  Result<std::vector<MountEntry>> mounts = parseMountInfo(*text);
  if (!mounts.ok()) return mounts.status().withContext(kMountInfoPath);
  return isWholeUnsharedFilesystem(*mounts, resolved.get());
}

}  // namespace darius::io
