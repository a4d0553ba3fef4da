// The numbers of the IMAP formal syntax (RFC 9051 §9), parsed from a complete digit string:
//
//   number      = 1*DIGIT            ; 0 <= n < 2^32
//   nz-number   = digit-nz *DIGIT    ; 0 < n < 2^32, no leading zero
//   number64    = 1*DIGIT            ; 0 <= n <= 2^63-1
//   nz-number64 = digit-nz *DIGIT    ; 0 < n <= 2^63-1
//
// Every overflow is detected before it happens (no wrap-around), however many digits come;
// leading zeros are allowed where the grammar allows them ("007" is a number, not an
// nz-number). Errors are kInvalid: an out-of-range number is a syntax error, a BAD.
//
// Ownership: pure functions. Thread-safety: no state.
#pragma once

#include <cstdint>
#include <string_view>

#include "lib/base/result.h"

namespace darius::proto {

inline constexpr uint64_t kMaxNumber = UINT32_MAX;
inline constexpr uint64_t kMaxNumber64 = INT64_MAX;

base::Result<uint32_t> parseNumber(std::string_view digits);
base::Result<uint32_t> parseNzNumber(std::string_view digits);
base::Result<uint64_t> parseNumber64(std::string_view digits);
base::Result<uint64_t> parseNzNumber64(std::string_view digits);

// 1*DIGIT up to `max` (the shared core; exposed for limits such as literal sizes).
base::Result<uint64_t> parseDigits(std::string_view digits, uint64_t max, bool nonzero);

}  // namespace darius::proto
