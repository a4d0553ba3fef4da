// Fuzz target for the change log reader and the writer's recovery: arbitrary bytes become
// the segment "<first seq>.log" of a log directory (the first seq taken from the bytes' header
// when it has one, so inputs get past the name check), sometimes followed by an empty next
// segment. The pure decoders walk the bytes; a ChangeLogReader reads the directory; then a
// writer opens it (recovery: cut a torn tail, or refuse damage) and appends one record.
// Anything may fail with a Status; nothing may crash, hang or read out of bounds, and when the
// writer accepts the log, a reader must then read its last segment cleanly up to the record
// just appended.
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "lib/io/env.h"
#include "lib/io/fd.h"
#include "lib/io/path.h"
#include "mailbox/change_log.h"
#include "mailbox/change_log_format.h"
#include "mailbox/change_log_reader.h"
#include "mailbox/change_log_segment.h"

namespace {

using namespace darius;
using namespace darius::mailbox;

// A scratch directory on tmpfs when there is one: the writer fsyncs.
const std::string& scratch() {
  static const std::string dir = [] {
    struct stat st;
    std::string base =
        ::stat("/dev/shm", &st) == 0 && ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    std::string tmpl = base + "/changelog-fuzz.XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) ::abort();
    return tmpl + "/log";
  }();
  return dir;
}

bool writeFile(const std::string& path, std::string_view bytes) {
  auto fd = io::openFile(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  return fd.ok() && io::writeAll(fd->get(), bytes).isOk();
}

// Walks the bytes with the pure decoders; returns the count of leading valid frames.
uint64_t decodeAll(std::string_view in, uint32_t header_size) {
  uint64_t n = 0;
  size_t at = header_size;
  while (at < in.size()) {
    FrameDecode f = decodeFrame(in.substr(at));
    if (f.state != DecodeState::kValid) break;
    (void)decodeBody(f.body);
    at += f.size;
    ++n;
  }
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const std::string& dir = scratch();
  (void)io::removeTree(*io::Env::posix(), dir);
  if (!io::createDirs(*io::Env::posix(), dir).isOk()) return 0;

  HeaderDecode h = decodeSegmentHeader(bytes);
  uint64_t first = 1;
  uint64_t frames = 0;
  if (h.state == DecodeState::kValid) {
    first = h.header.first_seq;
    frames = decodeAll(bytes, h.header.header_size);
  }
  if (first > (uint64_t{1} << 62)) return 0;
  if (!writeFile(io::joinPath(dir, internal::segmentFileName(first)), bytes)) return 0;
  // Odd sizes also get an empty successor, as if the segment had been sealed.
  if (size % 2 == 1 && frames > 0) {
    std::string next = io::joinPath(dir, internal::segmentFileName(first + frames));
    if (!writeFile(next, encodeSegmentHeader(first + frames))) return 0;
  }

  ChangeLogReader reader(dir);
  if (reader.readFrom(first).isOk()) (void)reader.readAvailable(100000);
  if (reader.readFrom(first + 2).isOk()) (void)reader.readAvailable(100000);

  auto log = ChangeLog::open(dir);
  if (!log.ok()) return 0;
  ChangeRecord r;
  r.type = ChangeType::kExpunge;
  r.mailbox_id = "fuzz";
  r.uids = {{7, 8}};
  auto seq = (*log)->append(r);
  if (!seq.ok()) return 0;
  // The writer accepted the log. It vouches for the last segment only (damage in a sealed one
  // is the reader's to report): from there on everything must read cleanly, gap-free, and end
  // with the record just appended.
  auto segs = internal::listSegments(*io::Env::posix(), dir);
  if (!segs.ok() || segs->empty() || !reader.readFrom(segs->back()).isOk()) __builtin_trap();
  auto all = reader.readAvailable();
  if (!all.ok() || all->empty()) __builtin_trap();
  for (size_t i = 0; i < all->size(); ++i) {
    if ((*all)[i].seq != segs->back() + i) __builtin_trap();
  }
  if (all->back().seq != *seq || all->back().mailbox_id != "fuzz") __builtin_trap();
  return 0;
}
