// IMAP body sections (RFC 3501 §6.4.5, RFC 9051 §6.4.5): "1.2", "3.HEADER", "4.1.MIME",
// "HEADER.FIELDS (From To)", "TEXT", "" resolved to byte ranges of a parsed Message, so a
// FETCH BODY[...] is a seek into the message file.
//
// Numbering: in a message (the root, or one encapsulated by message/rfc822), part n is the
// n-th body part when the message is multipart, and part 1 is the body itself otherwise. A
// multipart part's number n is its n-th body part; a message/rfc822 part's is its
// encapsulated message's part n. HEADER, HEADER.FIELDS[.NOT] and TEXT name the header or text
// of the message itself (no part number) or of a message/rfc822 part; MIME the header of any
// numbered part.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/result.h"
#include "lib/mime/message.h"

namespace darius::mime {

struct SectionSpec {
  enum class Text { kNone, kHeader, kHeaderFields, kHeaderFieldsNot, kText, kMime };
  std::vector<uint32_t> path;       // part numbers, each >= 1
  Text text = Text::kNone;
  std::vector<std::string> fields;  // HEADER.FIELDS[.NOT] names
};

// The text between "[" and "]" of a FETCH BODY[...] item. kInvalid on bad syntax.
base::Result<SectionSpec> parseSectionSpec(std::string_view spec);

struct ByteRange {
  uint64_t offset = 0;
  uint64_t size = 0;
};

// The index of the part that `path` names (the root for an empty path); kNotFound when no
// such part exists.
base::Result<uint32_t> resolvePartPath(const Message& message, const std::vector<uint32_t>& path);

// The bytes a section designates. For HEADER.FIELDS[.NOT] it is the whole header block, to be
// subset by filterHeaderFields(). kNotFound for a part that does not exist, kInvalid for
// HEADER/TEXT of a part that is not message/rfc822, or MIME without a part number.
base::Result<ByteRange> locateSection(const Message& message, const SectionSpec& spec);

// The part number ("2.1") under which BODY[...] returns the body of parts()[index]; nullopt for
// a multipart message entity (the root or an encapsulated message), which has none of its own.
std::optional<std::string> partNumber(const Message& message, uint32_t index);

}  // namespace darius::mime
