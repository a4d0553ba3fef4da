// Fuzz target for the delivery journal (docs/formats/journal.md): the frame reader and the
// record decoders over arbitrary segment bytes, and the replay of arbitrary records into a
// store. The first byte picks the mode:
//   even: the rest is a segment file's bytes (after a valid header when it has none), walked
//         frame by frame with readJournalFrame and the decoders;
//   odd:  the rest is cut into record bodies (u16 length each), which the harness frames with
//         valid CRCs into segment 1 of a scratch store's journal; a Store then opens it as a
//         tool would, replaying the journal into the store's one mailbox.
// Anything may fail with a Status or be logged and kept; nothing may crash, hang, read out of
// bounds or grow without bound.
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "lib/base/little_endian.h"
#include "lib/io/env.h"
#include "lib/io/path.h"
#include "lib/log/log.h"
#include "mailbox/journal_format.h"
#include "mailbox/store.h"

namespace {

using namespace darius;
using namespace darius::mailbox;

const std::string& journalScratch() {
  static const std::string dir = [] {
    struct stat st;
    std::string base =
        ::stat("/dev/shm", &st) == 0 && ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    std::string tmpl = base + "/journal-fuzz.XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) ::abort();
    return tmpl;
  }();
  return dir;
}

StoreOptions journalFuzzOptions() {
  StoreOptions o;
  o.data_dir = journalScratch() + "/data";
  o.partitions = {{"default", journalScratch() + "/p"}};
  return o;
}

void walkSegment(std::string_view seg, uint64_t number) {
  for (uint64_t at = kJournalHeaderSize;;) {
    auto f = readJournalFrame(seg, number, at);
    if (!f.ok()) return;
    if (f->next <= at) ::abort();  // the reader must always move on
    at = f->next;
    if (f->type == JournalRecordType::kMessage) (void)decodeJournalMessage(f->body);
    if (f->type == JournalRecordType::kAppend) (void)decodeJournalAppend(f->body);
  }
}

std::string frameForFuzz(uint64_t segment, std::string_view body) {
  std::string seg, len;
  base::appendLittleEndian<uint64_t>(seg, segment);
  base::appendLittleEndian<uint32_t>(len, static_cast<uint32_t>(body.size()));
  uLong c = crc32(0, reinterpret_cast<const Bytef*>(seg.data()), static_cast<uInt>(seg.size()));
  c = crc32(c, reinterpret_cast<const Bytef*>(len.data()), 4);
  c = crc32(c, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()));
  std::string out = len;
  base::appendLittleEndian<uint32_t>(out, static_cast<uint32_t>(c));
  out.append(body);
  return out;
}

// The scratch mailbox's unique id and UIDVALIDITY, which the seeds name by placeholders
// (32 'U's, and the bytes EF BE AD DE) so that their append records reach the mailbox.
struct FuzzTarget {
  std::string unique_id;
  std::string uidvalidity;  // 4 bytes, little-endian
};

const FuzzTarget& fuzzTarget() {
  static const FuzzTarget t = [] {
    log::setLevel(log::Level::kError);
    auto store = Store::open(journalFuzzOptions());
    if (!store.ok()) ::abort();
    auto inbox = MailboxName::personal("", "fuzz", {});
    if (!inbox.ok() || !(*store)->create(*inbox).ok()) ::abort();
    auto m = (*store)->openMailbox(*inbox);
    if (!m.ok()) ::abort();
    FuzzTarget out;
    out.unique_id = m->mailbox->header().unique_id;
    base::appendLittleEndian<uint32_t>(out.uidvalidity, m->mailbox->header().uidvalidity);
    return out;
  }();
  return t;
}

void replaceAll(std::string& s, std::string_view from, std::string_view to) {
  if (from.size() != to.size()) return;
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
}

void replayRecords(std::string_view in) {
  const FuzzTarget& target = fuzzTarget();
  std::string seg = encodeJournalSegmentHeader({.segment = 1});
  while (in.size() >= 2 && seg.size() < (1u << 20)) {
    size_t n = std::min<size_t>(base::getLittleEndian<uint16_t>(in, 0), in.size() - 2);
    if (n > 0) {
      std::string body(in.substr(2, n));
      replaceAll(body, std::string(32, 'U'), target.unique_id);
      replaceAll(body, "\xef\xbe\xad\xde", target.uidvalidity);
      seg += frameForFuzz(1, body);
    }
    in.remove_prefix(2 + n);
  }
  walkSegment(seg, 1);
  const std::string jdir = journalScratch() + "/p/" + std::string(kJournalDirName);
  if (!io::createDirs(*io::Env::posix(), jdir).isOk()) ::abort();
  auto f = io::Env::posix()->openWritable(jdir + "/" + journalSegmentName(1),
                                          io::Env::OpenMode::kTruncate);
  if (!f.ok() || !(*f)->append(seg).isOk() || !(*f)->close().isOk()) ::abort();
  auto store = Store::open(journalFuzzOptions());
  (void)store;
  // A segment the replay refused stays as .unreplayed: removed, so the next input starts clean.
  (void)io::Env::posix()->removeFile(jdir + "/" + journalSegmentName(1) + ".unreplayed");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0 || size > (1u << 20)) return 0;
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  if ((data[0] & 1) == 0) {
    std::string seg(in);
    if (!decodeJournalSegmentHeader(seg).ok()) seg = encodeJournalSegmentHeader({.segment = 1}) + seg;
    walkSegment(seg, 1);
    return 0;
  }
  replayRecords(in);
  return 0;
}
