#include "lib/proto/mutf7.h"

#include <unicode/ucnv.h>
#include <unicode/ucnv_err.h>
#include <unicode/ustring.h>
#include <unicode/utf16.h>

#include <limits>
#include <memory>
#include <vector>

#include "lib/base/utf8.h"

namespace darius::proto {

using base::Result;
using base::Status;

namespace {

constexpr const char* kConverterName = "IMAP-mailbox-name";

struct ConverterCloser {
  void operator()(UConverter* c) const { ucnv_close(c); }
};
using ConverterPtr = std::unique_ptr<UConverter, ConverterCloser>;

// A fresh converter whose callbacks stop at the first bad input instead of substituting.
Result<ConverterPtr> openConverter() {
  UErrorCode err = U_ZERO_ERROR;
  ConverterPtr c(ucnv_open(kConverterName, &err));
  if (U_FAILURE(err) || !c) {
    return Status::notSupported(std::string("ICU converter ") + kConverterName + ": " +
                                u_errorName(err));
  }
  ucnv_setToUCallBack(c.get(), UCNV_TO_U_CALLBACK_STOP, nullptr, nullptr, nullptr, &err);
  ucnv_setFromUCallBack(c.get(), UCNV_FROM_U_CALLBACK_STOP, nullptr, nullptr, nullptr, &err);
  if (U_FAILURE(err)) {
    return Status::notSupported(std::string("ICU callbacks: ") + u_errorName(err));
  }
  return c;
}

// Printable US-ASCII other than "&": the bytes that stand for themselves (RFC 3501 §5.1.3).
bool isDirect(unsigned char c) { return c >= 0x20 && c <= 0x7E && c != '&'; }

bool allDirect(std::string_view s) {
  for (char c : s) {
    if (!isDirect(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// Well-formed UTF-16: every lead surrogate followed by a trail, no trail on its own.
bool wellFormedUtf16(const std::vector<UChar>& u) {
  for (size_t i = 0; i < u.size(); ++i) {
    if (U16_IS_LEAD(u[i])) {
      if (i + 1 >= u.size() || !U16_IS_TRAIL(u[i + 1])) return false;
      ++i;
    } else if (U16_IS_TRAIL(u[i])) {
      return false;
    }
  }
  return true;
}

// Names are bounded by the command line long before this; it keeps int32_t lengths safe.
constexpr size_t kMaxInput = std::numeric_limits<int32_t>::max() / 8;

Result<std::string> encodeUtf16(const std::vector<UChar>& units) {
  ConverterPtr conv;
  {
    auto c = openConverter();
    if (!c.ok()) return c.status();
    conv = std::move(c).value();
  }
  // Worst case per unit: "&" + 3 base64 chars + "-" for a lone non-ASCII unit between
  // ASCII, or 2 bytes for "&-": 5 bytes a unit covers all of them.
  std::string out(units.size() * 5 + 8, '\0');
  UErrorCode err = U_ZERO_ERROR;
  int32_t n = ucnv_fromUChars(conv.get(), out.data(), static_cast<int32_t>(out.size()),
                              units.data(), static_cast<int32_t>(units.size()), &err);
  if (U_FAILURE(err) || n < 0) return Status::invalid("Cannot encode mailbox name");
  out.resize(static_cast<size_t>(n));
  return out;
}

}  // namespace

Result<std::string> decodeMutf7(std::string_view mutf7) {
  // The common case, a plain ASCII name, needs no converter.
  if (allDirect(mutf7)) return std::string(mutf7);
  if (mutf7.size() > kMaxInput) return Status::tooBig("Mailbox name too long");
  for (char c : mutf7) {
    auto u = static_cast<unsigned char>(c);
    if (u >= 0x80) return Status::invalid("8-bit byte in modified UTF-7 mailbox name");
    if (u < 0x20 || u == 0x7F) return Status::invalid("Control character in mailbox name");
  }
  auto conv = openConverter();
  if (!conv.ok()) return conv.status();
  // Every byte gives at most one UTF-16 unit.
  std::vector<UChar> units(mutf7.size() + 1);
  UErrorCode err = U_ZERO_ERROR;
  int32_t n = ucnv_toUChars(conv->get(), units.data(), static_cast<int32_t>(units.size()),
                            mutf7.data(), static_cast<int32_t>(mutf7.size()), &err);
  if (U_FAILURE(err) || n < 0) {
    if (err == U_TRUNCATED_CHAR_FOUND) {
      return Status::invalid("Unterminated modified base64 in mailbox name");
    }
    return Status::invalid("Invalid modified UTF-7 in mailbox name");
  }
  units.resize(static_cast<size_t>(n));
  if (!wellFormedUtf16(units)) return Status::invalid("Lone surrogate in mailbox name");

  // Canonical form only: whatever ICU accepted must be exactly what we would send.
  auto again = encodeUtf16(units);
  if (!again.ok() || *again != mutf7) {
    return Status::invalid("Non-canonical modified UTF-7 in mailbox name");
  }

  // UTF-16 → UTF-8: at most 3 bytes per unit (a surrogate pair is 4 bytes for 2 units).
  std::string out(units.size() * 3, '\0');
  int32_t len = 0;
  err = U_ZERO_ERROR;
  u_strToUTF8(out.data(), static_cast<int32_t>(out.size()), &len, units.data(),
              static_cast<int32_t>(units.size()), &err);
  if (U_FAILURE(err) || len < 0) return Status::invalid("Invalid UTF-16 in mailbox name");
  out.resize(static_cast<size_t>(len));
  return out;
}

Result<std::string> encodeMutf7(std::string_view utf8) {
  if (allDirect(utf8)) return std::string(utf8);
  if (utf8.size() > kMaxInput) return Status::tooBig("Mailbox name too long");
  if (!base::isValidUtf8(utf8)) return Status::invalid("Invalid UTF-8 in mailbox name");
  // UTF-8 → UTF-16: never more units than bytes.
  std::vector<UChar> units(utf8.size() + 1);
  int32_t len = 0;
  UErrorCode err = U_ZERO_ERROR;
  u_strFromUTF8(units.data(), static_cast<int32_t>(units.size()), &len, utf8.data(),
                static_cast<int32_t>(utf8.size()), &err);
  if (U_FAILURE(err) || len < 0) return Status::invalid("Invalid UTF-8 in mailbox name");
  units.resize(static_cast<size_t>(len));
  return encodeUtf16(units);
}

}  // namespace darius::proto
