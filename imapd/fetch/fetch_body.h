// Body sections for FETCH (RFC 9051 §6.4.5.1): where BODY[1.2], BODY[HEADER], BODY[3.TEXT],
// BODY[2.MIME] and friends are in the message file, found from the part table the cache holds
// (mailbox/cache_fill.h, SectionRecord), so a section is a seek and a read of just its bytes:
// the message is never parsed again. Also partial windows (<origin.count>) and the open
// message file the bytes come from.
//
// Numbering is lib/mime's (lib/mime/section.h): in a message, part n is the n-th body part of
// a multipart, and part 1 is the body itself otherwise; the parts of a message/rfc822 part are
// those of its encapsulated message. HEADER, HEADER.FIELDS[.NOT] and TEXT name the message
// itself or a message/rfc822 part; MIME the header of any numbered part. A section that names
// no part (BODY[7] of a two-part message, 1.HEADER of a text part) is kMissing: the item is
// then an empty string (RFC 9051 §6.4.5 leaves it to the server; Cyrus and Dovecot do so).
//
// Ownership: MessageFile owns its descriptor. Thread-safety: the functions are pure; one
// MessageFile may be read from any one thread at a time (reads are pread, so the blocking pool
// and the I/O thread may take turns).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "imapd/fetch/fetch_args.h"
#include "lib/base/result.h"
#include "lib/io/fd.h"
#include "lib/mime/section.h"
#include "mailbox/cache_fill.h"

namespace darius::imapd::fetch {

using Parts = std::vector<mailbox::SectionRecord>;

// The index into `parts` of the part `path` names (parts[0], the message, for an empty path);
// nullopt when there is none. `parts` must be a decoded table (links checked by
// decodeSections); a cycle in a damaged table ends the walk after parts.size() steps.
std::optional<uint32_t> resolvePart(const Parts& parts, std::span<const uint32_t> path);

struct SectionTarget {
  enum class Kind : uint8_t {
    kMissing,       // no such part: an empty string
    kBytes,         // the bytes [offset, offset + size) of the message file
    kHeaderFields,  // HEADER.FIELDS[.NOT]: [offset, offset + size) is the header to subset
  };
  Kind kind = Kind::kMissing;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t part = 0;  // the part whose bytes these are
};

// Where the section is in a message of `message_size` bytes. Ranges are clamped to the
// message, so a damaged table can never make a read run past the file.
SectionTarget locateSection(const Parts& parts, const mime::SectionSpec& spec,
                            uint64_t message_size);

// The bytes of a text of `total` bytes that a partial asks for (all of them without one):
// RFC 9051 §6.4.5, an origin past the end gives nothing, a count past the end is truncated.
struct Window {
  uint64_t offset = 0;
  uint64_t size = 0;
};
Window windowOf(uint64_t total, const std::optional<Partial>& partial);

// Whether HEADER.FIELDS of the message's own header can be answered from the cached header
// block (which lacks the trace fields, mailbox/cache_fill.h isUncachedHeaderField): not for a
// trace field, and not for a message without a body, whose header may lack the blank line the
// cached block always ends with.
bool cachedHeaderServes(const mime::SectionSpec& spec, const Parts& parts);

// An open message file `UID.` (immutable once linked): its size and reads of byte ranges.
class MessageFile {
 public:
  static base::Result<MessageFile> open(const std::string& path);
  uint64_t size() const { return size_; }
  // Exactly `length` bytes at `offset`, or kCorruption if the file ends before (it cannot
  // shrink; a short read means damage), or the read's error.
  base::Result<std::string> read(uint64_t offset, uint64_t length) const;
  base::Result<std::string> readAll() const { return read(0, size_); }

 private:
  MessageFile(io::UniqueFd fd, uint64_t size) : fd_(std::move(fd)), size_(size) {}
  io::UniqueFd fd_;
  uint64_t size_ = 0;
};

}  // namespace darius::imapd::fetch
