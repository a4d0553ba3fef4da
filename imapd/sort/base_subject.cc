#include "imapd/sort/base_subject.h"

#include <cstddef>

#include "mailbox/search_fold.h"
#include "mailbox/search_text.h"

namespace darius::imapd::sort {
namespace {

// After normalisation the only WSP left is SP, but a caller of extractBaseSubject() may pass
// tabs; ABNF's WSP is both.
bool isWsp(char c) { return c == ' ' || c == '\t'; }

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c | 0x20) : c; }

// Whether `s` at `pos` starts with the lower-case ASCII literal `lit`, ignoring case.
bool startsWithAt(std::string_view s, size_t pos, std::string_view lit) {
  if (s.size() - pos < lit.size()) return false;
  for (size_t i = 0; i < lit.size(); ++i) {
    if (lower(s[pos + i]) != lit[i]) return false;
  }
  return true;
}

size_t skipWsp(std::string_view s, size_t pos) {
  while (pos < s.size() && isWsp(s[pos])) ++pos;
  return pos;
}

// subj-blob = "[" *BLOBCHAR "]" *WSP. The position after it, or npos.
size_t matchBlob(std::string_view s, size_t pos) {
  if (pos >= s.size() || s[pos] != '[') return std::string_view::npos;
  size_t i = pos + 1;
  while (i < s.size() && s[i] != '[' && s[i] != ']') ++i;
  if (i >= s.size() || s[i] != ']') return std::string_view::npos;
  return skipWsp(s, i + 1);
}

// subj-refwd = ("re" / ("fw" ["d"])) *WSP [subj-blob] ":". The position after it, or npos.
size_t matchRefwd(std::string_view s, size_t pos) {
  size_t i;
  if (startsWithAt(s, pos, "re")) {
    i = pos + 2;
  } else if (startsWithAt(s, pos, "fwd")) {
    i = pos + 3;
  } else if (startsWithAt(s, pos, "fw")) {
    i = pos + 2;
  } else {
    return std::string_view::npos;
  }
  i = skipWsp(s, i);
  if (size_t b = matchBlob(s, i); b != std::string_view::npos) i = b;
  if (i < s.size() && s[i] == ':') return i + 1;
  return std::string_view::npos;
}

// Step (2): trailing "(fwd)" and WSP, repeatedly.
void stripTrailers(std::string_view& s, bool& refwd) {
  for (;;) {
    if (!s.empty() && isWsp(s.back())) {
      s.remove_suffix(1);
    } else if (s.size() >= 5 && startsWithAt(s, s.size() - 5, "(fwd)")) {
      s.remove_suffix(5);
      refwd = true;
    } else {
      return;
    }
  }
}

// Steps (3), (4) and (5) on the front of `s`.
void stripLeaders(std::string_view& s, bool& refwd) {
  for (;;) {
    if (!s.empty() && isWsp(s[0])) {  // (3), the WSP form of subj-leader
      s.remove_prefix(1);
      continue;
    }
    // (3), *subj-blob subj-refwd: walk the blobs looking for a refwd after them.
    size_t i = 0;
    size_t last_blob = std::string_view::npos;
    size_t refwd_end = std::string_view::npos;
    for (;;) {
      refwd_end = matchRefwd(s, i);
      if (refwd_end != std::string_view::npos) break;
      size_t b = matchBlob(s, i);
      if (b == std::string_view::npos) break;
      last_blob = i;
      i = b;
    }
    if (refwd_end != std::string_view::npos) {
      s.remove_prefix(refwd_end);
      refwd = true;
      continue;
    }
    if (last_blob == std::string_view::npos) return;
    // (4) would now remove these blobs one at a time, (3) failing again after each (what
    // follows them is the same). Removing them at once keeps a run of blobs linear; the last
    // stays when nothing follows it, since then it is the subj-base.
    if (i < s.size()) {
      s.remove_prefix(i);
    } else {
      s.remove_prefix(last_blob);
      return;
    }
  }
}

}  // namespace

BaseSubject extractBaseSubject(std::string normalised_utf8) {
  // Views, not copies: each removal is O(1), so nested "[fwd: ...]" stays linear.
  std::string_view s(normalised_utf8);
  bool refwd = false;
  for (;;) {
    stripTrailers(s, refwd);  // (2)
    stripLeaders(s, refwd);   // (3)-(5)
    // (6): "[fwd:" subject "]".
    if (s.size() >= 6 && startsWithAt(s, 0, "[fwd:") && s.back() == ']') {
      s = s.substr(5, s.size() - 6);
      refwd = true;
      continue;
    }
    break;
  }
  BaseSubject out;
  out.text = std::string(s);
  out.key = mailbox::foldForSearch(out.text);
  out.reply_or_forward = refwd;
  return out;
}

BaseSubject baseSubject(std::string_view raw_subject_field_value) {
  // (1): decode, then every run of white space (tabs, the CRLF of folding) becomes one SP.
  std::string decoded = mailbox::decodeHeaderValue(raw_subject_field_value);
  std::string s;
  s.reserve(decoded.size());
  bool in_space = false;
  for (char c : decoded) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      if (!in_space) s.push_back(' ');
      in_space = true;
    } else {
      s.push_back(c);
      in_space = false;
    }
  }
  return extractBaseSubject(std::move(s));
}

}  // namespace darius::imapd::sort
