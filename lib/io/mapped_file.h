// MappedFile: an RAII shared memory mapping of (the start of) a file. The index and cache
// files of a mailbox are read through mappings so that a FETCH touches no syscall
// (DESIGN.md §3); index records are updated in place through a writable mapping or pwrite.
//
// THE SIGBUS TRAP (DESIGN.md §8). Touching a mapped page that lies beyond the current end of
// the file kills the process with SIGBUS, and that holds for every process that has the file
// mapped, not just the one that shrank it. So:
//   - never truncate (or otherwise shrink) a file that anyone may have mapped;
//   - to shrink or compact, write a new file, fsync it, rename it over the old name (see
//     writeFileAtomic) and bump the generation number in its header; readers keep their old
//     mapping, which stays valid because the old inode lives on until the last mapping goes,
//     and they reopen when they notice the generation changed;
//   - files only grow in place; a reader maps the length it read from the header (or fstat)
//     and re-maps when it needs more.
// map() refuses a length beyond the file's size at the time of the call for the same reason.
//
// Ownership: owns the mapping (munmap on destruction); does not own or keep the fd, which may
// be closed right after map() returns. Thread-safety: the object is not synchronised; the
// mapped bytes are shared memory, so concurrent writers must be serialised by a lock.
#pragma once

#include <cstddef>
#include <string_view>

#include "lib/base/result.h"
#include "lib/base/status.h"

namespace darius::io {

class MappedFile {
 public:
  MappedFile() = default;  // an empty mapping: size() 0, view() empty
  ~MappedFile() { reset(); }

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  // Maps the first `length` bytes of `fd` MAP_SHARED, read-only or read-write (the fd must be
  // open for reading, and for writing too if `writable`). length 0 makes an empty mapping
  // without calling mmap. A length beyond the file's current size is kInvalid (SIGBUS trap).
  static base::Result<MappedFile> map(int fd, size_t length, bool writable);

  // nullptr for an empty mapping. Writing through data() needs a writable mapping.
  char* data() { return data_; }
  const char* data() const { return data_; }
  size_t size() const { return size_; }
  bool writable() const { return writable_; }
  std::string_view view() const { return {data_, size_}; }

  // msync(MS_SYNC): writes made through the mapping reach stable storage. A no-op for an
  // empty or read-only mapping.
  base::Status sync();

  // Unmaps now; the object becomes empty.
  void reset();

 private:
  MappedFile(char* data, size_t size, bool writable)
      : data_(data), size_(size), writable_(writable) {}

  char* data_ = nullptr;
  size_t size_ = 0;
  bool writable_ = false;
};

}  // namespace darius::io
