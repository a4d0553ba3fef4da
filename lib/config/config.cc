#include "lib/config/config.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <variant>

#include <fmt/format.h>

namespace darius::config {

using base::Result;
using base::Status;

namespace internal {

struct ConfigEntry {
  std::string text;  // normalised; the value itself for kString, kEnum and kPath
  std::variant<std::monostate, int64_t, bool, uint64_t, std::chrono::milliseconds,
               std::vector<std::string>, std::vector<ListenAddress>>
      value;
  size_t line = 0;  // where the file set it; 0 = default
};

struct ConfigData {
  std::string source_path;
  std::vector<ConfigEntry> entries;  // parallel to allOptions()
};

}  // namespace internal

namespace {

using internal::ConfigData;
using internal::ConfigEntry;

std::string_view trim(std::string_view s) {
  constexpr std::string_view kSpace = " \t\r";
  size_t b = s.find_first_not_of(kSpace);
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(kSpace);
  return s.substr(b, e - b + 1);
}

bool validKey(std::string_view key) {
  for (char c : key) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return !key.empty();
}

// "64K" rather than "65536" when the minimum is a round size, as the file would spell it.
std::string formatSize(uint64_t v) {
  static constexpr std::pair<uint64_t, char> kUnits[] = {{1u << 30, 'G'}, {1u << 20, 'M'},
                                                         {1u << 10, 'K'}};
  for (auto [unit, suffix] : kUnits) {
    if (v >= unit && v % unit == 0) return fmt::format("{}{}", v / unit, suffix);
  }
  return fmt::format("{}", v);
}

std::string joinAllowed(std::span<const std::string_view> allowed) {
  std::string out;
  for (std::string_view a : allowed) {
    if (!out.empty()) out += ", ";
    out += a;
  }
  return out;
}

// The table's spelling of `word` if it is one of `allowed` (ignoring case: "tlsv1.3" is an
// obvious intent), else empty.
std::string_view matchAllowed(std::span<const std::string_view> allowed, std::string_view word) {
  for (std::string_view a : allowed) {
    if (a.size() != word.size()) continue;
    bool same = true;
    for (size_t i = 0; i < a.size() && same; ++i) {
      same = std::tolower(static_cast<unsigned char>(a[i])) ==
             std::tolower(static_cast<unsigned char>(word[i]));
    }
    if (same) return a;
  }
  return {};
}

// Parses one value for `def`. Errors describe the value only; the caller adds the location.
Result<ConfigEntry> parseValue(const OptionDef& def, std::string_view text,
                               std::string_view base_dir) {
  ConfigEntry e;
  e.text = std::string(text);
  switch (def.type) {
    case OptionType::kString:
      break;
    case OptionType::kInt: {
      DARIUS_ASSIGN_OR_RETURN(
          int64_t v, parseInt(text, def.min.value_or(std::numeric_limits<int64_t>::min()),
                              def.max.value_or(std::numeric_limits<int64_t>::max())));
      e.value = v;
      break;
    }
    case OptionType::kBool: {
      DARIUS_ASSIGN_OR_RETURN(bool v, parseBool(text));
      e.value = v;
      e.text = v ? "yes" : "no";
      break;
    }
    case OptionType::kSize: {
      DARIUS_ASSIGN_OR_RETURN(uint64_t v, parseSize(text));
      if (def.min && *def.min >= 0 && v < static_cast<uint64_t>(*def.min)) {
        return Status::invalid(fmt::format("{} is less than the minimum, {}",
                                           quoteForMessage(text), formatSize(*def.min)));
      }
      if (def.max && *def.max >= 0 && v > static_cast<uint64_t>(*def.max)) {
        return Status::invalid(fmt::format("{} is more than the maximum, {}",
                                           quoteForMessage(text), formatSize(*def.max)));
      }
      e.value = v;
      break;
    }
    case OptionType::kDuration: {
      DARIUS_ASSIGN_OR_RETURN(std::chrono::milliseconds v, parseDuration(text));
      e.value = v;
      break;
    }
    case OptionType::kEnum: {
      std::string_view canonical = matchAllowed(def.allowed, text);
      if (canonical.empty()) {
        return Status::invalid(fmt::format("{} is not one of: {}", quoteForMessage(text),
                                           joinAllowed(def.allowed)));
      }
      e.text = std::string(canonical);
      break;
    }
    case OptionType::kList: {
      std::vector<std::string> words = splitWords(text);
      if (!def.allowed.empty()) {
        for (size_t i = 0; i < words.size(); ++i) {
          std::string_view canonical = matchAllowed(def.allowed, words[i]);
          if (canonical.empty()) {
            return Status::invalid(fmt::format("{} is not one of: {}",
                                               quoteForMessage(words[i]),
                                               joinAllowed(def.allowed)));
          }
          words[i] = std::string(canonical);
          // A repeated word in a closed set is almost always an edit gone wrong.
          for (size_t j = 0; j < i; ++j) {
            if (words[j] == words[i]) {
              return Status::invalid(
                  fmt::format("{} is listed twice", quoteForMessage(words[i])));
            }
          }
        }
      }
      e.text.clear();
      for (const std::string& w : words) {
        if (!e.text.empty()) e.text += ' ';
        e.text += w;
      }
      e.value = std::move(words);
      break;
    }
    case OptionType::kPath:
      e.text = resolvePath(text, base_dir);
      break;
    case OptionType::kAddressList: {
      DARIUS_ASSIGN_OR_RETURN(std::vector<ListenAddress> v, parseAddressList(text, base_dir));
      e.text.clear();
      for (const ListenAddress& a : v) {
        if (!e.text.empty()) e.text += ' ';
        e.text += a.toString();
      }
      e.value = std::move(v);
      break;
    }
  }
  return e;
}

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "darius: config: %s\n", message.c_str());
  std::abort();
}

