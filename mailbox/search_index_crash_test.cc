// The search index after a crash and after torn writes (search_index.h, "Writing"): a child
// process running updateSearchIndex() is killed with SIGKILL at random moments, and the file
// is cut short or overwritten with zeros or garbage at random places. After each: open()
// works, no filter rules out a message that holds the needle (checked against a scan with
// visitSearchTexts and TextMatcher), and the next update completes with an undamaged index
// of every live message. Fixed seed, printed on failure.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <random>
#include <thread>

#include "lib/io/fd.h"
#include "lib/io/temp_dir.h"
#include "lib/mime/message.h"
#include "mailbox/index_format.h"
#include "mailbox/mailbox.h"
#include "mailbox/search_fold.h"
#include "mailbox/search_index.h"
#include "mailbox/search_text.h"

namespace darius::mailbox {
namespace search_index_crash_test {

constexpr uint32_t kSeed = 20261127;

const char* kWords[] = {"alpha", "bravo", "Charlie", "delta", "echo", "foxtrot", "golf",
                        "hotel", "india", "straße", "Ünïcode", "naïve", "日本語", "kilo"};

std::string message(int i, std::mt19937& rng) {
  std::string body;
  for (int w = 0; w < 30 + i % 40; ++w) {
    body += kWords[rng() % std::size(kWords)];
    body += (w % 9 == 8) ? "\r\n" : " ";
  }
  std::string m = "From: u" + std::to_string(i) + "@example.com\r\nSubject: =?UTF-8?Q?caf=C3=A9_" +
                  std::to_string(i) + "?=\r\nMIME-Version: 1.0\r\n";
  if (i % 2 == 0) {
    return m + "Content-Type: text/html; charset=utf-8\r\n\r\n<p>" + body + " &amp; w" +
           std::to_string(i) + "x</p>\r\n";
  }
  return m + "Content-Type: text/plain; charset=utf-8\r\n\r\n" + body + " w" + std::to_string(i) +
         "x\r\n";
}

class SearchIndexCrash : public ::testing::Test {
 protected:
  void SetUp() override {
    auto t = io::TempDir::create("search-index-crash");
    ASSERT_TRUE(t.ok());
    tmp_ = std::make_unique<io::TempDir>(std::move(*t));
    stage_ = tmp_->file("stage");
    ASSERT_TRUE(cleanStageDir(env(), stage_).isOk());
    dir_ = tmp_->file("INBOX");
    auto m = Mailbox::create(env(), dir_, {"6f0e3c3d2a1b4c5d6e7f8091a2b3c4d5", "user\x1f" "c", 91, {}, ""});
    ASSERT_TRUE(m.ok());
    box_ = std::move(*m);
    path_ = dir_ + "/" + std::string(kSearchIndexFileName);
    std::printf("search index crash seed %u\n", kSeed);
  }
  io::Env& env() { return *io::Env::posix(); }

