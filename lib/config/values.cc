#include "lib/config/values.h"

#include "lib/base/utf8.h"

#include <arpa/inet.h>
#include <sys/un.h>

#include <charconv>
#include <filesystem>
#include <limits>

#include <fmt/format.h>

namespace darius::config {
namespace {

using base::Result;
using base::Status;

bool startsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool equalsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

bool allDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// Leading decimal digits of `text` as an unsigned number; `rest` gets what follows. Fails on no
// digits or overflow (overflow is reported separately by the caller as "too large").
struct Number {
  uint64_t value = 0;
  std::string_view rest;
  bool overflow = false;
};

bool leadingNumber(std::string_view text, Number* out) {
  size_t n = 0;
  while (n < text.size() && text[n] >= '0' && text[n] <= '9') ++n;
  if (n == 0) return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + n, out->value);
  (void)ptr;
  out->overflow = ec == std::errc::result_out_of_range;
  out->rest = text.substr(n);
  return true;
}

bool validHostName(std::string_view host) {
  if (host.empty() || host.size() > 253) return false;
  size_t label = 0;
  char prev = '.';
  for (char c : host) {
    if (c == '.') {
      if (label == 0 || prev == '-') return false;
      label = 0;
    } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '-') {
      if (label == 0 && c == '-') return false;
      if (++label > 63) return false;
    } else {
      return false;
    }
    prev = c;
  }
  return prev != '-';
}

Result<uint16_t> parsePort(std::string_view port, std::string_view word) {
  if (!allDigits(port) || port.size() > 5) {
    return Status::invalid(fmt::format("{} has a bad port {} (expected 0..65535)",
                                       quoteForMessage(word), quoteForMessage(port)));
  }
  unsigned value = 0;
  std::from_chars(port.data(), port.data() + port.size(), value);
  if (value > 65535) {
    return Status::invalid(fmt::format("{} has a bad port {} (expected 0..65535)",
                                       quoteForMessage(word), quoteForMessage(port)));
  }
  return static_cast<uint16_t>(value);
}

constexpr std::string_view kAddressForms = "expected host:port, [ipv6]:port, *:port or unix:/path";

}  // namespace

std::string ListenAddress::toString() const {
  if (kind == kUnix) return "unix:" + path;
  if (host.empty()) return fmt::format("*:{}", port);
  if (host.find(':') != std::string::npos) return fmt::format("[{}]:{}", host, port);
  return fmt::format("{}:{}", host, port);
}

bool operator==(const ListenAddress& a, const ListenAddress& b) {
  return a.kind == b.kind && a.host == b.host && a.port == b.port && a.path == b.path;
}

std::string quoteForMessage(std::string_view text) {
  constexpr size_t kShown = 60;
  std::string out = "'";
  for (size_t i = 0; i < text.size() && i < kShown; ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c >= 0x7f || c == '\\' || c == '\'') {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  if (text.size() > kShown) {
    out += fmt::format("...' ({} bytes)", text.size());
  } else {
    out += '\'';
  }
  return out;
}

bool isCleanText(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    base::Utf8Sequence seq = base::decodeUtf8(text, i);
    if (seq.length == 0) return false;
    const char32_t cp = seq.code_point;
    if ((cp < 0x20 && cp != '\t') || (cp >= 0x7f && cp <= 0x9f)) return false;  // C0, DEL, C1
    i += seq.length;
  }
  return true;
}

Result<bool> parseBool(std::string_view text) {
  for (std::string_view t : {"yes", "true", "on", "1"}) {
    if (equalsNoCase(text, t)) return true;
  }
  for (std::string_view f : {"no", "false", "off", "0"}) {
    if (equalsNoCase(text, f)) return false;
  }
  return Status::invalid(fmt::format(
      "{} is not a boolean (use yes/no, true/false, on/off or 1/0)", quoteForMessage(text)));
}

Result<int64_t> parseInt(std::string_view text, int64_t min, int64_t max) {
  std::string_view digits = text;
  if (!digits.empty() && digits[0] == '-') digits.remove_prefix(1);
  if (!allDigits(digits)) {
    return Status::invalid(fmt::format("{} is not an integer", quoteForMessage(text)));
  }
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  (void)ptr;
  if (ec == std::errc::result_out_of_range) {
    return Status::invalid(fmt::format("{} is out of range", quoteForMessage(text)));
  }
  if (value < min) {
    return Status::invalid(
        fmt::format("{} is less than the minimum, {}", quoteForMessage(text), min));
  }
  if (value > max) {
    return Status::invalid(
        fmt::format("{} is more than the maximum, {}", quoteForMessage(text), max));
  }
  return value;
}

