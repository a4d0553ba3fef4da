#include "lib/io/mount_info.h"

#include <gtest/gtest.h>

namespace darius::io {
namespace {

using base::Code;

// A host with ext4 on /, a separate ext4 on /var/spool/mail, and tmpfs instances.
constexpr std::string_view kPlainHost =
    "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
    "27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard\n"
    "30 27 0:27 / /dev/shm rw,relatime shared:5 - tmpfs tmpfs rw,size=24684092k\n"
    "41 27 8:17 / /var/spool/mail rw,noatime shared:9 master:2 - ext4 /dev/sdb1 rw\n";

base::Result<bool> decide(std::string_view text, std::string_view mount_point) {
  base::Result<std::vector<MountEntry>> mounts = parseMountInfo(text);
  if (!mounts.ok()) return mounts.status();
  return isWholeUnsharedFilesystem(*mounts, mount_point);
}

TEST(MountInfo, ParsesFields) {
  auto mounts = parseMountInfo(kPlainHost);
  ASSERT_TRUE(mounts.ok()) << mounts.status().toString();
  ASSERT_EQ(mounts->size(), 4u);
  const MountEntry& spool = (*mounts)[3];
  EXPECT_EQ(spool.major, 8u);
  EXPECT_EQ(spool.minor, 17u);
  EXPECT_EQ(spool.root, "/");
  EXPECT_EQ(spool.mount_point, "/var/spool/mail");
  EXPECT_EQ(spool.fs_type, "ext4");
  EXPECT_EQ(spool.source, "/dev/sdb1");
  EXPECT_EQ((*mounts)[1].major, 254u);  // "shared:1", one optional field
}

TEST(MountInfo, WholeFilesystems) {
  EXPECT_TRUE(*decide(kPlainHost, "/"));
  EXPECT_TRUE(*decide(kPlainHost, "/var/spool/mail"));
  EXPECT_TRUE(*decide(kPlainHost, "/dev/shm"));
  // A directory, not a mount point: whatever holds it is shared with its parent.
  EXPECT_FALSE(*decide(kPlainHost, "/var/spool"));
  EXPECT_FALSE(*decide(kPlainHost, "/var/spool/mail/user"));
  EXPECT_EQ(decide(kPlainHost, "var/spool/mail").status().code(), Code::kInvalid);
  EXPECT_EQ(decide(kPlainHost, "").status().code(), Code::kInvalid);
}

TEST(MountInfo, BindMountOfSubdirectory) {
  // mount --bind /srv/mail /var/spool/mail, /srv on its own filesystem.
  constexpr std::string_view text =
      "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
      "40 27 8:1 / /srv rw,relatime - xfs /dev/sda1 rw\n"
      "41 27 8:1 /srv/mail /var/spool/mail rw,relatime - xfs /dev/sda1 rw\n";
  EXPECT_FALSE(*decide(text, "/var/spool/mail"));  // root is not "/"
  EXPECT_FALSE(*decide(text, "/srv"));             // 8:1 is also mounted elsewhere
}

TEST(MountInfo, BindMountOfSubdirectoryAlone) {
  // The filesystem's own root is mounted nowhere: the root field alone gives it away.
  constexpr std::string_view text =
      "27 1 254:0 / / rw - ext4 /dev/vda rw\n"
      "41 27 8:1 /srv/mail /var/spool/mail rw - xfs /dev/sda1 rw\n";
  EXPECT_FALSE(*decide(text, "/var/spool/mail"));
}

TEST(MountInfo, BtrfsSubvolumes) {
  // Subvolumes of one Btrfs share its anonymous 0:NN; st_dev differs per subvolume, so the
  // st_dev test alone would call both roots.
  constexpr std::string_view text =
      "27 1 0:32 /@ / rw,relatime - btrfs /dev/nvme0n1p2 rw,subvolid=256,subvol=/@\n"
      "45 27 0:32 /@spool /var/spool rw,relatime - btrfs /dev/nvme0n1p2 "
      "rw,subvolid=257,subvol=/@spool\n";
  EXPECT_FALSE(*decide(text, "/"));
  EXPECT_FALSE(*decide(text, "/var/spool"));
}

TEST(MountInfo, BtrfsTopLevelSharedWithSubvolume) {
  constexpr std::string_view text =
      "27 1 254:0 / / rw - ext4 /dev/vda rw\n"
      "45 27 0:40 / /mail rw - btrfs /dev/sdc rw,subvolid=5,subvol=/\n"
      "46 27 0:40 /snap /snapshots rw - btrfs /dev/sdc rw,subvolid=300,subvol=/snap\n";
  EXPECT_FALSE(*decide(text, "/mail"));  // root "/", but a subvolume is mounted elsewhere
}

TEST(MountInfo, SameFilesystemMountedTwice) {
  constexpr std::string_view text =
      "27 1 254:0 / / rw - ext4 /dev/vda rw\n"
      "41 27 8:17 / /var/spool/mail rw - ext4 /dev/sdb1 rw\n"
      "42 27 8:17 / /mnt/backup ro - ext4 /dev/sdb1 rw\n";
  EXPECT_FALSE(*decide(text, "/var/spool/mail"));
  EXPECT_FALSE(*decide(text, "/mnt/backup"));
}

TEST(MountInfo, OctalEscapes) {
  constexpr std::string_view text =
      "27 1 254:0 / / rw - ext4 /dev/vda rw\n"
      "41 27 8:17 / /srv/mail\\040store rw - ext4 /dev/disk/by-label/a\\134b rw\n"
      "42 27 8:18 /x\\011y /srv/tab rw - ext4 /dev/sdb2 rw\n";
  auto mounts = parseMountInfo(text);
  ASSERT_TRUE(mounts.ok()) << mounts.status().toString();
  EXPECT_EQ((*mounts)[1].mount_point, "/srv/mail store");
  EXPECT_EQ((*mounts)[1].source, "/dev/disk/by-label/a\\b");
  EXPECT_EQ((*mounts)[2].root, "/x\ty");
  EXPECT_TRUE(*isWholeUnsharedFilesystem(*mounts, "/srv/mail store"));
  EXPECT_FALSE(*isWholeUnsharedFilesystem(*mounts, "/srv/mail\\040store"));
}

TEST(MountInfo, EmptySourceAndExtraFields) {
  // mount -t tmpfs "" /mnt shows an empty source between two spaces; a field after the
  // super options is tolerated for kernels yet to come.
  auto mounts = parseMountInfo("50 27 0:60 / /mnt rw - tmpfs  rw,size=4k extra\n");
  ASSERT_TRUE(mounts.ok()) << mounts.status().toString();
  EXPECT_EQ((*mounts)[0].source, "");
  EXPECT_EQ((*mounts)[0].fs_type, "tmpfs");
}

TEST(MountInfo, StackedMounts) {
  // Two mounts on /var/spool/mail: the later one (8:33) is on top.
  constexpr std::string_view text =
      "27 1 254:0 / / rw - ext4 /dev/vda rw\n"
      "41 27 8:17 / /var/spool/mail rw - ext4 /dev/sdb1 rw\n"
      "43 41 8:33 / /var/spool/mail rw - ext4 /dev/sdc1 rw\n";
  EXPECT_TRUE(*decide(text, "/var/spool/mail"));
  // The hidden mount still shares its filesystem with whatever else mounts it.
  constexpr std::string_view hidden_shared =
      "27 1 254:0 / / rw - ext4 /dev/vda rw\n"
      "41 27 8:17 / /var/spool/mail rw - ext4 /dev/sdb1 rw\n"
      "43 41 8:17 / /var/spool/mail rw - ext4 /dev/sdb1 rw\n";
  EXPECT_FALSE(*decide(hidden_shared, "/var/spool/mail"));
  // A bind of a subdirectory on top of a whole filesystem: the bind is what is visible.
  constexpr std::string_view bind_on_top =
      "27 1 254:0 / / rw - ext4 /dev/vda rw\n"
      "41 27 8:17 / /var/spool/mail rw - ext4 /dev/sdb1 rw\n"
      "43 41 8:33 /sub /var/spool/mail rw - ext4 /dev/sdc1 rw\n";
  EXPECT_FALSE(*decide(bind_on_top, "/var/spool/mail"));
}

void expectCorrupt(std::string_view text, std::string_view line_mention) {
  auto mounts = parseMountInfo(text);
  ASSERT_FALSE(mounts.ok()) << "parsed: " << text;
  EXPECT_EQ(mounts.status().code(), Code::kCorruption) << mounts.status().toString();
  EXPECT_NE(mounts.status().message().find(line_mention), std::string::npos)
      << mounts.status().toString();
}

TEST(MountInfo, MalformedLines) {
  const std::string good = "27 1 254:0 / / rw - ext4 /dev/vda rw\n";
  expectCorrupt("", "no mounts");
  expectCorrupt(good + "41 27 8:17 / /mail rw ext4 /dev/sdb1 rw\n", "line 2: no \"-\"");
  expectCorrupt(good + good + "41 27 8-17 / /mail rw - ext4 /dev/sdb1 rw\n", "line 3: bad major");
  expectCorrupt("41 27 8: / /mail rw - ext4 /dev/sdb1 rw\n", "line 1: bad major");
  expectCorrupt("41 27 :17 / /mail rw - ext4 /dev/sdb1 rw\n", "line 1: bad major");
  expectCorrupt("41 27 8:17x / /mail rw - ext4 /dev/sdb1 rw\n", "line 1: bad major");
  expectCorrupt("41 27 99999999999:1 / /mail rw - ext4 x rw\n", "line 1: bad major");
  expectCorrupt("41 27 -8:17 / /mail rw - ext4 x rw\n", "line 1: bad major");
  expectCorrupt("41 27 8:17 / /mail\n", "line 1: too few fields");
  expectCorrupt("41 27 8:17 / /mail rw - ext4 /dev/sdb1\n", "line 1: too few fields after");
  expectCorrupt("x 27 8:17 / /mail rw - ext4 /dev/sdb1 rw\n", "line 1: bad mount ID");
  expectCorrupt(good + "\n" + good, "line 2: too few fields");  // a blank line
  expectCorrupt("41 27 8:17 / /a\\04 rw - ext4 x rw\n", "line 1: bad escape");
  expectCorrupt("41 27 8:17 / /a\\0x0b rw - ext4 x rw\n", "line 1: bad escape");
  expectCorrupt("41 27 8:17 / /a\\777 rw - ext4 x rw\n", "line 1: bad escape");
  expectCorrupt("41 27 8:17 / /a\\ rw - ext4 x rw\n", "line 1: bad escape");
  expectCorrupt("41 27 8:17  /a rw - ext4 x rw\n", "line 1: empty");
  expectCorrupt(std::string_view("41 27 8:17 / /a\0 rw - ext4 x rw\n", 5), "line 1: too few");
}

TEST(MountInfo, LastLineWithoutNewline) {
  auto mounts = parseMountInfo("27 1 254:0 / / rw - ext4 /dev/vda rw");
  ASSERT_TRUE(mounts.ok()) << mounts.status().toString();
  EXPECT_EQ((*mounts)[0].source, "/dev/vda");
}

TEST(MountInfo, Limits) {
  const std::string line = "27 1 254:0 / / rw - ext4 /dev/vda rw\n";
  std::string text;
  text.reserve(line.size() * (kMaxMountInfoLines + 1));
  for (size_t i = 0; i < kMaxMountInfoLines; ++i) text += line;
  auto at_limit = parseMountInfo(text);
  ASSERT_TRUE(at_limit.ok()) << at_limit.status().toString();
  EXPECT_EQ(at_limit->size(), kMaxMountInfoLines);
  text += line;
  EXPECT_EQ(parseMountInfo(text).status().code(), Code::kTooBig);

  const std::string long_line =
      "27 1 254:0 / /" + std::string(kMaxMountInfoLineBytes, 'a') + " rw - ext4 /dev/vda rw\n";
  auto too_long = parseMountInfo(line + long_line);
  EXPECT_EQ(too_long.status().code(), Code::kTooBig);
  EXPECT_NE(too_long.status().message().find("line 2"), std::string::npos);

  EXPECT_EQ(parseMountInfo(std::string(kMaxMountInfoBytes + 1, '\n')).status().code(),
            Code::kTooBig);
}

TEST(MountInfoNow, ReadsThisProcessMounts) {
  // The answers depend on the machine; that they are answers, not errors, does not.
  base::Result<bool> root = isWholeUnsharedFilesystemNow("/");
  EXPECT_TRUE(root.ok()) << root.status().toString();
  base::Result<bool> proc = isWholeUnsharedFilesystemNow("/proc");
  EXPECT_TRUE(proc.ok()) << proc.status().toString();
  base::Result<bool> dir = isWholeUnsharedFilesystemNow("/proc/self/..");  // resolved to /proc
  EXPECT_TRUE(dir.ok()) << dir.status().toString();
  if (proc.ok() && dir.ok()) {
    EXPECT_EQ(*proc, *dir);
  }
}

TEST(MountInfoNow, MissingPathIsAnError) {
  base::Result<bool> r = isWholeUnsharedFilesystemNow("/nonexistent/darius/mount_info_test");
  EXPECT_EQ(r.status().code(), Code::kNotFound) << r.status().toString();
}

}  // namespace
}  // namespace darius::io
