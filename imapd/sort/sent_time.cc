#include "imapd/sort/sent_time.h"

#include <array>
#include <string>
#include <vector>

#include "lib/proto/imap_date.h"
#include "mailbox/sent_date.h"

namespace darius::imapd::sort {
namespace {

// One or two digits, or -1.
int twoDigits(std::string_view s) {
  if (s.empty() || s.size() > 2) return -1;
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

struct Time {
  int seconds = 0;  // since midnight
  bool valid = false;
};

// "h:mm" or "h:mm:ss"; nullopt when `w` is not a time at all, invalid when it is one out of
// range.
std::optional<Time> timeOf(std::string_view w) {
  size_t c1 = w.find(':');
  if (c1 == std::string_view::npos) return std::nullopt;
  size_t c2 = w.find(':', c1 + 1);
  int h = twoDigits(w.substr(0, c1));
  int m = twoDigits(w.substr(c1 + 1, c2 == std::string_view::npos ? std::string_view::npos
                                                                   : c2 - c1 - 1));
  int s = c2 == std::string_view::npos ? 0 : twoDigits(w.substr(c2 + 1));
  if (h < 0 || m < 0 || s < 0) return std::nullopt;
  Time t;
  // RFC 5322 §3.3 allows second 60 (a leap second); it counts as the next minute's first.
  t.valid = h <= 23 && m <= 59 && s <= 60;
  t.seconds = h * 3600 + m * 60 + s;
  return t;
}

// Minutes east of UTC, or nullopt for a word that is no zone.
std::optional<int> zoneOf(std::string_view w) {
  if (w.size() == 5 && (w[0] == '+' || w[0] == '-')) {
    int hh = twoDigits(w.substr(1, 2));
    int mm = twoDigits(w.substr(3, 2));
    if (hh < 0 || mm < 0 || mm > 59) return std::nullopt;
    int minutes = hh * 60 + mm;
    return w[0] == '-' ? -minutes : minutes;
  }
  std::string u;
  for (char c : w) u.push_back((c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c);
  struct Named {
    std::string_view name;
    int minutes;
  };
  static constexpr std::array<Named, 11> kNamed = {{{"UT", 0},
                                                    {"GMT", 0},
                                                    {"Z", 0},
                                                    {"EST", -300},
                                                    {"EDT", -240},
                                                    {"CST", -360},
                                                    {"CDT", -300},
                                                    {"MST", -420},
                                                    {"MDT", -360},
                                                    {"PST", -480},
                                                    {"PDT", -420}}};
  for (const Named& n : kNamed) {
    if (u == n.name) return n.minutes;
  }
  if (u.size() == 1 && u[0] >= 'A' && u[0] <= 'Z' && u[0] != 'J') return 0;  // military
  return std::nullopt;
}

}  // namespace

std::optional<int64_t> parseSentTime(std::string_view date_value) {
  std::optional<proto::CivilDate> day = mailbox::parseSentDate(date_value);
  if (!day) return std::nullopt;
  std::vector<std::string_view> w = mailbox::dateWords(date_value, /*split_at_dash=*/false);
  int seconds = 0;
  int zone = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    std::optional<Time> t = timeOf(w[i]);
    if (!t) continue;
    // RFC 5256 §2.2: an invalid time SHOULD be treated as 00:00:00, and then its zone
    // means nothing either: midnight UTC of the day written.
    if (!t->valid) break;
    seconds = t->seconds;
    // The zone follows the time (in the asctime() form the year does; no zone then: UTC).
    if (i + 1 < w.size()) {
      if (std::optional<int> z = zoneOf(w[i + 1])) zone = *z;
    }
    break;
  }
  return proto::daysFromCivil(*day) * 86400 + seconds - int64_t{zone} * 60;
}

int64_t sentTimeOr(const std::optional<std::string_view>& date_value, int64_t internal_date) {
  if (date_value) {
    if (std::optional<int64_t> t = parseSentTime(*date_value)) return *t;
  }
  return internal_date;
}

}  // namespace darius::imapd::sort
