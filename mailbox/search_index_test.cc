// The search index against real mailboxes: it never rules out a message that holds the needle
// (checked against the matcher over every message), it narrows, it survives damage by
// answering "candidate" and being rebuilt, and merges keep what they must.
#include "mailbox/search_index.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <random>

#include "lib/io/fd.h"
#include "lib/io/temp_dir.h"
#include "lib/mime/message.h"
#include "mailbox/index_format.h"
#include "mailbox/mailbox.h"
#include "mailbox/search_fold.h"
#include "mailbox/search_text.h"

namespace darius::mailbox {
namespace search_index_test {

const char* kWords[] = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf",
                        "hotel", "india", "juliett", "kilo", "lima", "straße", "Ünïcode",
                        "naïve", "日本語", "mike", "november"};

std::string message(int i, std::mt19937& rng) {
  std::string body;
  for (int w = 0; w < 20 + i % 30; ++w) {
    body += kWords[rng() % (sizeof(kWords) / sizeof(kWords[0]))];
    body += (w % 9 == 8) ? "\r\n" : " ";
  }
  std::string m = "From: User " + std::to_string(i) + " <u" + std::to_string(i) +
                  "@example.com>\r\nSubject: =?UTF-8?Q?caf=C3=A9_number_" + std::to_string(i) +
                  "?=\r\nMIME-Version: 1.0\r\n";
  if (i % 3 == 0) {
    m += "Content-Type: text/html; charset=utf-8\r\n\r\n<html><b>bo</b>ld <p>" + body +
         "</p> &amp; tag" + std::to_string(i) + "</html>\r\n";
  } else if (i % 3 == 1) {
    m += "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: "
         "quoted-printable\r\n\r\n" + body + " =C3=A9t=C3=A9 word" + std::to_string(i) + "\r\n";
  } else {
    m += "\r\n" + body + "\r\n";
  }
  return m;
}

class SearchIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto t = io::TempDir::create("search-index-test");
    ASSERT_TRUE(t.ok());
    tmp_ = std::make_unique<io::TempDir>(std::move(*t));
    stage_ = tmp_->file("stage");
    ASSERT_TRUE(cleanStageDir(env(), stage_).isOk());
    dir_ = tmp_->file("INBOX");
    auto m = Mailbox::create(env(), dir_, {"5f0e3c3d2a1b4c5d6e7f8091a2b3c4d5", "user\x1f" "a", 77, {}, ""});
    ASSERT_TRUE(m.ok());
    box_ = std::move(*m);
  }
  io::Env& env() { return *io::Env::posix(); }
  void append(int first, int n) {
    std::vector<StagedMessage> staged;
    for (int i = first; i < first + n; ++i) {
      std::string text = message(i, rng_);
      texts_[static_cast<uint32_t>(i)] = text;
      auto s = stageMessage(env(), stage_, text);
      ASSERT_TRUE(s.ok());
      staged.push_back(*s);
    }
    std::vector<AppendRequest> reqs;
    for (auto& s : staged) reqs.push_back({&s, 1790000000, 0, 0, {}});
    ASSERT_TRUE(box_->append(reqs).ok());
    for (auto& s : staged) ASSERT_TRUE(unstage(env(), s).isOk());
  }
  // What a scan says: does message `uid` hold `needle` in TEXT (or BODY)?
  bool scan(uint32_t uid, const std::string& needle, bool body) {
    mime::Message m = mime::Message::parse(texts_[uid]);
    TextMatcher matcher(needle);
    return visitSearchTexts(m, !body, [&](std::string_view t) { return matcher.matches(t); });
  }
  // Every needle: no message the scan finds is ruled out; returns how many were ruled out.
  size_t checkNeedle(const std::string& needle, bool body) {
    auto index = SearchIndex::open(dir_, 77);
    SearchFilter f = index->filter(foldForSearch(needle), body);
    size_t ruled_out = 0;
    for (const auto& [uid, text] : texts_) {
      bool hit = scan(uid, needle, body);
      if (hit) {
        EXPECT_TRUE(f.mayMatch(uid)) << needle << " uid " << uid;
      } else if (!f.mayMatch(uid)) {
        ++ruled_out;
      }
    }
    checkCandidatesAmong(f, needle);
    return ruled_out;
  }
  // candidatesAmong() of the messages (every other one, and UIDs past the index) is exactly
  // the positions whose mayMatch() is true.
  void checkCandidatesAmong(const SearchFilter& f, const std::string& needle) {
    for (int stride : {1, 2}) {
      std::vector<uint32_t> uids;
      int k = 0;
      for (const auto& entry : texts_) {
        if (k++ % stride == 0) uids.push_back(entry.first);
      }
      uids.push_back(100000);  // never indexed
      std::vector<size_t> want;
      for (size_t i = 0; i < uids.size(); ++i) {
        if (f.mayMatch(uids[i])) want.push_back(i);
      }
      EXPECT_EQ(f.candidatesAmong(uids), want) << needle << " stride " << stride;
    }
  }
  std::mt19937 rng_{42};
  std::map<uint32_t, std::string> texts_;
  std::unique_ptr<io::TempDir> tmp_;
  std::string stage_, dir_;
  std::unique_ptr<Mailbox> box_;
};

