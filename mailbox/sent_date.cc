#include "mailbox/sent_date.h"

#include <array>
#include <string>
#include <vector>

#include "lib/proto/chars.h"

namespace darius::mailbox {
namespace {

constexpr size_t kMaxTokens = 16;  // a date has at most 7; the rest is junk

constexpr std::array<std::string_view, 12> kMonths = {"january", "february", "march",
                                                       "april",   "may",      "june",
                                                       "july",    "august",   "september",
                                                       "october", "november", "december"};

// 1..12 for "Jan", "jan", "January"; 0 otherwise.
int monthOf(std::string_view token) {
  if (token.size() < 3) return 0;
  std::string lower;
  for (char c : token) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return 0;
    lower.push_back(static_cast<char>(c | 0x20));
  }
  for (size_t m = 0; m < kMonths.size(); ++m) {
    if (lower == kMonths[m] || (lower.size() == 3 && kMonths[m].substr(0, 3) == lower)) {
      return static_cast<int>(m) + 1;
    }
  }
  return 0;
}

// The value of an all-digit token of at most `max_digits` digits, or -1.
int numberOf(std::string_view token, size_t max_digits) {
  if (token.empty() || token.size() > max_digits) return -1;
  int v = 0;
  for (char c : token) {
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

// RFC 5322 §4.3: two-digit years 00–49 are 2000–2049, 50–99 and three-digit years are 1900+.
int yearOf(std::string_view token) {
  int y = numberOf(token, 4);
  if (y < 0) return -1;
  if (token.size() == 2) return y < 50 ? 2000 + y : 1900 + y;
  if (token.size() == 3) return 1900 + y;
  return y;
}

std::optional<proto::CivilDate> make(int day, int month, int year) {
  if (year < 0 || year > 9999 || month < 1 || day < 1) return std::nullopt;
  if (day > proto::daysInMonth(year, month)) return std::nullopt;
  return proto::CivilDate{year, month, day};
}

}  // namespace

std::vector<std::string_view> dateWords(std::string_view v, bool split_at_dash) {
  std::vector<std::string_view> out;
  int comment = 0;
  size_t start = std::string_view::npos;
  auto flush = [&](size_t end) {
    if (start != std::string_view::npos && out.size() < kMaxTokens) {
      out.push_back(v.substr(start, end - start));
    }
    start = std::string_view::npos;
  };
  for (size_t i = 0; i < v.size(); ++i) {
    char c = v[i];
    if (comment > 0) {
      if (c == '\\') {
        ++i;
      } else if (c == '(') {
        if (comment < 32) ++comment;
      } else if (c == ')') {
        --comment;
      }
      continue;
    }
    if (c == '(') {
      flush(i);
      comment = 1;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' ||
               (split_at_dash && c == '-')) {
      flush(i);
    } else if (start == std::string_view::npos) {
      start = i;
    }
  }
  flush(v.size());
  return out;
}

std::optional<proto::CivilDate> parseSentDate(std::string_view value) {
  std::vector<std::string_view> t = dateWords(value, /*split_at_dash=*/true);
  for (size_t i = 0; i < t.size(); ++i) {
    int month = monthOf(t[i]);
    if (month == 0) continue;
    // RFC 5322: day month year.
    if (i > 0 && i + 1 < t.size()) {
      int day = numberOf(t[i - 1], 2);
      int year = yearOf(t[i + 1]);
      if (day > 0 && year >= 0) return make(day, month, year);
    }
    // asctime(): month day time year.
    if (i + 1 < t.size()) {
      int day = numberOf(t[i + 1], 2);
      for (size_t j = i + 2; day > 0 && j < t.size(); ++j) {
        if (t[j].find(':') != std::string_view::npos) continue;
        if (t[j].size() == 4) {
          int year = yearOf(t[j]);
          if (year >= 0) return make(day, month, year);
        }
        break;
      }
    }
    return std::nullopt;  // the first month name decides
  }
  return std::nullopt;
}

}  // namespace darius::mailbox
