#include "lib/base/base64.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace darius::base {
namespace {

struct Vector {
  const char* plain;
  const char* encoded;
};

// RFC 4648 §10.
constexpr Vector kRfc4648[] = {
    {"", ""},
    {"f", "Zg=="},
    {"fo", "Zm8="},
    {"foo", "Zm9v"},
    {"foob", "Zm9vYg=="},
    {"fooba", "Zm9vYmE="},
    {"foobar", "Zm9vYmFy"},
};

TEST(Base64, Rfc4648Vectors) {
  for (const auto& v : kRfc4648) {
    EXPECT_EQ(base64Encode(v.plain), v.encoded) << v.plain;
    auto d = base64Decode(v.encoded);
    ASSERT_TRUE(d.ok()) << v.encoded << ": " << d.status().toString();
    EXPECT_EQ(*d, v.plain);
  }
}

TEST(Base64, AllByteValuesRoundTrip) {
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  for (size_t len = 0; len <= all.size(); ++len) {
    std::string in = all.substr(0, len);
    auto d = base64Decode(base64Encode(in));
    ASSERT_TRUE(d.ok()) << len;
    EXPECT_EQ(*d, in);
  }
  EXPECT_EQ(base64Encode(std::string("\xfb\xff", 2)), "+/8=");
}

TEST(Base64, RejectsCharactersOutsideAlphabet) {
  using namespace std::string_view_literals;
  for (std::string_view bad : {"Zm9v!A=="sv, "Zm9-"sv, "Zm9_"sv, "Zm\x80v"sv, "Zm9v\0AAA"sv}) {
    auto d = base64Decode(bad);
    ASSERT_FALSE(d.ok()) << bad;
    EXPECT_EQ(d.status().code(), Code::kInvalid);
  }
  auto d = base64Decode("Zm9v!A==");
  EXPECT_NE(d.status().message().find("offset 4"), std::string::npos) << d.status().message();
}

TEST(Base64, RejectsWhitespaceAndLineBreaks) {
  for (const char* bad : {"Zm9v YmFy", "Zm9v\r\nYmFy", " Zm9v", "Zm9v\n", "Zm9\tv"}) {
    EXPECT_FALSE(base64Decode(bad).ok()) << bad;
  }
}

TEST(Base64, RejectsBadPadding) {
  for (const char* bad : {"Zg", "Zg=", "Zg===", "Z===", "====", "=Zm9", "Zm=v", "Zg==Zm9v",
                          "Zm8=Zm8=", "Zm9vY", "Zm9vYg=", "A"}) {
    EXPECT_FALSE(base64Decode(bad).ok()) << bad;
  }
}

TEST(Base64, RejectsNonZeroPadBits) {
  // "Zh==" and "Zm9=" decode to the same bytes as "Zg==" and "Zm8=" in a lax decoder.
  EXPECT_FALSE(base64Decode("Zh==").ok());
  EXPECT_FALSE(base64Decode("Zm9=").ok());
  EXPECT_TRUE(base64Decode("Zg==").ok());
  EXPECT_TRUE(base64Decode("Zm8=").ok());
}

TEST(Base64, RandomGarbageNeverCrashesAndValidOutputRoundTrips) {
  std::mt19937 rng(4648);
  std::uniform_int_distribution<int> byte(0, 255), len(0, 64);
  const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=";
  for (int round = 0; round < 20000; ++round) {
    std::string s;
    int n = len(rng);
    bool from_alphabet = round % 2 == 0;
    for (int i = 0; i < n; ++i) {
      s += from_alphabet ? alphabet[byte(rng) % alphabet.size()] : static_cast<char>(byte(rng));
    }
    auto d = base64Decode(s);
    // Strictness means any accepted text is the canonical encoding of what it decodes to.
    if (d.ok()) {
      EXPECT_EQ(base64Encode(*d), s);
    }
  }
}

TEST(Base64, LargeInput) {
  std::string big(3 * 1000 * 1000 + 1, 'x');
  auto d = base64Decode(base64Encode(big));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(*d, big);
}

}  // namespace
}  // namespace darius::base
