// Reading /proc/self/mountinfo, so that `sync_method: auto` (FilesystemSync::isRoot) can tell
// whether a partition directory has a filesystem to itself. Comparing st_dev of a directory
// and its parent cannot: a bind mount of another filesystem's subdirectory, a Btrfs
// subvolume and a second mount of the same filesystem all look like a root that way, yet a
// syncfs(2) there would also write back whatever else lives on that filesystem. mountinfo
// says which part of a filesystem each mount shows (its root) and which mounts share one
// (their major:minor), which is what the decision needs.
//
// Ownership: plain values in, plain values out; MountEntry owns its strings.
// Thread-safety: parseMountInfo() and isWholeUnsharedFilesystem() are pure functions.
// isWholeUnsharedFilesystemNow() reads the filesystem and may be called from any thread;
// a mount or unmount racing with it may or may not be seen.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/result.h"

namespace darius::io {

// One line of mountinfo (proc(5)), with the path fields unescaped (\040 -> ' ' and so on).
// Only what the sharing decision uses is kept.
struct MountEntry {
  uint32_t major = 0, minor = 0;  // the filesystem (st_dev of its superblock), shared by its mounts
  std::string root;               // the directory of the filesystem this mount shows: "/" if all
  std::string mount_point;        // relative to the process's root directory
  std::string fs_type;            // "ext4", "fuse.sshfs"
  std::string source;             // "/dev/sda1", "none"
};

// Limits on the text parseMountInfo() accepts. Beyond them it returns kTooBig: the caller
// then falls back to per-file syncs, which is always safe, so the limits can be tight
// enough to bound work on a damaged input yet loose enough for any real host.
// fs.mount-max, the kernel's default cap on mounts per namespace.
inline constexpr size_t kMaxMountInfoLines = 100'000;
// Root and mount point are at most PATH_MAX (4 KiB) each, 16 KiB once escaped; the source
// and super options add a few KiB, more for an overlay with many layers.
inline constexpr size_t kMaxMountInfoLineBytes = 1 << 20;
// 100,000 lines of a busy container host average a few hundred bytes.
inline constexpr size_t kMaxMountInfoBytes = 64 << 20;

// Parses mountinfo text, one entry per line, in the order given. A line that does not have
// the proc(5) shape (numeric IDs, "major:minor", at least six fields before a "-"
// separator and three after it, valid octal escapes) is kCorruption naming its line
// number, as is text with no lines at all; the limits above give kTooBig.
base::Result<std::vector<MountEntry>> parseMountInfo(std::string_view text);

// Whether `mount_point` shows a whole filesystem that no other mount shares: some entry is
// mounted exactly there (of several stacked there, the last listed is the visible one),
// its root is "/", and no other entry, hidden or not, has the same major:minor. False,
// not an error, when nothing is mounted there. `mount_point` must be absolute (kInvalid
// otherwise) and resolved (realpath), since entries are compared byte for byte.
base::Result<bool> isWholeUnsharedFilesystem(std::span<const MountEntry> mounts,
                                             std::string_view mount_point);

// The above for `path` (resolved with realpath(3)) against this process's mount namespace.
// An error when `path` cannot be resolved or /proc/self/mountinfo cannot be read or parsed;
// the caller then treats the filesystem as shared. Inside a chroot the kernel lists only
// the mounts below the root, so sharing with a mount outside it goes unseen.
base::Result<bool> isWholeUnsharedFilesystemNow(const std::string& path);

}  // namespace darius::io
