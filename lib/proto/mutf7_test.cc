// Modified UTF-7 mailbox names (RFC 3501 §5.1.3) through ICU: the RFC's examples, round
// trips (non-BMP included) and every non-canonical or broken form refused.
#include "lib/proto/mutf7.h"

#include <gtest/gtest.h>

#include <string>

namespace darius::proto {
namespace {

using base::Code;

// UTF-8 of 台北 and 日本語, the RFC's example.
const std::string kTaipei = "\xe5\x8f\xb0\xe5\x8c\x97";
const std::string kNihongo = "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e";
const std::string kGrinning = "\xf0\x9f\x98\x81";  // U+1F601, a surrogate pair in UTF-16

TEST(Mutf7, RfcExample) {
  const std::string utf8 = "~peter/mail/" + kTaipei + "/" + kNihongo;
  EXPECT_EQ(*encodeMutf7(utf8), "~peter/mail/&U,BTFw-/&ZeVnLIqe-");
  EXPECT_EQ(*decodeMutf7("~peter/mail/&U,BTFw-/&ZeVnLIqe-"), utf8);
}

TEST(Mutf7, Ampersand) {
  EXPECT_EQ(*encodeMutf7("&"), "&-");
  EXPECT_EQ(*decodeMutf7("&-"), "&");
  EXPECT_EQ(*encodeMutf7("Tom & Jerry"), "Tom &- Jerry");
  EXPECT_EQ(*decodeMutf7("&-&-"), "&&");
  EXPECT_EQ(*encodeMutf7("a&" + kTaipei), "a&-&U,BTFw-");
  EXPECT_EQ(*decodeMutf7("a&-&U,BTFw-"), "a&" + kTaipei);
}

TEST(Mutf7, PlainAsciiIsItself) {
  std::string all;
  for (int c = 0x20; c <= 0x7e; ++c) {
    if (c != '&') all += static_cast<char>(c);
  }
  EXPECT_EQ(*encodeMutf7(all), all);
  EXPECT_EQ(*decodeMutf7(all), all);
  EXPECT_EQ(*encodeMutf7(""), "");
  EXPECT_EQ(*decodeMutf7(""), "");
  // "," "/" "+" "\" "~" stand for themselves outside base64 (RFC 3501 §5.1.3, reasons 1-4).
  EXPECT_EQ(*decodeMutf7("a,b/c+d\\e~f"), "a,b/c+d\\e~f");
}

TEST(Mutf7, NonBmpAndMixedRoundTrip) {
  const std::string cases[] = {kGrinning,
                               "x" + kGrinning + "y",
                               kGrinning + kGrinning,
                               "J\xc3\xb6rg",
                               "\xc3\xa9t\xc3\xa9",
                               "Entw\xc3\xbc"
                               "rfe",
                               kTaipei + "&" + kNihongo,
                               std::string("tab\there"),
                               std::string("nul\0byte", 8),
                               "\xef\xbf\xbf",
                               "\xf4\x8f\xbf\xbf",
                               "\x7f",
                               "\xe2\x82\xac 100",
                               kGrinning + "&-" + kGrinning};
  for (const std::string& s : cases) {
    auto enc = encodeMutf7(s);
    ASSERT_TRUE(enc.ok()) << s;
    for (char c : *enc) {
      auto u = static_cast<unsigned char>(c);
      EXPECT_TRUE(u >= 0x20 && u <= 0x7e) << "mUTF-7 is printable ASCII: " << *enc;
    }
    auto dec = decodeMutf7(*enc);
    ASSERT_TRUE(dec.ok()) << *enc << ": " << dec.status().toString();
    EXPECT_EQ(*dec, s);
  }
  EXPECT_EQ(*encodeMutf7(kGrinning), "&2D3eAQ-");
  EXPECT_EQ(*encodeMutf7("\xe2\x98\xba"), "&Jjo-");  // U+263A, RFC 2152's example
}

TEST(Mutf7, DecodeRefusesNonCanonicalForms) {
  for (const char* bad : {
           "&AGE-",               // "a" encoded: printable ASCII must stand for itself
           "&AGEAZQ-",            // "ae" encoded
           "&ACY-",               // "&" encoded instead of "&-"
           "&AGE-&AGE-",          // adjacent runs (and encoded ASCII)
           "&U,BTFw-&ZeVnLIqe-",  // a null shift "-&" between runs that must be one
           "&U,BTFx-",            // non-zero padding bits
           "&U,BTF-",             // partial UTF-16 unit
           "&U,BTFw==-",          // base64 padding is not used
           "&U/BTFw-",            // "/" instead of ","
           "&AC0-",               // "-" encoded
           "&ACAAIQ-",            // " !" encoded
       }) {
    auto d = decodeMutf7(bad);
    ASSERT_FALSE(d.ok()) << bad;
    EXPECT_EQ(d.status().code(), Code::kInvalid) << bad;
  }
}

TEST(Mutf7, DecodeRefusesBrokenInput) {
  for (const char* bad : {
           "&",                 // shift at the end
           "&U,BTFw",           // unterminated run: a name MUST end in US-ASCII
           "~peter/&ZeVnLIqe",  // the same in a path
           "&ZeVnLIqe&-",       // "&" inside base64
           "&Ze Vn-",           // SP inside base64
           "&2D0-",             // lone high surrogate
           "&3gE-",             // lone low surrogate
           "&3gHYPQ-",          // pair in the wrong order
           "&2D3YPQ-",          // two high surrogates
           "a&2D0-b",           // lone surrogate between ASCII
           "caf\xc3\xa9",       // raw UTF-8: 8-bit bytes are not mUTF-7
           "\xff",              // raw 8-bit byte
           "tab\there",         // raw control character
           "\x7f",              // DEL must be encoded
           "a\r\nb",
       }) {
    auto d = decodeMutf7(bad);
    ASSERT_FALSE(d.ok()) << bad;
    EXPECT_EQ(d.status().code(), Code::kInvalid) << bad;
  }
  std::string nul("a\0b", 3);
  EXPECT_FALSE(decodeMutf7(nul).ok());
}

TEST(Mutf7, EncodeRefusesInvalidUtf8) {
  for (const char* bad :
       {"\xff", "caf\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82",
        "a\x80"
        "b",
        "\xf8\x88\x80\x80\x80"}) {
    auto e = encodeMutf7(bad);
    ASSERT_FALSE(e.ok()) << bad;
    EXPECT_EQ(e.status().code(), Code::kInvalid) << bad;
  }
}

TEST(Mutf7, EveryBmpCharacterRoundTrips) {
  // All of the BMP except surrogates, in chunks (runs of base64 of every length and phase).
  for (char32_t start = 0x80; start < 0x10000; start += 0x100) {
    std::string s = "x";
    for (char32_t c = start; c < start + 0x100 && c < 0x10000; ++c) {
      if (c >= 0xD800 && c <= 0xDFFF) continue;
      if (c < 0x800) {
        s += static_cast<char>(0xC0 | (c >> 6));
      } else {
        s += static_cast<char>(0xE0 | (c >> 12));
        s += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      }
      s += static_cast<char>(0x80 | (c & 0x3F));
      if (c % 7 == 0) s += "&";  // interleave direct characters and "&-"
    }
    auto enc = encodeMutf7(s);
    ASSERT_TRUE(enc.ok()) << static_cast<uint32_t>(start);
    auto dec = decodeMutf7(*enc);
    ASSERT_TRUE(dec.ok()) << static_cast<uint32_t>(start) << ": " << dec.status().toString();
    EXPECT_EQ(*dec, s);
  }
}

TEST(Mutf7, LongNames) {
  std::string s;
  for (int i = 0; i < 10000; ++i) s += kGrinning + "/";
  auto enc = encodeMutf7(s);
  ASSERT_TRUE(enc.ok());
  EXPECT_EQ(*decodeMutf7(*enc), s);
}

}  // namespace
}  // namespace darius::proto
