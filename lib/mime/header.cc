#include "lib/mime/header.h"

#include <algorithm>

#include "lib/mime/lexer.h"

namespace darius::mime {
namespace {

// One line of a block: [start, content_end) is the text without its line end, [start, next)
// the whole line. A line end is LF, optionally preceded by CR.
struct HeaderLine {
  size_t start = 0;
  size_t content_end = 0;
  size_t next = 0;
  bool empty() const { return content_end == start; }
};

HeaderLine lineAt(std::string_view s, size_t pos) {
  HeaderLine l;
  l.start = pos;
  size_t nl = s.find('\n', pos);
  if (nl == std::string_view::npos) {
    l.content_end = s.size();
    l.next = s.size();
  } else {
    l.content_end = (nl > pos && s[nl - 1] == '\r') ? nl - 1 : nl;
    l.next = nl + 1;
  }
  return l;
}

bool validFieldName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f) return false;
  }
  return true;
}

// Where the blank line that ends the header starts, or npos.
size_t blankLineStart(std::string_view data) {
  size_t pos = 0;
  while (pos < data.size()) {
    HeaderLine l = lineAt(data, pos);
    if (l.empty() && l.next > l.start) return l.start;
    pos = l.next;
  }
  return std::string_view::npos;
}

}  // namespace

std::vector<HeaderField> parseHeaderFields(std::string_view block, size_t max_bytes) {
  std::vector<HeaderField> fields;
  size_t limit = std::min(block.size(), max_bytes);
  size_t value_start = 0;
  size_t value_end = 0;
  bool in_field = false;  // the last line started a field (not junk)
  auto finish = [&] {
    if (in_field) fields.back().value = block.substr(value_start, value_end - value_start);
    in_field = false;
  };
  size_t pos = 0;
  while (pos < block.size()) {
    HeaderLine l = lineAt(block, pos);
    if (l.empty()) break;  // the blank line that ends the header (or the end of a last line)
    if (isWsp(block[l.start])) {
      if (in_field) {
        HeaderField& f = fields.back();
        f.size = l.next - f.offset;
        value_end = l.content_end;
      }
      pos = l.next;
      continue;
    }
    finish();
    if (l.start >= limit) break;
    std::string_view content = block.substr(l.start, l.content_end - l.start);
    size_t colon = content.find(':');
    if (colon != std::string_view::npos) {
      std::string_view name = content.substr(0, colon);
      while (!name.empty() && isWsp(name.back())) name.remove_suffix(1);
      if (validFieldName(name)) {
        HeaderField f;
        f.name = name;
        f.offset = l.start;
        f.size = l.next - l.start;
        fields.push_back(f);
        value_start = l.start + colon + 1;
        value_end = l.content_end;
        in_field = true;
      }
    }
    pos = l.next;
  }
  finish();
  return fields;
}

std::string unfoldValue(std::string_view raw) {
  // The white space after the colon, on the field's first line only: a value that starts on
  // a continuation line keeps that line's indentation (what Dovecot and Cyrus send).
  size_t lead = 0;
  while (lead < raw.size() && isWsp(raw[lead])) ++lead;
  raw.remove_prefix(lead);
  std::string out;
  out.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c == '\r' && i + 2 < raw.size() && raw[i + 1] == '\n' && isWsp(raw[i + 2])) {
      ++i;  // drop CR LF, keep the white space that follows
      continue;
    }
    if (c == '\n' && i + 1 < raw.size() && isWsp(raw[i + 1])) continue;
    out.push_back(c);
  }
  return out;
}

size_t findHeaderEnd(std::string_view data, bool* has_blank_line) {
  size_t blank = blankLineStart(data);
  if (has_blank_line != nullptr) *has_blank_line = blank != std::string_view::npos;
  if (blank == std::string_view::npos) return data.size();
  return lineAt(data, blank).next;
}

const HeaderField* Header::first(std::string_view name) const {
  for (const HeaderField& f : fields_) {
    if (equalsNoCase(f.name, name)) return &f;
  }
  return nullptr;
}

const HeaderField* Header::last(std::string_view name) const {
  for (auto it = fields_.rbegin(); it != fields_.rend(); ++it) {
    if (equalsNoCase(it->name, name)) return &*it;
  }
  return nullptr;
}

std::vector<const HeaderField*> Header::all(std::string_view name) const {
  std::vector<const HeaderField*> out;
  for (const HeaderField& f : fields_) {
    if (equalsNoCase(f.name, name)) out.push_back(&f);
  }
  return out;
}

std::optional<std::string> Header::value(std::string_view name) const {
  const HeaderField* f = first(name);
  if (f == nullptr) return std::nullopt;
  return unfoldValue(f->value);
}

std::string filterHeaderFields(std::string_view block, const std::vector<std::string>& names,
                               bool exclude) {
  std::string out;
  for (const HeaderField& f : parseHeaderFields(block)) {
    bool listed = std::any_of(names.begin(), names.end(),
                              [&](const std::string& n) { return equalsNoCase(n, f.name); });
    if (listed != exclude) out.append(block.substr(f.offset, f.size));
  }
  size_t blank = blankLineStart(block);
  if (blank != std::string_view::npos) out.append(block.substr(blank, lineAt(block, blank).next - blank));
  return out;
}

}  // namespace darius::mime
