// number, nz-number, number64, nz-number64 (RFC 9051 §9): ranges, zeros and overflow.
#include "lib/proto/number.h"

#include <gtest/gtest.h>

#include <string>

namespace darius::proto {
namespace {

TEST(Number, Bounds) {
  EXPECT_EQ(*parseNumber("0"), 0u);
  EXPECT_EQ(*parseNumber("4294967295"), 4294967295u);
  EXPECT_FALSE(parseNumber("4294967296").ok());
  EXPECT_FALSE(parseNumber("42949672950").ok());
  EXPECT_EQ(*parseNumber("000000000000000000000000000001"), 1u) << "1*DIGIT: leading zeros";
  EXPECT_EQ(*parseNumber64("9223372036854775807"), 9223372036854775807u);
  EXPECT_FALSE(parseNumber64("9223372036854775808").ok());
  EXPECT_FALSE(parseNumber64("18446744073709551615").ok());
  EXPECT_FALSE(parseNumber64("18446744073709551616").ok()) << "would wrap a uint64_t";
  EXPECT_FALSE(parseNumber64("99999999999999999999999").ok());
}

TEST(Number, NonZeroForms) {
  EXPECT_EQ(*parseNzNumber("1"), 1u);
  EXPECT_EQ(*parseNzNumber("4294967295"), 4294967295u);
  EXPECT_FALSE(parseNzNumber("0").ok());
  EXPECT_FALSE(parseNzNumber("00").ok());
  EXPECT_FALSE(parseNzNumber("01").ok()) << "digit-nz *DIGIT";
  EXPECT_FALSE(parseNzNumber("4294967296").ok());
  EXPECT_EQ(*parseNzNumber64("9223372036854775807"), 9223372036854775807u);
  EXPECT_FALSE(parseNzNumber64("0").ok());
  EXPECT_FALSE(parseNzNumber64("9223372036854775808").ok());
}

TEST(Number, NotDigits) {
  for (const char* bad : {"", " ", "1 ", " 1", "-1", "+1", "1e3", "0x1", "１", "\xff"}) {
    EXPECT_FALSE(parseNumber(bad).ok()) << bad;
    EXPECT_FALSE(parseNumber64(bad).ok()) << bad;
  }
  std::string with_nul("12\0", 3);
  EXPECT_FALSE(parseNumber(with_nul).ok());
}

TEST(Number, HugeDigitStringsFailFast) {
  std::string digits(1 << 20, '9');
  auto n = parseNumber64(digits);
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().code(), base::Code::kInvalid);
  EXPECT_EQ(n.status().message(), "Number out of range");
  EXPECT_EQ(*parseNumber(std::string(1 << 20, '0')), 0u);
}

}  // namespace
}  // namespace darius::proto
