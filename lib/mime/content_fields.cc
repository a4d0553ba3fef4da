#include "lib/mime/content_fields.h"

#include <charconv>
#include <map>
#include <unordered_map>

#include "lib/base/digits.h"
#include "lib/mime/charset.h"
#include "lib/mime/lexer.h"
#include "lib/mime/rfc2047.h"

namespace darius::mime {
namespace {

// A parameter as written, before RFC 2231 joining.
struct RawParam {
  std::string_view attr;
  std::string value;
};

std::string percentDecode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && base::hexDigitValue(s[i + 1]) >= 0 &&
        base::hexDigitValue(s[i + 2]) >= 0) {
      out.push_back(
          static_cast<char>(base::hexDigitValue(s[i + 1]) * 16 + base::hexDigitValue(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

bool isAttributeChar(char c) {
  return isTokenChar(c) && static_cast<unsigned char>(c) < 0x80 && c != '*' && c != '\'' &&
         c != '%';
}

// RFC 2231 §7: every octet that is not an attribute-char as "%" and two hex digits.
std::string percentEncode(std::string_view s) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (isAttributeChar(c)) {
      out.push_back(c);
    } else {
      auto u = static_cast<unsigned char>(c);
      out.push_back('%');
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 15]);
    }
  }
  return out;
}

// Reads "attr = value" pairs up to the end of the text, skipping what is not one.
std::vector<RawParam> readRawParams(Lexer& lx) {
  std::vector<RawParam> out;
  while (true) {
    lx.skipCfws();
    if (lx.atEnd()) break;
    if (lx.consume(';')) continue;
    std::string_view attr = lx.token();
    lx.skipCfws();
    if (attr.empty() || !lx.consume('=')) {
      // Junk: skip to the next ';' (a quoted string may hide one).
      while (!lx.atEnd() && lx.peek() != ';') {
        if (lx.peek() == '"') {
          lx.quotedString();
        } else if (lx.peek() == '(') {
          lx.comment();
        } else {
          lx.advance();
        }
      }
      continue;
    }
    lx.skipCfws();
    RawParam p;
    p.attr = attr;
    if (lx.peek() == '"') {
      p.value = lx.quotedString();
    } else {
      // A token, leniently: up to white space, ';' or a comment, so that an unquoted value
      // with specials ("boundary=----=_Part_1") survives. Junk after it ("name=a b.pdf":
      // " b.pdf") is skipped by the loop.
      size_t start = lx.pos();
      while (!lx.atEnd() && !isFws(lx.peek()) && lx.peek() != ';' && lx.peek() != '(' &&
             lx.peek() != '"') {
        lx.advance();
      }
      p.value = std::string(lx.text().substr(start, lx.pos() - start));
    }
    out.push_back(std::move(p));
  }
  return out;
}

// RFC 2231 §3/§4: "name*N" sections and "*" extended values joined into one Param each, in
// the order of each name's first appearance.
std::vector<Param> joinParams(const std::vector<RawParam>& raw) {
  struct Section {
    bool extended = false;
    const std::string* value = nullptr;
  };
  struct Group {
    std::string name;
    bool sectioned = false;
    bool extended = false;            // unsectioned "name*"
    const std::string* plain = nullptr;  // unsectioned value
    std::map<uint32_t, Section> sections;
  };
  std::vector<Group> groups;
  // Key: lower-cased name plus how it was written ("s" sectioned, "e" extended, "p" plain);
  // a map, so that a header with a huge parameter list stays linear.
  std::unordered_map<std::string, size_t> index;
  auto groupFor = [&](std::string_view name, bool sectioned, bool ext) -> Group& {
    std::string key = toLowerAscii(name);
    key.push_back(sectioned ? 's' : ext ? 'e' : 'p');
    auto [it, inserted] = index.emplace(std::move(key), groups.size());
    if (inserted) groups.push_back(Group{std::string(name), sectioned, ext, nullptr, {}});
    return groups[it->second];
  };
  for (const RawParam& r : raw) {
    std::string_view attr = r.attr;
    bool ext = !attr.empty() && attr.back() == '*';
    std::string_view base = ext ? attr.substr(0, attr.size() - 1) : attr;
    size_t star = base.find('*');
    uint32_t section = 0;
    bool sectioned = false;
    if (star != std::string_view::npos && star > 0) {
      std::string_view num = base.substr(star + 1);
      auto [ptr, ec] = std::from_chars(num.data(), num.data() + num.size(), section);
      if (ec == std::errc() && ptr == num.data() + num.size() && !num.empty()) {
        sectioned = true;
        base = base.substr(0, star);
      }
    }
    if (base.empty()) continue;
    Group& g = groupFor(base, sectioned, ext);
    if (sectioned) {
      g.sections.emplace(section, Section{ext, &r.value});  // first of a duplicate wins
    } else if (g.plain == nullptr) {
      g.plain = &r.value;
    } else {
      // A repeated parameter (RFC 2045 §5 wants unique names): kept as written, in order, as
      // Dovecot does; the first one is what findParam() returns.
      Group dup{g.name, false, ext, &r.value, {}};
      groups.push_back(std::move(dup));
    }
  }
  std::vector<Param> out;
  for (const Group& g : groups) {
    Param p;
    p.name = g.name;
    if (!g.sectioned) {
      if (g.plain == nullptr) continue;
      p.extended = g.extended;
      p.value = *g.plain;
    } else {
      for (const auto& [n, s] : g.sections) {
        if (s.extended) p.extended = true;
      }
      bool first = true;
      for (const auto& [n, s] : g.sections) {
        std::string_view v = *s.value;
        if (p.extended) {
          // As sent, where a section is extended; a plain one joins in encoded form.
          if (first && !s.extended) p.sent = "''";
          p.sent += s.extended ? std::string(v) : percentEncode(v);
        }
        if (first && s.extended) {
          // extended-initial-value: [charset] "'" [language] "'" octets
          size_t q1 = v.find('\'');
          size_t q2 = q1 == std::string_view::npos ? q1 : v.find('\'', q1 + 1);
          if (q2 != std::string_view::npos) {
            p.charset = std::string(v.substr(0, q1));
            p.language = std::string(v.substr(q1 + 1, q2 - q1 - 1));
            v = v.substr(q2 + 1);
          }
        }
        first = false;
        p.value += s.extended ? percentDecode(v) : std::string(v);
      }
      out.push_back(std::move(p));
      continue;
    }
    if (p.extended) {
      p.sent = p.value;
      std::string_view v = p.value;
      size_t q1 = v.find('\'');
      size_t q2 = q1 == std::string_view::npos ? q1 : v.find('\'', q1 + 1);
      if (q2 != std::string_view::npos) {
        p.charset = std::string(v.substr(0, q1));
        p.language = std::string(v.substr(q1 + 1, q2 - q1 - 1));
        v = v.substr(q2 + 1);
      }
      p.value = percentDecode(v);
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

std::vector<Param> parseParams(std::string_view text) {
  Lexer lx(text);
  return joinParams(readRawParams(lx));
}

std::optional<ContentType> parseContentType(std::string_view value) {
  Lexer lx(value);
  lx.skipCfws();
  std::string_view type = lx.token();
  lx.skipCfws();
  if (type.empty() || !lx.consume('/')) return std::nullopt;
  lx.skipCfws();
  std::string_view subtype = lx.token();
  if (subtype.empty()) return std::nullopt;
  ContentType ct;
  ct.type = std::string(type);
  ct.subtype = std::string(subtype);
  ct.params = joinParams(readRawParams(lx));
  return ct;
}

std::optional<Disposition> parseDisposition(std::string_view value) {
  Lexer lx(value);
  lx.skipCfws();
  std::string_view type = lx.token();
  if (type.empty()) return std::nullopt;
  Disposition d;
  d.type = std::string(type);
  d.params = joinParams(readRawParams(lx));
  return d;
}

std::optional<std::string> parseTransferEncoding(std::string_view value) {
  Lexer lx(value);
  lx.skipCfws();
  std::string_view tok = lx.token();
  lx.skipCfws();
  if (tok.empty() || !lx.atEnd()) return std::nullopt;
  return std::string(tok);
}

std::vector<std::string> parseLanguageList(std::string_view value) {
  std::vector<std::string> out;
  Lexer lx(value);
  while (true) {
    lx.skipCfws();
    if (lx.atEnd()) break;
    if (lx.consume(',')) continue;
    std::string_view tag = lx.token();
    if (tag.empty()) {
      lx.advance();  // a special where a tag should be: skip it
      continue;
    }
    out.emplace_back(tag);
  }
  return out;
}

const Param* findParam(const std::vector<Param>& params, std::string_view name) {
  for (const Param& p : params) {
    if (equalsNoCase(p.name, name)) return &p;
  }
  return nullptr;
}

std::string imapParamName(const Param& p) {
  std::string name = toUpperAscii(p.name);
  if (p.extended) name.push_back('*');
  return name;
}

std::string imapParamValue(const Param& p) { return p.extended ? p.sent : p.value; }

std::string paramText(const Param& p) {
  if (!p.extended) return decodeHeaderText(p.value);
  if (!p.charset.empty()) {
    if (std::optional<std::string> utf8 = convertToUtf8(p.value, p.charset)) {
      return sanitizeUtf8(*utf8);
    }
  }
  return sanitizeUtf8(p.value);
}

}  // namespace darius::mime