std::string currentDir() {
  std::error_code ec;
  std::filesystem::path cwd = std::filesystem::current_path(ec);
  // Without a current directory (deleted under us) "/" is the only safe anchor.
  return ec ? std::string("/") : cwd.string();
}

const std::shared_ptr<const ConfigData>& defaultData() {
  static const std::shared_ptr<const ConfigData> data = [] {
    auto d = std::make_shared<ConfigData>();
    for (const OptionDef& def : allOptions()) {
      Result<ConfigEntry> e = parseValue(def, def.default_value, "/");
      if (!e.ok()) {
        die(fmt::format("default of '{}' does not parse: {}", def.name, e.status().message()));
      }
      d->entries.push_back(std::move(e).value());
    }
    return d;
  }();
  return data;
}

}  // namespace

Result<Config> Config::load(const std::string& path) {
  int fd;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return Status::fromErrno(errno, "config file " + path);
  struct stat st;
  int stat_err = ::fstat(fd, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : 0;
  if (stat_err != 0) {
    ::close(fd);
    return Status::fromErrno(stat_err, "config file " + path);
  }
  // Read to EOF rather than trusting st_size: /proc files and pipes report 0.
  std::string text;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return Status::fromErrno(err, "config file " + path);
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > kMaxFileSize) {
      ::close(fd);
      return Status::tooBig(fmt::format("config file {}: larger than {} bytes", path,
                                        kMaxFileSize));
    }
  }
  ::close(fd);

  std::filesystem::path abs(path);
  if (abs.is_relative()) abs = std::filesystem::path(currentDir()) / abs;
  std::string base_dir = abs.lexically_normal().parent_path().string();
  return parse(text, path, base_dir);
}

