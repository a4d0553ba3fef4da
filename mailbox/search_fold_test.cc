// Case-insensitive substring matching with ICU case folding, and the conversion of search
// strings from the command's CHARSET.
#include "mailbox/search_fold.h"

#include <gtest/gtest.h>

#include <string>

namespace darius::mailbox {
namespace {

bool match(std::string_view needle, std::string_view haystack) {
  return TextMatcher(needle).matches(haystack);
}

TEST(TextMatch, AsciiIsCaseInsensitiveSubstring) {
  EXPECT_TRUE(match("smith", "From: John SMITH <js@example.com>"));
  EXPECT_TRUE(match("SMITH", "smith"));
  EXPECT_TRUE(match("Mi", "smith"));
  EXPECT_FALSE(match("smiths", "smith"));
  EXPECT_FALSE(match("x", ""));
  EXPECT_TRUE(match("", ""));
  EXPECT_TRUE(match("", "anything"));
  EXPECT_TRUE(match("a", "A"));
  EXPECT_TRUE(match("[x]", "abc [X] def"));
  EXPECT_FALSE(match("@", "at"));
  // Horspool's shifts must not skip a match whatever the case of the last letter.
  EXPECT_TRUE(match("abcab", "xxabcaBxxabcAB"));
  EXPECT_TRUE(match("aab", "aaaaaaaaAAB"));
  EXPECT_FALSE(match("aab", "aaaaaaaaAA"));
}

TEST(TextMatch, UnicodeCaseFolding) {
  EXPECT_TRUE(match("отпуск", "Мой ОТПУСК начинается"));
  EXPECT_TRUE(match("ОТПУСК", "мой отпуск"));
  EXPECT_TRUE(match("straße", "STRASSE"));
  EXPECT_TRUE(match("STRASSE", "Die Straße"));
  EXPECT_TRUE(match("ΣΊΣΥΦΟΣ", "σίσυφος"));
  EXPECT_TRUE(match("café", "CAFÉ au lait"));
  // Decomposed and precomposed forms of é are one character.
  EXPECT_TRUE(match("caf\xc3\xa9", "CAFE\xcc\x81"));
  EXPECT_TRUE(match("CAFE\xcc\x81", "un caf\xc3\xa9"));
  // Full-width letters and ligatures fold to their plain forms.
  EXPECT_TRUE(match("abc", "ＡＢＣ"));
  EXPECT_TRUE(match("file", "a \xef\xac\x81le"));  // U+FB01 LATIN SMALL LIGATURE FI
  EXPECT_FALSE(match("отпуск", "otpusk"));
  // A needle that folds to non-ASCII cannot match ASCII text.
  EXPECT_FALSE(match("é", "e"));
  // A needle that folds to ASCII matches ASCII text: KELVIN SIGN folds to "k".
  EXPECT_TRUE(match("\xe2\x84\xaa", "ok"));
}

TEST(TextMatch, InvalidUtf8IsHarmless) {
  EXPECT_TRUE(match("abc", "\xff\xfe ABC \xc3"));
  EXPECT_FALSE(match("abc", "\xff\xfe AB\xc3"));
  EXPECT_TRUE(match("\xff", "x\xef\xbf\xbdy"));  // both sides: U+FFFD
}

TEST(TextMatch, MatchesAcrossChunkBoundaries) {
  // A long non-ASCII text is folded in chunks; a match straddling a boundary is found.
  std::string text;
  while (text.size() < kFoldChunk - 3) text += "ж";
  text += "ПРИВЕТ мир";
  while (text.size() < 3 * kFoldChunk) text += "ж";
  EXPECT_TRUE(match("привет мир", text));
  EXPECT_FALSE(match("привет миру", text));
  for (size_t shift = 0; shift < 8; ++shift) {
    std::string t(shift, 'x');
    t += text;
    EXPECT_TRUE(match("привет мир", t)) << shift;
  }
  // Mostly ASCII with one non-ASCII character far away.
  std::string mixed(2 * kFoldChunk, 'a');
  mixed += "é";
  mixed.replace(kFoldChunk - 2, 6, "NEEDLE");
  EXPECT_TRUE(match("needle", mixed));
  // A combining mark right after a chunk cut stays with its letter.
  std::string combining(kFoldChunk - 1, 'x');
  combining += "E\xcc\x81 ж";
  EXPECT_TRUE(match("xé", combining));
}

TEST(TextMatch, FoldForSearch) {
  EXPECT_EQ(foldForSearch("Hello WORLD"), "hello world");
  EXPECT_EQ(foldForSearch("STRASSE"), "strasse");
  EXPECT_EQ(foldForSearch("Straße"), "strasse");
  EXPECT_EQ(foldForSearch(""), "");
}

TEST(TextMatch, SearchStringsFromTheirCharset) {
  EXPECT_EQ(convertSearchString("abc", std::nullopt), "abc");
  EXPECT_EQ(convertSearchString("\xd0\xb6", std::nullopt), "\xd0\xb6");
  EXPECT_EQ(convertSearchString("caf\xe9", std::string("ISO-8859-1")), "caf\xc3\xa9");
  EXPECT_EQ(convertSearchString("caf\xe9", std::string("iso-8859-1")), "caf\xc3\xa9");
  EXPECT_EQ(convertSearchString("\xf0\xd4\xd5", std::string("KOI8-R")), "Пту");
  EXPECT_EQ(convertSearchString("plain", std::string("US-ASCII")), "plain");
  EXPECT_EQ(convertSearchString("x", std::string("UTF-8")), "x");
  // Invalid UTF-8 is replaced, not refused.
  EXPECT_EQ(convertSearchString("a\xff", std::string("UTF-8")), "a\xef\xbf\xbd");
  EXPECT_FALSE(convertSearchString("x", std::string("X-NO-SUCH-CHARSET")));
  EXPECT_FALSE(convertSearchString("x", std::string("")));
}

TEST(TextMatch, Charsets) {
  EXPECT_TRUE(isSearchCharset("UTF-8"));
  EXPECT_TRUE(isSearchCharset("us-ascii"));
  EXPECT_TRUE(isSearchCharset("ISO-8859-1"));
  EXPECT_TRUE(isSearchCharset("koi8-r"));
  EXPECT_FALSE(isSearchCharset("X-NO-SUCH-CHARSET"));
  EXPECT_FALSE(isSearchCharset(""));
  const std::string& list = advertisedCharsets();
  EXPECT_EQ(list.substr(0, 14), "UTF-8 US-ASCII");
  EXPECT_NE(list.find("ISO-8859-1"), std::string::npos);
  EXPECT_NE(list.find("KOI8-R"), std::string::npos);
}

}  // namespace
}  // namespace darius::mailbox
