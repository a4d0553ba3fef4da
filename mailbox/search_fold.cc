#include "mailbox/search_fold.h"

#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>
#include <unicode/utf8.h>

#include <algorithm>

#include "lib/base/ascii.h"
#include "lib/base/byte_scan.h"
#include "lib/base/utf8.h"
#include "lib/mime/charset.h"
#include "lib/mime/rfc2047.h"
#include "lib/proto/chars.h"

namespace darius::mailbox {
namespace {

const icu::Normalizer2* casefolder() {
  // A process-wide immutable instance owned by ICU; thread-safe.
  static const icu::Normalizer2* n = [] {
    UErrorCode err = U_ZERO_ERROR;
    const icu::Normalizer2* inst = icu::Normalizer2::getNFKCCasefoldInstance(err);
    return U_SUCCESS(err) ? inst : nullptr;
  }();
  return n;
}

bool isAscii(std::string_view s) { return base::isAsciiText(s); }

// Appends the folded form of `chunk` (UTF-8, possibly invalid) to `out`.
void appendFolded(std::string_view chunk, std::string& out) {
  if (isAscii(chunk)) {
    size_t at = out.size();
    out.append(chunk);
    for (size_t i = at; i < out.size(); ++i) out[i] = base::toLowerAsciiChar(out[i]);
    return;
  }
  std::string clean;
  if (!base::isValidUtf8(chunk)) {
    clean = mime::sanitizeUtf8(chunk);
    chunk = clean;
  }
  const icu::Normalizer2* n = casefolder();
  if (n != nullptr) {
    icu::StringByteSink<std::string> sink(&out);
    UErrorCode err = U_ZERO_ERROR;
    size_t at = out.size();
    n->normalizeUTF8(0, icu::StringPiece(chunk.data(), static_cast<int32_t>(chunk.size())), sink,
                     nullptr, err);
    if (U_SUCCESS(err)) return;
    out.resize(at);
  }
  // Without ICU's data (never in a correct installation): ASCII case-insensitivity at least.
  size_t at = out.size();
  out.append(chunk);
  for (size_t i = at; i < out.size(); ++i) out[i] = base::toLowerAsciiChar(out[i]);
}

// The end of the chunk that starts at `pos`: at most kFoldChunk bytes, cut before a
// character that starts a normalisation segment, so that folding the chunks one by one gives
// what folding the whole text would (a combining mark stays with its base character).
size_t chunkEnd(std::string_view s, size_t pos) {
  if (s.size() - pos <= kFoldChunk) return s.size();
  size_t end = pos + kFoldChunk;
  const icu::Normalizer2* n = casefolder();
  for (int tries = 0; tries < 32 && end > pos + 1; ++tries) {
    // Back to the start of the character at `end`.
    while (end > pos + 1 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
    base::Utf8Sequence seq = base::decodeUtf8(s, end);
    if (n == nullptr || seq.length == 0 || n->hasBoundaryBefore(static_cast<UChar32>(seq.code_point))) {
      return end;
    }
    --end;
  }
  return end;
}

}  // namespace

std::string foldForSearch(std::string_view text) {
  std::string out;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = chunkEnd(text, pos);
    appendFolded(text.substr(pos, end - pos), out);
    pos = end;
  }
  return out;
}

TextMatcher::TextMatcher(std::string_view needle) : folded_(foldForSearch(needle)) {
  ascii_ = isAscii(folded_);
  // Horspool's shift table for the ASCII fast path; folded_ is lower case, the text is
  // compared through base::toLowerAsciiChar, so both cases of a letter get the same shift.
  const size_t m = folded_.size();
  shift_.fill(static_cast<uint32_t>(std::max<size_t>(m, 1)));
  for (size_t i = 0; i + 1 < m; ++i) {
    auto c = static_cast<unsigned char>(folded_[i]);
    auto shift = static_cast<uint32_t>(m - 1 - i);
    shift_[c] = shift;
    if (c >= 'a' && c <= 'z') shift_[c - 32] = shift;
  }
}

bool TextMatcher::asciiFind(std::string_view h) const {
  const size_t m = folded_.size();
  if (h.size() < m) return false;
  for (size_t i = 0; i + m <= h.size();) {
    size_t j = m - 1;
    while (base::toLowerAsciiChar(h[i + j]) == folded_[j]) {
      if (j == 0) return true;
      --j;
    }
    i += shift_[static_cast<unsigned char>(h[i + m - 1])];
  }
  return false;
}

bool TextMatcher::matches(std::string_view haystack) const {
  if (folded_.empty()) return true;
  if (isAscii(haystack)) {
    // ASCII folds to ASCII: a needle with other characters cannot be in it.
    return ascii_ && asciiFind(haystack);
  }
  const size_t keep = folded_.size() - 1;
  std::string buf;
  for (size_t pos = 0; pos < haystack.size();) {
    size_t end = chunkEnd(haystack, pos);
    appendFolded(haystack.substr(pos, end - pos), buf);
    if (buf.find(folded_) != std::string::npos) return true;
    if (buf.size() > keep) buf.erase(0, buf.size() - keep);
    pos = end;
  }
  return false;
}

std::optional<std::string> convertSearchString(std::string_view bytes,
                                               const std::optional<std::string>& charset) {
  // No CHARSET: UTF-8 (RFC 9051 §6.4.4). US-ASCII is a subset of UTF-8; 8-bit bytes in a
  // "US-ASCII" string are taken as the UTF-8 that clients actually send.
  if (!charset || proto::equalsIgnoreCase(*charset, "UTF-8") ||
      proto::equalsIgnoreCase(*charset, "US-ASCII")) {
    if (base::isValidUtf8(bytes)) return std::string(bytes);
    return mime::sanitizeUtf8(bytes);
  }
  return mime::convertToUtf8(bytes, *charset);
}

bool isSearchCharset(std::string_view charset) {
  return proto::equalsIgnoreCase(charset, "UTF-8") ||
         proto::equalsIgnoreCase(charset, "US-ASCII") || mime::isKnownCharset(charset);
}

const std::string& advertisedCharsets() {
  static const std::string list = [] {
    std::string out = "UTF-8 US-ASCII";
    constexpr std::string_view kCommon[] = {
        "ISO-8859-1",   "ISO-8859-2",   "ISO-8859-5",   "ISO-8859-7",  "ISO-8859-15",
        "WINDOWS-1250", "WINDOWS-1251", "WINDOWS-1252", "KOI8-R",      "KOI8-U",
        "ISO-2022-JP",  "SHIFT_JIS",    "EUC-JP",       "EUC-KR",      "GB2312",
        "GBK",          "GB18030",      "BIG5",         "UTF-7"};
    for (std::string_view c : kCommon) {
      if (mime::isKnownCharset(c)) {
        out += " ";
        out += c;
      }
    }
    return out;
  }();
  return list;
}

}  // namespace darius::mailbox