  void append(int n) {
    std::vector<StagedMessage> staged;
    for (int k = 0; k < n; ++k) {
      int i = next_++;
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
    ASSERT_TRUE(box_->refresh().isOk());
  }

  // Needles and, per needle and key, which messages a scan finds.
  struct Needle {
    std::string text;
    bool body = false;
    std::map<uint32_t, bool> hits;
  };
  void computeHits() {
    needles_.clear();
    std::vector<std::string> words = {"hotel", "STRASSE", "ünï", "日本", "café 1", "&amp;", "<p>",
                                      "u12@", "w7x", "w150x", "w299x", "xyzzy", "ho", "ALPHA BRAVO"};
    for (int k = 0; k < 10; ++k) words.push_back("w" + std::to_string(rng_() % next_) + "x");
    for (const std::string& w : words) {
      for (bool body : {false, true}) {
        Needle n{w, body, {}};
        TextMatcher matcher(w);
        for (const auto& [uid, text] : texts_) {
          mime::Message m = mime::Message::parse(text);
          n.hits[uid] = visitSearchTexts(m, !body, [&](std::string_view t) {
            return matcher.matches(t);
          });
        }
        needles_.push_back(std::move(n));
      }
    }
  }

  // No filter rules out a message the scan finds; returns how many non-matches it ruled out.
  size_t checkNeverRulesOut(const SearchIndex& index, const std::string& what) {
    size_t ruled_out = 0;
    for (const Needle& n : needles_) {
      SearchFilter f = index.filter(foldForSearch(n.text), n.body);
      for (const auto& [uid, hit] : n.hits) {
        if (hit) {
          EXPECT_TRUE(f.mayMatch(uid)) << "seed " << kSeed << " " << what << ": needle "
                                       << n.text << (n.body ? " BODY" : " TEXT") << " uid " << uid;
        } else if (!f.mayMatch(uid)) {
          ++ruled_out;
        }
      }
    }
    return ruled_out;
  }

  // What a SEARCH does after a crash: the index is read as it is (any damage a query finds is
  // discarded, as imapd/commands/search.cc does), then the next update completes undamaged.
  void checkRecovers(const std::string& what) {
    {
      auto index = SearchIndex::open(dir_, 91);
      ASSERT_NE(index, nullptr);
      checkNeverRulesOut(*index, what);
      if (index->queryFoundDamage()) {
        ASSERT_TRUE(discardSearchIndex(dir_).isOk());
      }
    }
    auto u = updateSearchIndex(*box_);
    ASSERT_TRUE(u.ok()) << what << ": " << u.status().toString();
    EXPECT_FALSE(u->after.damaged) << what;
    EXPECT_EQ(u->after.last_uid, static_cast<uint32_t>(next_ - 1)) << what;
    // Every live message is a document; expunged ones may stay until a merge drops them.
    EXPECT_GE(u->after.documents, texts_.size()) << what;
    EXPECT_LE(u->after.documents, static_cast<size_t>(next_ - 1)) << what;
    auto index = SearchIndex::open(dir_, 91);
    EXPECT_FALSE(index->stats().damaged) << what;
    EXPECT_EQ(index->lastUid(), static_cast<uint32_t>(next_ - 1)) << what;
    // Undamaged and complete, so it narrows: most of (needle, non-matching message) pairs go.
    EXPECT_GT(checkNeverRulesOut(*index, what + " (after update)"), texts_.size() * 4) << what;
    EXPECT_FALSE(index->queryFoundDamage()) << what;
  }

  // Runs updateSearchIndex in a child and kills it after `delay`; returns whether it finished.
  bool killedUpdate(std::chrono::microseconds delay, const SearchUpdateOptions& opt) {
    pid_t pid = ::fork();
    if (pid == 0) {
      auto u = updateSearchIndex(*box_, opt);
      ::_exit(u.ok() ? 0 : 3);
    }
    EXPECT_GT(pid, 0);
    std::this_thread::sleep_for(delay);
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (WIFEXITED(status)) {
      EXPECT_EQ(WEXITSTATUS(status), 0);
    }
    return WIFEXITED(status);
  }

  std::mt19937 rng_{kSeed};
  int next_ = 1;
  std::map<uint32_t, std::string> texts_;
  std::vector<Needle> needles_;
  std::unique_ptr<io::TempDir> tmp_;
  std::string stage_, dir_, path_;
  std::unique_ptr<Mailbox> box_;
};

TEST_F(SearchIndexCrash, KilledUpdatesLeaveAnIndexThatNeverRulesOutAMatch) {
  append(300);
  computeHits();
  // How long a full update takes, so that the kills land before, in and after its writes.
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(updateSearchIndex(*box_).ok());
  auto full = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::steady_clock::now() - t0);
  std::printf("full update: %lld us\n", static_cast<long long>(full.count()));
  int finished = 0, killed = 0;
  // On a busy machine the child can run faster or slower than the measured update; the kill
  // window shrinks after each update that finished and widens back after a kill, and the loop
  // goes on past 36 iterations until enough kills landed inside updates.
  double scale = 1.0;
  for (int iter = 0; iter < 90 && (iter < 36 || killed < 12); ++iter) {
    SearchUpdateOptions opt;
    opt.max_postings = 2000 + rng_() % 20000;  // many small segments: many appends to tear
    switch (iter % 3) {
      case 0:  // from nothing
        ASSERT_TRUE(removeSearchIndex(dir_).isOk());
        break;
      case 1:  // new messages on top of an index
        append(20);
        computeHits();
        break;
      case 2: {  // expunge some and merge (the rewrite-and-rename path)
        std::vector<uint32_t> gone;
        for (const auto& [uid, text] : texts_) {
          if (rng_() % 8 == 0) gone.push_back(uid);
        }
        ASSERT_TRUE(box_->expunge(gone).ok());
        ASSERT_TRUE(box_->refresh().isOk());
        for (uint32_t uid : gone) texts_.erase(uid);
        for (Needle& n : needles_) {
          for (uint32_t uid : gone) n.hits.erase(uid);
        }
        opt.min_dead = 1;
        opt.dead_ratio = 0.01;
        opt.max_segments = 2;
        break;
      }
    }
    // Appending 20 messages is a small part of a full update; the other two are about one.
    long long span = iter % 3 == 1 ? full.count() / 6 : full.count() * 3 / 4;
    span = static_cast<long long>(static_cast<double>(span) * scale);
    auto delay = std::chrono::microseconds(rng_() % static_cast<uint64_t>(span + 1));
    if (killedUpdate(delay, opt)) {
      ++finished;
      scale = std::max(0.05, scale * 0.7);
    } else {
      ++killed;
      scale = std::min(1.0, scale * 1.1);
    }
    checkRecovers("iteration " + std::to_string(iter));
    if (HasFailure()) return;
  }
  std::printf("killed %d, finished %d\n", killed, finished);
  // The kills must land mostly inside updates, else this tests nothing.
  EXPECT_GE(killed, 10);
}

TEST_F(SearchIndexCrash, TornAndOverwrittenFilesNeverRuleOutAMatch) {
  append(200);
  SearchUpdateOptions opt;
  opt.max_postings = 5000;
  ASSERT_TRUE(updateSearchIndex(*box_, opt).ok());
  append(40);
  ASSERT_TRUE(updateSearchIndex(*box_, opt).ok());
  computeHits();
  auto good = env().readFile(path_);
  ASSERT_TRUE(good.ok());
  ASSERT_GT(SearchIndex::open(dir_, 91)->segmentCount(), 2u);
  for (int iter = 0; iter < 60; ++iter) {
    std::string bytes = *good;
    std::string what;
    size_t at = rng_() % bytes.size();
    switch (iter % 3) {
      case 0:
        bytes.resize(at);
        what = "truncated at " + std::to_string(at);
        break;
      case 1: {
        size_t n = std::min<size_t>(1 + rng_() % 600, bytes.size() - at);
        std::fill(bytes.begin() + static_cast<long>(at), bytes.begin() + static_cast<long>(at + n), '\0');
        what = "zeros at " + std::to_string(at) + "+" + std::to_string(n);
        break;
      }
      default: {
        size_t n = std::min<size_t>(1 + rng_() % 64, bytes.size() - at);
        for (size_t k = 0; k < n; ++k) bytes[at + k] = static_cast<char>(rng_());
        what = "garbage at " + std::to_string(at) + "+" + std::to_string(n);
        break;
      }
    }
    // Written in place (not renamed): what a torn write leaves in the file readers map.
    {
      auto fd = io::openFile(path_, O_WRONLY | O_TRUNC);
      ASSERT_TRUE(fd.ok());
      ASSERT_TRUE(io::writeAll(fd->get(), bytes).isOk());
    }
    checkRecovers("iteration " + std::to_string(iter) + ", " + what);
    if (HasFailure()) return;
  }
}

}  // namespace search_index_crash_test
}  // namespace darius::mailbox
