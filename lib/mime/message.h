// Message: the MIME part tree of one message held in memory (the store mmaps message files),
// with the exact byte range of every header block and body, so that FETCH BODY[1.2] is a
// seek (RFC 3501 §6.4.5) and the cache can be built without copying the message.
//
// The tree (RFC 2045/2046, numbering per RFC 3501 §6.4.5):
//   - parts()[0] is the root: the message itself; its header is the RFC 5322 header.
//   - A multipart entity has its body parts as children, in order.
//   - A message/rfc822 (or message/global) entity has exactly one child: the encapsulated
//     message, whose header and body together are exactly the parent's body.
//   - Everything else is a leaf.
// Parts are stored in document order (pre-order); links are indices (parent, first_child,
// next_sibling), so the tree is flat, cheap to copy and to destroy at any depth.
//
// Offsets: header_offset/header_size cover the header block including the blank line that
// ends it (when there is one); body_offset/body_size cover the body. The line end before a
// boundary delimiter belongs to the delimiter (RFC 2046 §5.1.1), so it is in no part's body.
// body_lines counts LF bytes in the body, so a last line without a line end is not counted
// (what the established servers report). Sizes are of the bytes given: the store hands in
// canonical CRLF messages, so they are the IMAP sizes.
//
// Limits never fail a parse: at max_depth nesting, or once max_parts parts exist, a
// multipart or message entity is kept as a leaf marked `limited` (its bytes stay reachable,
// its inside is not parsed); past max_header_size bytes of one header block, fields are not
// looked at (the block's extent is still exact).
//
// Ownership: a Message views the caller's bytes (data()), which must outlive it and stay
// unchanged; everything else it owns. Thread-safety: immutable after parse(); concurrent
// readers are safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/mime/content_fields.h"
#include "lib/mime/envelope.h"
#include "lib/mime/header.h"

namespace darius::mime {

struct ParseOptions {
  // Parts nest at most this deep (the root is at depth 0): an entity at depth max_depth - 1
  // is not split into parts. 100 is Dovecot's limit, and gives the same trees.
  uint32_t max_depth = 100;
  uint32_t max_parts = 10000;           // parts in one message, the root included
  size_t max_header_size = 1u << 20;    // bytes of one header block examined for fields
  // What only BODYSTRUCTURE and ENVELOPE need, which a reader of the text (SEARCH) can skip:
  // with false, every Part::body_lines is 0 and no Part::envelope is built. Counting lines
  // reads each body again at every level of nesting; envelopes parse every address field.
  bool lines_and_envelopes = true;
};

// max_depth is clamped to this, which bounds the recursion of parse() and of rendering.
inline constexpr uint32_t kMaxDepthCeiling = 1000;
inline constexpr uint32_t kNoPart = UINT32_MAX;

enum class PartKind : uint8_t { kLeaf, kMultipart, kMessage };

struct Part {
  uint64_t header_offset = 0;
  uint64_t header_size = 0;  // blank line included
  uint64_t body_offset = 0;
  uint64_t body_size = 0;
  uint64_t body_lines = 0;

  PartKind kind = PartKind::kLeaf;
  bool is_message = false;  // root or encapsulated message: has an RFC 5322 header, envelope
  bool limited = false;     // a multipart/message entity left unparsed because of a limit
  uint32_t depth = 0;
  uint32_t parent = kNoPart;
  uint32_t first_child = kNoPart;
  uint32_t next_sibling = kNoPart;
  uint32_t child_count = 0;

  // Content-Type, effective: as written, or the default when absent or invalid (text/plain,
  // or message/rfc822 inside multipart/digest: RFC 2045 §5.2, RFC 2046 §5.1.5). A text part
  // without a charset parameter gets charset=us-ascii appended (RFC 2046 §4.1.2).
  std::string type;
  std::string subtype;
  std::vector<Param> params;
  bool content_type_defaulted = false;

  std::optional<std::string> id;           // Content-ID, raw
  std::optional<std::string> description;  // Content-Description, raw
  std::optional<std::string> encoding;     // Content-Transfer-Encoding: parseTransferEncoding()
  std::optional<std::string> md5;          // Content-MD5
  std::optional<Disposition> disposition;
  std::optional<std::vector<std::string>> languages;  // Content-Language
  std::optional<std::string> location;     // Content-Location
  std::optional<Envelope> envelope;        // is_message parts only

  bool isType(std::string_view t, std::string_view st) const;
};

class Message {
 public:
  // Never fails: every input gives a tree (the empty input a single empty text/plain part).
  static Message parse(std::string_view data, const ParseOptions& options = {});

  std::string_view data() const { return data_; }
  const std::vector<Part>& parts() const { return parts_; }
  const Part& root() const { return parts_[0]; }
  const Part& part(uint32_t index) const { return parts_[index]; }
  // Indices of the children of parts()[index], in order.
  std::vector<uint32_t> children(uint32_t index) const;

  std::string_view headerBytes(const Part& p) const { return slice(p.header_offset, p.header_size); }
  std::string_view bodyBytes(const Part& p) const { return slice(p.body_offset, p.body_size); }
  // The fields of a part's header block (within the parse's max_header_size).
  Header header(const Part& p) const { return Header(headerBytes(p), max_header_size_); }

 private:
  friend class TreeBuilder;
  std::string_view slice(uint64_t off, uint64_t size) const { return data_.substr(off, size); }

  std::string_view data_;
  std::vector<Part> parts_;
  size_t max_header_size_ = 0;
};

}  // namespace darius::mime
