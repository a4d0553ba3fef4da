#include "lib/io/mapped_file.h"

#include <sys/mman.h>
#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <utility>

#include "lib/io/eintr.h"

namespace darius::io {

using base::Result;
using base::Status;

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      writable_(std::exchange(other.writable_, false)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    reset();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    writable_ = std::exchange(other.writable_, false);
  }
  return *this;
}

void MappedFile::reset() {
  if (data_ != nullptr) ::munmap(data_, size_);
  data_ = nullptr;
  size_ = 0;
  writable_ = false;
}

Result<MappedFile> MappedFile::map(int fd, size_t length, bool writable) {
  struct stat st;
  if (retryOnEintr([&] { return ::fstat(fd, &st); }) != 0) {
    return Status::fromErrno(errno, "mmap: fstat");
  }
  if (static_cast<uint64_t>(st.st_size) < length) {
    return Status::invalid("mmap: length " + std::to_string(length) + " beyond end of file (" +
                           std::to_string(st.st_size) + " bytes)");
  }
  if (length == 0) {
    MappedFile empty;
    empty.writable_ = writable;
    return empty;
  }
  int prot = PROT_READ | (writable ? PROT_WRITE : 0);
  void* p = ::mmap(nullptr, length, prot, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return Status::fromErrno(errno, "mmap");
  return MappedFile(static_cast<char*>(p), length, writable);
}

Status MappedFile::sync() {
  if (data_ == nullptr || !writable_) return Status::ok();
  if (retryOnEintr([&] { return ::msync(data_, size_, MS_SYNC); }) != 0) {
    return Status::fromErrno(errno, "msync");
  }
  return Status::ok();
}

}  // namespace darius::io