Result<uint64_t> parseSize(std::string_view text) {
  auto bad = [&] {
    return Status::invalid(fmt::format("{} is not a size (examples: 65536, 64K, 10M)",
                                       quoteForMessage(text)));
  };
  Number n;
  if (!leadingNumber(text, &n)) return bad();
  std::string_view suffix = n.rest;
  uint64_t multiplier = 1;
  if (!suffix.empty()) {
    switch (lower(suffix[0])) {
      case 'k': multiplier = uint64_t{1} << 10; suffix.remove_prefix(1); break;
      case 'm': multiplier = uint64_t{1} << 20; suffix.remove_prefix(1); break;
      case 'g': multiplier = uint64_t{1} << 30; suffix.remove_prefix(1); break;
      default: break;
    }
    if (suffix.size() == 1 && lower(suffix[0]) == 'b') suffix.remove_prefix(1);
    if (!suffix.empty()) return bad();
  }
  if (n.overflow || n.value > std::numeric_limits<uint64_t>::max() / multiplier) {
    return Status::invalid(fmt::format("{} is too large", quoteForMessage(text)));
  }
  return n.value * multiplier;
}

Result<std::chrono::milliseconds> parseDuration(std::string_view text) {
  auto bad = [&] {
    return Status::invalid(fmt::format(
        "{} is not a duration (examples: 250ms, 30s, 5m, 2h, 1d)", quoteForMessage(text)));
  };
  Number n;
  if (!leadingNumber(text, &n)) return bad();
  int64_t ms_per_unit;
  if (n.rest.empty() || n.rest == "s") {
    ms_per_unit = 1000;
  } else if (n.rest == "ms") {
    ms_per_unit = 1;
  } else if (n.rest == "m") {
    ms_per_unit = 60 * 1000;
  } else if (n.rest == "h") {
    ms_per_unit = 3600 * 1000;
  } else if (n.rest == "d") {
    ms_per_unit = 86400 * 1000;
  } else {
    return bad();
  }
  constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (n.overflow || n.value > kMax / static_cast<uint64_t>(ms_per_unit)) {
    return Status::invalid(fmt::format("{} is too long", quoteForMessage(text)));
  }
  return std::chrono::milliseconds(static_cast<int64_t>(n.value) * ms_per_unit);
}

std::vector<std::string> splitWords(std::string_view text) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
    if (i > start) words.emplace_back(text.substr(start, i - start));
  }
  return words;
}

Result<ListenAddress> parseListenAddress(std::string_view text, std::string_view base_dir) {
  ListenAddress addr;
  if (startsWith(text, "unix:")) {
    std::string_view path = text.substr(5);
    if (path.empty()) {
      return Status::invalid(fmt::format("{} has no socket path", quoteForMessage(text)));
    }
    addr.kind = ListenAddress::kUnix;
    addr.path = resolvePath(path, base_dir);
    // bind() silently truncates longer paths on some systems; refuse instead.
    constexpr size_t kMaxPath = sizeof(sockaddr_un::sun_path) - 1;
    if (addr.path.size() > kMaxPath) {
      return Status::invalid(fmt::format("socket path {} is longer than {} bytes",
                                         quoteForMessage(addr.path), kMaxPath));
    }
    return addr;
  }

  std::string_view host;
  std::string_view port;
  if (startsWith(text, "[")) {
    size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return Status::invalid(fmt::format("{} is not an address ({})", quoteForMessage(text),
                                         kAddressForms));
    }
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
    in6_addr a6;
    if (std::string h(host); inet_pton(AF_INET6, h.c_str(), &a6) != 1) {
      return Status::invalid(
          fmt::format("{} is not an IPv6 address", quoteForMessage(host)));
    }
  } else {
    size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) {
      return Status::invalid(fmt::format("{} has no port ({})", quoteForMessage(text),
                                         kAddressForms));
    }
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) {
      return Status::invalid(fmt::format(
          "{}: an IPv6 address needs brackets, as in [::1]:143", quoteForMessage(text)));
    }
    if (host.empty()) {
      return Status::invalid(
          fmt::format("{} has no host (use *:port for all addresses)", quoteForMessage(text)));
    }
    if (host == "*") {
      host = {};
    } else if (host.find_first_not_of("0123456789.") == std::string_view::npos) {
      in_addr a4;
      if (std::string h(host); inet_pton(AF_INET, h.c_str(), &a4) != 1) {
        return Status::invalid(fmt::format("{} is not an IPv4 address", quoteForMessage(host)));
      }
    } else if (!validHostName(host)) {
      return Status::invalid(fmt::format("{} is not a host name", quoteForMessage(host)));
    }
  }
  DARIUS_ASSIGN_OR_RETURN(addr.port, parsePort(port, text));
  addr.host = std::string(host);
  return addr;
}

Result<std::vector<ListenAddress>> parseAddressList(std::string_view text,
                                                    std::string_view base_dir) {
  std::vector<ListenAddress> out;
  for (const std::string& word : splitWords(text)) {
    DARIUS_ASSIGN_OR_RETURN(ListenAddress a, parseListenAddress(word, base_dir));
    out.push_back(std::move(a));
  }
  return out;
}

std::string resolvePath(std::string_view path, std::string_view base_dir) {
  if (path.empty()) return {};
  std::filesystem::path p(path);
  if (p.is_relative()) p = std::filesystem::path(base_dir) / p;
  std::string s = p.lexically_normal().string();
  // "/var/lib/darius/" and "/var/lib/darius" are one directory; keep one spelling.
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

}  // namespace darius::config
