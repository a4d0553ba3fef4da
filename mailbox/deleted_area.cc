#include "mailbox/deleted_area.h"

#include <cstdio>
#include <ctime>
#include <map>

namespace darius::mailbox {

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }

bool isDeletedIdChar(char c) {
  return isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '-';
}

// "YYYYMMDD-HH:MM:SS" at the start of `s` (exactly 17 bytes) -> seconds since the epoch (UTC).
std::optional<int64_t> parseStamp(std::string_view s) {
  static constexpr std::string_view kShape = "dddddddd-dd:dd:dd";
  if (s.size() != kShape.size()) return std::nullopt;
  for (size_t i = 0; i < s.size(); ++i) {
    if (kShape[i] == 'd' ? !isDigit(s[i]) : s[i] != kShape[i]) return std::nullopt;
  }
  auto num = [&](size_t at, size_t n) {
    int v = 0;
    for (size_t i = at; i < at + n; ++i) v = v * 10 + (s[i] - '0');
    return v;
  };
  std::tm tm{};
  tm.tm_year = num(0, 4) - 1900;
  tm.tm_mon = num(4, 2) - 1;
  tm.tm_mday = num(6, 2);
  tm.tm_hour = num(9, 2);
  tm.tm_min = num(12, 2);
  tm.tm_sec = num(15, 2);
  // A DELETE happens after 1970; and strftime pads no year below 1000 to four digits.
  if (tm.tm_year < 70 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 ||
      tm.tm_sec > 59) {
    return std::nullopt;
  }
  const int64_t t = ::timegm(&tm);
  // timegm normalises 31 February into March: only a stamp that prints back is one.
  std::tm back{};
  const time_t tt = static_cast<time_t>(t);
  if (::gmtime_r(&tt, &back) == nullptr || back.tm_mday != num(6, 2) ||
      back.tm_mon != num(4, 2) - 1) {
    return std::nullopt;
  }
  return t;
}

}  // namespace

std::optional<DeletedEntryName> parseDeletedEntryName(std::string_view entry) {
  size_t dash = entry.find('-');
  if (dash == 0 || dash == std::string_view::npos || dash + 1 == entry.size()) return std::nullopt;
  std::string_view time = entry.substr(0, dash);
  std::string_view ns;
  if (size_t dot = time.find('.'); dot != std::string_view::npos) {
    ns = time.substr(dot + 1);
    time = time.substr(0, dot);
    if (ns.size() != 9) return std::nullopt;
  }
  if (time.empty() || time.size() > 18) return std::nullopt;
  DeletedEntryName out;
  for (char c : time) {
    if (!isDigit(c)) return std::nullopt;
    out.deleted_at = out.deleted_at * 10 + (c - '0');
  }
  for (char c : ns) {
    if (!isDigit(c)) return std::nullopt;
    out.deleted_ns = out.deleted_ns * 10 + (c - '0');
  }
  std::string_view id = entry.substr(dash + 1);
  if (id.size() > 128) return std::nullopt;
  for (char c : id) {
    if (!isDeletedIdChar(c)) return std::nullopt;
  }
  out.unique_id = std::string(id);
  return out;
}

std::string deletedEntryName(int64_t sec, int64_t ns, std::string_view unique_id) {
  char frac[16];
  std::snprintf(frac, sizeof frac, ".%09lld", static_cast<long long>(ns % 1'000'000'000));
  return std::to_string(sec) + frac + "-" + std::string(unique_id);
}

std::string deletedSuffix(int64_t deleted_at, uint32_t ordinal) {
  std::tm tm{};
  const time_t t = static_cast<time_t>(deleted_at);
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "-%Y%m%d-%H:%M:%S", &tm);
  std::string out = buf;
  if (ordinal > 1) out += "-" + std::to_string(ordinal);
  return out;
}

std::optional<DeletedDisplayName> parseDeletedDisplayName(std::string_view display) {
  constexpr size_t kStamp = 17;  // "YYYYMMDD-HH:MM:SS"
  auto at = [&](std::string_view s, uint32_t ordinal) -> std::optional<DeletedDisplayName> {
    if (s.size() < kStamp + 2 || s[s.size() - kStamp - 1] != '-') return std::nullopt;
    auto t = parseStamp(s.substr(s.size() - kStamp));
    if (!t) return std::nullopt;
    return DeletedDisplayName{std::string(s.substr(0, s.size() - kStamp - 1)), *t, ordinal};
  };
  // A stamp ends in ":SS", never in "-N": the two shapes cannot be taken for each other.
  if (auto plain = at(display, 1)) return plain;
  size_t dash = display.rfind('-');
  if (dash == std::string_view::npos || dash + 1 == display.size() ||
      display.size() - dash - 1 > 9 || display[dash + 1] == '0') {
    return std::nullopt;
  }
  uint32_t n = 0;
  for (char c : display.substr(dash + 1)) {
    if (!isDigit(c)) return std::nullopt;
    n = n * 10 + static_cast<uint32_t>(c - '0');
  }
  if (n < 2) return std::nullopt;
  return at(display.substr(0, dash), n);
}

void numberDeleted(std::span<DeletedMailbox> deleted) {
  std::map<std::pair<std::string, int64_t>, uint32_t> seen;
  for (DeletedMailbox& d : deleted) d.ordinal = ++seen[{d.name.key(), d.deleted_at}];
}

}  // namespace darius::mailbox
