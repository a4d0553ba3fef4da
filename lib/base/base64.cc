#include "lib/base/base64.h"

#include <array>
#include <cstdint>

namespace darius::base {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// 0..63 for alphabet characters, kBad for everything else (including '=', which the decoder
// handles by position).
constexpr uint8_t kBad = 0xff;

constexpr std::array<uint8_t, 256> makeDecodeTable() {
  std::array<uint8_t, 256> t{};
  for (auto& v : t) v = kBad;
  for (int i = 0; i < 64; ++i)
    t[static_cast<unsigned char>(kAlphabet[i])] = static_cast<uint8_t>(i);
  return t;
}

constexpr std::array<uint8_t, 256> kDecode = makeDecodeTable();

Status badAt(size_t offset, std::string_view what) {
  std::string m = "invalid base64 at offset ";
  m += std::to_string(offset);
  m += ": ";
  m += what;
  return Status::invalid(std::move(m));
}

}  // namespace

std::string base64Encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t n = bytes.size();
  size_t i = 0;
  for (; i + 3 <= n; i += 3) {
    uint32_t v = (uint32_t{p[i]} << 16) | (uint32_t{p[i + 1]} << 8) | p[i + 2];
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (n - i == 1) {
    uint32_t v = uint32_t{p[i]} << 16;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (n - i == 2) {
    uint32_t v = (uint32_t{p[i]} << 16) | (uint32_t{p[i + 1]} << 8);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

Result<std::string> base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) {
    return badAt(text.size(), "length is not a multiple of 4");
  }
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    uint8_t v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      auto c = static_cast<unsigned char>(text[i + k]);
      if (c == '=') {
        // Padding may only fill the last one or two positions of the final quantum.
        if (!last || k < 2) return badAt(i + k, "misplaced padding");
        ++pad;
        v[k] = 0;
        continue;
      }
      if (pad > 0) return badAt(i + k, "data after padding");
      v[k] = kDecode[c];
      if (v[k] == kBad) return badAt(i + k, "character outside the base64 alphabet");
    }
    uint32_t w = (uint32_t{v[0]} << 18) | (uint32_t{v[1]} << 12) | (uint32_t{v[2]} << 6) | v[3];
    // Non-zero bits under the padding would let two texts decode to the same bytes.
    if (pad == 2 && (w & 0xffff) != 0) return badAt(i + 1, "non-zero pad bits");
    if (pad == 1 && (w & 0xff) != 0) return badAt(i + 2, "non-zero pad bits");
    out += static_cast<char>((w >> 16) & 0xff);
    if (pad < 2) out += static_cast<char>((w >> 8) & 0xff);
    if (pad < 1) out += static_cast<char>(w & 0xff);
  }
  return out;
}

}  // namespace darius::base
