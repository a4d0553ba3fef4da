// LMTP messages end to end through the real service and a real Store: DATA and BDAT, one
// reply per recipient after the message, what ends up in each mailbox (trace fields, CRLF,
// single-instance links), subaddress folders, duplicate suppression, SMTPUTF8, and every kind
// of bad message: each answered per recipient, nothing stored, nothing left in the stage dir.
#include <sys/stat.h>

#include "lmtpd/session_test_util.h"

namespace darius::lmtpd {
namespace session_delivery_test {

using test::Client;
using test::LmtpTest;
using namespace std::chrono_literals;

constexpr auto kGoAhead = "354 Start mail input; end with <CRLF>.<CRLF>";

class LmtpDeliveryTest : public LmtpTest {
 protected:
  // A transaction up to DATA's 354 for the given recipients (all must be accepted).
  std::unique_ptr<Client> envelope(const std::vector<std::string>& rcpts,
                                   std::string mail = "MAIL FROM:<sender@example.com>") {
    auto c = greeted();
    EXPECT_EQ(c->command(mail).substr(0, 3), "250");
    for (const auto& r : rcpts) EXPECT_EQ(c->command("RCPT TO:<" + r + ">").substr(0, 3), "250");
    return c;
  }
  size_t stageFiles() {
    size_t n = 0;
    for ([[maybe_unused]] auto& e :
         std::filesystem::directory_iterator(dir_ + "/spool/darius.stage")) {
      ++n;
    }
    return n;
  }
};

TEST_F(LmtpDeliveryTest, DataDeliversToEveryRecipientWithOneReplyEach) {
  start();
  auto c = envelope({"alice@localhost", "bob@example.org", "bob@other.example"});
  EXPECT_EQ(c->command("RCPT TO:<ghost@example.org>"),
            "550 5.1.1 <ghost@example.org> User unknown");
  EXPECT_EQ(c->command("DATA"), kGoAhead);
  c->send("Subject: hello\r\nMessage-ID: <m1@example.com>\r\n\r\nbody line\r\n.\r\n");
  EXPECT_EQ(c->line(), "250 2.0.0 <alice@localhost> Delivered");
  EXPECT_EQ(c->line(), "250 2.0.0 <bob@example.org> Delivered");
  EXPECT_EQ(c->line(), "250 2.0.0 <bob@other.example> Delivered");
  const std::string body = "Subject: hello\r\nMessage-ID: <m1@example.com>\r\n\r\nbody line\r\n";
  auto alice = messages("user/alice");
  ASSERT_EQ(alice.size(), 1u);
  EXPECT_EQ(withoutTrace(alice[0]), body);
  EXPECT_EQ(alice[0].rfind("Return-Path: <sender@example.com>\r\nReceived: from client.example "
                           "([127.0.0.1])\r\n\tby lmtp.example.org (Darius) with LMTP id ",
                           0),
            0u)
      << alice[0];
  // bob@example.org is the domain user, bob@other.example the plain "bob".
  ASSERT_EQ(messages("example.org!user/bob").size(), 1u);
  ASSERT_EQ(messages("user/bob").size(), 1u);
  EXPECT_EQ(messages("user/bob")[0], alice[0]);  // the same bytes for everyone
  EXPECT_EQ(stageFiles(), 0u);
}

TEST_F(LmtpDeliveryTest, OneStagedFileIsLinkedIntoEveryMailbox) {
  start();
  auto c = envelope({"alice@x.y", "bob@x.y"});
  EXPECT_EQ(c->command("DATA"), kGoAhead);
  c->send("Subject: sis\r\n\r\nx\r\n.\r\n");
  EXPECT_EQ(c->line().substr(0, 3), "250");
  EXPECT_EQ(c->line().substr(0, 3), "250");
  auto a = store_->openMailbox(*mailbox::MailboxName::parse("user/alice"));
  auto b = store_->openMailbox(*mailbox::MailboxName::parse("user/bob"));
  ASSERT_TRUE(a.ok() && b.ok());
  struct stat sa {}, sb {};
  ASSERT_EQ(::stat(a->mailbox->messagePath(1).c_str(), &sa), 0);
  ASSERT_EQ(::stat(b->mailbox->messagePath(1).c_str(), &sb), 0);
  EXPECT_EQ(sa.st_ino, sb.st_ino);
  EXPECT_EQ(sa.st_nlink, 2u);  // the stage file is gone
  // With a single recipient the Received field names it.
  auto m = messages("user/alice")[0];
  EXPECT_EQ(m.find("\tfor <"), std::string::npos);
  auto d = envelope({"alice@x.y"});
  EXPECT_EQ(d->command("DATA"), kGoAhead);
  d->send("Subject: one\r\n\r\nx\r\n.\r\n");
  EXPECT_EQ(d->line(), "250 2.0.0 <alice@x.y> Delivered");
  EXPECT_NE(messages("user/alice")[1].find("\r\n\tfor <alice@x.y>;\r\n"), std::string::npos);
}

TEST_F(LmtpDeliveryTest, DotsAreUnstuffedAndBareLineEndsBecomeCrlf) {
  start();
  auto c = envelope({"alice@x.y"});
  EXPECT_EQ(c->command("DATA"), kGoAhead);
  c->send("Subject: dots\n\n..leading dot\r\n...\r\nbare\rcr\nlast\r\n.\r\nNOOP\r\n");
  EXPECT_EQ(c->line(), "250 2.0.0 <alice@x.y> Delivered");
  EXPECT_EQ(c->line(), "250 2.0.0 OK");  // the "." ended the message, NOOP is a command
  auto m = messages("user/alice");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(withoutTrace(m[0]), "Subject: dots\r\n\r\n.leading dot\r\n..\r\nbare\r\ncr\r\nlast\r\n");
}

TEST_F(LmtpDeliveryTest, BadMessagesAreAnsweredPerRecipientAndNothingIsStored) {
  start();
  struct Case {
    std::string data;
    std::string reply;
  };
  const std::vector<Case> cases = {
      {"Subject: big\r\n\r\n" + std::string(11000, 'x') + "\r\n.\r\n",
       "552 5.3.4 <alice@x.y> Message size exceeds fixed maximum message size"},
      {std::string("Subject: nul\r\n\r\na\0b\r\n.\r\n", 24),
       "554 5.6.0 <alice@x.y> Message contains NUL octets (use BODY=BINARYMIME)"},
  };
  for (const Case& k : cases) {
    auto c = envelope({"alice@x.y", "bob@x.y"});
    EXPECT_EQ(c->command("DATA"), kGoAhead);
    c->send(k.data);
    EXPECT_EQ(c->line(), k.reply);
    EXPECT_EQ(c->line().substr(0, 9), k.reply.substr(0, 9));
    // The session goes on with a fresh transaction.
    EXPECT_EQ(c->command("RCPT TO:<alice@x.y>"), "503 5.5.1 Send MAIL first");
    EXPECT_EQ(c->command("MAIL FROM:<>").substr(0, 3), "250");
  }
  EXPECT_TRUE(messages("user/alice").empty());
  EXPECT_TRUE(messages("user/bob").empty());
}

TEST_F(LmtpDeliveryTest, AnOverlongLineFailsTheMessage) {
  options_.max_message_size = 1 << 20;
  options_.max_data_line = 2000;
  start();
  auto c = connect();
  c->send("LHLO client.example\r\n");
  EXPECT_EQ(c->reply().back(), "250 SIZE 1048576");
  ASSERT_EQ(c->command("MAIL FROM:<>").substr(0, 3), "250");
  ASSERT_EQ(c->command("RCPT TO:<alice@x.y>").substr(0, 3), "250");
  EXPECT_EQ(c->command("DATA"), kGoAhead);
  c->send("Subject: long\r\n\r\n" + std::string(5000, 'y') + "\r\nafter\r\n.\r\n");
  EXPECT_EQ(c->line(), "554 5.6.0 <alice@x.y> Message has a line longer than 2000 octets");
  EXPECT_EQ(c->command("NOOP"), "250 2.0.0 OK");
  EXPECT_TRUE(messages("user/alice").empty());
}

TEST_F(LmtpDeliveryTest, AConnectionLostInDataDeliversNothing) {
  start();
  {
    auto c = envelope({"alice@x.y"});
    EXPECT_EQ(c->command("DATA"), kGoAhead);
    c->send("Subject: cut\r\n\r\nhalf a message\r\n");
  }  // closed without the final dot
  // The server notices, and a new session works.
  auto c = envelope({"alice@x.y"});
  EXPECT_EQ(c->command("DATA"), kGoAhead);
  c->send("Subject: whole\r\n\r\nx\r\n.\r\n");
  EXPECT_EQ(c->line(), "250 2.0.0 <alice@x.y> Delivered");
  auto m = messages("user/alice");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_NE(m[0].find("Subject: whole"), std::string::npos);
  EXPECT_EQ(stageFiles(), 0u);
}

TEST_F(LmtpDeliveryTest, BdatChunksMakeOneMessage) {
  start();
  auto c = envelope({"alice@x.y", "bob@x.y"});
  c->send("BDAT 13\r\nSubject: bd\r\n");
  EXPECT_EQ(c->line(), "250 2.0.0 13 octets received");
  // The CR of a CRLF at a chunk's end and its LF in the next; a bare LF.
  c->send("BDAT 5\r\n\r\nab\r");
  EXPECT_EQ(c->line(), "250 2.0.0 5 octets received");
  c->send("BDAT 6 LAST\r\n\nc\nd.\n");
  EXPECT_EQ(c->line(), "250 2.0.0 <alice@x.y> Delivered");
  EXPECT_EQ(c->line(), "250 2.0.0 <bob@x.y> Delivered");
  auto m = messages("user/alice");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(withoutTrace(m[0]), "Subject: bd\r\n\r\nab\r\nc\r\nd.\r\n");
}

TEST_F(LmtpDeliveryTest, BinaryMimeIsStoredAsSentAndNeedsBdat) {
  start();
  auto c = envelope({"alice@x.y"}, "MAIL FROM:<s@x.y> BODY=BINARYMIME");
  EXPECT_EQ(c->command("DATA"), "503 5.5.1 BODY=BINARYMIME requires BDAT");
  const std::string body("Subject: bin\r\n\r\n\x00\x01\n\r\xff", 21);
  c->send("BDAT " + std::to_string(body.size()) + " LAST\r\n" + body);
  EXPECT_EQ(c->line(), "250 2.0.0 <alice@x.y> Delivered");
  auto m = messages("user/alice");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(withoutTrace(m[0]), body);
}

TEST_F(LmtpDeliveryTest, BdatErrorsStillConsumeTheChunk) {
  start();
  auto c = greeted();
  // Out of sequence: the 6 octets are read and dropped, then 503.
  c->send("BDAT 6\r\nRSET\r\nNOOP\r\n");
  EXPECT_EQ(c->line(), "503 5.5.1 Send MAIL first");
  EXPECT_EQ(c->line(), "250 2.0.0 OK");
  // Over the size limit: 552 once the chunk is read, and the transaction is over.
  ASSERT_EQ(c->command("MAIL FROM:<>").substr(0, 3), "250");
  ASSERT_EQ(c->command("RCPT TO:<alice@x.y>").substr(0, 3), "250");
  c->send("BDAT 20000\r\n" + std::string(20000, 'z') + "NOOP\r\n");
  EXPECT_EQ(c->line(), "552 5.3.4 Message size exceeds fixed maximum message size");
  EXPECT_EQ(c->line(), "250 2.0.0 OK");
  EXPECT_EQ(c->command("BDAT 0 LAST"), "503 5.5.1 Send MAIL first");
  // DATA after BDAT in one transaction.
  ASSERT_EQ(c->command("MAIL FROM:<>").substr(0, 3), "250");
  ASSERT_EQ(c->command("RCPT TO:<alice@x.y>").substr(0, 3), "250");
  c->send("BDAT 3\r\nabc");
  EXPECT_EQ(c->line(), "250 2.0.0 3 octets received");
  EXPECT_EQ(c->command("DATA"), "503 5.5.1 DATA cannot follow BDAT in one transaction");
  // A BDAT without a usable size cannot be framed: the session ends.
  EXPECT_EQ(c->command("BDAT lots"), "501 5.5.4 Syntax: BDAT size [LAST]; closing connection");
  EXPECT_EQ(c->line(), "<eof>");
  EXPECT_TRUE(messages("user/alice").empty());
}

TEST_F(LmtpDeliveryTest, SubaddressPicksAnExistingFolderElseInbox) {
  start();
  ASSERT_TRUE(store_->ensureInbox(*mailbox::MailboxName::parse("user/alice")).isOk());
  ASSERT_TRUE(store_->create(*mailbox::MailboxName::parse("user/alice/lists")).ok());
  auto c = envelope({"alice+lists@x.y", "alice+nosuch@x.y", "bob+lists@x.y"});
  EXPECT_EQ(c->command("DATA"), kGoAhead);
  c->send("Subject: sub\r\n\r\nx\r\n.\r\n");
  for (int i = 0; i < 3; ++i) EXPECT_EQ(c->line().substr(0, 3), "250");
  EXPECT_EQ(messages("user/alice/lists").size(), 1u);
  EXPECT_EQ(messages("user/alice").size(), 1u);  // +nosuch
  EXPECT_EQ(messages("user/bob").size(), 1u);    // bob has no "lists": INBOX, made now
}

TEST_F(LmtpDeliveryTest, RecipientsOfOneMailboxShareOneCopy) {
  start();
  std::vector<std::string> rcpts;
  for (int i = 0; i < 300; ++i) rcpts.push_back(i % 2 ? "alice@x.y" : "alice+none@x.y");
  auto c = envelope(rcpts);
  EXPECT_EQ(c->command("DATA"), kGoAhead);
  c->send("Subject: many\r\n\r\nx\r\n.\r\n");
  for (size_t i = 0; i < rcpts.size(); ++i) {
    EXPECT_EQ(c->line(), "250 2.0.0 <" + rcpts[i] + "> Delivered");
  }
  EXPECT_EQ(messages("user/alice").size(), 1u);
}

TEST_F(LmtpDeliveryTest, DuplicatesAreAcceptedButNotStoredAgain) {
  duplicate_window_ = 3600s;
  start();
  for (int round = 0; round < 2; ++round) {
    auto c = envelope({"alice@x.y"});
    EXPECT_EQ(c->command("DATA"), kGoAhead);
    c->send("Message-ID: <same@example.com>\r\nSubject: dup\r\n\r\nx\r\n.\r\n");
    EXPECT_EQ(c->line(), round == 0 ? "250 2.0.0 <alice@x.y> Delivered"
                                    : "250 2.0.0 <alice@x.y> Already delivered (duplicate "
                                      "suppressed)");
  }
  EXPECT_EQ(messages("user/alice").size(), 1u);
  // Another mailbox is another delivery; no Message-ID is never a duplicate.
  auto c = envelope({"bob@x.y", "alice@x.y"});
  EXPECT_EQ(c->command("DATA"), kGoAhead);
  c->send("Message-ID: <same@example.com>\r\n\r\nx\r\n.\r\n");
  EXPECT_EQ(c->line(), "250 2.0.0 <bob@x.y> Delivered");
  EXPECT_EQ(c->line().substr(0, 39), "250 2.0.0 <alice@x.y> Already delivered");
  for (int i = 0; i < 2; ++i) {
    auto d = envelope({"alice@x.y"});
    EXPECT_EQ(d->command("DATA"), kGoAhead);
    d->send("Subject: no id\r\n\r\nx\r\n.\r\n");
    EXPECT_EQ(d->line(), "250 2.0.0 <alice@x.y> Delivered");
  }
  EXPECT_EQ(messages("user/alice").size(), 3u);
  EXPECT_EQ(messages("user/bob").size(), 1u);
}

TEST_F(LmtpDeliveryTest, InternationalAddressesNeedSmtpUtf8) {
  start();
  auto c = greeted();
  EXPECT_EQ(c->command("MAIL FROM:<j\xc3\xb6rg@b\xc3\xbc.example>"),
            "553 5.6.7 Non-ASCII address requires SMTPUTF8");
  EXPECT_EQ(c->command("MAIL FROM:<\xc3\xb6\xff@x.y> SMTPUTF8"),
            "501 5.5.4 Invalid character in command");  // not UTF-8
  EXPECT_EQ(c->command("MAIL FROM:<j\xc3\xb6rg@b\xc3\xbc.example> SMTPUTF8"),
            "250 2.1.0 Sender <j\xc3\xb6rg@b\xc3\xbc.example> OK");
  EXPECT_EQ(c->command("RCPT TO:<alice@x.y>").substr(0, 3), "250");
  EXPECT_EQ(c->command("DATA"), kGoAhead);
  c->send("Subject: utf8\r\n\r\nx\r\n.\r\n");
  EXPECT_EQ(c->line(), "250 2.0.0 <alice@x.y> Delivered");
  auto m = messages("user/alice");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].rfind("Return-Path: <j\xc3\xb6rg@b\xc3\xbc.example>\r\n", 0), 0u);
  EXPECT_NE(m[0].find(" with UTF8LMTP id "), std::string::npos);
  auto d = greeted();
  ASSERT_EQ(d->command("MAIL FROM:<>").substr(0, 3), "250");
  EXPECT_EQ(d->command("RCPT TO:<\xc3\xa5sa@x.y>"), "553 5.6.7 Non-ASCII address requires SMTPUTF8");
}

TEST_F(LmtpDeliveryTest, DeliveriesAreCounted) {
  start();
  auto c = envelope({"alice@x.y"});
  EXPECT_EQ(c->command("DATA"), kGoAhead);
  c->send("Subject: n\r\n\r\nx\r\n.\r\n");
  EXPECT_EQ(c->line().substr(0, 3), "250");
  std::string m = host_->metrics().render();
  EXPECT_NE(
      m.find("darius_lmtp_deliveries_total{service=\"lmtp\",outcome=\"delivered\"} 1"),
      std::string::npos)
      << m;
}

}  // namespace session_delivery_test
}  // namespace darius::lmtpd
