// Helpers shared by the lib/mime tests (never linked into the library): reading files,
// the CRLF canonical form the store delivers, an IMAP syntax checker for rendered output, a
// one-line escaped dump of a parse for golden files, and the structural invariants every
// parse must satisfy.
//
// Thread-safety: pure functions.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "lib/mime/message.h"
#include "lib/mime/render.h"
#include "lib/mime/section.h"

namespace darius::mime::testing {

inline std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// What delivery stores (README of the corpus: a final line end is added, then every bare LF
// becomes CRLF).
inline std::string canonicalCrlf(std::string_view in) {
  std::string s(in);
  if (s.empty() || s.back() != '\n') s += "\r\n";
  std::string out;
  out.reserve(s.size() + s.size() / 16);
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\n' && (i == 0 || s[i - 1] != '\r')) out.push_back('\r');
    out.push_back(s[i]);
  }
  return out;
}

// Whether `s` is one balanced IMAP value: lists, NIL, numbers, quoted strings (7-bit, no
// CR/LF, escapes only before '"' and '\'), and literals whose count matches and which hold
// no NUL. Sets *error to a short reason otherwise.
inline bool isBalancedImap(std::string_view s, std::string* error) {
  size_t i = 0;
  int depth = 0;
  bool any = false;
  auto fail = [&](const char* why) {
    *error = std::string(why) + " at offset " + std::to_string(i);
    return false;
  };
  while (i < s.size()) {
    char c = s[i];
    if (c == '(') {
      ++depth;
      ++i;
    } else if (c == ')') {
      if (--depth < 0) return fail("unbalanced ')'");
      ++i;
    } else if (c == ' ') {
      ++i;
    } else if (c == '"') {
      ++i;
      while (true) {
        if (i >= s.size()) return fail("unterminated quoted string");
        auto u = static_cast<unsigned char>(s[i]);
        if (u == 0 || u >= 0x80 || s[i] == '\r' || s[i] == '\n') return fail("bad quoted char");
        if (s[i] == '\\') {
          if (i + 1 >= s.size() || (s[i + 1] != '"' && s[i + 1] != '\\')) return fail("bad escape");
          i += 2;
          continue;
        }
        if (s[i++] == '"') break;
      }
    } else if (c == '{') {
      size_t close = s.find("}\r\n", i);
      if (close == std::string_view::npos) return fail("bad literal header");
      size_t n = std::stoull(std::string(s.substr(i + 1, close - i - 1)));
      i = close + 3;
      if (i + n > s.size()) return fail("literal runs past the end");
      if (s.substr(i, n).find('\0') != std::string_view::npos) return fail("NUL in literal");
      i += n;
    } else if (s.substr(i, 3) == "NIL") {
      i += 3;
    } else if (c >= '0' && c <= '9') {
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    } else {
      return fail("unexpected byte");
    }
    any = true;
    if (depth == 0 && i < s.size()) return fail("data after the top-level value");
  }
  if (depth != 0) return fail("unbalanced '('");
  if (!any) return fail("empty");
  return true;
}

// Escapes CR, LF, backslash and bytes outside printable ASCII, so a rendering fits one line.
inline std::string escapeLine(std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\n') {
      out += "\\n";
    } else if (u < 0x20 || u >= 0x7f) {
      out += "\\x";
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 15]);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// The golden-file form of a parse: ENVELOPE, BODYSTRUCTURE, BODY, optionally the IMAP4rev2
// BODYSTRUCTURE, and one PART line per tree node.
inline std::string describe(const Message& m, bool with_rev2) {
  std::string out;
  out += "ENVELOPE " + escapeLine(renderEnvelope(m)) + "\n";
  out += "BODYSTRUCTURE " + escapeLine(renderBodyStructure(m, true)) + "\n";
  out += "BODY " + escapeLine(renderBodyStructure(m, false)) + "\n";
  if (with_rev2) {
    RenderOptions rev2;
    rev2.imap4rev2 = true;
    out += "BODYSTRUCTURE.REV2 " + escapeLine(renderBodyStructure(m, true, rev2)) + "\n";
  }
  for (uint32_t k = 0; k < m.parts().size(); ++k) {
    const Part& p = m.part(k);
    out += "PART " + partNumber(m, k).value_or("-") + " " + escapeLine(p.type) + "/" +
           escapeLine(p.subtype) + " header=" + std::to_string(p.header_offset) + "+" +
           std::to_string(p.header_size) + " body=" + std::to_string(p.body_offset) + "+" +
           std::to_string(p.body_size) + " lines=" + std::to_string(p.body_lines) +
           (p.limited ? " limited" : "") + "\n";
  }
  return out;
}

// Structural invariants of any parse; returns "" or a description of the first violation.
inline std::string checkInvariants(const Message& m) {
  const uint64_t size = m.data().size();
  if (m.parts().empty()) return "no parts";
  for (uint32_t k = 0; k < m.parts().size(); ++k) {
    const Part& p = m.part(k);
    std::string at = "part " + std::to_string(k) + ": ";
    if (p.header_offset + p.header_size > size) return at + "header out of bounds";
    if (p.body_offset + p.body_size > size) return at + "body out of bounds";
    if (p.header_offset + p.header_size != p.body_offset) return at + "header/body gap";
    if (p.body_lines > p.body_size) return at + "more lines than bytes";
    if (k == 0 && (p.parent != kNoPart || p.header_offset != 0)) return at + "bad root";
    if (k > 0) {
      if (p.parent >= k) return at + "parent not before child";
      const Part& par = m.part(p.parent);
      if (p.depth != par.depth + 1) return at + "depth";
      if (p.header_offset < par.body_offset ||
          p.body_offset + p.body_size > par.body_offset + par.body_size) {
        return at + "outside its parent's body";
      }
      if (par.kind == PartKind::kMessage &&
          (p.header_offset != par.body_offset ||
           p.body_offset + p.body_size != par.body_offset + par.body_size || !p.is_message)) {
        return at + "encapsulated message does not fill its part";
      }
    }
    if (p.kind == PartKind::kMessage && p.child_count != 1) return at + "message without one child";
    if (p.kind == PartKind::kLeaf && p.child_count != 0) return at + "leaf with children";
    uint64_t prev_end = 0;
    uint32_t n = 0;
    for (uint32_t c = p.first_child; c != kNoPart; c = m.part(c).next_sibling) {
      const Part& ch = m.part(c);
      if (ch.parent != k) return at + "child with another parent";
      if (n > 0 && ch.header_offset < prev_end) return at + "overlapping siblings";
      prev_end = ch.body_offset + ch.body_size;
      ++n;
    }
    if (n != p.child_count) return at + "child count";
    if (p.is_message != p.envelope.has_value()) return at + "envelope presence";
    std::optional<std::string> num = partNumber(m, k);
    if (num) {
      base::Result<SectionSpec> spec = parseSectionSpec(*num);
      if (!spec.ok()) return at + "unparsable number " + *num;
      base::Result<uint32_t> back = resolvePartPath(m, spec->path);
      if (!back.ok() || *back != k) return at + "number " + *num + " does not resolve back";
    }
  }
  return "";
}

}  // namespace darius::mime::testing
