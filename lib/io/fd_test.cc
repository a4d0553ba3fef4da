#include "lib/io/fd.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "lib/io/temp_dir.h"

namespace darius::io {
namespace {

using base::Code;
using base::Status;

class FdTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::create("fd_test");
    ASSERT_TRUE(dir.ok()) << dir.status().toString();
    dir_ = std::make_unique<TempDir>(std::move(dir).value());
  }
  std::string path(std::string_view name) const { return dir_->file(name); }
  std::unique_ptr<TempDir> dir_;
};

bool fdIsOpen(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

TEST_F(FdTest, UniqueFdClosesOnDestructionAndMove) {
  int raw;
  {
    auto fd = openFile(path("a"), O_WRONLY | O_CREAT);
    ASSERT_TRUE(fd.ok()) << fd.status().toString();
    raw = fd->get();
    EXPECT_TRUE(fd->valid());
    EXPECT_TRUE(fdIsOpen(raw));
    UniqueFd moved = std::move(fd).value();
    EXPECT_EQ(moved.get(), raw);
    UniqueFd assigned;
    assigned = std::move(moved);
    EXPECT_FALSE(moved.valid());  // NOLINT(bugprone-use-after-move): documented state
    EXPECT_EQ(assigned.get(), raw);
    EXPECT_TRUE(fdIsOpen(raw));
  }
  EXPECT_FALSE(fdIsOpen(raw));
}

TEST_F(FdTest, ReleaseAndReset) {
  auto fd = openFile(path("a"), O_WRONLY | O_CREAT);
  ASSERT_TRUE(fd.ok());
  int raw = fd->release();
  EXPECT_FALSE(fd->valid());
  EXPECT_TRUE(fdIsOpen(raw));
  UniqueFd owner(raw);
  auto other = openFile(path("b"), O_WRONLY | O_CREAT);
  ASSERT_TRUE(other.ok());
  int raw2 = other->release();
  owner.reset(raw2);
  EXPECT_FALSE(fdIsOpen(raw));
  EXPECT_EQ(owner.get(), raw2);
  EXPECT_TRUE(owner.close().isOk());
  EXPECT_FALSE(fdIsOpen(raw2));
  EXPECT_TRUE(owner.close().isOk());  // idempotent
}

TEST_F(FdTest, OpenSetsCloexecAndReportsErrors) {
  auto fd = openFile(path("a"), O_WRONLY | O_CREAT);
  ASSERT_TRUE(fd.ok());
  EXPECT_TRUE(::fcntl(fd->get(), F_GETFD) & FD_CLOEXEC);
  auto missing = openFile(path("nope"), O_RDONLY);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
  EXPECT_NE(missing.status().message().find("nope"), std::string::npos);
  auto excl = openFile(path("a"), O_WRONLY | O_CREAT | O_EXCL);
  EXPECT_EQ(excl.status().code(), Code::kExists);
}

TEST_F(FdTest, WriteAllReadAllRoundTrip) {
  std::string big(3 * 1024 * 1024 + 17, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 131 + 7);
  {
    auto fd = openFile(path("big"), O_WRONLY | O_CREAT | O_TRUNC);
    ASSERT_TRUE(fd.ok());
    ASSERT_TRUE(writeAll(fd->get(), big).isOk());
    ASSERT_TRUE(writeAll(fd->get(), "tail").isOk());
    ASSERT_TRUE(fsyncFd(fd->get()).isOk());
    ASSERT_TRUE(fdatasyncFd(fd->get()).isOk());
  }
  auto fd = openFile(path("big"), O_RDONLY);
  ASSERT_TRUE(fd.ok());
  auto data = readAll(fd->get());
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data->size(), big.size() + 4);
  EXPECT_TRUE(*data == big + "tail");
  // At EOF now: a second readAll returns nothing.
  EXPECT_EQ(readAll(fd->get())->size(), 0u);
}

TEST_F(FdTest, ReadAllOfEmptyFileAndPipe) {
  auto empty = openFile(path("e"), O_RDWR | O_CREAT);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(*readAll(empty->get()), "");
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  UniqueFd r(p[0]), w(p[1]);
  ASSERT_TRUE(writeAll(w.get(), "through a pipe").isOk());
  w.reset();
  EXPECT_EQ(*readAll(r.get()), "through a pipe");
}

