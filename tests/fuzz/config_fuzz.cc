// Fuzzes the config file parser (lib/config): arbitrary bytes as a config file. Invariants: no
// crash or sanitizer report; a failure is kInvalid with a one-line message; a success yields a
// Config on which every getter of every option works and every path is absolute.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "lib/config/config.h"

using darius::config::Config;
using darius::config::OptionType;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = Config::parse(text, "fuzz.conf", "/fuzz/inst");
  if (!r.ok()) {
    if (r.status().code() != darius::base::Code::kInvalid) std::abort();
    if (r.status().message().find_first_of("\r\n") != std::string::npos) std::abort();
    return 0;
  }
  const Config& c = *r;
  for (const darius::config::OptionDef& d : darius::config::allOptions()) {
    (void)c.isSet(d.name);
    (void)c.getText(d.name);
    switch (d.type) {
      case OptionType::kString:
      case OptionType::kEnum: (void)c.getString(d.name); break;
      case OptionType::kInt: {
        int64_t v = c.getInt(d.name);
        if ((d.min && v < *d.min) || (d.max && v > *d.max)) std::abort();
        break;
      }
      case OptionType::kBool: (void)c.getBool(d.name); break;
      case OptionType::kSize: {
        uint64_t v = c.getSize(d.name);
        if (d.min && v < static_cast<uint64_t>(*d.min)) std::abort();
        break;
      }
      case OptionType::kDuration:
        if (c.getDuration(d.name).count() < 0) std::abort();
        break;
      case OptionType::kList: (void)c.getList(d.name); break;
      case OptionType::kPath: {
        std::string p = c.getPath(d.name);
        if (!p.empty() && p[0] != '/') std::abort();
        break;
      }
      case OptionType::kAddressList:
        for (const auto& a : c.getAddresses(d.name)) {
          // What toString() prints must parse back to the same address.
          auto again = darius::config::parseListenAddress(a.toString(), "/");
          if (!again.ok() || !(*again == a)) std::abort();
        }
        break;
    }
  }
  return 0;
}