TEST_F(SearchIndexTest, NeverRulesOutAMatchAndNarrowsSubstringsCaseAndHtml) {
  append(1, 60);
  auto u = updateSearchIndex(*box_);
  ASSERT_TRUE(u.ok()) << u.status().toString();
  EXPECT_EQ(u->indexed, 60u);
  EXPECT_EQ(u->after.last_uid, 60u);
  for (bool body : {false, true}) {
    for (std::string n : {"ell", "HOTEL", "word17", "tag9", "bold", "& tag", "<b>", "café",
                          "CAFÉ NUMBER 5", "STRASSE", "ünï", "日本", "été", "number", "u3@",
                          "ab", "", "nothing-like-this"}) {
      checkNeedle(n, body);
    }
  }
  // It narrows: a word in one message rules out the rest.
  EXPECT_GE(checkNeedle("word17", true), 50u);
  EXPECT_GE(checkNeedle("tag9", true), 50u);
  // The header is TEXT, not BODY.
  EXPECT_EQ(checkNeedle("u3@example", false), 59u);
  EXPECT_EQ(checkNeedle("u3@example", true), 60u);
}

TEST_F(SearchIndexTest, AppendsSegmentsMergesAndDropsExpunged) {
  SearchUpdateOptions opt;
  opt.max_segments = 3;
  opt.min_dead = 5;
  for (int round = 0; round < 5; ++round) {
    append(1 + 10 * round, 10);
    auto u = updateSearchIndex(*box_, opt);
    ASSERT_TRUE(u.ok());
    EXPECT_EQ(u->indexed, 10u);
    EXPECT_LE(u->after.segments, 3u);
  }
  checkNeedle("word21", true);
  std::vector<uint32_t> gone;
  for (uint32_t uid = 1; uid <= 20; ++uid) gone.push_back(uid);
  ASSERT_TRUE(box_->expunge(gone).ok());
  ASSERT_TRUE(box_->refresh().isOk());
  auto u = updateSearchIndex(*box_, opt);
  ASSERT_TRUE(u.ok());
  EXPECT_TRUE(u->merged);
  EXPECT_EQ(u->after.documents, 30u);
  for (uint32_t uid = 1; uid <= 20; ++uid) texts_.erase(uid);
  checkNeedle("word33", false);
  EXPECT_GE(checkNeedle("word33", true), 29u);
}

// SearchUpdateOptions::stop (dariusd's shutdown): the messages indexed so far are kept as a
// segment, the rest stay candidates, and the next update carries on from there.
TEST_F(SearchIndexTest, AStoppedUpdateKeepsWhatItIndexed) {
  append(1, 10);
  SearchUpdateOptions opt;
  size_t asked = 0;
  opt.stop = [&] { return ++asked >= 4; };
  auto u = updateSearchIndex(*box_, opt);
  ASSERT_TRUE(u.ok()) << u.status().toString();
  EXPECT_TRUE(u->stopped);
  EXPECT_EQ(u->indexed, 4u);
  EXPECT_EQ(u->after.last_uid, 4u);
  checkNeedle("word7", true);  // 7 is not indexed: still found
  EXPECT_GE(checkNeedle("word2", true), 3u);
  auto rest = updateSearchIndex(*box_);
  ASSERT_TRUE(rest.ok());
  EXPECT_FALSE(rest->stopped);
  EXPECT_EQ(rest->indexed, 6u);
  EXPECT_EQ(rest->after.last_uid, 10u);
  EXPECT_GE(checkNeedle("word7", true), 9u);
}

