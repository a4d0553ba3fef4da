#include "lib/mime/section.h"

#include <charconv>

#include "lib/mime/lexer.h"

namespace darius::mime {
namespace {

using base::Result;
using base::Status;

// The n-th (1-based) child of parts()[idx], or kNoPart.
uint32_t nthChild(const Message& m, uint32_t idx, uint32_t n) {
  uint32_t c = m.part(idx).first_child;
  for (uint32_t k = 1; c != kNoPart && k < n; ++k) c = m.part(c).next_sibling;
  return c;
}

// Part n of the message entity parts()[msg].
uint32_t partOfMessage(const Message& m, uint32_t msg, uint32_t n) {
  if (m.part(msg).kind == PartKind::kMultipart) return nthChild(m, msg, n);
  return n == 1 ? msg : kNoPart;
}

// Reads a header-list "(" name *(SP name) ")"; names are atoms or quoted strings.
bool readFieldList(std::string_view s, std::vector<std::string>* out) {
  Lexer lx(s);
  while (lx.consume(' ')) {}
  if (!lx.consume('(')) return false;
  while (true) {
    while (lx.consume(' ')) {}
    if (lx.consume(')')) break;
    if (lx.atEnd()) return false;
    if (lx.peek() == '"') {
      out->push_back(lx.quotedString());
    } else {
      size_t start = lx.pos();
      while (!lx.atEnd() && lx.peek() != ' ' && lx.peek() != ')' &&
             static_cast<unsigned char>(lx.peek()) > 0x20 && lx.peek() != ':') {
        lx.advance();
      }
      if (lx.pos() == start) return false;
      out->emplace_back(lx.text().substr(start, lx.pos() - start));
    }
  }
  while (lx.consume(' ')) {}
  return lx.atEnd() && !out->empty();
}

}  // namespace

Result<SectionSpec> parseSectionSpec(std::string_view spec) {
  SectionSpec out;
  std::string_view rest = spec;
  while (!rest.empty() && rest[0] >= '0' && rest[0] <= '9') {
    uint32_t n = 0;
    auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), n);
    if (ec != std::errc() || n == 0 || rest[0] == '0') {
      return Status::invalid("bad part number in section");
    }
    out.path.push_back(n);
    rest.remove_prefix(static_cast<size_t>(ptr - rest.data()));
    if (rest.empty()) return out;
    if (rest[0] != '.') return Status::invalid("bad section");
    rest.remove_prefix(1);
    if (rest.empty()) return Status::invalid("section ends with '.'");
  }
  if (rest.empty()) return out;  // BODY[]
  if (equalsNoCase(rest, "HEADER")) {
    out.text = SectionSpec::Text::kHeader;
  } else if (equalsNoCase(rest, "TEXT")) {
    out.text = SectionSpec::Text::kText;
  } else if (equalsNoCase(rest, "MIME")) {
    if (out.path.empty()) return Status::invalid("MIME needs a part number");
    out.text = SectionSpec::Text::kMime;
  } else if (startsWithNoCase(rest, "HEADER.FIELDS.NOT ")) {
    out.text = SectionSpec::Text::kHeaderFieldsNot;
    if (!readFieldList(rest.substr(18), &out.fields)) return Status::invalid("bad header list");
  } else if (startsWithNoCase(rest, "HEADER.FIELDS ")) {
    out.text = SectionSpec::Text::kHeaderFields;
    if (!readFieldList(rest.substr(14), &out.fields)) return Status::invalid("bad header list");
  } else {
    return Status::invalid("unknown section text");
  }
  return out;
}

Result<uint32_t> resolvePartPath(const Message& m, const std::vector<uint32_t>& path) {
  uint32_t cur = 0;
  bool in_message = true;  // `cur` is a message whose numbering applies to the next number
  for (uint32_t n : path) {
    uint32_t next = kNoPart;
    const Part& p = m.part(cur);
    if (in_message) {
      next = partOfMessage(m, cur, n);
    } else if (p.kind == PartKind::kMultipart) {
      next = nthChild(m, cur, n);
    } else if (p.kind == PartKind::kMessage && p.first_child != kNoPart) {
      next = partOfMessage(m, p.first_child, n);
    }
    if (next == kNoPart) return Status::notFound("no such body part");
    cur = next;
    in_message = false;
  }
  return cur;
}

Result<ByteRange> locateSection(const Message& m, const SectionSpec& spec) {
  DARIUS_ASSIGN_OR_RETURN(uint32_t idx, resolvePartPath(m, spec.path));
  const Part* p = &m.part(idx);
  using Text = SectionSpec::Text;
  if (spec.text == Text::kNone) {
    if (spec.path.empty()) return ByteRange{0, m.data().size()};
    return ByteRange{p->body_offset, p->body_size};
  }
  if (spec.text == Text::kMime) {
    if (spec.path.empty()) return Status::invalid("MIME needs a part number");
    return ByteRange{p->header_offset, p->header_size};
  }
  if (!spec.path.empty()) {
    // HEADER/TEXT of a numbered part: only of a message/rfc822 part, meaning its message.
    if (p->kind != PartKind::kMessage || p->first_child == kNoPart) {
      return Status::invalid("HEADER and TEXT need a message/rfc822 part");
    }
    p = &m.part(p->first_child);
  }
  if (spec.text == Text::kText) return ByteRange{p->body_offset, p->body_size};
  return ByteRange{p->header_offset, p->header_size};
}

namespace {

// The prefix of the numbers of parts inside the message entity parts()[msg]: "" for the root,
// the number of the message/rfc822 part for an encapsulated message.
std::string messagePrefix(const Message& m, uint32_t msg) {
  if (msg == 0) return "";
  return partNumber(m, m.part(msg).parent).value_or("");
}

std::string joinNumber(const std::string& prefix, uint32_t n) {
  return prefix.empty() ? std::to_string(n) : prefix + "." + std::to_string(n);
}

}  // namespace

std::optional<std::string> partNumber(const Message& m, uint32_t index) {
  const Part& p = m.part(index);
  if (p.is_message) {
    if (p.kind == PartKind::kMultipart) return std::nullopt;
    return joinNumber(messagePrefix(m, index), 1);
  }
  uint32_t parent = p.parent;
  uint32_t k = 1;
  for (uint32_t c = m.part(parent).first_child; c != index; c = m.part(c).next_sibling) ++k;
  std::string base = m.part(parent).is_message ? messagePrefix(m, parent)
                                                : partNumber(m, parent).value_or("");
  return joinNumber(base, k);
}

}  // namespace darius::mime
