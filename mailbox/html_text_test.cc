#include "mailbox/html_text.h"

#include <gtest/gtest.h>

namespace darius::mailbox {
namespace {

TEST(HtmlText, TagsGoBlocksBreakHiddenContentAndCommentsVanish) {
  EXPECT_EQ(htmlToText("<b>bo</b>ld"), "bold");
  EXPECT_EQ(htmlToText("<p>one</p><p>two</p>"), "\none\n\ntwo\n");
  EXPECT_EQ(htmlToText("a<br>b<BR/>c"), "a\nb\nc");
  EXPECT_EQ(htmlToText("<head><title>T</title></head>x<style>p{a:b}</style>y"), "\nx\ny");
  EXPECT_EQ(htmlToText("<script>if (a < b) x();</script>z"), "\nz");
  EXPECT_EQ(htmlToText("a<!-- <b>hidden</b> -->b"), "ab");
  EXPECT_EQ(htmlToText("x <a href=\"y\">link</a>"), "x link");
}

TEST(HtmlText, ReferencesAreDecodedAndUnknownOnesKept) {
  EXPECT_EQ(htmlToText("a &amp; b &lt;c&gt; &quot;d&quot;"), "a & b <c> \"d\"");
  EXPECT_EQ(htmlToText("caf&eacute; &#233; &#xE9; &#X1F600;"), "caf&eacute; é é 😀");
  EXPECT_EQ(htmlToText("&nbsp;"), "\xc2\xa0");
  EXPECT_EQ(htmlToText("&#0; &#xD800; &#99999999;"), "\xef\xbf\xbd \xef\xbf\xbd \xef\xbf\xbd");
  EXPECT_EQ(htmlToText("AT&T & co"), "AT&T & co");
}

TEST(HtmlText, BrokenMarkupNeverGrowsAndEndsCleanly) {
  EXPECT_EQ(htmlToText("text <unterminated"), "text ");
  EXPECT_EQ(htmlToText("<!-- never closed"), "");
  EXPECT_EQ(htmlToText("<style>never closed"), "\n");
  for (std::string s : {"<<<<>>>>", "&#;&#x;&;", "</>", "<p", "&#xFFFFFFFFFF;"}) {
    EXPECT_LE(htmlToText(s).size(), s.size()) << s;
  }
}

}  // namespace
}  // namespace darius::mailbox
