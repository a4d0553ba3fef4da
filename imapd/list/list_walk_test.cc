// walkList over a real Store in a temporary directory: what each kind of LIST and LSUB
// returns, hierarchy levels, children, ACL visibility (nothing invisible shows, not even
// through \HasChildren), subscriptions, RECURSIVEMATCH with CHILDINFO, special uses, the
// LIST-STATUS rule for mailboxes without "r", both namespace modes, and the order.
#include "imapd/list/list_walk.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "lib/io/temp_dir.h"
#include "mailbox/acl.h"

namespace darius::imapd {
namespace {

using mailbox::Acl;
using mailbox::MailboxName;

class ListWalkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto t = io::TempDir::create("listwalk");
    ASSERT_TRUE(t.ok());
    tmp_ = std::make_unique<io::TempDir>(std::move(*t));
    mailbox::StoreOptions o;
    o.data_dir = tmp_->file("data");
    o.partitions = {{"default", tmp_->file("p")}};
    o.change_log = false;
    auto s = mailbox::Store::open(std::move(o));
    ASSERT_TRUE(s.ok()) << s.status().toString();
    store_ = std::move(*s);
    useNamespace(true, true);
  }

  void useNamespace(bool alt, bool unix_sep) {
    mailbox::NamespaceOptions no;
    no.alt_namespace = alt;
    no.unix_hierarchy_sep = unix_sep;
    auto ns = mailbox::Namespace::create(no);
    ASSERT_TRUE(ns.ok());
    ns_ = std::make_unique<mailbox::Namespace>(std::move(*ns));
  }

  static MailboxName mine(std::string owner, std::vector<std::string> c = {}) {
    auto n = MailboxName::personal("", std::move(owner), std::move(c));
    EXPECT_TRUE(n.ok());
    return *n;
  }
  static MailboxName shared(std::vector<std::string> c) {
    auto n = MailboxName::shared("", std::move(c));
    EXPECT_TRUE(n.ok());
    return *n;
  }

  // Creates `name` with the owner's full rights plus `extra` ("alice lr" pairs).
  void create(const MailboxName& name, std::vector<std::pair<std::string, std::string>> extra = {},
              std::string special_use = "") {
    Acl acl = Acl::ownerDefault(name.isPersonal() ? name.owner() : "admin");
    for (auto& [id, rights] : extra) {
      auto r = mailbox::parseRights(rights);
      ASSERT_TRUE(r.ok());
      acl.set(id, *r);
    }
    mailbox::CreateOptions o;
    o.acl = acl.toString();
    o.special_use = std::move(special_use);
    auto made = store_->create(name, o);
    ASSERT_TRUE(made.ok()) << name.toString() << ": " << made.status().toString();
  }

  void subscribe(const MailboxName& name, const std::string& user = "alice") {
    ASSERT_TRUE(store_->subscriptions().subscribe(user, name).isOk());
  }

  ListViewer viewer(const std::string& user = "alice") const {
    ListViewer v;
    v.ns = ns_.get();
    v.user = mailbox::UserName{user, ""};
    v.acl_id = user;
    return v;
  }

  ListQuery query(std::vector<std::string> patterns) const {
    ListQuery q;
    for (const std::string& p : patterns) q.patterns.emplace_back(p, ns_->separator());
    return q;
  }

  // "name (attrs)" per entry, with " CHILDINFO" and " STATUS" markers.
  std::vector<std::string> run(const ListQuery& q, const std::string& user = "alice") {
    auto r = walkList(*store_, viewer(user), q);
    EXPECT_TRUE(r.ok()) << r.status().toString();
    std::vector<std::string> out;
    if (!r.ok()) return out;
    for (const ListedName& l : *r) {
      std::string s = l.external + " (" + l.attributes() + ")";
      if (l.childinfo_subscribed) s += " CHILDINFO";
      if (l.status_mailbox) s += " STATUS";
      out.push_back(s);
    }
    return out;
  }
  std::vector<std::string> run(std::vector<std::string> patterns,
                               const std::string& user = "alice") {
    return run(query(std::move(patterns)), user);
  }

