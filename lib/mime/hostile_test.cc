// Input built to hurt: absurd nesting, huge headers, broken and missing boundaries, NULs,
// bare CR/LF, random splices of MIME syntax. Every parse must finish, keep its invariants and
// render balanced IMAP.
#include <gtest/gtest.h>

#include <random>

#include "lib/mime/header.h"
#include "lib/mime/mime_test_util.h"
#include "lib/mime/rfc2047.h"
#include "lib/mime/section.h"

namespace darius::mime {
namespace hostile_test {

using testing::checkInvariants;
using testing::isBalancedImap;

void expectSane(const Message& m) {
  EXPECT_EQ(checkInvariants(m), "");
  std::string err;
  EXPECT_TRUE(isBalancedImap(renderEnvelope(m), &err)) << err;
  EXPECT_TRUE(isBalancedImap(renderBodyStructure(m, true), &err)) << err;
  EXPECT_TRUE(isBalancedImap(renderBodyStructure(m, false), &err)) << err;
  RenderOptions rev2;
  rev2.imap4rev2 = true;
  EXPECT_TRUE(isBalancedImap(renderBodyStructure(m, true, rev2), &err)) << err;
}

uint32_t maxDepth(const Message& m) {
  uint32_t d = 0;
  for (const Part& p : m.parts()) d = std::max(d, p.depth);
  return d;
}

std::string nestedMultiparts(int levels) {
  std::string s;
  char b[32];
  for (int i = 0; i < levels; ++i) {
    snprintf(b, sizeof b, "b%06d", i);
    s += std::string("Content-Type: multipart/mixed; boundary=") + b + "\r\n\r\n--" + b + "\r\n";
  }
  s += "\r\ninnermost\r\n";
  for (int i = levels - 1; i >= 0; --i) {
    snprintf(b, sizeof b, "b%06d", i);
    s += std::string("--") + b + "--\r\n";
  }
  return s;
}

TEST(Hostile, TenThousandNestedMultiparts) {
  std::string data = nestedMultiparts(10000);
  Message m = Message::parse(data);
  EXPECT_EQ(maxDepth(m), 99u);  // default max_depth 100: depth 99 is the last, and opaque
  EXPECT_EQ(m.parts().size(), 100u);
  EXPECT_TRUE(m.parts().back().limited);
  EXPECT_EQ(m.root().body_offset + m.root().body_size, data.size());
  expectSane(m);
}

TEST(Hostile, TenThousandNestedMessages) {
  std::string data;
  for (int i = 0; i < 10000; ++i) data += "Content-Type: message/rfc822\r\n\r\n";
  data += "Subject: bottom\r\n\r\nbody\r\n";
  Message m = Message::parse(data);
  EXPECT_EQ(maxDepth(m), 99u);
  expectSane(m);
  ParseOptions deep;
  deep.max_depth = 5000000;  // clamped to kMaxDepthCeiling, which bounds the recursion
  Message d = Message::parse(data, deep);
  EXPECT_EQ(maxDepth(d), kMaxDepthCeiling - 1);
  expectSane(d);
}

TEST(Hostile, PartBudget) {
  std::string data = "Content-Type: multipart/mixed; boundary=p\r\n\r\n";
  for (int i = 0; i < 20000; ++i) data += "--p\r\n\r\nx\r\n";
  data += "--p--\r\nepilogue\r\n";
  ParseOptions opt;
  opt.max_parts = 100;
  Message m = Message::parse(data, opt);
  EXPECT_EQ(m.parts().size(), 100u);
  EXPECT_TRUE(m.root().limited);
  EXPECT_EQ(m.root().body_offset + m.root().body_size, data.size());
  expectSane(m);
  Message all = Message::parse(data);
  EXPECT_EQ(all.parts().size(), 10000u);  // default max_parts
  expectSane(all);
}

TEST(Hostile, OneMegabyteHeaderLine) {
  std::string subject(1 << 20, 'x');
  std::string data = "Subject: " + subject + "\r\nFrom: a@b\r\n\r\nbody\r\n";
  Message m = Message::parse(data);
  EXPECT_EQ(m.root().envelope->subject->size(), subject.size());
  EXPECT_EQ(m.bodyBytes(m.root()), "body\r\n");
  expectSane(m);
  // No line end at all: all header.
  Message h = Message::parse(subject);
  EXPECT_EQ(h.root().header_size, subject.size());
  expectSane(h);
  // A 1 MB address list and parameter list.
  std::string to = "To: ";
  while (to.size() < (1u << 20)) to += "a@b, ";
  std::string ct = "Content-Type: text/plain";
  while (ct.size() < (1u << 20)) ct += "; p=v";
  Message big = Message::parse(to + "\r\n" + ct + "\r\n\r\nx");
  EXPECT_GT(big.root().envelope->to.size(), 100000u);
  expectSane(big);
}

TEST(Hostile, HugeHeaderBlockIsBoundedButExact) {
  std::string data;
  for (int i = 0; i < 100000; ++i) data += "X-Field-" + std::to_string(i) + ": value\r\n";
  data += "Subject: after limit\r\n\r\nbody\r\n";
  size_t header_size = data.find("\r\n\r\n") + 4;
  ParseOptions opt;
  opt.max_header_size = 64 * 1024;
  Message m = Message::parse(data, opt);
  EXPECT_EQ(m.root().header_size, header_size);
  EXPECT_FALSE(m.root().envelope->subject.has_value());  // beyond the examined bytes
  EXPECT_EQ(m.bodyBytes(m.root()), "body\r\n");
  expectSane(m);
}

TEST(Hostile, BrokenBoundaries) {
  const std::vector<std::string> inputs = {
           std::string("Content-Type: multipart/mixed; boundary=\"\"\r\n\r\n--\r\n\r\nx\r\n"),
           std::string("Content-Type: multipart/mixed; boundary=b\r\n\r\n--b"),
           std::string("Content-Type: multipart/mixed; boundary=b\r\n\r\n--b--"),
           std::string("Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n--b\r\n--b\r\n"),
           std::string("Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: "
                       "multipart/mixed; boundary=b\r\n\r\n--b\r\n--b--\r\n--b--\r\n--b--\r\n"),
           std::string("Content-Type: multipart/mixed; boundary=-\r\n\r\n---\r\n-----\r\n----\r\n"),
           std::string("Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n"
                       "Content-Type: message/rfc822\r\n\r\n--b--\r\n"),
           // Found by mime_fuzz: an empty last inner part whose start is past the line end
           // that the outer delimiter owns.
           std::string("Content-Type: multipart/mixed; boundary=ab\r\n\r\n--ab\r\nContent-Type: "
                       "multipart/mixed; boundary=abc\r\n\r\n--abc\r\n\r\nx\r\n--abc\r\n--ab--\r\n"),
       };
  for (const std::string& data : inputs) {
    SCOPED_TRACE(testing::escapeLine(data));
    expectSane(Message::parse(data));
  }
}

TEST(Hostile, EmptyAndDegenerateMessages) {
  const std::vector<std::string> inputs = {std::string(), std::string("\r\n"), std::string("\n"), std::string("\r"),
                           std::string("Subject: x"), std::string("\r\n\r\n\r\n"),
                           std::string(": no name\r\n\r\n"), std::string(" \r\n\r\n"),
                           std::string("--\r\n"), std::string("Content-Type: message/rfc822"),
                           std::string("Content-Type: multipart/mixed; boundary=x")};
  for (const std::string& data : inputs) {
    SCOPED_TRACE(testing::escapeLine(data));
    Message m = Message::parse(data);
    expectSane(m);
    for (const char* spec : {"", "1", "1.1", "HEADER", "TEXT", "1.MIME", "2", "1.HEADER"}) {
      base::Result<SectionSpec> s = parseSectionSpec(spec);
      ASSERT_TRUE(s.ok());
      base::Result<ByteRange> r = locateSection(m, *s);
      if (r.ok()) {
        EXPECT_LE(r->offset + r->size, data.size());
      }
    }
  }
}

TEST(Hostile, NulsEightBitBareCrLf) {
  const char kNul[] = "Subject: a\0b\r\nFrom: \0@\0\r\nContent-Type: text/pl\0ain\r\n\r\n\0\0\0";
  std::string nul(kNul, sizeof kNul - 1);
  Message m = Message::parse(nul);
  expectSane(m);
  EXPECT_EQ(renderEnvelope(m).find('\0'), std::string::npos);
  std::string eight = "Subject: \xff\xfe\x80\r\nFrom: \xc3\xa9@\xe9.example\r\n"
                      "Content-Type: text/plain; name=\xe9\r\n\r\n\xff";
  expectSane(Message::parse(eight));
  expectSane(Message::parse("Subject: a\rb\rContent-Type: multipart/mixed; boundary=b\r\r--b\rx"));
  Message lf = Message::parse(
      "Content-Type: multipart/mixed; boundary=b\n\n--b\n\nbare lf\n--b\r\n\r\ncrlf\r\n--b--\n");
  ASSERT_EQ(lf.root().child_count, 2u);
  EXPECT_EQ(lf.bodyBytes(lf.part(1)), "bare lf");
  EXPECT_EQ(lf.bodyBytes(lf.part(2)), "crlf");
  expectSane(lf);
}

TEST(Hostile, RandomSplicesOfMimeSyntax) {
  const std::vector<std::string> pieces = {
      "\r\n", "\n", "\r", "--b", "--b--", "--c", "--c--", "Content-Type: multipart/mixed; boundary=b",
      "Content-Type: multipart/digest; boundary=c", "Content-Type: message/rfc822",
      "Content-Type: message/global", "Content-Type: text/plain; charset*0*=utf-8''%C3; charset*1*=%A9",
      "From: \"a\" <b@c>, g: d@e;", "To: <@r:x@y", "Subject: =?utf-8?q?x?=", " folded", ":", " ",
      "\0", "\xff", "(", "\"", "Content-Transfer-Encoding: base64", "x"};
  std::mt19937 rng(12345);
  for (int iter = 0; iter < 3000; ++iter) {
    std::string data;
    int n = static_cast<int>(rng() % 60);
    for (int i = 0; i < n; ++i) data += pieces[rng() % pieces.size()];
    SCOPED_TRACE(testing::escapeLine(data));
    Message m = Message::parse(data);
    ASSERT_EQ(checkInvariants(m), "");
    std::string err;
    ASSERT_TRUE(isBalancedImap(renderBodyStructure(m, true), &err)) << err;
    ASSERT_TRUE(isBalancedImap(renderEnvelope(m), &err)) << err;
    for (const Part& p : m.parts()) {
      Header h = m.header(p);
      for (const HeaderField& f : h.fields()) (void)decodeHeaderText(f.value);
    }
  }
}

}  // namespace hostile_test
}  // namespace darius::mime
