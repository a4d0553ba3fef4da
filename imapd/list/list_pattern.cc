#include "imapd/list/list_pattern.h"

#include <vector>

namespace darius::imapd {
namespace {

constexpr std::string_view kInbox = "INBOX";

bool isWildcard(char c) { return c == '*' || c == '%'; }

char lowerAscii(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

bool isInboxRooted(std::string_view name, char separator) {
  return name.substr(0, kInbox.size()) == kInbox &&
         (name.size() == kInbox.size() || name[kInbox.size()] == separator);
}

ListPattern::ListPattern(std::string_view pattern, char separator, size_t max_name_bytes)
    : separator_(separator) {
  // Collapse runs of wildcards: "*" absorbs "%" ("%*" matches what "*" matches), and "%%"
  // is "%". This also bounds the automaton's size by the number of literal bytes.
  size_t literals = 0;
  pattern_.reserve(pattern.size());
  for (char c : pattern) {
    if (isWildcard(c) && !pattern_.empty() && isWildcard(pattern_.back())) {
      if (c == '*') pattern_.back() = '*';
      continue;
    }
    if (!isWildcard(c)) ++literals;
    pattern_ += c;
  }
  // Every literal byte consumes one byte of the name.
  impossible_ = literals > max_name_bytes;
  size_t wild = pattern_.find_first_of("*%");
  size_t sep = pattern_.rfind(separator_, wild == std::string::npos ? std::string::npos : wild);
  if (sep != std::string::npos && sep > 0) fixed_parent_ = pattern_.substr(0, sep);
}

bool ListPattern::matches(std::string_view name) const {
  return !impossible_ && run(name, /*whole=*/true);
}

bool ListPattern::couldMatchWithPrefix(std::string_view prefix) const {
  return !impossible_ && run(prefix, /*whole=*/false);
}

bool ListPattern::run(std::string_view name, bool whole) const {
  const size_t m = pattern_.size();
  // The set of live states: state i means pattern_[0, i) has matched the bytes read so far.
  // `mark[i] == step` dedupes within one step.
  std::vector<uint32_t> current, next;
  std::vector<size_t> mark(m + 1, static_cast<size_t>(-1));
  size_t step = 0;
  auto add = [&](std::vector<uint32_t>& set, size_t i) {
    // A wildcard may match nothing: entering its state also enters the one after it
    // (wildcards are collapsed, so one is never followed by another).
    for (;;) {
      if (mark[i] == step) return;
      mark[i] = step;
      set.push_back(static_cast<uint32_t>(i));
      if (i < m && isWildcard(pattern_[i])) {
        ++i;
        continue;
      }
      return;
    }
  };
  add(current, 0);
  // In prefix mode a name that is still a prefix of "INBOX" may yet become INBOX.
  const bool fold = isInboxRooted(name, separator_) ||
                    (!whole && !name.empty() && kInbox.substr(0, name.size()) == name);
  for (size_t k = 0; k < name.size() && !current.empty(); ++k) {
    ++step;
    next.clear();
    const char c = name[k];
    for (uint32_t i : current) {
      if (i == m) continue;
      const char p = pattern_[i];
      if (p == '*' || (p == '%' && c != separator_)) {
        add(next, i);
      } else if (p == c || (fold && k < kInbox.size() && !isWildcard(p) &&
                            lowerAscii(p) == lowerAscii(c))) {
        add(next, i + 1);
      }
    }
    current.swap(next);
  }
  if (!whole) return !current.empty();
  for (uint32_t i : current) {
    if (i == m) return true;
  }
  return false;
}

}  // namespace darius::imapd
