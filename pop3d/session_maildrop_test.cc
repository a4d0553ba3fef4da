// The POP3 TRANSACTION and UPDATE states against a real Store: the snapshot, STAT, LIST,
// UIDL, RETR and TOP byte for byte (dot-stuffed on the wire), DELE/RSET/QUIT with phase-1
// expunge, the maildrop lock (-ERR [IN-USE]), and the error replies for bad message numbers.
#include "pop3d/session_test_util.h"

namespace darius::pop3d {
namespace {

using test::Client;
using test::Pop3Test;
using namespace std::chrono_literals;

// The message as it travels: CRLF lines, "." doubled at line starts, ".\r\n" at the end.
std::string wire(const std::string& m) {
  std::string out;
  bool start = true;
  for (char c : m) {
    if (start && c == '.') out += '.';
    out += c;
    start = c == '\n';
  }
  return out + ".\r\n";
}

class Pop3MaildropTest : public Pop3Test {
 protected:
  void SetUp() override {
    Pop3Test::SetUp();
    options_.allow_plaintext_auth = true;
  }
  // The lines of a multi-line reply exactly as sent, terminator included.
  std::string raw(Client& c) {
    std::string out;
    for (;;) {
      std::string l = c.line();
      if (l.rfind("<", 0) == 0) return out + l;
      out += l + "\r\n";
      if (l == ".") return out;
    }
  }
  uint32_t uidvalidity() {
    auto m = store_->openMailbox(*mailbox::MailboxName::parse("user/alice"));
    EXPECT_TRUE(m.ok());
    return m.ok() ? m->mailbox->index().uidvalidity : 0;
  }
  size_t liveMessages() {
    auto m = store_->openMailbox(*mailbox::MailboxName::parse("user/alice"));
    if (!m.ok()) return 0;
    size_t n = 0;
    for (size_t i = 0; i < m->mailbox->recordCount(); ++i) n += m->mailbox->record(i)->live();
    return n;
  }
};

const std::string kOne = "Subject: one\r\n\r\nfirst\r\n";
const std::string kDots = "Subject: dots\r\n\r\n.hidden\r\n..two\r\n.\r\nend\r\n";

TEST_F(Pop3MaildropTest, StatListUidlRetrTop) {
  start();
  deliver("user/alice", kOne);
  deliver("user/alice", kDots);
  auto c = loggedIn();
  const size_t total = kOne.size() + kDots.size();
  EXPECT_EQ(c->command("STAT"), "+OK 2 " + std::to_string(total));
  EXPECT_EQ(c->command("LIST"), "+OK 2 messages (" + std::to_string(total) + " octets)");
  EXPECT_EQ(c->body(), (std::vector<std::string>{"1 " + std::to_string(kOne.size()),
                                                 "2 " + std::to_string(kDots.size())}));
  EXPECT_EQ(c->command("LIST 2"), "+OK 2 " + std::to_string(kDots.size()));
  const std::string v = std::to_string(uidvalidity());
  EXPECT_EQ(c->command("UIDL"), "+OK Unique-ID listing follows");
  EXPECT_EQ(c->body(), (std::vector<std::string>{"1 " + v + ".1", "2 " + v + ".2"}));
  EXPECT_EQ(c->command("UIDL 1"), "+OK 1 " + v + ".1");
  EXPECT_EQ(c->command("RETR 2"), "+OK " + std::to_string(kDots.size()) + " octets");
  EXPECT_EQ(raw(*c), wire(kDots));
  EXPECT_EQ(c->command("TOP 2 0"), "+OK Top of message follows");
  EXPECT_EQ(raw(*c), "Subject: dots\r\n\r\n.\r\n");
  EXPECT_EQ(c->command("TOP 2 2"), "+OK Top of message follows");
  EXPECT_EQ(raw(*c), "Subject: dots\r\n\r\n..hidden\r\n...two\r\n.\r\n");
  EXPECT_EQ(c->command("TOP 1 100"), "+OK Top of message follows");
  EXPECT_EQ(raw(*c), wire(kOne));
  EXPECT_EQ(c->command("NOOP"), "+OK");
  EXPECT_EQ(c->command("CAPA"), "+OK Capability list follows");
  EXPECT_TRUE(test::contains(c->body(), "UIDL"));
}

TEST_F(Pop3MaildropTest, BadMessageNumbers) {
  start();
  deliver("user/alice", kOne);
  auto c = loggedIn();
  EXPECT_EQ(c->command("RETR 2"), "-ERR No such message");
  EXPECT_EQ(c->command("LIST 99"), "-ERR No such message");
  EXPECT_EQ(c->command("RETR 0"), "-ERR Invalid message number");
  EXPECT_EQ(c->command("TOP 1"), "-ERR Message number and line count expected");
  EXPECT_EQ(c->command("DELE 1"), "+OK Message 1 deleted");
  EXPECT_EQ(c->command("DELE 1"), "-ERR Message 1 is deleted");
  EXPECT_EQ(c->command("RETR 1"), "-ERR Message 1 is deleted");
  EXPECT_EQ(c->command("UIDL 1"), "-ERR Message 1 is deleted");
  EXPECT_EQ(c->command("STAT"), "+OK 0 0");
}

TEST_F(Pop3MaildropTest, DeleRsetAndQuitExpunge) {
  start();
  for (int i = 0; i < 3; ++i) deliver("user/alice", kOne);
  {
    auto c = loggedIn();
    EXPECT_EQ(c->command("DELE 1").substr(0, 3), "+OK");
    EXPECT_EQ(c->command("RSET"), "+OK Maildrop has 3 messages (" +
                                      std::to_string(3 * kOne.size()) + " octets)");
    EXPECT_EQ(c->command("DELE 2").substr(0, 3), "+OK");
    EXPECT_EQ(c->command("LIST"), "+OK 2 messages (" + std::to_string(2 * kOne.size()) +
                                      " octets)");
    EXPECT_EQ(c->body().size(), 2u);
  }  // dropped without QUIT: RFC 1939 §6, nothing is removed
  EXPECT_EQ(liveMessages(), 3u);
  auto c = loggedIn();
  EXPECT_EQ(c->command("DELE 2").substr(0, 3), "+OK");
  EXPECT_EQ(c->command("QUIT"),
            "+OK pop.example.org Darius POP3 server signing off (2 messages left)");
  EXPECT_EQ(c->line(), "<eof>");
  EXPECT_EQ(liveMessages(), 2u);
  // The numbering is new at the next login; UIDLs are the same for what is left.
  auto d = loggedIn();
  const std::string v = std::to_string(uidvalidity());
  EXPECT_EQ(d->command("UIDL"), "+OK Unique-ID listing follows");
  EXPECT_EQ(d->body(), (std::vector<std::string>{"1 " + v + ".1", "2 " + v + ".3"}));
}

TEST_F(Pop3MaildropTest, OneSessionPerMaildrop) {
  start();
  auto first = loggedIn();
  auto second = connect(no_tls_port_);
  EXPECT_EQ(second->command("USER alice"), "+OK Send the password");
  EXPECT_EQ(second->command("PASS secret pass"),
            "-ERR [IN-USE] Maildrop is locked by another POP3 session");
  EXPECT_EQ(second->command("STAT"), "-ERR Command not valid in AUTHORIZATION state");
  EXPECT_EQ(first->command("QUIT").substr(0, 3), "+OK");
  EXPECT_EQ(first->line(), "<eof>");
  EXPECT_EQ(second->command("USER alice"), "+OK Send the password");
  EXPECT_EQ(second->command("PASS secret pass").substr(0, 3), "+OK");
}

TEST_F(Pop3MaildropTest, TheSnapshotIsTakenAtLoginAndSkipsDeleted) {
  start();
  deliver("user/alice", kOne);
  deliver("user/alice", kDots, mailbox::kFlagDeleted);  // \Deleted by an IMAP client
  deliver("user/alice/Sent", kOne);                     // POP3 sees INBOX only
  auto c = loggedIn();
  EXPECT_EQ(c->command("STAT"), "+OK 1 " + std::to_string(kOne.size()));
  deliver("user/alice", kDots);
  EXPECT_EQ(c->command("STAT"), "+OK 1 " + std::to_string(kOne.size()));
  EXPECT_EQ(c->command("QUIT").substr(0, 3), "+OK");
  auto d = loggedIn();
  EXPECT_EQ(d->command("STAT"), "+OK 2 " + std::to_string(kOne.size() + kDots.size()));
}

TEST_F(Pop3MaildropTest, UidlFormats) {
  options_.uidl_format = UidlFormat::kGuid;
  start();
  deliver("user/alice", kOne);
  auto c = loggedIn();
  EXPECT_EQ(c->command("UIDL 1"), "+OK 1 " + mailbox::guidHex(mailbox::sha1Of(kOne)));
  host_->stop();
  thread_.join();
  options_.uidl_format = UidlFormat::kUid;
  start();
  auto d = loggedIn();
  EXPECT_EQ(d->command("UIDL 1"), "+OK 1 1");
}

TEST_F(Pop3MaildropTest, LargeMessagesStreamIntact) {
  start();
  std::string big = "Subject: big\r\n\r\n";
  for (int i = 0; big.size() < 3'000'000; ++i) {
    big += (i % 7 == 0 ? "." : "") + std::string(70 + i % 13, static_cast<char>('a' + i % 26)) +
           "\r\n";
  }
  deliver("user/alice", big);
  auto c = loggedIn();
  EXPECT_EQ(c->command("RETR 1"), "+OK " + std::to_string(big.size()) + " octets");
  EXPECT_EQ(raw(*c), wire(big));
  EXPECT_EQ(c->command("NOOP"), "+OK");
}

TEST_F(Pop3MaildropTest, AMissingMessageFileIsAnErrorNotABrokenReply) {
  start();
  deliver("user/alice", kOne);
  auto c = loggedIn();
  auto m = store_->openMailbox(*mailbox::MailboxName::parse("user/alice"));
  ASSERT_TRUE(m.ok());
  std::filesystem::remove(m->mailbox->messagePath(1));
  EXPECT_EQ(c->command("RETR 1"), "-ERR Message is no longer available");
  EXPECT_EQ(c->command("NOOP"), "+OK");
}

TEST_F(Pop3MaildropTest, IdleTimeoutInTransaction) {
  options_.idle_timeout = 300ms;
  start();
  auto c = loggedIn();
  EXPECT_EQ(c->line(), "-ERR Idle timeout, closing connection");
  EXPECT_EQ(c->line(), "<eof>");
}

}  // namespace
}  // namespace darius::pop3d
