// The table itself and each command's argument parser, without a session or a socket.
#include "imapd/command_table.h"

#include <gtest/gtest.h>

#include <string>

namespace darius::imapd {
namespace {

class CommandTableTest : public ::testing::Test {
 protected:
  // Parses `args` (what follows the command name, leading SP included) for `name`.
  base::Status parse(std::string_view name, std::string_view args) {
    const CommandSpec* spec = table_.find(name);
    if (spec == nullptr) return base::Status::notFound("no such command");
    ArgParser p(args);
    auto prepared = spec->parse(p);
    return prepared.ok() ? base::Status::ok() : prepared.status();
  }
  std::string error(std::string_view name, std::string_view args) {
    return parse(name, args).message();
  }

  CommandTable table_ = CommandTable::standard();
};

TEST_F(CommandTableTest, FindIsCaseInsensitive) {
  ASSERT_NE(table_.find("capability"), nullptr);
  EXPECT_EQ(table_.find("CaPaBiLiTy"), table_.find("CAPABILITY"));
  EXPECT_EQ(table_.find("CAPABILITIES"), nullptr);
  EXPECT_EQ(table_.find(""), nullptr);
  EXPECT_EQ(table_.find(std::string(1000, 'A')), nullptr);
}

TEST_F(CommandTableTest, StatesFollowRfc9051) {
  for (const char* any : {"CAPABILITY", "NOOP", "LOGOUT", "ID"}) {
    const CommandSpec* s = table_.find(any);
    ASSERT_NE(s, nullptr) << any;
    EXPECT_TRUE(s->allowedIn(State::kNotAuthenticated)) << any;
    EXPECT_TRUE(s->allowedIn(State::kAuthenticated)) << any;
    EXPECT_TRUE(s->allowedIn(State::kSelected)) << any;
    EXPECT_FALSE(s->allowedIn(State::kLogout)) << any;
  }
  for (const char* pre : {"STARTTLS", "AUTHENTICATE", "LOGIN"}) {
    const CommandSpec* s = table_.find(pre);
    ASSERT_NE(s, nullptr) << pre;
    EXPECT_TRUE(s->allowedIn(State::kNotAuthenticated)) << pre;
    EXPECT_FALSE(s->allowedIn(State::kAuthenticated)) << pre;
    EXPECT_FALSE(s->allowedIn(State::kSelected)) << pre;
  }
  const CommandSpec* enable = table_.find("ENABLE");
  ASSERT_NE(enable, nullptr);
  EXPECT_FALSE(enable->allowedIn(State::kNotAuthenticated));
  EXPECT_TRUE(enable->allowedIn(State::kAuthenticated));
}

TEST_F(CommandTableTest, ConnectionAndLoginCommandsAreExclusive) {
  for (const char* name : {"STARTTLS", "AUTHENTICATE", "LOGIN", "LOGOUT"}) {
    EXPECT_TRUE(table_.find(name)->has(kExclusive)) << name;
  }
  for (const char* name : {"CAPABILITY", "NOOP", "ID", "ENABLE"}) {
    EXPECT_FALSE(table_.find(name)->has(kExclusive)) << name;
  }
}

TEST_F(CommandTableTest, CommandsWithoutArgumentsRefuseExtras) {
  for (const char* name : {"CAPABILITY", "NOOP", "LOGOUT", "STARTTLS"}) {
    EXPECT_TRUE(parse(name, "").isOk()) << name;
    EXPECT_EQ(error(name, " x"), "Unexpected extra arguments") << name;
    EXPECT_EQ(error(name, " "), "Unexpected extra arguments") << name;
  }
}

TEST_F(CommandTableTest, LoginArguments) {
  EXPECT_TRUE(parse("LOGIN", " fred secret").isOk());
  EXPECT_TRUE(parse("LOGIN", " \"fred\" {6}\r\nsecret").isOk());
  EXPECT_TRUE(parse("LOGIN", " \"fr ed\" \"p\\\"w\"").isOk());
  EXPECT_EQ(error("LOGIN", ""), "Missing argument");
  EXPECT_EQ(error("LOGIN", " fred"), "Missing argument");
  EXPECT_EQ(error("LOGIN", " fred secret more"), "Unexpected extra arguments");
  EXPECT_EQ(error("LOGIN", " fred \"secret"), "Unterminated quoted string");
  EXPECT_EQ(error("LOGIN", " fred (secret)"), "Unexpected '(' where a string was expected");
}

TEST_F(CommandTableTest, AuthenticateArguments) {
  EXPECT_TRUE(parse("AUTHENTICATE", " PLAIN").isOk());
  EXPECT_TRUE(parse("AUTHENTICATE", " plain AGZyZWQAc2VjcmV0").isOk());
  EXPECT_TRUE(parse("AUTHENTICATE", " PLAIN =").isOk());
  EXPECT_EQ(error("AUTHENTICATE", ""), "Missing argument");
  EXPECT_EQ(error("AUTHENTICATE", " PLAIN AGZy=ZWQ"), "Invalid base64 in initial response");
  EXPECT_EQ(error("AUTHENTICATE", " PLAIN ==="), "Invalid base64 in initial response");
  EXPECT_EQ(error("AUTHENTICATE", " PLAIN ab!c"), "Invalid character in base64 data");
  EXPECT_EQ(error("AUTHENTICATE", " PLAIN \"AGZy\""),
            "Unexpected '\"' where base64 data was expected");
  EXPECT_EQ(error("AUTHENTICATE", " PLAIN AAAA BBBB"), "Unexpected extra arguments");
}

TEST_F(CommandTableTest, IdArguments) {
  EXPECT_TRUE(parse("ID", " NIL").isOk());
  EXPECT_TRUE(parse("ID", " ()").isOk());
  EXPECT_TRUE(parse("ID", " (\"name\" \"mutt\" \"version\" NIL)").isOk());
  EXPECT_TRUE(parse("ID", " ({4}\r\nname \"x\")").isOk());
  EXPECT_EQ(error("ID", ""), "Missing argument");
  EXPECT_EQ(error("ID", " (\"name\")"), "Expected SP");
  EXPECT_EQ(error("ID", " (name \"x\")"),
            "Unexpected 'n' where a quoted string or literal was expected");
  EXPECT_EQ(error("ID", " (\"name\" \"x\""), "Missing argument");
  EXPECT_EQ(error("ID", " \"name\""), "Expected a parameter list or NIL");
  EXPECT_EQ(error("ID", " (\"name\" \"a\" \"NAME\" \"b\")"), "Duplicate ID field");

  std::string field(31, 'f');
  EXPECT_EQ(error("ID", " (\"" + field + "\" NIL)"), "ID field too long");
  EXPECT_TRUE(parse("ID", " (\"" + field.substr(1) + "\" NIL)").isOk());
  std::string value(1025, 'v');
  EXPECT_EQ(error("ID", " (\"f\" \"" + value + "\")"), "ID value too long");
  EXPECT_TRUE(parse("ID", " (\"f\" \"" + value.substr(1) + "\")").isOk());

  std::string pairs;
  for (int i = 0; i < 30; ++i)
    pairs += (i ? " " : "") + std::string("\"f") + std::to_string(i) + "\" NIL";
  EXPECT_TRUE(parse("ID", " (" + pairs + ")").isOk());
  EXPECT_EQ(error("ID", " (" + pairs + " \"f30\" NIL)"), "Too many ID fields");
}

TEST_F(CommandTableTest, EnableArguments) {
  EXPECT_TRUE(parse("ENABLE", " IMAP4rev2").isOk());
  EXPECT_TRUE(parse("ENABLE", " CONDSTORE IMAP4rev2 X-FOO AUTH=PLAIN").isOk());
  EXPECT_EQ(error("ENABLE", ""), "Missing argument");
  EXPECT_EQ(error("ENABLE", " "), "Missing an atom");
  EXPECT_EQ(error("ENABLE", " IMAP4rev2 "), "Missing an atom");
  EXPECT_EQ(error("ENABLE", " \"IMAP4rev2\""), "Unexpected '\"' where an atom was expected");
}

TEST(Reply, Formats) {
  EXPECT_EQ(Reply::ok("done").format(), "OK done");
  EXPECT_EQ(Reply::no("Authentication failed", "AUTHENTICATIONFAILED").format(),
            "NO [AUTHENTICATIONFAILED] Authentication failed");
  EXPECT_EQ(Reply::bad("Unknown command").format(), "BAD Unknown command");
  EXPECT_EQ(Reply::none().format(), "");
}

}  // namespace
}  // namespace darius::imapd