TEST_F(SearchIndexTest, DamageIsACandidateEverywhereAndTheNextUpdateRebuilds) {
  append(1, 30);
  ASSERT_TRUE(updateSearchIndex(*box_).ok());
  append(31, 10);
  ASSERT_TRUE(updateSearchIndex(*box_).ok());
  std::string path = dir_ + "/" + std::string(kSearchIndexFileName);
  auto bytes = env().readFile(path);
  ASSERT_TRUE(bytes.ok());
  // Flip a byte in the second segment: the first stays usable, the second is gone.
  auto first = SearchIndex::open(dir_, 77);
  ASSERT_EQ(first->segmentCount(), 2u);
  size_t second_at = kSearchHeaderSize + first->segment(0).size();
  first.reset();
  {
    auto fd = io::openFile(path, O_WRONLY);
    ASSERT_TRUE(fd.ok());
    ASSERT_TRUE(io::pwriteAll(fd->get(), second_at + 40, "\xff\xfe").isOk());
  }
  auto damaged = SearchIndex::open(dir_, 77);
  EXPECT_TRUE(damaged->stats().damaged);
  EXPECT_EQ(damaged->lastUid(), 30u);
  checkNeedle("word35", true);
  EXPECT_TRUE(damaged->filter(foldForSearch("word35"), true).mayMatch(35));
  damaged.reset();
  auto u = updateSearchIndex(*box_);
  ASSERT_TRUE(u.ok());
  EXPECT_TRUE(u->rebuilt);
  EXPECT_EQ(u->indexed, 10u);
  EXPECT_FALSE(u->after.damaged);
  EXPECT_GE(checkNeedle("word35", true), 39u);
  // Truncated to half its header, or another UIDVALIDITY: nothing indexed, all candidates.
  ASSERT_EQ(::truncate(path.c_str(), 10), 0);
  auto cut = SearchIndex::open(dir_, 77);
  EXPECT_TRUE(cut->stats().damaged);
  EXPECT_EQ(cut->lastUid(), 0u);
  EXPECT_EQ(checkNeedle("word35", true), 0u);
  auto again = updateSearchIndex(*box_);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->indexed, 40u);
  EXPECT_TRUE(SearchIndex::open(dir_, 78)->stats().damaged);
}

TEST_F(SearchIndexTest, UnreadableMessagesStayCandidates) {
  append(1, 5);
  ASSERT_EQ(::unlink(box_->messagePath(3).c_str()), 0);
  auto u = updateSearchIndex(*box_);
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->unreadable, 1u);
  auto index = SearchIndex::open(dir_, 77);
  EXPECT_TRUE(index->filter(foldForSearch("nothing-like-this"), false).mayMatch(3));
  EXPECT_FALSE(index->filter(foldForSearch("nothing-like-this"), false).mayMatch(2));
  EXPECT_TRUE(index->filter(foldForSearch("nothing-like-this"), false).mayMatch(6));
  std::vector<uint32_t> uids = {1, 2, 3, 4, 5, 6};
  EXPECT_EQ(index->filter(foldForSearch("nothing-like-this"), false).candidatesAmong(uids),
            (std::vector<size_t>{2, 5}));  // unreadable when indexed, and not indexed
}

TEST(SearchIndexFormat, HostileSegmentsAreCorruptionNotACrash) {
  SegmentBuilder b;
  b.add(5, std::vector<TaggedGram>{(0x616263u << 1) | 1, 0x646566u << 1});
  b.add(9, std::vector<TaggedGram>{(0x616263u << 1)});
  std::string seg = b.finish(1, 10);
  auto ok = SegmentView::parse(seg);
  ASSERT_TRUE(ok.ok());
  auto p = ok->postings(0x616263);
  ASSERT_TRUE(p.ok() && p->has_value());
  EXPECT_EQ(*ok->decode(**p, false), (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(*ok->decode(**p, true), (std::vector<uint32_t>{0}));
  EXPECT_FALSE(ok->postings(0x616264)->has_value());
  for (size_t cut = 0; cut < seg.size(); ++cut) {
    EXPECT_FALSE(SegmentView::parse(seg.substr(0, cut)).ok()) << cut;
  }
  // Any damaged byte is found by the check of what reads it: the open, the gram table block
  // a lookup reads, or the list it decodes.
  for (size_t at = 0; at < seg.size(); ++at) {
    std::string bad = seg;
    bad[at] = static_cast<char>(bad[at] ^ 0x5A);
    auto v = SegmentView::parse(bad);
    bool found = !v.ok();
    for (uint32_t gram : {0x616263u, 0x646566u}) {
      if (found) break;
      auto l = v->postings(gram);
      found = !l.ok() || !l->has_value() || !v->decode(**l, false).ok();
    }
    EXPECT_TRUE(found) << at;
  }
  EXPECT_FALSE(ok->decode({"\x80\x80\x80\x80\x80\x01", 0}, false).ok());
  PostingList out_of_range{"\x08", 0};
  out_of_range.crc = crc32Of(out_of_range.bytes);
  EXPECT_FALSE(ok->decode(out_of_range, false).ok());  // document 3 of 2
}

}  // namespace search_index_test
}  // namespace darius::mailbox
