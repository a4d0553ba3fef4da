#include "lib/io/mapped_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include <gtest/gtest.h>

#include "lib/io/fd.h"
#include "lib/io/temp_dir.h"

namespace darius::io {
namespace {

using base::Code;

class MappedFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::create("mapped_file_test");
    ASSERT_TRUE(dir.ok()) << dir.status().toString();
    dir_ = std::make_unique<TempDir>(std::move(dir).value());
  }
  UniqueFd makeFile(std::string_view name, std::string_view contents, int flags = O_RDWR) {
    auto fd = openFile(dir_->file(name), flags | O_CREAT | O_TRUNC);
    EXPECT_TRUE(fd.ok());
    EXPECT_TRUE(writeAll(fd->get(), contents).isOk());
    return std::move(fd).value();
  }
  std::unique_ptr<TempDir> dir_;
};

TEST_F(MappedFileTest, ReadOnlyViewMatchesFile) {
  UniqueFd fd = makeFile("f", "hello, mapped world");
  auto m = MappedFile::map(fd.get(), 19, false);
  ASSERT_TRUE(m.ok()) << m.status().toString();
  fd.reset();  // the mapping does not need the fd
  EXPECT_EQ(m->view(), "hello, mapped world");
  EXPECT_EQ(m->size(), 19u);
  EXPECT_FALSE(m->writable());
  EXPECT_TRUE(m->sync().isOk());  // no-op on a read-only mapping
}

TEST_F(MappedFileTest, PrefixMapping) {
  UniqueFd fd = makeFile("f", "0123456789");
  auto m = MappedFile::map(fd.get(), 4, false);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->view(), "0123");
}

TEST_F(MappedFileTest, LengthZeroIsAnEmptyMapping) {
  UniqueFd fd = makeFile("empty", "");
  auto m = MappedFile::map(fd.get(), 0, false);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->data(), nullptr);
  EXPECT_EQ(m->size(), 0u);
  EXPECT_TRUE(m->view().empty());
  MappedFile def;
  EXPECT_TRUE(def.view().empty());
}

TEST_F(MappedFileTest, RefusesLengthBeyondEndOfFile) {
  UniqueFd fd = makeFile("short", "abc");
  auto m = MappedFile::map(fd.get(), 4096, false);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), Code::kInvalid);
  EXPECT_FALSE(MappedFile::map(-1, 10, false).ok());
}

TEST_F(MappedFileTest, WritableMappingReachesTheFile) {
  UniqueFd fd = makeFile("rw", "aaaaaaaa");
  auto m = MappedFile::map(fd.get(), 8, true);
  ASSERT_TRUE(m.ok()) << m.status().toString();
  EXPECT_TRUE(m->writable());
  std::memcpy(m->data() + 2, "XYZ", 3);
  ASSERT_TRUE(m->sync().isOk());
  EXPECT_EQ(*preadUpTo(fd.get(), 0, 100), "aaXYZaaa");
}

TEST_F(MappedFileTest, WritableMappingNeedsAWritableFd) {
  UniqueFd fd = makeFile("ro", "data");
  auto ro = openFile(dir_->file("ro"), O_RDONLY);
  ASSERT_TRUE(ro.ok());
  auto m = MappedFile::map(ro->get(), 4, true);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), Code::kPermission);
}

TEST_F(MappedFileTest, MoveTransfersTheMapping) {
  UniqueFd fd = makeFile("f", "move me");
  auto m = MappedFile::map(fd.get(), 7, false);
  ASSERT_TRUE(m.ok());
  MappedFile a = std::move(m).value();
  const char* data = a.data();
  MappedFile b(std::move(a));
  EXPECT_EQ(b.data(), data);
  EXPECT_EQ(a.size(), 0u);  // NOLINT(bugprone-use-after-move): documented state
  MappedFile c;
  c = std::move(b);
  EXPECT_EQ(c.view(), "move me");
  c.reset();
  EXPECT_TRUE(c.view().empty());
}

// The safe way to replace a mapped file: the reader keeps the old inode's bytes.
TEST_F(MappedFileTest, RenameOverAMappedFileKeepsTheOldMappingValid) {
  UniqueFd fd = makeFile("index", "generation 1");
  auto m = MappedFile::map(fd.get(), 12, false);
  ASSERT_TRUE(m.ok());
  fd.reset();
  UniqueFd fresh = makeFile("index.new", "generation 2, longer");
  ASSERT_EQ(::rename(dir_->file("index.new").c_str(), dir_->file("index").c_str()), 0);
  EXPECT_EQ(m->view(), "generation 1");
}

// Documents the trap the header warns about: truncating a file under a mapping kills the
// reader with SIGBUS. Run in a child so the test process survives.
TEST_F(MappedFileTest, TruncatingAMappedFileRaisesSigbus) {
  std::string contents(2 * 4096, 'x');
  UniqueFd fd = makeFile("victim", contents);
  auto m = MappedFile::map(fd.get(), contents.size(), false);
  ASSERT_TRUE(m.ok());
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::signal(SIGBUS, SIG_DFL);
    if (::ftruncate(fd.get(), 0) != 0) ::_exit(3);
    volatile char c = m->data()[4096 + 10];  // beyond the new end of file
    (void)c;
    ::_exit(0);  // reaching here would mean no SIGBUS
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  if (WIFSIGNALED(status)) {
    EXPECT_EQ(WTERMSIG(status), SIGBUS);
  } else {
    // Under a sanitizer the runtime may catch SIGBUS and exit non-zero instead.
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_NE(WEXITSTATUS(status), 0);
    EXPECT_NE(WEXITSTATUS(status), 3);
  }
}

}  // namespace
}  // namespace darius::io