  // alice: INBOX, Sent (\Sent), a/b/c (no a, no a/b), Trash (\Trash), Trash/old;
  // bob: INBOX, Shared (alice may "lr"), Shared/deeper (alice may "l"), Private.
  void populate() {
    ASSERT_TRUE(store_->ensureInbox(mine("alice")).isOk());
    ASSERT_TRUE(store_->ensureInbox(mine("bob")).isOk());
    create(mine("alice", {"Sent"}), {}, "\\Sent");
    create(mine("alice", {"a", "b", "c"}));
    create(mine("alice", {"Trash"}), {}, "\\Trash");
    create(mine("alice", {"Trash", "old"}));
    create(mine("bob", {"Shared"}), {{"alice", "lr"}}, "\\Sent");
    create(mine("bob", {"Shared", "deeper"}), {{"alice", "l"}});
    create(mine("bob", {"Private"}));
    create(mine("bob", {"Private", "hidden"}));
  }

  std::unique_ptr<io::TempDir> tmp_;
  std::unique_ptr<mailbox::Store> store_;
  std::unique_ptr<mailbox::Namespace> ns_;
};

using V = std::vector<std::string>;

TEST_F(ListWalkTest, StarListsEveryVisibleMailboxInOrder) {
  populate();
  EXPECT_EQ(run({"*"}), (V{
                            "INBOX (\\Noinferiors \\HasNoChildren)",
                            "Sent (\\HasNoChildren)",
                            "Trash (\\HasChildren)",
                            "Trash/old (\\HasNoChildren)",
                            "a/b/c (\\HasNoChildren)",
                            "Other Users/bob/Shared (\\HasChildren)",
                            "Other Users/bob/Shared/deeper (\\HasNoChildren)",
                        }));
}

TEST_F(ListWalkTest, PercentListsLevelsWithVisibleChildren) {
  populate();
  EXPECT_EQ(run({"%"}), (V{
                            "INBOX (\\Noinferiors \\HasNoChildren)",
                            "Sent (\\HasNoChildren)",
                            "Trash (\\HasChildren)",
                            "a (\\NonExistent \\HasChildren)",
                            "Other Users (\\NonExistent \\HasChildren)",
                        }));
  EXPECT_EQ(run({"a/%"}), (V{"a/b (\\NonExistent \\HasChildren)"}));
  EXPECT_EQ(run({"Other Users/%"}), (V{"Other Users/bob (\\NonExistent \\HasChildren)"}));
  EXPECT_EQ(run({"Other Users/bob/%"}), (V{"Other Users/bob/Shared (\\HasChildren)"}));
  // IMAP4rev1's basic LIST says \Noselect instead.
  ListQuery q = query({"a/%"});
  q.nonexistent_attr = false;
  EXPECT_EQ(run(q), (V{"a/b (\\Noselect \\HasChildren)"}));
}

TEST_F(ListWalkTest, LevelsAreNotRepeatedWhenTheirChildrenMatch) {
  populate();
  // RFC 9051 §6.3.9.8 example 10: "a/b/c" matches, so "a" and "a/b" add nothing.
  EXPECT_EQ(run({"a*"}), (V{"a/b/c (\\HasNoChildren)"}));
  // The same example's LIST "" (% music/rock): the level goes once its child is matched.
  EXPECT_EQ(run({"%", "a/b/c"}), (V{
                                     "INBOX (\\Noinferiors \\HasNoChildren)",
                                     "Sent (\\HasNoChildren)",
                                     "Trash (\\HasChildren)",
                                     "a/b/c (\\HasNoChildren)",
                                     "Other Users (\\NonExistent \\HasChildren)",
                                 }));
}

