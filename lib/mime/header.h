// Header blocks (RFC 5322 §2.2, §3.6): splitting a block into fields, unfolding values, looking
// fields up by name, and the subsets that IMAP HEADER.FIELDS / HEADER.FIELDS.NOT return
// (RFC 3501 §6.4.5). Every field keeps its exact byte range in the block, so callers can
// return raw header bytes without re-serialising anything.
//
// Real mail: a line without a colon (an mbox "From " line, junk) is not a field and is
// skipped; the block goes on to the first empty line. A field name may be followed by white
// space before the colon (obs-optional, RFC 5322 §4.5). Bare LF ends a line like CRLF does;
// a bare CR is an ordinary byte.
//
// Ownership: HeaderField and Header view the caller's block, which must outlive them.
// Thread-safety: pure functions; a Header is immutable after construction.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace darius::mime {

struct HeaderField {
  std::string_view name;   // as written, white space before the colon removed
  std::string_view value;  // raw: after the colon up to the last line end, folding included
  size_t offset = 0;       // of the field's first byte, within the block
  size_t size = 0;         // of the whole field, its final line end included
};

// The fields of `block`, up to the first empty line. Only the first `max_bytes` bytes are
// examined (a field that starts beyond them is not returned): the guard against huge headers.
std::vector<HeaderField> parseHeaderFields(std::string_view block,
                                           size_t max_bytes = static_cast<size_t>(-1));

// The value with folding removed (a line end followed by white space: RFC 5322 §2.2.3, which
// removes the CRLF only) and the white space between the colon and the value on the field's
// first line dropped. Nothing else changes: white space inside, at the end, or at the start
// of a continuation line that begins the value stays; 8-bit and control bytes stay; a line
// end not followed by white space (only possible in broken input) stays too.
std::string unfoldValue(std::string_view raw);

// The offset just past the blank line that ends the header at the start of `data`, or
// data.size() when there is none (a message that is all header). Also reports whether a
// blank line was found.
size_t findHeaderEnd(std::string_view data, bool* has_blank_line = nullptr);

// A parsed header block with lookups by name (case-insensitive).
class Header {
 public:
  Header() = default;
  explicit Header(std::string_view block, size_t max_bytes = static_cast<size_t>(-1))
      : block_(block), fields_(parseHeaderFields(block, max_bytes)) {}

  std::string_view block() const { return block_; }
  const std::vector<HeaderField>& fields() const { return fields_; }

  const HeaderField* first(std::string_view name) const;
  const HeaderField* last(std::string_view name) const;
  std::vector<const HeaderField*> all(std::string_view name) const;
  // unfoldValue() of the first field of that name; nullopt when there is none.
  std::optional<std::string> value(std::string_view name) const;

 private:
  std::string_view block_;
  std::vector<HeaderField> fields_;
};

// HEADER.FIELDS (exclude = false) or HEADER.FIELDS.NOT (exclude = true) of `block`: the raw
// bytes of the matching fields in their order, followed by the block's blank line if it has
// one (RFC 3501 §6.4.5: the blank line is always included unless the message has none).
// Names compare case-insensitively. Lines that are not fields are never returned.
std::string filterHeaderFields(std::string_view block, const std::vector<std::string>& names,
                               bool exclude);

}  // namespace darius::mime
