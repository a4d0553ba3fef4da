// MailboxList against every db backend (the db conformance fixture: a fresh temp dir per
// test, "<tmp>/db" opened with the parameter's backend).
#include "mailbox/mailbox_list.h"

#include <gtest/gtest.h>

#include <random>

#include "db/conformance_test_util.h"
#include "lib/config/config.h"

namespace darius::mailbox {
namespace mailbox_list_test {

using base::Code;
using db::Backend;
using db::paramName;
using std::string_literals::operator""s;

MailboxName N(std::string_view text) {
  auto n = MailboxName::parse(text);
  EXPECT_TRUE(n.ok()) << text << ": " << n.status().toString();
  return std::move(n).value();
}

MailboxEntry E(std::string id, uint32_t uidvalidity = 1) {
  MailboxEntry e;
  e.unique_id = std::move(id);
  e.partition = "default";
  e.acl = "alice\tlrswipkxtecda\tanyone\tp\t";
  e.uidvalidity = uidvalidity;
  e.created_modseq = 42;
  return e;
}

class MailboxListTest : public db::ConformanceBase {
 protected:
  std::unique_ptr<MailboxList> openList(MailboxListOptions options = {}) {
    auto list = MailboxList::open(path_, GetParam(), {}, options);
    EXPECT_TRUE(list.ok()) << list.status().toString();
    return list.ok() ? std::move(list).value() : nullptr;
  }

  // Names (toString form) a listing delivers, in order.
  template <typename F>
  static std::vector<std::string> names(F&& list_call) {
    std::vector<std::string> out;
    base::Status s = list_call([&](const MailboxName& n, const MailboxEntry&) {
      out.push_back(n.toString());
      return true;
    });
    EXPECT_TRUE(s.isOk()) << s.toString();
    return out;
  }

