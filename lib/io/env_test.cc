#include "lib/io/env.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "lib/io/temp_dir.h"

namespace darius::io {
namespace {

using base::Code;
using OpenMode = Env::OpenMode;

class PosixEnvTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::create("env_test");
    ASSERT_TRUE(dir.ok()) << dir.status().toString();
    dir_ = std::make_unique<TempDir>(std::move(dir).value());
  }
  std::string path(std::string_view name) const { return dir_->file(name); }
  void put(std::string_view name, std::string_view data) {
    auto f = env_->openWritable(path(name), OpenMode::kTruncate);
    ASSERT_TRUE(f.ok()) << f.status().toString();
    ASSERT_TRUE((*f)->append(data).isOk());
    ASSERT_TRUE((*f)->close().isOk());
  }
  std::string get(std::string_view name) {
    auto data = env_->readFile(path(name));
    EXPECT_TRUE(data.ok()) << data.status().toString();
    return data.valueOr("<error>");
  }

  Env* env_ = Env::posix();
  std::unique_ptr<TempDir> dir_;
};

TEST_F(PosixEnvTest, PosixIsASingleton) { EXPECT_EQ(Env::posix(), Env::posix()); }

TEST_F(PosixEnvTest, CreateNewAppendSyncRead) {
  auto f = env_->openWritable(path("a"), OpenMode::kCreateNew);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ((*f)->size(), 0u);
  ASSERT_TRUE((*f)->append("hello ").isOk());
  ASSERT_TRUE((*f)->append("world").isOk());
  EXPECT_EQ((*f)->size(), 11u);
  ASSERT_TRUE((*f)->sync().isOk());
  ASSERT_TRUE((*f)->close().isOk());
  EXPECT_TRUE((*f)->close().isOk());  // idempotent
  EXPECT_EQ((*f)->append("x").code(), Code::kInvalid);
  EXPECT_EQ((*f)->sync().code(), Code::kInvalid);
  EXPECT_EQ(get("a"), "hello world");
  EXPECT_EQ(*env_->fileSize(path("a")), 11u);
}

TEST_F(PosixEnvTest, CreateNewRefusesAnExistingFile) {
  put("a", "old");
  auto f = env_->openWritable(path("a"), OpenMode::kCreateNew);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), Code::kExists);
  EXPECT_EQ(get("a"), "old");
}

TEST_F(PosixEnvTest, TruncateEmptiesAndAppendKeeps) {
  put("a", "0123456789");
  {
    auto f = env_->openWritable(path("a"), OpenMode::kAppend);
    ASSERT_TRUE(f.ok());
    EXPECT_EQ((*f)->size(), 10u);
    ASSERT_TRUE((*f)->append("AB").isOk());
  }  // destructor closes
  EXPECT_EQ(get("a"), "0123456789AB");
  auto f = env_->openWritable(path("a"), OpenMode::kTruncate);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ((*f)->size(), 0u);
  EXPECT_EQ(get("a"), "");
  auto created = env_->openWritable(path("new"), OpenMode::kAppend);
  ASSERT_TRUE(created.ok());
  EXPECT_EQ(*env_->fileExists(path("new")), true);
}

TEST_F(PosixEnvTest, PwriteUpdatesInPlaceAndExtends) {
  auto f = env_->openWritable(path("idx"), OpenMode::kCreateNew);
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE((*f)->append("rec0rec1rec2").isOk());
  ASSERT_TRUE((*f)->pwrite(4, "REC1").isOk());
  EXPECT_EQ((*f)->size(), 12u);
  ASSERT_TRUE((*f)->pwrite(14, "xy").isOk());  // beyond the end: a hole of zeros
  EXPECT_EQ((*f)->size(), 16u);
  ASSERT_TRUE((*f)->append("!").isOk());  // append follows the new end
  ASSERT_TRUE((*f)->close().isOk());
  EXPECT_EQ(get("idx"), std::string("rec0REC1rec2\0\0xy!", 17));
}

TEST_F(PosixEnvTest, ExistingOpensWithoutCreatingAndReadsBack) {
  auto missing = env_->openWritable(path("none"), OpenMode::kExisting);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
  EXPECT_FALSE(*env_->fileExists(path("none")));

  put("a", "0123456789");
  auto f = env_->openWritable(path("a"), OpenMode::kExisting);
  ASSERT_TRUE(f.ok()) << f.status().toString();
  EXPECT_EQ((*f)->size(), 10u);
  EXPECT_EQ(*(*f)->pread(2, 3), "234");
  EXPECT_EQ(*(*f)->pread(8, 100), "89");  // short at the end
  EXPECT_EQ(*(*f)->pread(20, 4), "");
  ASSERT_TRUE((*f)->pwrite(0, "ab").isOk());
  EXPECT_EQ(*(*f)->pread(0, 4), "ab23");  // sees its own writes
  ASSERT_TRUE((*f)->append("X").isOk());
  ASSERT_TRUE((*f)->close().isOk());
  EXPECT_EQ((*f)->pread(0, 1).status().code(), Code::kInvalid);
  EXPECT_EQ(get("a"), "ab23456789X");
  // The other modes open write-only: a file the process may not read still opens for them.
  auto w = env_->openWritable(path("a"), OpenMode::kAppend);
  ASSERT_TRUE(w.ok());
  EXPECT_FALSE((*w)->pread(0, 1).ok());
}

