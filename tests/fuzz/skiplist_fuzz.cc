// Fuzz target for the skiplist reader: arbitrary bytes as a database file, opened read-only,
// read, scanned and checked. Anything may fail with a Status; nothing may crash, hang or read
// out of bounds.
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "db/skiplist/skiplist_db.h"
#include "lib/io/fd.h"
#include "lib/io/temp_dir.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace darius;
  static io::TempDir dir = std::move(*io::TempDir::create("skiplist-fuzz"));
  std::string path = dir.file("db");
  (void)io::Env::posix()->removeFile(path);
  {  // a fresh inode each time (no fsync: the file need not survive anything)
    auto fd = io::openFile(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (!fd.ok() ||
        !io::writeAll(fd->get(), std::string_view(reinterpret_cast<const char*>(data), size))
             .isOk()) {
      return 0;
    }
  }
  db::OpenOptions ro;
  ro.read_only = true;
  ro.create = false;
  auto opened = db::skiplist::openSkiplist(path, ro);
  if (!opened.ok()) return 0;
  db::Database& d = **opened;
  size_t n = 0;
  (void)d.scan(db::Range::all(), [&](std::string_view k, std::string_view) {
    (void)d.get(k);
    return ++n < 10000;
  });
  (void)d.get("alpha");
  (void)d.scan(db::Range::prefix("b"), [](std::string_view, std::string_view) { return true; });
  (void)d.check();
  return 0;
}