Result<Config> Config::parse(std::string_view text, std::string_view file_name,
                             std::string_view base_dir) {
  std::string base = base_dir.empty() ? currentDir() : resolvePath(base_dir, currentDir());
  auto data = std::make_shared<Data>(*defaultData());
  data->source_path = std::string(file_name);

  size_t line_no = 0;
  size_t pos = 0;
  // Some editors start UTF-8 files with a byte order mark; it is not part of the first key.
  if (text.substr(0, 3) == "\xef\xbb\xbf") pos = 3;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view raw = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;

    auto fail = [&](std::string_view why) {
      if (file_name.empty()) return Status::invalid(fmt::format("line {}: {}", line_no, why));
      return Status::invalid(fmt::format("{}:{}: {}", file_name, line_no, why));
    };

    if (raw.size() > kMaxLineLength) {
      return fail(fmt::format("line is longer than {} bytes", kMaxLineLength));
    }
    std::string_view line = trim(raw);
    if (line.empty() || line[0] == '#') continue;

    size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      return fail(fmt::format("expected 'key: value', found {}", quoteForMessage(line)));
    }
    std::string_view key = trim(line.substr(0, colon));
    std::string_view value = trim(line.substr(colon + 1));
    if (key.empty()) return fail("missing option name before ':'");

    const OptionDef* def = validKey(key) ? findOption(key) : nullptr;
    if (def == nullptr) {
      std::string why = validKey(key)
                            ? fmt::format("unknown option '{}'", key)
                            : fmt::format("bad option name {} (names are lower-case letters, "
                                          "digits and '_')",
                                          quoteForMessage(key));
      if (std::string_view near = suggestOption(key); !near.empty()) {
        why += fmt::format(" (did you mean '{}'?)", near);
      }
      return fail(why);
    }

    size_t index = optionIndex(*def);
    if (size_t first = data->entries[index].line; first != 0) {
      return fail(fmt::format("duplicate option '{}' (first set on line {})", key, first));
    }
    if (!isCleanText(value)) {
      return fail(fmt::format("bad value for '{}': {} contains control characters or invalid "
                              "UTF-8",
                              key, quoteForMessage(value)));
    }
    Result<Entry> entry = parseValue(*def, value, base);
    if (!entry.ok()) {
      return fail(fmt::format("bad value for '{}': {}", key, entry.status().message()));
    }
    data->entries[index] = std::move(entry).value();
    data->entries[index].line = line_no;
  }
  return Config(std::move(data));
}

Config Config::defaults() { return Config(defaultData()); }

const Config::Entry& Config::entry(std::string_view name, const char* getter, OptionType want,
                                   OptionType also) const {
  const OptionDef* def = findOption(name);
  if (def == nullptr) {
    die(fmt::format("{}(\"{}\"): no such option", getter, name));
  }
  if (def->type != want && def->type != also) {
    die(fmt::format("{}(\"{}\"): option '{}' is of type {}, not {}", getter, name, name,
                    typeName(def->type), typeName(want)));
  }
  return data_->entries[optionIndex(*def)];
}

std::string Config::getString(std::string_view name) const {
  return entry(name, "getString", OptionType::kString, OptionType::kEnum).text;
}

int64_t Config::getInt(std::string_view name) const {
  return std::get<int64_t>(entry(name, "getInt", OptionType::kInt, OptionType::kInt).value);
}

bool Config::getBool(std::string_view name) const {
  return std::get<bool>(entry(name, "getBool", OptionType::kBool, OptionType::kBool).value);
}

uint64_t Config::getSize(std::string_view name) const {
  return std::get<uint64_t>(entry(name, "getSize", OptionType::kSize, OptionType::kSize).value);
}

std::chrono::milliseconds Config::getDuration(std::string_view name) const {
  return std::get<std::chrono::milliseconds>(
      entry(name, "getDuration", OptionType::kDuration, OptionType::kDuration).value);
}

std::vector<std::string> Config::getList(std::string_view name) const {
  return std::get<std::vector<std::string>>(
      entry(name, "getList", OptionType::kList, OptionType::kList).value);
}

std::string Config::getPath(std::string_view name) const {
  return entry(name, "getPath", OptionType::kPath, OptionType::kPath).text;
}

std::vector<ListenAddress> Config::getAddresses(std::string_view name) const {
  return std::get<std::vector<ListenAddress>>(
      entry(name, "getAddresses", OptionType::kAddressList, OptionType::kAddressList).value);
}

bool Config::isSet(std::string_view name) const {
  const OptionDef* def = findOption(name);
  if (def == nullptr) die(fmt::format("isSet(\"{}\"): no such option", name));
  return data_->entries[optionIndex(*def)].line != 0;
}

std::string Config::getText(std::string_view name) const {
  const OptionDef* def = findOption(name);
  if (def == nullptr) die(fmt::format("getText(\"{}\"): no such option", name));
  return data_->entries[optionIndex(*def)].text;
}

const std::string& Config::sourcePath() const { return data_->source_path; }

std::string serverName(const Config& config) {
  std::string name = config.getString("servername");
  if (!name.empty()) return name;
  char buf[256] = {};
  if (::gethostname(buf, sizeof(buf) - 1) != 0 || buf[0] == '\0') return "localhost";
  return buf;
}

}  // namespace darius::config
