#include "db/flat/flat_format.h"

#include <cstdio>
#include <optional>

#include "db/db.h"

namespace darius::db::flat {

using base::Result;
using base::Status;

namespace {

constexpr char kHex[] = "0123456789abcdef";

bool isPlain(unsigned char c) { return c >= 0x20 && c <= 0x7e && c != '\\'; }

// Bytes that must be written as \xNN (everything without a plain or named spelling).
bool needsHexEscape(unsigned char c) {
  return !isPlain(c) && c != '\\' && c != '\t' && c != '\n' && c != '\r';
}

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;  // upper case is refused: one spelling per byte
}

std::string byteName(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", c);
  return buf;
}

// Decodes one escaped field; on a problem returns its description and sets *bad to the
// field-relative offset of the offending byte.
std::optional<std::string> unescape(std::string_view field, std::string& out, size_t* bad) {
  out.clear();
  out.reserve(field.size());
  for (size_t i = 0; i < field.size(); ++i) {
    auto c = static_cast<unsigned char>(field[i]);
    if (isPlain(c)) {
      out.push_back(static_cast<char>(c));
      continue;
    }
    *bad = i;
    if (c != '\\') return "byte " + byteName(c) + " must be escaped";
    if (i + 1 >= field.size()) return "dangling backslash";
    char e = field[++i];
    switch (e) {
      case '\\':
        out.push_back('\\');
        continue;
      case 't':
        out.push_back('\t');
        continue;
      case 'n':
        out.push_back('\n');
        continue;
      case 'r':
        out.push_back('\r');
        continue;
      case 'x': {
        if (i + 2 >= field.size()) return "truncated \\x escape";
        int hi = hexDigit(field[i + 1]);
        int lo = hexDigit(field[i + 2]);
        if (hi < 0 || lo < 0) return "bad \\x escape (two lower-case hex digits expected)";
        auto b = static_cast<unsigned char>(hi * 16 + lo);
        if (!needsHexEscape(b))
          return "non-canonical escape \\x" + std::string(field.substr(i + 1, 2));
        out.push_back(static_cast<char>(b));
        i += 2;
        continue;
      }
      default: {
        auto u = static_cast<unsigned char>(e);
        return "unknown escape \\" + (isPlain(u) ? std::string(1, e) : byteName(u));
      }
    }
  }
  return std::nullopt;
}

std::string where(std::string_view label, uint64_t line, uint64_t offset) {
  return std::string(label) + ": line " + std::to_string(line) + " (offset " +
         std::to_string(offset) + "): ";
}

// Checks the header; returns the offset of the first record line, or the error.
Result<size_t> parseHeader(std::string_view data, std::string_view label) {
  if (data.empty()) return Status::corruption(where(label, 1, 0) + "empty file (no header)");
  size_t eol = data.find('\n');
  std::string_view first = data.substr(0, eol);
  if (first.substr(0, kMagic.size()) != kMagic) {
    return Status::invalid(std::string(label) + ": not a darius flat database");
  }
  std::string_view version = first.substr(kMagic.size());
  if (version != "1") {
    std::string shown(version.substr(0, 20));
    for (char& c : shown) {
      if (!isPlain(static_cast<unsigned char>(c))) c = '?';
    }
    return Status::invalid(std::string(label) + ": unsupported flat database version \"" + shown +
                           "\" (this build reads version 1)");
  }
  if (eol == std::string_view::npos) {
    return Status::corruption(where(label, 1, data.size()) + "header line does not end in LF");
  }
  return eol + 1;
}

// Walks the record lines: `bad(line, offset, problem)` for a malformed line, `good(key,
// value)` for a well-formed one; stops when bad returns false.
template <typename Bad, typename Good>
void walk(std::string_view data, size_t pos, Bad&& bad, Good&& good) {
  uint64_t line = 2;
  std::string key, value;
  std::optional<std::string> prev;
  for (; pos < data.size(); ++line) {
    size_t eol = data.find('\n', pos);
    if (eol == std::string_view::npos) {
      if (!bad(line, data.size(), "last line does not end in LF (truncated file?)")) return;
      break;
    }
    std::string_view text = data.substr(pos, eol - pos);
    size_t tab = text.find('\t');
    size_t off = 0;  // of the offending byte, from the start of the line
    auto diagnose = [&]() -> std::optional<std::string> {
      if (tab == std::string_view::npos) {
        off = text.size();
        return "no TAB between key and value";
      }
      if (tab == 0) return "empty key";
      if (auto p = unescape(text.substr(0, tab), key, &off)) return p;
      if (auto p = unescape(text.substr(tab + 1), value, &off)) {
        off += tab + 1;
        return p;
      }
      if (Status s = validateRecord(key, value); !s.isOk()) return s.message();
      if (prev && !(*prev < key)) return *prev == key ? "duplicate key" : "key out of order";
      return std::nullopt;
    };
    std::optional<std::string> problem = diagnose();
    if (problem) {
      if (!bad(line, pos + off, *problem)) return;
    } else {
      good(key, value);
      prev = key;
    }
    pos = eol + 1;
  }
}

}  // namespace

void appendEscaped(std::string& out, std::string_view bytes) {
  for (char ch : bytes) {
    auto c = static_cast<unsigned char>(ch);
    if (isPlain(c)) {
      out.push_back(ch);
    } else if (c == '\\') {
      out += "\\\\";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
}

std::string serialize(const Records& records) {
  size_t size = kHeader.size();
  for (const auto& [k, v] : records) size += k.size() + v.size() + 2;
  std::string out;
  out.reserve(size + size / 8);
  out += kHeader;
  for (const auto& [k, v] : records) {
    appendEscaped(out, k);
    out.push_back('\t');
    appendEscaped(out, v);
    out.push_back('\n');
  }
  return out;
}

Result<Records> parse(std::string_view data, std::string_view label) {
  DARIUS_ASSIGN_OR_RETURN(size_t pos, parseHeader(data, label));
  Records records;
  std::optional<Status> error;
  walk(
      data, pos,
      [&](uint64_t line, uint64_t offset, const std::string& what) {
        error = Status::corruption(where(label, line, offset) + what);
        return false;
      },
      [&](const std::string& k, const std::string& v) {
        records.emplace_hint(records.end(), k, v);
      });
  if (error) return *error;
  return records;
}

uint64_t checkContents(std::string_view data, std::string_view label,
                       std::vector<std::string>* problems) {
  Result<size_t> pos = parseHeader(data, label);
  if (!pos.ok()) {
    problems->push_back(pos.status().message());
    return 0;
  }
  uint64_t records = 0;
  walk(
      data, *pos,
      [&](uint64_t line, uint64_t offset, const std::string& what) {
        problems->push_back(where(label, line, offset) + what);
        return true;
      },
      [&](const std::string&, const std::string&) { ++records; });
  return records;
}

}  // namespace darius::db::flat
