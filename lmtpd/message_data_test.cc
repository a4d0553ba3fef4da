// MessageData and extractMessageId: the pure parts of receiving a message.
#include "lmtpd/message_data.h"

#include <gtest/gtest.h>

namespace darius::lmtpd {
namespace {

using Problem = MessageData::Problem;

std::string viaData(std::initializer_list<std::string_view> lines, Problem* problem = nullptr) {
  MessageData m(1000, false, "P\r\n");
  for (std::string_view l : lines) {
    if (m.addDataLine(l)) break;
  }
  if (problem) *problem = m.problem();
  return m.bytes();
}

TEST(MessageDataTest, DataLinesAreUnstuffedAndEndAtTheDot) {
  EXPECT_EQ(viaData({"a", "..b", ".", "after"}), "P\r\na\r\n.b\r\n");
  EXPECT_EQ(viaData({"", "."}), "P\r\n\r\n");
  EXPECT_EQ(viaData({"x\ry", "."}), "P\r\nx\r\ny\r\n");  // a bare CR is a line end too
  EXPECT_EQ(viaData({".."}), "P\r\n.\r\n");
}

TEST(MessageDataTest, ProblemsFreeTheBufferAndKeepTheFirstReason) {
  Problem p;
  EXPECT_EQ(viaData({std::string_view("a\0b", 3), "."}, &p), "");
  EXPECT_EQ(p, Problem::kNul);
  MessageData m(10, false);
  m.addDataLine("0123456789");  // 12 octets with CRLF
  EXPECT_EQ(m.problem(), Problem::kTooBig);
  m.addOverlongLine();
  EXPECT_EQ(m.problem(), Problem::kTooBig);
  EXPECT_EQ(m.bytes(), "");
  EXPECT_EQ(m.size(), 12u);
  MessageData exact(12, false);
  exact.addDataLine("0123456789");
  EXPECT_EQ(exact.problem(), Problem::kNone);
  MessageData o(100, false);
  o.addOverlongLine();
  EXPECT_EQ(o.problem(), Problem::kLineTooLong);
}

TEST(MessageDataTest, ChunksNormaliseLineEndsAcrossBorders) {
  MessageData m(1000, false);
  for (std::string_view c : {"a\r", "\nb\r", "c\n", "\r", "", "\r\n", "end\r"}) m.addChunk(c);
  m.finishChunks();
  EXPECT_EQ(m.bytes(), "a\r\nb\r\nc\r\n\r\n\r\nend\r\n");
  EXPECT_EQ(m.problem(), Problem::kNone);
  MessageData nul(1000, false);
  nul.addChunk(std::string_view("x\0", 2));
  EXPECT_EQ(nul.problem(), Problem::kNul);
}

TEST(MessageDataTest, BinaryChunksAreKeptAsSent) {
  const std::string raw("a\r\0\nb\rc\n", 8);
  MessageData m(1000, true, "T\r\n");
  m.addChunk(raw.substr(0, 3));
  m.addChunk(raw.substr(3));
  m.finishChunks();
  EXPECT_EQ(m.problem(), Problem::kNone);
  EXPECT_EQ(m.bytes(), "T\r\n" + raw);
  MessageData big(4, true);
  big.addChunk("12345");
  EXPECT_EQ(big.problem(), Problem::kTooBig);
}

TEST(MessageIdTest, FoundUnfoldedTrimmedAndOnlyInTheHeader) {
  EXPECT_EQ(extractMessageId("Subject: x\r\nMessage-ID: <a@b>\r\n\r\nbody"), "<a@b>");
  EXPECT_EQ(extractMessageId("message-id:\r\n  <folded@b>  \r\nX: y\r\n\r\n"), "<folded@b>");
  EXPECT_EQ(extractMessageId("MESSAGE-ID : <obs@b>\n\n"), "<obs@b>");
  EXPECT_EQ(extractMessageId("Subject: x\r\n\r\nMessage-ID: <body@b>\r\n"), "");
  EXPECT_EQ(extractMessageId("Message-ID: <first@b>\r\nMessage-ID: <second@b>\r\n\r\n"),
            "<first@b>");
  EXPECT_EQ(extractMessageId("Message-ID:\r\n\r\n"), "");
  EXPECT_EQ(extractMessageId("Message-ID: <" + std::string(2000, 'x') + ">\r\n\r\n"), "");
  EXPECT_EQ(extractMessageId(""), "");
  EXPECT_EQ(extractMessageId("X-Message-ID: <no@b>\r\n\r\n"), "");
  EXPECT_EQ(extractMessageId("Message-ID: <a\rb@c>\r\n\r\n"), "");
  EXPECT_EQ(extractMessageId(std::string("Message-ID: <a\0b@c>\r\n\r\n", 23)), "");
}

}  // namespace
}  // namespace darius::lmtpd