TEST_F(ListWalkTest, InvisibleMailboxesNeverShow) {
  populate();
  // bob sees none of alice's mailboxes, and no "Other Users" at all.
  EXPECT_EQ(run({"*"}, "bob"), (V{
                                   "INBOX (\\Noinferiors \\HasNoChildren)",
                                   "Private (\\HasChildren)",
                                   "Private/hidden (\\HasNoChildren)",
                                   "Shared (\\HasChildren)",
                                   "Shared/deeper (\\HasNoChildren)",
                               }));
  EXPECT_EQ(run({"Other Users/*"}, "bob"), V{});
  EXPECT_EQ(run({"%"}, "bob").size(), 3u);
  // alice: bob's INBOX, Private and Private/hidden stay invisible, also by exact name.
  EXPECT_EQ(run({"Other Users/bob"}), (V{"Other Users/bob (\\NonExistent \\HasChildren)"}));
  EXPECT_EQ(run({"Other Users/bob/Private"}), V{});
  EXPECT_EQ(run({"Other Users/bob/Private/%"}), V{});
  // carol, who has nothing of anyone's, sees no other users' namespace.
  ASSERT_TRUE(store_->ensureInbox(mine("carol")).isOk());
  EXPECT_EQ(run({"*"}, "carol"), (V{"INBOX (\\Noinferiors \\HasNoChildren)"}));
}

TEST_F(ListWalkTest, ChildrenCountOnlyVisibleMailboxes) {
  populate();
  create(shared({"news"}), {{"anyone", "lr"}});
  create(shared({"news", "secret"}));  // admin only
  EXPECT_EQ(run({"Shared Folders/*"}), (V{"Shared Folders/news (\\HasNoChildren)"}));
  EXPECT_EQ(run({"Shared Folders"}), (V{"Shared Folders (\\NonExistent \\HasChildren)"}));
}

TEST_F(ListWalkTest, NamesWithoutWildcards) {
  populate();
  // Read up to the first visible descendant: an invisible one does not count.
  create(mine("bob", {"Shared2"}), {{"alice", "lr"}});
  create(mine("bob", {"Shared2", "a"}));
  create(mine("bob", {"Shared2", "b"}), {{"alice", "l"}});
  create(mine("bob", {"Shared3"}), {{"alice", "lr"}});
  create(mine("bob", {"Shared3", "a"}));
  EXPECT_EQ(run({"Other Users/bob/Shared2"}), (V{"Other Users/bob/Shared2 (\\HasChildren)"}));
  EXPECT_EQ(run({"Other Users/bob/Shared3"}), (V{"Other Users/bob/Shared3 (\\HasNoChildren)"}));
  EXPECT_EQ(run({"Trash"}), (V{"Trash (\\HasChildren)"}));
  EXPECT_EQ(run({"a"}), (V{"a (\\NonExistent \\HasChildren)"}));
  EXPECT_EQ(run({"a/b/c"}), (V{"a/b/c (\\HasNoChildren)"}));
  EXPECT_EQ(run({"nothing"}), V{});
  // Overlapping names: the parent's whole subtree is read, each name listed once.
  EXPECT_EQ(run({"Trash", "Trash/old", "Trash"}),
            (V{"Trash (\\HasChildren)", "Trash/old (\\HasNoChildren)"}));
  EXPECT_EQ(run({"INBOX", "Sent"}),
            (V{"INBOX (\\Noinferiors \\HasNoChildren)", "Sent (\\HasNoChildren)"}));
}

TEST_F(ListWalkTest, InboxMatchesInAnyCase) {
  populate();
  EXPECT_EQ(run({"inbox"}), (V{"INBOX (\\Noinferiors \\HasNoChildren)"}));
  EXPECT_EQ(run({"iN%"}), (V{"INBOX (\\Noinferiors \\HasNoChildren)"}));
}

