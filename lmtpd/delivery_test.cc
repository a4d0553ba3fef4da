// Deliverer against a real Store with two partitions: mailbox choice (INBOX made on first
// delivery, +detail folders), one staged file per partition, duplicate suppression, and the
// outcomes for users who cannot have a mailbox.
#include "lmtpd/delivery.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "lib/io/temp_dir.h"

namespace darius::lmtpd {
namespace {

using Kind = DeliveryOutcome::Kind;
using mailbox::MailboxName;

MailboxName name(std::string_view text) {
  auto n = MailboxName::parse(text);
  EXPECT_TRUE(n.ok()) << text;
  return *n;
}

class DelivererTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto t = io::TempDir::create("deliverer");
    ASSERT_TRUE(t.ok());
    tmp_ = std::make_unique<io::TempDir>(std::move(*t));
    mailbox::StoreOptions o;
    o.data_dir = tmp_->file("data");
    o.partitions = {{"p1", tmp_->file("p1")}, {"p2", tmp_->file("p2")}};
    auto s = mailbox::Store::open(o);
    ASSERT_TRUE(s.ok()) << s.status().toString();
    store_ = std::move(*s);
    auto ns = mailbox::Namespace::create({});
    ASSERT_TRUE(ns.ok());
    ns_ = std::make_unique<mailbox::Namespace>(*ns);
  }
  std::unique_ptr<Deliverer> deliverer(mailbox::DuplicateDb* dups = nullptr) {
    return std::make_unique<Deliverer>(*store_, *ns_, dups);
  }
  std::vector<std::string> files(const MailboxName& n) {
    std::vector<std::string> out;
    auto m = store_->openMailbox(n);
    if (!m.ok()) return out;
    for (size_t i = 0; i < m->mailbox->recordCount(); ++i) {
      auto r = m->mailbox->record(i);
      if (r.ok() && r->live()) out.push_back(m->mailbox->messagePath(r->uid));
    }
    return out;
  }
  static ino_t inode(const std::string& path) {
    struct stat st {};
    EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
    return st.st_ino;
  }

  std::unique_ptr<io::TempDir> tmp_;
  std::unique_ptr<mailbox::Store> store_;
  std::unique_ptr<mailbox::Namespace> ns_;
};

const std::string kMessage = "Message-ID: <d1@x>\r\nSubject: t\r\n\r\nbody\r\n";

TEST_F(DelivererTest, InboxIsCreatedAndDetailFoldersAreUsedWhenTheyExist) {
  ASSERT_TRUE(store_->ensureInbox(name("user/alice")).isOk());
  ASSERT_TRUE(store_->create(name("user/alice/Lists")).ok());
  auto d = deliverer();
  std::vector<DeliveryTarget> t = {{"alice", "Lists"}, {"alice", "lists"}, {"carol", ""},
                                   {"alice", "a..b"}, {"alice", "INBOX"}};
  auto out = d->deliver(kMessage, t, 1000);
  ASSERT_EQ(out.size(), 5u);
  for (const auto& o : out) EXPECT_EQ(o.kind, Kind::kDelivered) << o.status.toString();
  EXPECT_EQ(out[0].mailbox, "user/alice/Lists");
  EXPECT_EQ(out[1].mailbox, "user/alice");  // folder names are case-sensitive
  EXPECT_EQ(out[2].mailbox, "user/carol");  // created now
  EXPECT_EQ(out[3].mailbox, "user/alice");  // not a valid folder name
  EXPECT_EQ(files(name("user/alice/Lists")).size(), 1u);
  EXPECT_EQ(files(name("user/alice")).size(), 1u);  // three recipients, one mailbox, one copy
  EXPECT_EQ(files(name("user/carol")).size(), 1u);
}

TEST_F(DelivererTest, DetailNeedsThePostRight) {
  ASSERT_TRUE(store_->ensureInbox(name("user/alice")).isOk());
  mailbox::CreateOptions closed;
  closed.acl = "alice\tlrswipkxtean\t-alice\tp";
  ASSERT_TRUE(store_->create(name("user/alice/closed"), closed).ok());
  mailbox::CreateOptions broken;
  broken.acl = "alice";  // odd field count: does not parse
  ASSERT_TRUE(store_->create(name("user/alice/broken"), broken).ok());
  mailbox::CreateOptions open;
  open.acl = "alice\tlrp";
  ASSERT_TRUE(store_->create(name("user/alice/open"), open).ok());
  auto d = deliverer();
  std::vector<DeliveryTarget> t = {{"alice", "closed"}, {"alice", "broken"}, {"alice", "open"}};
  auto out = d->deliver(kMessage, t, 1000);
  EXPECT_EQ(out[0].mailbox, "user/alice");
  EXPECT_EQ(out[1].mailbox, "user/alice");
  EXPECT_EQ(out[2].mailbox, "user/alice/open");
}

