#include "lib/mime/render.h"

#include <gtest/gtest.h>

#include "lib/mime/imap_string.h"
#include "lib/mime/mime_test_util.h"

namespace darius::mime {
namespace {

std::string bs(std::string_view msg, bool ext = true) {
  return renderBodyStructure(Message::parse(msg), ext);
}

TEST(ImapString, QuotedLiteralNil) {
  std::string out;
  appendImapString(out, "plain \"q\" \\");
  EXPECT_EQ(out, "\"plain \\\"q\\\" \\\\\"");
  out.clear();
  appendImapString(out, "caf\xc3\xa9");
  EXPECT_EQ(out, "{5}\r\ncaf\xc3\xa9");
  out.clear();
  appendImapString(out, "a\r\nb");
  EXPECT_EQ(out, "{4}\r\na\r\nb");
  out.clear();
  appendImapString(out, std::string("a\0b", 3));
  EXPECT_EQ(out, "{5}\r\na\xef\xbf\xbd" "b");
  out.clear();
  appendImapNString(out, std::nullopt);
  appendImapNString(out, std::string());
  EXPECT_EQ(out, "NIL\"\"");
}

TEST(Render, Rfc3501DefaultsAndExample) {
  // RFC 3501 §7.4.2: ("TEXT" "PLAIN" ("CHARSET" "US-ASCII") NIL NIL "7BIT" 2279 48)
  std::string body;
  for (int i = 0; i < 47; ++i) body += std::string(45, 'x') + "\r\n";
  body += std::string(68, 'y') + "\r\n";
  ASSERT_EQ(body.size(), 2279u);
  Message m = Message::parse("From: a@b\r\n\r\n" + body);
  EXPECT_EQ(renderBodyStructure(m, false),
            "(\"TEXT\" \"PLAIN\" (\"CHARSET\" \"US-ASCII\") NIL NIL \"7BIT\" 2279 48)");
  EXPECT_EQ(renderBodyStructure(m, true),
            "(\"TEXT\" \"PLAIN\" (\"CHARSET\" \"US-ASCII\") NIL NIL \"7BIT\" 2279 48 NIL NIL NIL "
            "NIL)");
}

TEST(Render, MultipartWithExtensions) {
  std::string msg =
      "Content-Type: multipart/mixed; boundary=b\r\nContent-Language: en\r\n\r\n"
      "--b\r\n\r\nhi\r\n--b\r\nContent-Type: text/plain; name=cc.diff\r\n"
      "Content-ID: <960723163407.20117h@cac.washington.edu>\r\nContent-Description: Compiler diff\r\n"
      "Content-Transfer-Encoding: base64\r\nContent-Disposition: attachment; filename=cc.diff\r\n\r\n"
      "AAAA\r\n--b--\r\n";
  EXPECT_EQ(bs(msg, false),
            "((\"TEXT\" \"PLAIN\" (\"CHARSET\" \"US-ASCII\") NIL NIL \"7BIT\" 2 0)"
            "(\"TEXT\" \"PLAIN\" (\"NAME\" \"cc.diff\" \"CHARSET\" \"US-ASCII\") "
            "\"<960723163407.20117h@cac.washington.edu>\" \"Compiler diff\" \"BASE64\" 4 0) \"MIXED\")");
  EXPECT_EQ(bs(msg),
            "((\"TEXT\" \"PLAIN\" (\"CHARSET\" \"US-ASCII\") NIL NIL \"7BIT\" 2 0 NIL NIL NIL NIL)"
            "(\"TEXT\" \"PLAIN\" (\"NAME\" \"cc.diff\" \"CHARSET\" \"US-ASCII\") "
            "\"<960723163407.20117h@cac.washington.edu>\" \"Compiler diff\" \"BASE64\" 4 0 NIL "
            "(\"ATTACHMENT\" (\"FILENAME\" \"cc.diff\")) NIL NIL) \"MIXED\" (\"BOUNDARY\" \"b\") NIL "
            "(\"en\") NIL)");
}

TEST(Render, EmptyMultipartGetsOneEmptyPart) {
  EXPECT_EQ(bs("Content-Type: multipart/mixed\r\n\r\nno boundary\r\n", false),
            "((\"TEXT\" \"PLAIN\" (\"CHARSET\" \"US-ASCII\") NIL NIL \"7BIT\" 0 0) \"MIXED\")");
}

TEST(Render, MessageRfc822) {
  std::string msg =
      "Content-Type: message/rfc822\r\n\r\nFrom: a@b\r\nSubject: x\r\n\r\nbody\r\nline2\r\n";
  EXPECT_EQ(bs(msg, false),
            "(\"MESSAGE\" \"RFC822\" NIL NIL NIL \"7BIT\" 38 (NIL \"x\" ((NIL NIL \"a\" \"b\")) "
            "((NIL NIL \"a\" \"b\")) ((NIL NIL \"a\" \"b\")) NIL NIL NIL NIL NIL) (\"TEXT\" \"PLAIN\" "
            "(\"CHARSET\" \"US-ASCII\") NIL NIL \"7BIT\" 13 2) 5)");
}

TEST(Render, MessageGlobalDependsOnRevision) {
  std::string msg = "Content-Type: message/global\r\n\r\nSubject: x\r\n\r\nb\r\n";
  Message m = Message::parse(msg);
  EXPECT_EQ(renderBodyStructure(m, false), "(\"MESSAGE\" \"GLOBAL\" NIL NIL NIL \"7BIT\" 17)");
  RenderOptions rev2;
  rev2.imap4rev2 = true;
  EXPECT_EQ(renderBodyStructure(m, false, rev2),
            "(\"MESSAGE\" \"GLOBAL\" NIL NIL NIL \"7BIT\" 17 (NIL \"x\" NIL NIL NIL NIL NIL NIL NIL "
            "NIL) (\"TEXT\" \"PLAIN\" (\"CHARSET\" \"US-ASCII\") NIL NIL \"7BIT\" 3 1) 3)");
}

TEST(Render, LimitedEntitiesAreOpaque) {
  ParseOptions opt;
  opt.max_depth = 1;
  Message m = Message::parse("Content-Type: message/rfc822\r\n\r\nSubject: x\r\n\r\nb\r\n", opt);
  EXPECT_TRUE(m.root().limited);
  EXPECT_EQ(renderBodyStructure(m, false),
            "(\"APPLICATION\" \"OCTET-STREAM\" NIL NIL NIL \"7BIT\" 17)");
}

TEST(Render, EnvelopeDefaultsAndNil) {
  std::string msg =
      "Date: Mon, 1 Jan 2024 00:00:00 +0000\r\nSubject:\r\nFrom: \"A B\" <a@b>\r\n"
      "Reply-To:\r\nTo: g: c@d;\r\nIn-Reply-To: <x@y>\r\nMessage-ID: <m@y>\r\n\r\n";
  EXPECT_EQ(renderEnvelope(Message::parse(msg)),
            "(\"Mon, 1 Jan 2024 00:00:00 +0000\" \"\" ((\"A B\" NIL \"a\" \"b\")) "
            "((\"A B\" NIL \"a\" \"b\")) ((\"A B\" NIL \"a\" \"b\")) ((NIL NIL \"g\" NIL)"
            "(NIL NIL \"c\" \"d\")(NIL NIL NIL NIL)) NIL NIL \"<x@y>\" \"<m@y>\")");
  EXPECT_EQ(renderEnvelope(Message::parse("")), "(NIL NIL NIL NIL NIL NIL NIL NIL NIL NIL)");
}

TEST(Render, EnvelopeDuplicatesAnd8Bit) {
  std::string msg =
      "Subject: one\r\nSubject: caf\xc3\xa9\r\nFrom: a@b\r\nFrom: c@d\r\n\r\n";
  EXPECT_EQ(renderEnvelope(Message::parse(msg)),
            "(NIL {5}\r\ncaf\xc3\xa9 ((NIL NIL \"a\" \"b\")(NIL NIL \"c\" \"d\")) "
            "((NIL NIL \"a\" \"b\")(NIL NIL \"c\" \"d\")) ((NIL NIL \"a\" \"b\")(NIL NIL \"c\" \"d\")) "
            "NIL NIL NIL NIL NIL)");
}

TEST(Render, OutputIsBalancedImap) {
  for (std::string msg : {std::string("Subject: \"x\\\r\n\r\n"), std::string("Subject: a\rb\r\n\r\n"),
                          std::string("From: \"\\\"\" <\"@\">\r\n\r\n")}) {
    Message m = Message::parse(msg);
    std::string err;
    EXPECT_TRUE(testing::isBalancedImap(renderEnvelope(m), &err)) << err;
    EXPECT_TRUE(testing::isBalancedImap(renderBodyStructure(m), &err)) << err;
  }
  std::string err;
  EXPECT_FALSE(testing::isBalancedImap("(\"a\"", &err));
  EXPECT_FALSE(testing::isBalancedImap("{3}\r\nab", &err));
  EXPECT_FALSE(testing::isBalancedImap("(a)", &err));
}

}  // namespace
}  // namespace darius::mime