TEST_F(ListWalkTest, SubscribedSelection) {
  populate();
  subscribe(mine("alice", {"Sent"}));
  subscribe(mine("alice", {"a", "b", "c"}));
  subscribe(mine("alice", {"gone"}));  // subscribed, never created
  subscribe(mine("bob", {"Private"}));  // subscribed but invisible: exists for bob only
  ListQuery q = query({"*"});
  q.select_subscribed = q.return_subscribed = true;
  EXPECT_EQ(run(q), (V{
                        "Sent (\\HasNoChildren \\Subscribed)",
                        "a/b/c (\\HasNoChildren \\Subscribed)",
                        "gone (\\NonExistent \\HasNoChildren \\Subscribed)",
                        "Other Users/bob/Private (\\NonExistent \\HasNoChildren \\Subscribed)",
                    }));
  // RFC 9051 §6.3.9.8 example 7A: with "%" the unsubscribed parents are not listed...
  q = query({"%"});
  q.select_subscribed = q.return_subscribed = true;
  EXPECT_EQ(run(q), (V{"Sent (\\HasNoChildren \\Subscribed)",
                       "gone (\\NonExistent \\HasNoChildren \\Subscribed)"}));
  // ...unless RECURSIVEMATCH asks for them, with CHILDINFO.
  q.recursive_match = true;
  EXPECT_EQ(run(q), (V{
                        "Sent (\\HasNoChildren \\Subscribed)",
                        "a (\\NonExistent \\HasChildren) CHILDINFO",
                        "gone (\\NonExistent \\HasNoChildren \\Subscribed)",
                        "Other Users (\\NonExistent \\HasChildren) CHILDINFO",
                    }));
}

TEST_F(ListWalkTest, RecursiveMatchSuppressesRedundantChildInfo) {
  populate();
  subscribe(mine("alice", {"Trash"}));
  subscribe(mine("alice", {"Trash", "old"}));
  ListQuery q = query({"Trash*"});
  q.select_subscribed = q.return_subscribed = q.recursive_match = true;
  // Trash/old matches the pattern itself: no CHILDINFO for Trash (RFC 5258 §3.5 SHOULD).
  EXPECT_EQ(run(q), (V{"Trash (\\HasChildren \\Subscribed)",
                       "Trash/old (\\HasNoChildren \\Subscribed)"}));
  q = query({"Trash"});
  q.select_subscribed = q.return_subscribed = q.recursive_match = true;
  EXPECT_EQ(run(q), (V{"Trash (\\HasChildren \\Subscribed) CHILDINFO"}));
}

TEST_F(ListWalkTest, ReturnSubscribedMarksWithoutSelecting) {
  populate();
  subscribe(mine("alice", {"Sent"}));
  subscribe(mine("alice", {"gone"}));
  ListQuery q = query({"%"});
  q.return_subscribed = true;
  EXPECT_EQ(run(q), (V{
                        "INBOX (\\Noinferiors \\HasNoChildren)",
                        "Sent (\\HasNoChildren \\Subscribed)",
                        "Trash (\\HasChildren)",
                        "a (\\NonExistent \\HasChildren)",
                        "Other Users (\\NonExistent \\HasChildren)",
                    }));
}

TEST_F(ListWalkTest, SpecialUse) {
  populate();
  ListQuery q = query({"*"});
  q.select_special_use = q.return_special_use = true;
  // bob's \Sent is bob's advice, not alice's.
  EXPECT_EQ(run(q), (V{"Sent (\\HasNoChildren \\Sent)", "Trash (\\HasChildren \\Trash)"}));
  q = query({"%"});
  q.return_special_use = true;
  EXPECT_EQ(run(q)[1], "Sent (\\HasNoChildren \\Sent)");
  // Without the return option the attributes stay out.
  EXPECT_EQ(run({"Sent"}), (V{"Sent (\\HasNoChildren)"}));
}

TEST_F(ListWalkTest, StatusOnlyForReadableSelectableMailboxes) {
  populate();
  ListQuery q = query({"Other Users/*", "Sent", "a/%"});
  q.return_status = true;
  EXPECT_EQ(run(q), (V{
                        "Sent (\\HasNoChildren) STATUS",
                        "a/b (\\NonExistent \\HasChildren)",
                        "Other Users/bob/Shared (\\HasChildren) STATUS",
                        // "l" without "r": \Noselect and no STATUS (RFC 9051 §6.3.9.2).
                        "Other Users/bob/Shared/deeper (\\Noselect \\HasNoChildren)",
                    }));
}

