// The POP3 command grammar on its own: no sockets, no session.
#include "pop3d/command.h"

#include <gtest/gtest.h>

namespace darius::pop3d {
namespace {

TEST(Pop3Command, KeywordsAreCaseInsensitive) {
  EXPECT_EQ(parseCommand("capa").verb, Verb::kCapa);
  EXPECT_EQ(parseCommand("CaPa").verb, Verb::kCapa);
  EXPECT_EQ(parseCommand("STLS").verb, Verb::kStls);
  EXPECT_EQ(parseCommand("quit").error, SyntaxError::kNone);
}

TEST(Pop3Command, UnknownAndEmpty) {
  Command c = parseCommand("XYZZY");
  EXPECT_EQ(c.verb, Verb::kUnknown);
  EXPECT_EQ(c.error, SyntaxError::kUnknownCommand);
  EXPECT_EQ(parseCommand("").error_text, "Empty command");
  EXPECT_EQ(parseCommand("APOP mrose c4c9334bac560ecc979e58001b3e22fb").verb, Verb::kUnknown);
  EXPECT_EQ(parseCommand("USERX name").verb, Verb::kUnknown);
}

TEST(Pop3Command, UserTakesExactlyOneWord) {
  Command c = parseCommand("USER alice");
  EXPECT_EQ(c.error, SyntaxError::kNone);
  EXPECT_EQ(c.text, "alice");
  EXPECT_EQ(parseCommand("USER").error, SyntaxError::kBadArguments);
  EXPECT_EQ(parseCommand("USER a b").error, SyntaxError::kBadArguments);
  EXPECT_EQ(parseCommand("USER a\x01").error, SyntaxError::kBadArguments);
}

TEST(Pop3Command, PassKeepsTheRestOfTheLineVerbatim) {
  // RFC 1939 §7: the password may contain spaces.
  EXPECT_EQ(parseCommand("PASS my secret  pass ").text, "my secret  pass ");
  EXPECT_EQ(parseCommand("pass  lead").text, " lead");
  EXPECT_EQ(parseCommand("PASS").error, SyntaxError::kBadArguments);
  EXPECT_EQ(parseCommand("PASS ").error, SyntaxError::kBadArguments);
  EXPECT_EQ(parseCommand(std::string("PASS a\0b", 8)).error, SyntaxError::kBadArguments);
  EXPECT_EQ(parseCommand("PASS p\xc3\xa4ss").text, "p\xc3\xa4ss");  // UTF-8 passes
}

TEST(Pop3Command, Auth) {
  Command bare = parseCommand("AUTH");
  EXPECT_EQ(bare.error, SyntaxError::kNone);
  EXPECT_TRUE(bare.text.empty());
  Command c = parseCommand("auth plain AGFsaWNlAHNlY3JldA==");
  EXPECT_EQ(c.text, "PLAIN");
  ASSERT_TRUE(c.initial_response);
  EXPECT_EQ(*c.initial_response, "AGFsaWNlAHNlY3JldA==");
  EXPECT_FALSE(parseCommand("AUTH SCRAM-SHA-256").initial_response);
  EXPECT_EQ(parseCommand("AUTH PLAIN a b").error, SyntaxError::kBadArguments);
}

TEST(Pop3Command, NoArgumentCommandsRefuseArguments) {
  for (const char* line : {"CAPA x", "STLS now", "NOOP 1", "QUIT bye", "STAT 1", "RSET 2"}) {
    EXPECT_EQ(parseCommand(line).error, SyntaxError::kBadArguments) << line;
  }
  EXPECT_EQ(parseCommand("NOOP ").error, SyntaxError::kNone);  // a trailing space is tolerated
}

TEST(Pop3Command, MessageNumbers) {
  EXPECT_EQ(*parseCommand("RETR 1").msg, 1u);
  EXPECT_EQ(*parseCommand("DELE 4294967295").msg, 4294967295u);
  EXPECT_FALSE(parseCommand("LIST").msg);
  EXPECT_EQ(*parseCommand("UIDL 7").msg, 7u);
  for (const char* line : {"RETR", "RETR 0", "RETR -1", "RETR +1", "RETR 1x", "RETR 4294967296",
                           "RETR 1 2", "LIST 0", "LIST a", "UIDL 1 2", "DELE 99999999999"}) {
    EXPECT_EQ(parseCommand(line).error, SyntaxError::kBadArguments) << line;
  }
}

TEST(Pop3Command, Top) {
  Command c = parseCommand("TOP 3 0");
  EXPECT_EQ(c.error, SyntaxError::kNone);
  EXPECT_EQ(*c.msg, 3u);
  EXPECT_EQ(c.lines, 0u);
  EXPECT_EQ(parseCommand("TOP 3").error, SyntaxError::kBadArguments);
  EXPECT_EQ(parseCommand("TOP 0 1").error, SyntaxError::kBadArguments);
  EXPECT_EQ(parseCommand("TOP 1 x").error, SyntaxError::kBadArguments);
}

TEST(Pop3Command, VerbNames) {
  EXPECT_EQ(verbName(Verb::kUser), "USER");
  EXPECT_EQ(verbName(Verb::kTop), "TOP");
  EXPECT_EQ(verbName(Verb::kUnknown), "UNKNOWN");
}

TEST(Pop3Command, SaslResponses) {
  auto cancel = parseSaslResponse("*");
  ASSERT_TRUE(cancel.ok());
  EXPECT_FALSE(*cancel);
  auto empty = parseSaslResponse("");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(**empty, "");
  auto data = parseSaslResponse("aGVsbG8=");
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(**data, "hello");
  // RFC 5034 §4: anything outside the alphabet, or padding in the middle, is refused.
  for (const char* bad : {"aGVsbG8", "=AAA", "AAA=BBBB", "aGVs bG8=", "**", "aGVsbG8=\t"}) {
    EXPECT_FALSE(parseSaslResponse(bad).ok()) << bad;
  }
}

TEST(Pop3Command, InitialResponse) {
  EXPECT_EQ(*decodeInitialResponse("="), "");
  EXPECT_EQ(*decodeInitialResponse("aGVsbG8="), "hello");
  EXPECT_FALSE(decodeInitialResponse("==").ok());
  EXPECT_FALSE(decodeInitialResponse("*").ok());
}

}  // namespace
}  // namespace darius::pop3d
