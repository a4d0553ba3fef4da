#include "lib/mime/rfc2047.h"

#include <optional>
#include <vector>

#include "lib/base/digits.h"
#include "lib/base/utf8.h"
#include "lib/mime/charset.h"
#include "lib/mime/lexer.h"

namespace darius::mime {
namespace {

// One encoded word found at a position of the text.
struct EncodedWord {
  size_t begin = 0;  // of "=?"
  size_t end = 0;    // just past "?="
  std::string_view charset;
  std::string bytes;  // decoded octets, still in `charset`
};

// Parses an encoded word starting at text[pos] == '=' && text[pos+1] == '?'.
std::optional<EncodedWord> parseWord(std::string_view text, size_t pos) {
  size_t p = pos + 2;
  size_t q1 = text.find('?', p);
  if (q1 == std::string_view::npos || q1 == p) return std::nullopt;
  std::string_view charset = text.substr(p, q1 - p);
  for (char c : charset) {
    if (!isTokenChar(c) && c != '*') return std::nullopt;
  }
  if (q1 + 2 >= text.size() || text[q1 + 2] != '?') return std::nullopt;
  char enc = lowerAscii(text[q1 + 1]);
  if (enc != 'b' && enc != 'q') return std::nullopt;
  size_t start = q1 + 3;
  size_t q2 = text.find('?', start);
  if (q2 == std::string_view::npos || q2 + 1 >= text.size() || text[q2 + 1] != '=') {
    return std::nullopt;
  }
  std::string_view encoded = text.substr(start, q2 - start);
  for (char c : encoded) {
    if (isFws(c)) return std::nullopt;  // RFC 2047 §5: no white space inside a word
  }
  EncodedWord w;
  w.begin = pos;
  w.end = q2 + 2;
  size_t star = charset.find('*');  // RFC 2231 §5 language suffix
  w.charset = star == std::string_view::npos ? charset : charset.substr(0, star);
  if (w.charset.empty()) return std::nullopt;
  w.bytes = enc == 'b' ? decodeBase64Lenient(encoded) : decodeQEncoding(encoded);
  return w;
}

bool onlyWhiteSpace(std::string_view s) {
  for (char c : s) {
    if (!isFws(c)) return false;
  }
  return true;
}

// Converts a run of adjacent encoded words, joining neighbours in the same charset. The white
// space between two words goes (RFC 2047 §6.2) unless one of them stays undecoded.
void flushRun(std::string_view text, const std::vector<EncodedWord>& run, std::string* out) {
  size_t i = 0;
  bool prev_failed = false;
  while (i < run.size()) {
    size_t j = i;
    std::string joined;
    while (j < run.size() && equalsNoCase(run[j].charset, run[i].charset)) {
      joined += run[j].bytes;
      ++j;
    }
    std::optional<std::string> utf8 = convertToUtf8(joined, run[i].charset);
    if (i > 0 && (prev_failed || !utf8)) {
      out->append(text.substr(run[i - 1].end, run[i].begin - run[i - 1].end));
    }
    if (utf8) {
      out->append(sanitizeUtf8(*utf8));
    } else {
      // Unknown charset: the words as written.
      out->append(sanitizeUtf8(text.substr(run[i].begin, run[j - 1].end - run[i].begin)));
    }
    prev_failed = !utf8;
    i = j;
  }
}

}  // namespace

std::string decodeBase64Lenient(std::string_view text) {
  std::string out;
  out.reserve(text.size() * 3 / 4);
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    if (c == '=') break;
    int v = base::base64DigitValue(c);
    if (v < 0) continue;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

std::string decodeQEncoding(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '_') {
      out.push_back(' ');
    } else if (c == '=' && i + 2 < text.size() && base::hexDigitValue(text[i + 1]) >= 0 &&
               base::hexDigitValue(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(base::hexDigitValue(text[i + 1]) * 16 +
                                      base::hexDigitValue(text[i + 2])));
      i += 2;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string sanitizeUtf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  size_t i = 0;
  while (i < bytes.size()) {
    base::Utf8Sequence seq = base::decodeUtf8(bytes, i);
    if (seq.length == 0) {
      out.append("\xEF\xBF\xBD");
      ++i;
    } else {
      out.append(bytes.substr(i, seq.length));
      i += seq.length;
    }
  }
  return out;
}

std::string decodeHeaderText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::vector<EncodedWord> run;
  size_t plain_from = 0;  // start of text not yet copied
  size_t pos = 0;
  while (pos < text.size()) {
    size_t at = text.find("=?", pos);
    if (at == std::string_view::npos) break;
    std::optional<EncodedWord> w = parseWord(text, at);
    if (!w) {
      pos = at + 1;
      continue;
    }
    std::string_view gap = text.substr(plain_from, at - plain_from);
    if (!run.empty() && !onlyWhiteSpace(gap)) {
      flushRun(text, run, &out);
      run.clear();
    }
    if (run.empty()) out.append(sanitizeUtf8(gap));  // else: white space between words goes
    run.push_back(std::move(*w));
    plain_from = pos = run.back().end;
  }
  if (!run.empty()) flushRun(text, run, &out);
  out.append(sanitizeUtf8(text.substr(plain_from)));
  return out;
}

}  // namespace darius::mime