TEST_F(ListWalkTest, Lsub) {
  populate();
  subscribe(mine("alice", {"Sent"}));
  subscribe(mine("alice", {"a", "b", "c"}));
  subscribe(mine("alice", {"gone"}));
  subscribe(mine("alice", {"Trash", "old"}));
  ListQuery q = query({"*"});
  q.mode = ListMode::kLsub;
  EXPECT_EQ(run(q), (V{"Sent ()", "Trash/old ()", "a/b/c ()", "gone (\\Noselect)"}));
  // RFC 3501 §6.3.9: "%" returns the level above a subscribed name, \Noselect, even when
  // that level is a mailbox ("Trash") that is not subscribed.
  q = query({"%"});
  q.mode = ListMode::kLsub;
  EXPECT_EQ(run(q), (V{"Sent ()", "Trash (\\Noselect)", "a (\\Noselect)", "gone (\\Noselect)"}));
  // Another user's subscriptions are theirs.
  EXPECT_EQ(run(q, "bob"), V{});
}

TEST_F(ListWalkTest, StandardNamespaceWithDots) {
  useNamespace(false, false);
  populate();
  create(shared({"news", "comp.lang"}), {{"anyone", "lr"}});
  EXPECT_EQ(run({"*"}), (V{
                            "INBOX (\\HasChildren)",
                            "INBOX.Sent (\\HasNoChildren)",
                            "INBOX.Trash (\\HasChildren)",
                            "INBOX.Trash.old (\\HasNoChildren)",
                            "INBOX.a.b.c (\\HasNoChildren)",
                            "user.bob.Shared (\\HasChildren)",
                            "user.bob.Shared.deeper (\\HasNoChildren)",
                            "news.comp^lang (\\HasNoChildren)",
                        }));
  EXPECT_EQ(run({"%"}), (V{
                            "INBOX (\\HasChildren)",
                            "user (\\NonExistent \\HasChildren)",
                            "news (\\NonExistent \\HasChildren)",
                        }));
  EXPECT_EQ(run({"INBOX.%"}), (V{
                                  "INBOX.Sent (\\HasNoChildren)",
                                  "INBOX.Trash (\\HasChildren)",
                                  "INBOX.a (\\NonExistent \\HasChildren)",
                              }));
}

TEST_F(ListWalkTest, ThousandFoldersComeFromTheListAlone) {
  // Entries straight into the mailbox list, with no directories behind them: the walk reads
  // the list (one scan) and never opens a mailbox.
  ASSERT_TRUE(store_->ensureInbox(mine("alice")).isOk());
  for (int i = 0; i < 1000; ++i) {
    mailbox::MailboxEntry e;
    e.unique_id = "id" + std::to_string(i);
    e.partition = "default";
    e.acl = Acl::ownerDefault("alice").toString();
    std::vector<std::string> c = {"f" + std::to_string(i / 10)};
    if (i % 10 != 0) c.push_back("s" + std::to_string(i % 10));
    ASSERT_TRUE(store_->list().insert(mine("alice", c), e).isOk());
  }
  auto all = run({"*"});
  ASSERT_EQ(all.size(), 1001u);
  EXPECT_EQ(all[0], "INBOX (\\Noinferiors \\HasNoChildren)");
  EXPECT_EQ(all[1], "f0 (\\HasChildren)");
  EXPECT_EQ(all[2], "f0/s1 (\\HasNoChildren)");
  EXPECT_EQ(run({"%"}).size(), 101u);
  // Patterns overlap: each name once.
  EXPECT_EQ(run({"f1*", "f1%", "*"}).size(), 1001u);
  EXPECT_EQ(run({"f1*"}).size(), 110u);  // f1, f1/s1-9, f10-f19 and theirs
  EXPECT_EQ(run({"f99/%"}).size(), 9u);
}

TEST(CanonicalPattern, JoinsReferenceAndPattern) {
  EXPECT_EQ(canonicalPattern("", "*", '/'), "*");
  EXPECT_EQ(canonicalPattern("a/", "%", '/'), "a/%");
  EXPECT_EQ(canonicalPattern("a/", "/b", '/'), "a/b");
  EXPECT_EQ(canonicalPattern("a", "b", '/'), "ab");
  EXPECT_EQ(canonicalPattern("a", "/b", '/'), "a/b");
  EXPECT_EQ(canonicalPattern("INBOX.", "*", '.'), "INBOX.*");
}

}  // namespace
}  // namespace darius::imapd