TEST_F(FdTest, PwriteAllAndPreadUpTo) {
  auto fd = openFile(path("p"), O_RDWR | O_CREAT);
  ASSERT_TRUE(fd.ok());
  ASSERT_TRUE(pwriteAll(fd->get(), 0, "0123456789").isOk());
  ASSERT_TRUE(pwriteAll(fd->get(), 3, "abc").isOk());
  ASSERT_TRUE(pwriteAll(fd->get(), 12, "Z").isOk());  // leaves a hole
  EXPECT_EQ(*preadUpTo(fd->get(), 0, 100), std::string("012abc6789\0\0Z", 13));
  EXPECT_EQ(*preadUpTo(fd->get(), 2, 3), "2ab");
  EXPECT_EQ(*preadUpTo(fd->get(), 50, 3), "");
  // pwrite does not move the offset: a plain read still starts at 0.
  EXPECT_EQ(readAll(fd->get())->substr(0, 3), "012");
}

TEST_F(FdTest, WriteToReadOnlyFdFails) {
  auto fd = openFile(path("ro"), O_RDONLY | O_CREAT);
  ASSERT_TRUE(fd.ok());
  EXPECT_FALSE(writeAll(fd->get(), "x").isOk());
  EXPECT_FALSE(pwriteAll(fd->get(), 0, "x").isOk());
  EXPECT_TRUE(writeAll(fd->get(), "").isOk());  // nothing to write is not an error
}

TEST_F(FdTest, FsyncDir) {
  EXPECT_TRUE(fsyncDir(dir_->path()).isOk());
  EXPECT_EQ(fsyncDir(path("missing")).code(), Code::kNotFound);
  auto fd = openFile(path("f"), O_WRONLY | O_CREAT);
  ASSERT_TRUE(fd.ok());
  EXPECT_FALSE(fsyncDir(path("f")).isOk());  // not a directory
}

TEST_F(FdTest, MakeDirsCreatesEveryLevel) {
  std::string deep = path("a/b/c/d");
  ASSERT_TRUE(makeDirs(deep, 0700).isOk());
  struct stat st;
  ASSERT_EQ(::stat(deep.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_TRUE(makeDirs(deep).isOk());          // already there
  EXPECT_TRUE(makeDirs(deep + "/").isOk());    // trailing slash
  EXPECT_TRUE(makeDirs(path("a//b/e")).isOk());
  ASSERT_EQ(::stat(path("a/b/e").c_str(), &st), 0);
  EXPECT_EQ(makeDirs("").code(), Code::kInvalid);
}

TEST_F(FdTest, MakeDirsRefusesAFileInTheWay) {
  auto fd = openFile(path("file"), O_WRONLY | O_CREAT);
  ASSERT_TRUE(fd.ok());
  EXPECT_EQ(makeDirs(path("file")).code(), Code::kExists);
  EXPECT_FALSE(makeDirs(path("file/sub")).isOk());
}

TEST_F(FdTest, MakeDirsRelativePath) {
  char cwd[4096];
  ASSERT_NE(::getcwd(cwd, sizeof cwd), nullptr);
  ASSERT_EQ(::chdir(dir_->path().c_str()), 0);
  Status s = makeDirs("rel/x");
  ASSERT_EQ(::chdir(cwd), 0);
  ASSERT_TRUE(s.isOk()) << s.toString();
  struct stat st;
  EXPECT_EQ(::stat(path("rel/x").c_str(), &st), 0);
}

TEST(TempDir, CreatesAndRemovesTree) {
  std::string where;
  {
    auto dir = TempDir::create("tempdir_test");
    ASSERT_TRUE(dir.ok());
    where = dir->path();
    EXPECT_EQ(where.front(), '/');
    ASSERT_TRUE(makeDirs(dir->file("x/y")).isOk());
    auto fd = openFile(dir->file("x/y/z"), O_WRONLY | O_CREAT);
    ASSERT_TRUE(fd.ok());
    TempDir moved = std::move(dir).value();
    EXPECT_EQ(moved.path(), where);
  }
  struct stat st;
  EXPECT_NE(::stat(where.c_str(), &st), 0);
}

}  // namespace
}  // namespace darius::io
