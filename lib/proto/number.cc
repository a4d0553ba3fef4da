#include "lib/proto/number.h"

#include "lib/proto/chars.h"

namespace darius::proto {

using base::Result;
using base::Status;

Result<uint64_t> parseDigits(std::string_view digits, uint64_t max, bool nonzero) {
  if (digits.empty()) return Status::invalid("Missing number");
  for (char ch : digits) {
    if (!isDigit(static_cast<unsigned char>(ch))) return Status::invalid("Invalid number");
  }
  // digit-nz *DIGIT: a leading zero is not allowed, so "0" and "01" are both refused.
  if (nonzero && digits[0] == '0') return Status::invalid("Number must not be zero");
  uint64_t n = 0;
  for (char ch : digits) {
    uint64_t d = static_cast<unsigned char>(ch) - '0';
    if (n > (max - d) / 10) return Status::invalid("Number out of range");
    n = n * 10 + d;
  }
  return n;
}

Result<uint32_t> parseNumber(std::string_view digits) {
  DARIUS_ASSIGN_OR_RETURN(uint64_t n, parseDigits(digits, kMaxNumber, false));
  return static_cast<uint32_t>(n);
}

Result<uint32_t> parseNzNumber(std::string_view digits) {
  DARIUS_ASSIGN_OR_RETURN(uint64_t n, parseDigits(digits, kMaxNumber, true));
  return static_cast<uint32_t>(n);
}

Result<uint64_t> parseNumber64(std::string_view digits) {
  return parseDigits(digits, kMaxNumber64, false);
}

Result<uint64_t> parseNzNumber64(std::string_view digits) {
  return parseDigits(digits, kMaxNumber64, true);
}

}  // namespace darius::proto
