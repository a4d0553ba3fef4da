// Rollback semantics: what survives a simulated power loss.
#include "lib/io/faulty_env.h"

#include <sys/stat.h>

#include <optional>

#include <gtest/gtest.h>

#include "lib/io/faulty_env_test_fixture.h"

namespace darius::io {
namespace {

using base::Code;

TEST_F(FaultyEnvTest, UnsyncedAppendVanishesSyncedOneSurvives) {
  auto f = open("log", OpenMode::kCreateNew);
  ASSERT_TRUE(f);
  ok(env_->syncDir(dir_->path()));
  ok(f->append("abc"));
  ok(f->sync());
  ok(f->append("def"));
  EXPECT_EQ(onDisk("log"), "abcdef");  // before the crash the disk has it all
  ok(env_->dropUnsyncedData());
  EXPECT_EQ(onDisk("log"), "abc");
  // The handle belongs to the machine before the crash.
  EXPECT_EQ(f->append("x").code(), Code::kIoError);
  EXPECT_EQ(onDisk("log"), "abc");
}

TEST_F(FaultyEnvTest, SyncedFileWithoutDirSyncVanishes) {
  auto f = open("msg", OpenMode::kCreateNew);
  ASSERT_TRUE(f);
  ok(f->append("body"));
  ok(f->sync());
  ok(f->close());
  ok(env_->dropUnsyncedData());
  EXPECT_EQ(onDisk("msg"), std::nullopt);
}

TEST_F(FaultyEnvTest, DirSyncedButDataUnsyncedLeavesEmptyFile) {
  auto f = open("msg", OpenMode::kCreateNew);
  ASSERT_TRUE(f);
  ok(f->append("body"));
  ok(env_->syncDir(dir_->path()));
  ok(env_->dropUnsyncedData());
  EXPECT_EQ(onDisk("msg"), "");
}

TEST_F(FaultyEnvTest, PreexistingFilesAreDurableAndUntouched) {
  preexisting("keep", "kept");
  preexisting("open-only", "same");
  auto f = open("open-only", OpenMode::kAppend);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->size(), 4u);
  auto g = open("new", OpenMode::kCreateNew);
  ok(env_->dropUnsyncedData());
  EXPECT_EQ(onDisk("keep"), "kept");
  EXPECT_EQ(onDisk("open-only"), "same");
  EXPECT_EQ(onDisk("new"), std::nullopt);
}

TEST_F(FaultyEnvTest, ExistingNeverCreatesAndPreadSeesTheCurrentBytes) {
  EXPECT_EQ(env_->openWritable(path("absent"), OpenMode::kExisting).status().code(),
            Code::kNotFound);
  EXPECT_EQ(onDisk("absent"), std::nullopt);
  preexisting("idx", "header");
  auto f = open("idx", OpenMode::kExisting);
  ASSERT_TRUE(f);
  ok(f->pwrite(0, "HE"));
  EXPECT_EQ(*f->pread(0, 6), "HEader");  // unsynced, but what a reader sees now
  ok(env_->dropUnsyncedData());
  EXPECT_EQ(onDisk("idx"), "header");
  EXPECT_EQ(f->pread(0, 6).status().code(), Code::kIoError);  // a handle from before
}

TEST_F(FaultyEnvTest, PwriteIsRolledBackToTheLastSync) {
  preexisting("index", "aaaa");
  auto f = open("index", OpenMode::kAppend);
  ASSERT_TRUE(f);
  ok(f->pwrite(1, "bb"));
  ok(f->append("tail"));
  EXPECT_EQ(onDisk("index"), "abbatail");
  ok(env_->dropUnsyncedData());
  EXPECT_EQ(onDisk("index"), "aaaa");

  f = open("index", OpenMode::kAppend);
  ok(f->pwrite(1, "bb"));
  ok(f->sync());
  ok(f->pwrite(0, "Z"));
  ok(env_->dropUnsyncedData());
  EXPECT_EQ(onDisk("index"), "abba");
}

TEST_F(FaultyEnvTest, TruncationReachesTheDiskBeforeTheNewData) {
  preexisting("header", "old header");
  auto f = open("header", OpenMode::kTruncate);
  ASSERT_TRUE(f);
  ok(f->append("new header"));
  ok(env_->dropUnsyncedData());
  EXPECT_EQ(onDisk("header"), "");  // the classic zero-length file
}

TEST_F(FaultyEnvTest, RenameWithoutDirSyncIsUndone) {
  preexisting("a", "A");
  preexisting("b", "B");
  ok(env_->renameFile(path("a"), path("b")));
  EXPECT_EQ(onDisk("a"), std::nullopt);
  EXPECT_EQ(onDisk("b"), "A");
  ok(env_->dropUnsyncedData());
  EXPECT_EQ(onDisk("a"), "A");
  EXPECT_EQ(onDisk("b"), "B");
}

TEST_F(FaultyEnvTest, RenameWithDirSyncSurvives) {
  preexisting("a", "A");
  preexisting("b", "B");
  ok(env_->renameFile(path("a"), path("b")));
  ok(env_->syncDir(dir_->path()));
  ok(env_->dropUnsyncedData());
  EXPECT_EQ(onDisk("a"), std::nullopt);
  EXPECT_EQ(onDisk("b"), "A");
}

TEST_F(FaultyEnvTest, RenameChainIsUndoneToTheFirstState) {
  preexisting("a", "A");
  ok(env_->renameFile(path("a"), path("b")));
  ok(env_->renameFile(path("b"), path("c")));
  ok(env_->renameFile(path("c"), path("a")));
  ok(env_->renameFile(path("a"), path("d")));
  ok(env_->dropUnsyncedData());
  EXPECT_EQ(onDisk("a"), "A");
  for (const char* n : {"b", "c", "d"}) EXPECT_EQ(onDisk(n), std::nullopt) << n;
}

TEST_F(FaultyEnvTest, CrossDirectoryRenameRollsBackEachSideAlone) {
  preexistingDir("d1");
  preexistingDir("d2");
  preexisting("d1/x", "X");
  ok(env_->renameFile(path("d1/x"), path("d2/y")));
  ok(env_->syncDir(path("d2")));  // only the destination
  ok(env_->dropUnsyncedData());
  EXPECT_EQ(onDisk("d1/x"), "X");
  EXPECT_EQ(onDisk("d2/y"), "X");
  struct stat a, b;
  ASSERT_EQ(::stat(path("d1/x").c_str(), &a), 0);
  ASSERT_EQ(::stat(path("d2/y").c_str(), &b), 0);
  EXPECT_EQ(a.st_ino, b.st_ino);  // one file under two names

  ok(env_->removeFile(path("d2/y")));
  ok(env_->syncDir(path("d2")));
  ok(env_->renameFile(path("d1/x"), path("d2/y")));
  ok(env_->syncDir(path("d1")));  // only the source
  ok(env_->dropUnsyncedData());
  EXPECT_EQ(onDisk("d1/x"), std::nullopt);
  EXPECT_EQ(onDisk("d2/y"), std::nullopt);  // lost: both sides need a sync
}

TEST_F(FaultyEnvTest, LinkAndUnlink) {
  preexisting("stage", "message");
  preexistingDir("inbox");
  ok(env_->linkFile(path("stage"), path("inbox/1.")));
  ok(env_->removeFile(path("stage")));
  ok(env_->dropUnsyncedData());
  EXPECT_EQ(onDisk("stage"), "message");  // unlink undone
  EXPECT_EQ(onDisk("inbox/1."), std::nullopt);  // link undone

  ok(env_->linkFile(path("stage"), path("inbox/1.")));
  ok(env_->syncDir(path("inbox")));
  ok(env_->removeFile(path("stage")));
  ok(env_->syncDir(dir_->path()));
  ok(env_->dropUnsyncedData());
  EXPECT_EQ(onDisk("stage"), std::nullopt);
  EXPECT_EQ(onDisk("inbox/1."), "message");
}

TEST_F(FaultyEnvTest, RestoredHardLinksShareContentsAndInode) {
  preexisting("msg", "M1");
  preexistingDir("a");
  ok(env_->linkFile(path("msg"), path("a/m")));
  ok(env_->syncDir(path("a")));
  auto f = open("a/m", OpenMode::kAppend);
  ok(f->append("-synced"));
  ok(f->sync());
  ok(f->append("-lost"));
  ok(env_->removeFile(path("msg")));  // not synced: comes back
  ok(env_->dropUnsyncedData());
  EXPECT_EQ(onDisk("msg"), "M1-synced");
  EXPECT_EQ(onDisk("a/m"), "M1-synced");
  struct stat x, y;
  ASSERT_EQ(::stat(path("msg").c_str(), &x), 0);
  ASSERT_EQ(::stat(path("a/m").c_str(), &y), 0);
  EXPECT_EQ(x.st_ino, y.st_ino);
}

TEST_F(FaultyEnvTest, UnsyncedDirectoryVanishesWithEverythingInIt) {
  ok(env_->createDir(path("mbox")));
  auto f = open("mbox/1.", OpenMode::kCreateNew);
  ok(f->append("synced message"));
  ok(f->sync());
  ok(env_->syncDir(path("mbox")));  // but not the parent
  ok(env_->dropUnsyncedData());
  EXPECT_FALSE(dirOnDisk("mbox"));
}

TEST_F(FaultyEnvTest, DirectoryDurableWhenParentSynced) {
  ok(env_->createDir(path("mbox")));
  ok(env_->syncDir(dir_->path()));
  auto f = open("mbox/1.", OpenMode::kCreateNew);
  ok(f->append("m"));
  ok(f->sync());
  auto g = open("mbox/2.", OpenMode::kCreateNew);
  ok(g->append("n"));
  ok(g->sync());
  ok(env_->syncDir(path("mbox")));
  ok(env_->removeFile(path("mbox/2.")));  // not synced
  ok(env_->dropUnsyncedData());
  EXPECT_TRUE(dirOnDisk("mbox"));
  EXPECT_EQ(onDisk("mbox/1."), "m");
  EXPECT_EQ(onDisk("mbox/2."), "n");
}

TEST_F(FaultyEnvTest, RemovedDirectoryComesBackWithItsDurableEntries) {
  preexistingDir("d");
  preexisting("d/f", "F");
  preexisting("d/g", "G");
  ok(env_->removeFile(path("d/g")));
  ok(env_->syncDir(path("d")));  // g's removal is durable
  ok(env_->removeFile(path("d/f")));
  ok(env_->removeDir(path("d")));
  EXPECT_FALSE(dirOnDisk("d"));
  ok(env_->dropUnsyncedData());
  EXPECT_TRUE(dirOnDisk("d"));
  EXPECT_EQ(onDisk("d/f"), "F");
  EXPECT_EQ(onDisk("d/g"), std::nullopt);
}

// DELETE of a mailbox renames its directory into the deleted area (DESIGN.md §3).
TEST_F(FaultyEnvTest, RenamedDirectoryTreeComesBack) {
  preexistingDir("user");
  preexistingDir("user/Trash");
  preexisting("user/Trash/1.", "one");
  preexistingDir("user/Trash/sub");
  preexisting("user/Trash/sub/2.", "two");
  ok(env_->createDir(path("deleted")));
  ok(env_->syncDir(dir_->path()));
  ok(env_->renameFile(path("user/Trash"), path("deleted/Trash.1")));
  auto f = open("deleted/Trash.1/3.", OpenMode::kCreateNew);
  ok(f->append("three"));
  ok(f->sync());
  ok(env_->syncDir(path("deleted/Trash.1")));
  ok(env_->dropUnsyncedData());
  EXPECT_EQ(onDisk("user/Trash/1."), "one");
  EXPECT_EQ(onDisk("user/Trash/sub/2."), "two");
  // Created after the rename, but the directory itself (the same inode wherever its name
  // is) was synced with it: it comes back under the old name, with the file.
  EXPECT_EQ(onDisk("user/Trash/3."), "three");
  EXPECT_TRUE(dirOnDisk("deleted"));
  EXPECT_FALSE(dirOnDisk("deleted/Trash.1"));

  ok(env_->renameFile(path("user/Trash"), path("deleted/Trash.2")));
  ok(env_->syncDir(path("user")));
  ok(env_->syncDir(path("deleted")));
  ok(env_->dropUnsyncedData());
  EXPECT_FALSE(dirOnDisk("user/Trash"));
  EXPECT_EQ(onDisk("deleted/Trash.2/sub/2."), "two");
}

TEST_F(FaultyEnvTest, DirectoryCycleFromIndependentSyncsTerminates) {
  preexistingDir("A");
  preexistingDir("B");
  ok(env_->renameFile(path("B"), path("A/B")));
  ok(env_->syncDir(path("A")));
  ok(env_->renameFile(path("A/B"), path("B2")));
  ok(env_->renameFile(path("A"), path("B2/A")));
  ok(env_->syncDir(path("B2")));
  ok(env_->dropUnsyncedData());
  EXPECT_TRUE(dirOnDisk("A"));
  EXPECT_TRUE(dirOnDisk("B"));
  EXPECT_FALSE(dirOnDisk("B2"));
}

TEST_F(FaultyEnvTest, PathsAreNormalised) {
  ok(env_->createDir(path("d")));
  ok(env_->syncDir(dir_->path() + "/."));
  auto f = open("d//./x", OpenMode::kCreateNew);
  ok(f->append("x"));
  ok(f->sync());
  ok(env_->syncDir(path("d/")));
  ok(env_->dropUnsyncedData());
  EXPECT_EQ(onDisk("d/x"), "x");
}

TEST_F(FaultyEnvTest, ErrorsOfTheBaseEnvPassThrough) {
  EXPECT_EQ(env_->openWritable(path("no/such/f"), OpenMode::kCreateNew).status().code(),
            Code::kNotFound);
  EXPECT_EQ(env_->renameFile(path("missing"), path("x")).code(), Code::kNotFound);
  EXPECT_EQ(env_->removeFile(path("missing")).code(), Code::kNotFound);
  ok(env_->createDir(path("d")));
  EXPECT_EQ(env_->createDir(path("d")).code(), Code::kExists);
  preexisting("d/f", "x");
  EXPECT_EQ(env_->removeDir(path("d")).code(), Code::kExists);
  EXPECT_EQ(env_->openWritable(path("d/f"), OpenMode::kCreateNew).status().code(),
            Code::kExists);
  ok(env_->dropUnsyncedData());
  EXPECT_FALSE(dirOnDisk("d"));
}

}  // namespace
}  // namespace darius::io
