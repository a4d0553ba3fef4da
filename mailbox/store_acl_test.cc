// Store::editAcl on a real store: SETACL's three modes, removal, durability across a reopen,
// the header's copy, the kAcl change records, concurrent editors that must not lose each
// other's entries, and refusals that change nothing.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "lib/io/temp_dir.h"
#include "mailbox/change_log_reader.h"
#include "mailbox/header_file.h"
#include "mailbox/store.h"

namespace darius::mailbox {
namespace {

class StoreAclTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto t = io::TempDir::create("store-acl");
    ASSERT_TRUE(t.ok());
    tmp_ = std::make_unique<io::TempDir>(std::move(*t));
    reopen();
    auto n = MailboxName::personal("", "alice", {"Shared"});
    ASSERT_TRUE(n.ok());
    name_ = std::make_unique<MailboxName>(*n);
    CreateOptions o;
    o.acl = Acl::ownerDefault("alice").toString();
    ASSERT_TRUE(store_->create(*name_, o).ok());
  }

  void reopen() {
    store_.reset();
    StoreOptions o;
    o.data_dir = tmp_->file("data");
    o.partitions = {{"default", tmp_->file("p1")}};
    auto s = Store::open(std::move(o));
    ASSERT_TRUE(s.ok()) << s.status().toString();
    store_ = std::move(*s);
  }

  std::string storedAcl() {
    auto e = store_->list().lookup(*name_);
    EXPECT_TRUE(e.ok());
    return e.ok() ? e->acl : "";
  }

  std::vector<ChangeRecord> aclChanges() {
    ChangeLogReader reader(changeLogDir(tmp_->file("p1")));
    EXPECT_TRUE(reader.readFrom(1).isOk());
    auto all = reader.readAvailable();
    EXPECT_TRUE(all.ok());
    std::vector<ChangeRecord> out;
    for (auto& r : *all) {
      if (r.type == ChangeType::kAcl) out.push_back(r);
    }
    return out;
  }

  RightsChange change(std::string_view text) {
    auto c = parseRightsChange(text);
    EXPECT_TRUE(c.ok()) << text;
    return *c;
  }

  std::unique_ptr<io::TempDir> tmp_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<MailboxName> name_;
};

TEST_F(StoreAclTest, ReplaceAddRemoveAndDeleteAreDurableAndLogged) {
  ASSERT_TRUE(store_->editAcl(*name_, "bob", change("lr")).ok());
  ASSERT_TRUE(store_->editAcl(*name_, "bob", change("+swd")).ok());
  ASSERT_TRUE(store_->editAcl(*name_, "bob", change("-x")).ok());
  auto acl = store_->editAcl(*name_, "-anyone", change("p"));
  ASSERT_TRUE(acl.ok());
  EXPECT_EQ(acl->get("bob"), *parseRights("lrswte"));
  reopen();
  EXPECT_EQ(storedAcl(), "alice\tlrswipkxtean\tbob\tlrswte\t-anyone\tp");
  // The header keeps the same copy, for reconstruct.
  auto e = store_->list().lookup(*name_);
  auto dir = store_->directoryOf(*name_, *e);
  ASSERT_TRUE(dir.ok());
  auto h = readMailboxHeader(store_->env(), *dir);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->acl, storedAcl());
  // Removing: empty rights (DELETEACL, or SETACL with "").
  ASSERT_TRUE(store_->editAcl(*name_, "bob", change("")).ok());
  EXPECT_EQ(storedAcl(), "alice\tlrswipkxtean\t-anyone\tp");

  std::vector<ChangeRecord> log = aclChanges();
  ASSERT_EQ(log.size(), 5u);
  EXPECT_EQ(log[0].identifier, "bob");
  EXPECT_EQ(log[0].rights, "lr");
  EXPECT_EQ(log[1].rights, "lrswxte");
  EXPECT_EQ(log[2].rights, "lrswte");
  EXPECT_EQ(log[3].identifier, "-anyone");
  EXPECT_EQ(log[4].rights, "");
  EXPECT_EQ(log[4].mailbox_id, e->unique_id);
}

TEST_F(StoreAclTest, AnEditThatChangesNothingWritesNothing) {
  ASSERT_TRUE(store_->editAcl(*name_, "alice", change("+l")).ok());
  ASSERT_TRUE(store_->editAcl(*name_, "nobody", change("")).ok());
  ASSERT_TRUE(store_->editAcl(*name_, "nobody", change("-r")).ok());
  EXPECT_TRUE(aclChanges().empty());
  EXPECT_EQ(storedAcl(), "alice\tlrswipkxtean");
}

TEST_F(StoreAclTest, RefusesBadIdentifiersAndMissingMailboxes) {
  EXPECT_EQ(store_->editAcl(*name_, "", change("l")).status().code(), base::Code::kInvalid);
  EXPECT_EQ(store_->editAcl(*name_, "a\tb", change("l")).status().code(), base::Code::kInvalid);
  auto gone = MailboxName::personal("", "alice", {"Nope"});
  EXPECT_EQ(store_->editAcl(*gone, "bob", change("l")).status().code(), base::Code::kNotFound);
  EXPECT_EQ(storedAcl(), "alice\tlrswipkxtean");
  EXPECT_TRUE(aclChanges().empty());
}

TEST_F(StoreAclTest, ConcurrentEditorsLoseNothing) {
  // Each thread adds its own identifier; a read-modify-write outside the namespace lock would
  // drop some of them.
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10; ++i) {
        std::string id = "u" + std::to_string(t) + "x" + std::to_string(i);
        EXPECT_TRUE(store_->editAcl(*name_, id, change("lr")).ok());
      }
    });
  }
  for (auto& th : threads) th.join();
  auto acl = Acl::parse(storedAcl());
  ASSERT_TRUE(acl.ok());
  EXPECT_EQ(acl->entries().size(), 41u);
  EXPECT_EQ(aclChanges().size(), 40u);
}

}  // namespace
}  // namespace darius::mailbox