TEST_F(PosixEnvTest, ReadFileErrors) {
  EXPECT_EQ(env_->readFile(path("missing")).status().code(), Code::kNotFound);
  EXPECT_EQ(env_->fileSize(path("missing")).status().code(), Code::kNotFound);
  EXPECT_EQ(env_->openWritable(path("no/dir/f"), OpenMode::kCreateNew).status().code(),
            Code::kNotFound);
}

TEST_F(PosixEnvTest, RenameReplacesAtomically) {
  put("a", "new");
  put("b", "old");
  ASSERT_TRUE(env_->renameFile(path("a"), path("b")).isOk());
  EXPECT_EQ(get("b"), "new");
  EXPECT_FALSE(*env_->fileExists(path("a")));
  EXPECT_EQ(env_->renameFile(path("a"), path("c")).code(), Code::kNotFound);
}

TEST_F(PosixEnvTest, LinkSharesTheInode) {
  put("msg", "body");
  ASSERT_TRUE(env_->linkFile(path("msg"), path("copy")).isOk());
  EXPECT_EQ(get("copy"), "body");
  struct stat a, b;
  ASSERT_EQ(::stat(path("msg").c_str(), &a), 0);
  ASSERT_EQ(::stat(path("copy").c_str(), &b), 0);
  EXPECT_EQ(a.st_ino, b.st_ino);
  EXPECT_EQ(a.st_nlink, 2u);
  EXPECT_EQ(env_->linkFile(path("msg"), path("copy")).code(), Code::kExists);
  ASSERT_TRUE(env_->removeFile(path("msg")).isOk());
  EXPECT_EQ(get("copy"), "body");
  EXPECT_EQ(env_->removeFile(path("msg")).code(), Code::kNotFound);
}

TEST_F(PosixEnvTest, Directories) {
  ASSERT_TRUE(env_->createDir(path("d")).isOk());
  EXPECT_EQ(env_->createDir(path("d")).code(), Code::kExists);
  EXPECT_EQ(env_->createDir(path("x/y")).code(), Code::kNotFound);
  EXPECT_TRUE(*env_->isDirectory(path("d")));
  put("d/f", "x");
  EXPECT_FALSE(*env_->isDirectory(path("d/f")));
  EXPECT_EQ(env_->isDirectory(path("nope")).status().code(), Code::kNotFound);
  EXPECT_EQ(env_->removeDir(path("d")).code(), Code::kExists);  // not empty
  ASSERT_TRUE(env_->syncDir(path("d")).isOk());
  ASSERT_TRUE(env_->removeFile(path("d/f")).isOk());
  ASSERT_TRUE(env_->removeDir(path("d")).isOk());
  EXPECT_FALSE(*env_->fileExists(path("d")));
  EXPECT_EQ(env_->syncDir(path("d")).code(), Code::kNotFound);
}

TEST_F(PosixEnvTest, ListDirIsSortedWithoutDots) {
  for (const char* name : {"zeta", "alpha", "Beta", "10", "9"}) put(name, name);
  ASSERT_TRUE(env_->createDir(path("sub")).isOk());
  auto names = env_->listDir(dir_->path());
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"10", "9", "Beta", "alpha", "sub", "zeta"}));
  EXPECT_TRUE(env_->listDir(path("sub"))->empty());
  EXPECT_EQ(env_->listDir(path("missing")).status().code(), Code::kNotFound);
  EXPECT_FALSE(env_->listDir(path("zeta")).ok());
}

TEST_F(PosixEnvTest, FileExistsDistinguishesAbsenceFromErrors) {
  put("f", "");
  EXPECT_TRUE(*env_->fileExists(path("f")));
  EXPECT_FALSE(*env_->fileExists(path("g")));
  EXPECT_FALSE(*env_->fileExists(path("f/under-a-file")));  // ENOTDIR is "absent"
}

TEST_F(PosixEnvTest, CreateDirsAndRemoveTree) {
  ASSERT_TRUE(createDirs(*env_, path("a/b/c")).isOk());
  EXPECT_TRUE(*env_->isDirectory(path("a/b/c")));
  EXPECT_TRUE(createDirs(*env_, path("a/b/c")).isOk());
  put("a/b/file", "x");
  EXPECT_EQ(createDirs(*env_, path("a/b/file/d")).code(), Code::kExists);
  put("a/b/c/deep", "y");
  ASSERT_TRUE(removeTree(*env_, path("a")).isOk());
  EXPECT_FALSE(*env_->fileExists(path("a")));
  EXPECT_TRUE(removeTree(*env_, path("a")).isOk());  // already gone
  put("single", "z");
  EXPECT_TRUE(removeTree(*env_, path("single")).isOk());
  EXPECT_FALSE(*env_->fileExists(path("single")));
}

}  // namespace
}  // namespace darius::io
