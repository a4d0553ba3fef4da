#include "lib/mime/charset.h"

#include <unicode/ucnv.h>
#include <unicode/ustring.h>

#include <memory>
#include <vector>

namespace darius::mime {
namespace {

struct ConverterCloser {
  void operator()(UConverter* c) const { ucnv_close(c); }
};
using ConverterPtr = std::unique_ptr<UConverter, ConverterCloser>;

ConverterPtr openConverter(std::string_view charset) {
  // Charset names are short ASCII words; anything else is not a name ICU should guess at.
  if (charset.empty() || charset.size() > 64) return nullptr;
  for (char c : charset) {
    auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7f) return nullptr;
  }
  std::string name(charset);
  UErrorCode err = U_ZERO_ERROR;
  UConverter* conv = ucnv_open(name.c_str(), &err);
  if (U_FAILURE(err)) return nullptr;
  return ConverterPtr(conv);
}

}  // namespace

bool isKnownCharset(std::string_view charset) { return openConverter(charset) != nullptr; }

std::optional<std::string> convertToUtf8(std::string_view bytes, std::string_view charset) {
  ConverterPtr conv = openConverter(charset);
  if (!conv) return std::nullopt;
  if (bytes.empty()) return std::string();
  if (bytes.size() > (1u << 30)) return std::nullopt;  // int32 lengths below
  auto in_len = static_cast<int32_t>(bytes.size());
  std::vector<UChar> u16(static_cast<size_t>(in_len) * 2 + 16);
  UErrorCode err = U_ZERO_ERROR;
  int32_t n = ucnv_toUChars(conv.get(), u16.data(), static_cast<int32_t>(u16.size()), bytes.data(),
                            in_len, &err);
  if (err == U_BUFFER_OVERFLOW_ERROR) {
    u16.resize(static_cast<size_t>(n) + 1);
    err = U_ZERO_ERROR;
    ucnv_resetToUnicode(conv.get());
    n = ucnv_toUChars(conv.get(), u16.data(), static_cast<int32_t>(u16.size()), bytes.data(),
                      in_len, &err);
  }
  if (U_FAILURE(err)) return std::nullopt;
  int32_t out_len = 0;
  err = U_ZERO_ERROR;
  u_strToUTF8WithSub(nullptr, 0, &out_len, u16.data(), n, 0xFFFD, nullptr, &err);
  if (err != U_BUFFER_OVERFLOW_ERROR && U_FAILURE(err)) return std::nullopt;
  std::string out(static_cast<size_t>(out_len), '\0');
  err = U_ZERO_ERROR;
  u_strToUTF8WithSub(out.data(), out_len, &out_len, u16.data(), n, 0xFFFD, nullptr, &err);
  if (U_FAILURE(err)) return std::nullopt;
  out.resize(static_cast<size_t>(out_len));
  return out;
}

}  // namespace darius::mime