  void fill(MailboxList& list, const std::vector<std::string>& texts) {
    int id = 0;
    for (const std::string& t : texts) {
      base::Status s = list.insert(N(t), E("id" + std::to_string(++id)));
      ASSERT_TRUE(s.isOk()) << t << ": " << s.toString();
    }
  }
};

TEST_P(MailboxListTest, InsertLookupUpdateRemove) {
  auto list = openList();
  ASSERT_NE(list, nullptr);
  MailboxName sent = N("example.com!user/alice/Sent");
  EXPECT_EQ(list->lookup(sent).status().code(), Code::kNotFound);
  MailboxEntry e = E("0123456789abcdef0123456789abcdef", 1700000000);
  e.quota_root = "example.com!user/alice";
  e.special_use = "\\Sent";
  e.flags = MailboxEntry::kNoSelect;
  ASSERT_TRUE(list->insert(sent, e).isOk());
  EXPECT_EQ(*list->lookup(sent), e);
  EXPECT_EQ(list->insert(sent, E("other")).code(), Code::kExists);
  EXPECT_EQ(*list->lookup(sent), e);

  e.acl = "";
  e.flags = MailboxEntry::kDeleted;
  ASSERT_TRUE(list->update(sent, e).isOk());
  EXPECT_EQ(*list->lookup(sent), e);
  EXPECT_EQ(list->update(N("user/nobody"), e).code(), Code::kNotFound);

  ASSERT_TRUE(list->remove(sent).isOk());
  EXPECT_EQ(list->lookup(sent).status().code(), Code::kNotFound);
  EXPECT_EQ(list->remove(sent).code(), Code::kNotFound);
}

TEST_P(MailboxListTest, SurvivesReopen) {
  {
    auto list = openList();
    ASSERT_NE(list, nullptr);
    fill(*list, {"user/alice", "user/alice/x", "shared/news"});
  }
  auto list = openList();
  ASSERT_NE(list, nullptr);
  EXPECT_EQ(list->lookup(N("user/alice/x"))->unique_id, "id2");
  EXPECT_EQ(names([&](auto fn) { return list->forEach(fn); }),
            (std::vector<std::string>{"shared/news", "user/alice", "user/alice/x"}));
}

TEST_P(MailboxListTest, Listings) {
  auto list = openList();
  ASSERT_NE(list, nullptr);
  fill(*list, {"user/alice", "user/alice/a", "user/alice/a/b", "user/alice/a/b/c",
               "user/alice/a!", "user/alice/a b", "user/alice/ab", "user/alicia",
               "user/bob", "shared/a", "shared/a/x", "x.org!user/alice", "x.org!user/alice/a",
               "x.org!shared/a"});
  using V = std::vector<std::string>;
  EXPECT_EQ(names([&](auto fn) { return list->listSubtree(N("user/alice/a"), fn); }),
            (V{"user/alice/a", "user/alice/a/b", "user/alice/a/b/c"}));
  EXPECT_EQ(names([&](auto fn) { return list->listSubtree(N("user/alice"), fn); }),
            (V{"user/alice", "user/alice/a", "user/alice/a/b", "user/alice/a/b/c",
               "user/alice/a b", "user/alice/a!", "user/alice/ab"}));
  EXPECT_EQ(names([&](auto fn) { return list->listChildren(N("user/alice"), fn); }),
            (V{"user/alice/a", "user/alice/a b", "user/alice/a!", "user/alice/ab"}));
  EXPECT_EQ(names([&](auto fn) { return list->listChildren(N("user/alice/a/b/c"), fn); }), V{});
  EXPECT_EQ(names([&](auto fn) { return list->listChildren(N("shared/a/x"), fn); }), V{});
  // A parent that is not listed itself still has its children found.
  ASSERT_TRUE(list->remove(N("user/alice/a/b")).isOk());
  EXPECT_EQ(names([&](auto fn) { return list->listChildren(N("user/alice/a/b"), fn); }),
            (V{"user/alice/a/b/c"}));
  EXPECT_EQ(names([&](auto fn) { return list->forEachInDomain("x.org", fn); }),
            (V{"x.org!shared/a", "x.org!user/alice", "x.org!user/alice/a"}));
  EXPECT_EQ(names([&](auto fn) { return list->forEachInDomain("", fn); }).size(), 10u);
  EXPECT_EQ(names([&](auto fn) { return list->forEach(fn); }).size(), 13u);
  // Early stop.
  int calls = 0;
  ASSERT_TRUE(list->forEach([&](const MailboxName&, const MailboxEntry&) {
                    return ++calls < 2;
                  }).isOk());
  EXPECT_EQ(calls, 2);
}

TEST_P(MailboxListTest, RenameSubtree) {
  auto list = openList();
  ASSERT_NE(list, nullptr);
  fill(*list, {"user/alice", "user/alice/a", "user/alice/a/b", "user/alice/a!",
               "user/alice/taken"});
  auto moves = list->renameSubtree(N("user/alice/a"), N("user/alice/z/y"));
  ASSERT_TRUE(moves.ok()) << moves.status().toString();
  ASSERT_EQ(moves->size(), 2u);
  EXPECT_EQ((*moves)[0].from, N("user/alice/a"));
  EXPECT_EQ((*moves)[0].to, N("user/alice/z/y"));
  EXPECT_EQ((*moves)[0].entry.unique_id, "id2");  // the id moves with the name
  EXPECT_EQ((*moves)[1].to, N("user/alice/z/y/b"));
  using V = std::vector<std::string>;
  EXPECT_EQ(names([&](auto fn) { return list->forEach(fn); }),
            (V{"user/alice", "user/alice/a!", "user/alice/taken", "user/alice/z/y",
               "user/alice/z/y/b"}));
  EXPECT_EQ(list->lookup(N("user/alice/z/y/b"))->unique_id, "id3");

  // A taken target refuses the whole rename.
  EXPECT_EQ(list->renameSubtree(N("user/alice/z"), N("user/alice/taken")).status().code(),
            Code::kExists);
  EXPECT_EQ(list->renameSubtree(N("user/alice/z/y"), N("user/alice/taken")).status().code(),
            Code::kExists);
  EXPECT_EQ(list->renameSubtree(N("user/alice/nothing"), N("user/alice/q")).status().code(),
            Code::kNotFound);
  EXPECT_EQ(list->renameSubtree(N("user/alice/z"), N("user/alice/z/y/w")).status().code(),
            Code::kInvalid);
  EXPECT_EQ(list->renameSubtree(N("user/alice/z"), N("user/alice/z")).status().code(),
            Code::kInvalid);
  EXPECT_EQ(names([&](auto fn) { return list->forEach(fn); }).size(), 5u);

  // "z" itself is not listed (a bare hierarchy level), but its subtree moves: z/y -> up/y.
  ASSERT_TRUE(list->renameSubtree(N("user/alice/z"), N("user/alice/up")).ok());
  // Moving a subtree onto its own parent's place: z/y/b -> z/y where z/y is part of the move.
  fill(*list, {"shared/p/q", "shared/p/q/q"});
  ASSERT_TRUE(list->renameSubtree(N("shared/p/q"), N("shared/p")).ok());
  EXPECT_EQ(names([&](auto fn) { return list->forEachInDomain("", fn); }),
            (V{"shared/p", "shared/p/q", "user/alice", "user/alice/a!", "user/alice/taken",
               "user/alice/up/y", "user/alice/up/y/b"}));
  EXPECT_EQ(list->lookup(N("shared/p"))->unique_id, "id1");
  EXPECT_EQ(list->lookup(N("shared/p/q"))->unique_id, "id2");

  // A user's whole tree (the IMAP layer decides what renaming an INBOX means).
  ASSERT_TRUE(list->renameSubtree(N("user/alice"), N("user/alicia")).ok());
  EXPECT_EQ(list->lookup(N("user/alicia/taken"))->unique_id, "id5");
  EXPECT_EQ(list->lookup(N("user/alice")).status().code(), Code::kNotFound);
  ASSERT_TRUE(list->renameSubtree(N("user/alicia"), N("user/alice")).ok());

  // Across owners, kinds and domains; the target name limit applies to every moved name.
  ASSERT_TRUE(list->renameSubtree(N("user/alice/up"), N("x.org!shared/archive")).ok());
  EXPECT_EQ(list->lookup(N("x.org!shared/archive/y/b"))->unique_id, "id3");
  auto small = MailboxList::attach(*db::Database::open(path_ + "2", GetParam()),
                                   MailboxListOptions{.max_name_length = 20});
  ASSERT_TRUE(small.ok());
  fill(**small, {"shared/abc", "shared/abc/defghijkl"});
  EXPECT_EQ((*small)->renameSubtree(N("shared/abc"), N("shared/abcdef")).status().code(),
            Code::kTooBig);
  EXPECT_EQ((*small)->insert(N("shared/abcdefghijklmn"), E("x")).code(), Code::kTooBig);
  EXPECT_TRUE((*small)->insert(N("shared/abcdefghijklm"), E("x")).isOk());
}

TEST_P(MailboxListTest, TransactionsAreAllOrNothing) {
  auto list = openList();
  ASSERT_NE(list, nullptr);
  {
    auto t = list->begin();
    ASSERT_TRUE(t.ok()) << t.status().toString();
    ASSERT_TRUE((*t)->insert(N("user/a"), E("1")).isOk());
    ASSERT_TRUE((*t)->insert(N("user/a/x"), E("2")).isOk());
    EXPECT_EQ((*t)->lookup(N("user/a/x"))->unique_id, "2");  // own writes
    EXPECT_EQ(list->lookup(N("user/a")).status().code(), Code::kNotFound);
    EXPECT_EQ(names([&](auto fn) { return (*t)->listChildren(N("user/a"), fn); }),
              std::vector<std::string>{"user/a/x"});
    EXPECT_EQ((*t)->insert(N("user/a"), E("3")).code(), Code::kExists);
  }  // destroyed uncommitted: nothing happened
  EXPECT_EQ(list->lookup(N("user/a")).status().code(), Code::kNotFound);

  auto t = list->begin();
  ASSERT_TRUE(t.ok());
  ASSERT_TRUE((*t)->insert(N("user/a"), E("1")).isOk());
  ASSERT_TRUE((*t)->insert(N("user/a/x"), E("2")).isOk());
  ASSERT_TRUE((*t)->renameSubtree(N("user/a/x"), N("user/a/y")).ok());
  ASSERT_TRUE((*t)->update(N("user/a/y"), E("2", 7)).isOk());
  EXPECT_EQ(names([&](auto fn) { return (*t)->listSubtree(N("user/a"), fn); }),
            (std::vector<std::string>{"user/a", "user/a/y"}));
  ASSERT_TRUE((*t)->commit().isOk());
  EXPECT_EQ(list->lookup(N("user/a/y"))->uidvalidity, 7u);
  EXPECT_EQ(list->lookup(N("user/a/x")).status().code(), Code::kNotFound);
}

TEST_P(MailboxListTest, EntriesAreValidated) {
  auto list = openList();
  ASSERT_NE(list, nullptr);
  std::vector<std::pair<const char*, MailboxEntry>> bad;
  auto with = [&](const char* what, auto change) {
    MailboxEntry e = E("abc");
    change(e);
    bad.emplace_back(what, e);
  };
  with("empty id", [](MailboxEntry& e) { e.unique_id = ""; });
  with("id with '/'", [](MailboxEntry& e) { e.unique_id = "a/b"; });
  with("id too long", [](MailboxEntry& e) { e.unique_id = std::string(129, 'a'); });
  with("empty partition", [](MailboxEntry& e) { e.partition = ""; });
  with("partition '..'", [](MailboxEntry& e) { e.partition = ".."; });
  with("ACL not UTF-8", [](MailboxEntry& e) { e.acl = "a\tl\xff\t"; });
  with("ACL with LF", [](MailboxEntry& e) { e.acl = "a\tl\n"; });
  with("ACL over 64K", [](MailboxEntry& e) { e.acl = std::string(65537, 'a'); });
  with("quota root NUL", [](MailboxEntry& e) { e.quota_root = "a\0b"s; });
  with("special-use control", [](MailboxEntry& e) { e.special_use = "\\Sent\r"; });
  with("unknown flag", [](MailboxEntry& e) { e.flags = 1u << 7; });
  for (const auto& [what, e] : bad) {
    EXPECT_EQ(list->insert(N("user/a"), e).code(), Code::kInvalid) << what;
    EXPECT_EQ(encodeMailboxEntry(e).status().code(), Code::kInvalid) << what;
  }
  EXPECT_EQ(list->lookup(N("user/a")).status().code(), Code::kNotFound);
}

TEST_P(MailboxListTest, DamagedRecordsAreCorruptionNamingTheKey) {
  auto list = openList();
  ASSERT_NE(list, nullptr);
  fill(*list, {"user/a", "user/a/good", "user/b"});
  const std::string bad_value_key = N("user/a/bad").key();
  const std::string bad_key = "\0u\0a\0.."s;
  ASSERT_TRUE(db::putAll(list->database(), {{bad_value_key, "\x01\x00garbage"s},
                                           {bad_key, *encodeMailboxEntry(E("k"))},
                                           {"\xff" "stray", "x"}})
                  .isOk());
  auto looked = list->lookup(N("user/a/bad"));
  EXPECT_EQ(looked.status().code(), Code::kCorruption);
  EXPECT_NE(looked.status().message().find(printableBytes(bad_value_key)), std::string::npos)
      << looked.status().message();
  auto all = list->forEach([](const MailboxName&, const MailboxEntry&) { return true; });
  EXPECT_EQ(all.code(), Code::kCorruption);
  EXPECT_EQ(list->listSubtree(N("user/a"), [](auto&, auto&) { return true; }).code(),
            Code::kCorruption);
  EXPECT_EQ(list->renameSubtree(N("user/a"), N("user/c")).status().code(), Code::kCorruption);

  std::vector<DamagedRecord> damaged;
  std::vector<std::string> seen;
  ASSERT_TRUE(list->forEach(
                      [&](const MailboxName& n, const MailboxEntry&) {
                        seen.push_back(n.toString());
                        return true;
                      },
                      &damaged)
                  .isOk());
  EXPECT_EQ(seen, (std::vector<std::string>{"user/a", "user/a/good", "user/b"}));
  ASSERT_EQ(damaged.size(), 3u);
  EXPECT_EQ(damaged[2].key, "\xff" "stray");
  // Reconstruct's repair: remove the damaged records by key.
  auto t = list->begin();
  ASSERT_TRUE(t.ok());
  for (const DamagedRecord& d : damaged) {
    EXPECT_EQ(d.status.code(), Code::kCorruption);
    ASSERT_TRUE((*t)->removeKey(d.key).isOk());
  }
  EXPECT_EQ((*t)->removeKey("\xff" "format").code(), Code::kInvalid);
  ASSERT_TRUE((*t)->commit().isOk());
  EXPECT_TRUE(list->forEach([](auto&, auto&) { return true; }).isOk());
  EXPECT_TRUE(list->renameSubtree(N("user/a"), N("user/c")).ok());
}

TEST_P(MailboxListTest, FormatRecord) {
  { ASSERT_NE(openList(), nullptr); }
  auto db = openOk();
  ASSERT_NE(db, nullptr);
  EXPECT_EQ(db->get("\xff" "format").valueOr("?"), "darius-mailbox-list 1");
  for (const auto& [value, code] : std::vector<std::pair<std::string, Code>>{
           {"darius-mailbox-list 2", Code::kNotSupported}, {"garbage", Code::kCorruption}}) {
    ASSERT_TRUE(db::putAll(*db, {{"\xff" "format", value}}).isOk());
    auto list = MailboxList::open(path_, GetParam());
    EXPECT_EQ(list.status().code(), code) << value;
  }
  // Records but no format record: not a mailbox list (or a damaged one).
  auto txn = db->begin();
  ASSERT_TRUE(txn.ok());
  ASSERT_TRUE((*txn)->remove("\xff" "format").isOk());
  ASSERT_TRUE((*txn)->put(N("user/a").key(), *encodeMailboxEntry(E("1"))).isOk());
  ASSERT_TRUE((*txn)->commit().isOk());
  EXPECT_EQ(MailboxList::open(path_, GetParam()).status().code(), Code::kCorruption);
  EXPECT_EQ(MailboxList::attach(nullptr).status().code(), Code::kInvalid);
}

TEST_P(MailboxListTest, OpenFromConfig) {
  auto config = config::Config::parse("data_dir: " + dir_->path() + "\nmailboxes_db_backend: " +
                                          std::string(db::backendName(GetParam())) +
                                          "\nmax_mailbox_name: 16\n",
                                      "t.conf", "");
  ASSERT_TRUE(config.ok()) << config.status().toString();
  auto list = MailboxList::open(*config);
  ASSERT_TRUE(list.ok()) << list.status().toString();
  EXPECT_EQ((*list)->database().path(), dir_->file("mailboxes.db"));
  EXPECT_EQ((*list)->database().backend(), GetParam());
  EXPECT_EQ((*list)->options().max_name_length, 16u);
  EXPECT_TRUE((*list)->insert(N("shared/123456789"), E("1")).isOk());
  EXPECT_EQ((*list)->insert(N("shared/1234567890"), E("2")).code(), Code::kTooBig);
}

DARIUS_DB_ALL_BACKENDS(MailboxListTest);

// The value encoding byte by byte (docs/formats/mailbox-list.md), and its versioning rules.
TEST(MailboxEntryFormat, BytesAndVersions) {
  MailboxEntry e;
  e.unique_id = "u1";
  e.partition = "p";
  e.acl = "a\tlr\t";
  e.quota_root = "";
  e.uidvalidity = 0x01020304;
  e.created_modseq = 0x0102030405060708;
  e.special_use = "\\Sent";
  e.flags = MailboxEntry::kNoSelect;
  const std::string expected =
      "\x01\x00"s                           // format 1.0
      "\x00\x00\x00\x02"s                   // flags
      "\x01\x02\x03\x04"s                   // uidvalidity
      "\x01\x02\x03\x04\x05\x06\x07\x08"s   // created modseq
      "\x00\x00\x00\x02u1"s                 // unique id
      "\x00\x00\x00\x01p"s                  // partition
      "\x00\x00\x00\x05" "a\tlr\t"s         // ACL
      "\x00\x00\x00\x00"s                   // quota root
      "\x00\x00\x00\x05\\Sent"s;            // special-use
  auto bytes = encodeMailboxEntry(e);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(db::show(*bytes), db::show(expected));
  EXPECT_EQ(*decodeMailboxEntry(expected, "k"), e);

  std::string newer_minor = expected;
  newer_minor[1] = 3;
  EXPECT_EQ(*decodeMailboxEntry(newer_minor + "future fields", "k"), e);
  EXPECT_EQ(decodeMailboxEntry(expected + "x", "k").status().code(), Code::kCorruption);
  std::string newer_major = expected;
  newer_major[0] = 2;
  EXPECT_EQ(decodeMailboxEntry(newer_major, "k").status().code(), Code::kNotSupported);
  newer_major[0] = 0;
  EXPECT_EQ(decodeMailboxEntry(newer_major, "k").status().code(), Code::kCorruption);
  for (size_t cut = 0; cut < expected.size(); ++cut) {
    EXPECT_EQ(decodeMailboxEntry(expected.substr(0, cut), "k").status().code(),
              Code::kCorruption)
        << cut;
  }
  std::string huge_length = expected;
  huge_length[18] = '\xff';  // unique id length 0xff000002
  EXPECT_EQ(decodeMailboxEntry(huge_length, "k").status().code(), Code::kCorruption);
}

TEST(MailboxEntryFormat, RandomDamageNeverCrashes) {
  std::mt19937 rng(11);
  MailboxEntry e = E("0123456789abcdef", 99);
  e.quota_root = "user/alice";
  const std::string good = *encodeMailboxEntry(e);
  for (int i = 0; i < 20000; ++i) {
    std::string v = good;
    for (int m = 0, n = 1 + static_cast<int>(rng() % 4); m < n; ++m) {
      size_t at = rng() % (v.size() + 1);
      switch (rng() % 3) {
        case 0: v.insert(at, 1, static_cast<char>(rng() % 256)); break;
        case 1: if (at < v.size()) v.erase(at, 1); break;
        default: if (at < v.size()) v[at] = static_cast<char>(rng() % 256); break;
      }
    }
    auto d = decodeMailboxEntry(v, "key");
    if (d.ok()) {
      EXPECT_TRUE(validateEntry(*d).isOk());
    } else {
      EXPECT_TRUE(d.status().code() == Code::kCorruption ||
                  d.status().code() == Code::kNotSupported)
          << d.status().toString();
      EXPECT_NE(d.status().message().find("key"), std::string::npos);
    }
  }
}

}  // namespace mailbox_list_test
}  // namespace darius::mailbox