TEST_F(DelivererTest, AltNamespaceDetailIsASiblingOfInbox) {
  mailbox::NamespaceOptions o;
  o.alt_namespace = true;
  o.unix_hierarchy_sep = true;
  auto ns = mailbox::Namespace::create(o);
  ASSERT_TRUE(ns.ok());
  ASSERT_TRUE(store_->ensureInbox(name("user/bob")).isOk());
  ASSERT_TRUE(store_->create(name("user/bob/a.b")).ok());
  ASSERT_TRUE(store_->create(name("user/alice/x")).ok());
  Deliverer d(*store_, *ns, nullptr);
  std::vector<DeliveryTarget> t = {{"bob", "a.b"}, {"bob", "Other Users/alice/x"}};
  auto out = d.deliver(kMessage, t, 1000);
  EXPECT_EQ(out[0].mailbox, "user/bob/a.b");
  EXPECT_EQ(out[1].mailbox, "user/bob");  // never someone else's folder
}

TEST_F(DelivererTest, OneStageFilePerPartition) {
  mailbox::CreateOptions p1, p2;
  p1.partition = "p1";
  p2.partition = "p2";
  ASSERT_TRUE(store_->create(name("user/alice"), p1).ok());
  ASSERT_TRUE(store_->create(name("user/bob"), p2).ok());
  ASSERT_TRUE(store_->create(name("user/carol"), p2).ok());
  auto d = deliverer();
  std::vector<DeliveryTarget> t = {{"alice", ""}, {"bob", ""}, {"carol", ""}};
  auto out = d->deliver(kMessage, t, 1000);
  for (const auto& o : out) EXPECT_EQ(o.kind, Kind::kDelivered) << o.status.toString();
  const std::string a = files(name("user/alice")).at(0);
  const std::string b = files(name("user/bob")).at(0);
  const std::string c = files(name("user/carol")).at(0);
  EXPECT_EQ(inode(b), inode(c));
  EXPECT_NE(inode(a), inode(b));
  for (const char* p : {"p1", "p2"}) {
    EXPECT_TRUE(std::filesystem::is_empty(tmp_->file(std::string(p) + "/darius.stage")));
  }
}

TEST_F(DelivererTest, DuplicatesPerMailbox) {
  mailbox::DuplicateDbOptions o;
  o.path = tmp_->file("dups.db");
  o.window = std::chrono::seconds(100);
  auto dups = mailbox::DuplicateDb::open(o);
  ASSERT_TRUE(dups.ok());
  auto d = deliverer(dups->get());
  std::vector<DeliveryTarget> alice = {{"alice", ""}};
  EXPECT_EQ(d->deliver(kMessage, alice, 1000)[0].kind, Kind::kDelivered);
  EXPECT_EQ(d->deliver(kMessage, alice, 1050)[0].kind, Kind::kDuplicate);
  std::vector<DeliveryTarget> both = {{"bob", ""}, {"alice", "nosuch"}};
  auto out = d->deliver(kMessage, both, 1060);
  EXPECT_EQ(out[0].kind, Kind::kDelivered);
  EXPECT_EQ(out[1].kind, Kind::kDuplicate);
  EXPECT_EQ(d->deliver(kMessage, alice, 1101)[0].kind, Kind::kDelivered);  // window passed
  EXPECT_EQ(files(name("user/alice")).size(), 2u);
}

TEST_F(DelivererTest, UsersWhoCannotOwnMailboxes) {
  auto d = deliverer();
  EXPECT_FALSE(d->inboxFor("anyone").ok());  // an ACL identifier (mailbox_name.h)
  EXPECT_FALSE(d->inboxFor("a@").ok());
  EXPECT_TRUE(d->inboxFor("alice@example.org").ok());
  std::vector<DeliveryTarget> t = {{"anyone", ""}, {"alice", ""}};
  auto out = d->deliver(kMessage, t, 1000);
  EXPECT_EQ(out[0].kind, Kind::kNoMailbox);
  EXPECT_EQ(out[1].kind, Kind::kDelivered);
}

}  // namespace
}  // namespace darius::lmtpd
