// SEARCH over the shared corpus of real-world and broken messages (tests/data/mime/
// shared-corpus, a byte-for-byte copy of /work/shared/corpus/mime): every message is stored
// through the Store, every kind of key runs over all of them without failing, and what one
// key finds is consistent with what the message says: a word of a message's decoded Subject is
// found by SUBJECT and by TEXT, a word of its first text part by BODY.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "mailbox/search_text.h"
#include "imapd/search/search_eval.h"
#include "lib/base/utf8.h"
#include "lib/mime/message.h"
#include "imapd/search/search_test_util.h"
#include "mailbox/store.h"

namespace darius::imapd::search {
namespace search_corpus_test {

namespace fs = std::filesystem;
using mailbox::decodedFieldValues;
using mailbox::visitSearchTexts;

std::string corpusDir() {
  if (const char* src = std::getenv("DARIUS_SOURCE_DIR")) {
    std::string d = std::string(src) + "/tests/data/mime/shared-corpus";
    if (fs::is_directory(d)) return d;
  }
  if (fs::is_directory("/work/shared/corpus/mime")) return "/work/shared/corpus/mime";
  return {};
}

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Canonical CRLF, as the store keeps messages.
std::string toCrlf(const std::string& raw) {
  std::string out;
  out.reserve(raw.size() + raw.size() / 20);
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\n' && (i == 0 || raw[i - 1] != '\r')) out += '\r';
    out += raw[i];
  }
  return out;
}

// The longest run of letters (ASCII or not) in `text`, at most 24 bytes, cut at a character
// boundary: a word to look for.
std::string wordOf(const std::string& text) {
  std::string best, cur;
  auto flush = [&] {
    if (cur.size() > best.size()) best = cur;
    cur.clear();
  };
  for (size_t i = 0; i < text.size();) {
    base::Utf8Sequence s = base::decodeUtf8(text, i);
    size_t len = s.length == 0 ? 1 : s.length;
    bool letter = s.length > 1 || (s.length == 1 && std::isalnum(static_cast<unsigned char>(text[i])));
    if (letter && s.code_point != 0xFFFD && cur.size() + len <= 24) {
      cur.append(text, i, len);
    } else {
      flush();
    }
    i += len;
  }
  flush();
  return best;
}

std::string asLiteral(const std::string& s) {
  // A literal: the word may hold any byte a quoted string could not.
  return "{" + std::to_string(s.size()) + "}\r\n" + s;
}

class CorpusSearch : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = corpusDir();
    if (dir_.empty()) GTEST_SKIP() << "corpus not found";
    tmp_ = std::make_unique<ScratchDir>("search-corpus");
    ASSERT_TRUE(tmp_->ok());
    mailbox::StoreOptions o;
    o.data_dir = tmp_->file("data");
    o.partitions = {{"default", tmp_->file("p1")}};
    auto s = mailbox::Store::open(o);
    ASSERT_TRUE(s.ok());
    store_ = std::move(*s);
    auto n = mailbox::MailboxName::personal("", "corpus", {});
    ASSERT_TRUE(n.ok());
    name_ = *n;
    ASSERT_TRUE(store_->create(*name_).ok());

    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir_)) {
      if (e.is_regular_file() && e.path().filename().string()[0] != '.') files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    auto p = store_->partition("default");
    for (const fs::path& f : files) {
      std::string raw = toCrlf(readFile(f));
      auto staged = store_->stage(**p, raw);
      ASSERT_TRUE(staged.ok()) << f;
      mailbox::AppendRequest r{&*staged, 1700000000, 60, 0, {}};
      auto a = store_->append(*name_, std::span<const mailbox::AppendRequest>(&r, 1));
      ASSERT_TRUE(a.ok()) << f << ": " << a.status().toString();
      ASSERT_TRUE(store_->unstage(*staged).isOk());
      messages_.push_back({(*a)[0].uid, std::move(raw), f.filename().string()});
      view_.push_back((*a)[0].uid);
    }
    auto m = store_->openMailbox(*name_);
    ASSERT_TRUE(m.ok());
    mailbox_ = std::move(m->mailbox);
  }

  base::Result<SearchOutcome> run(const std::string& keys) {
    std::string text = " " + keys;
    proto::ArgParser p(text);
    auto args = parseSearchArgs(p, false);
    if (!args.ok()) return args.status();
    auto prog = SearchProgram::compile(*args);
    if (!prog.ok()) return prog.status();
    SearchScope scope;
    scope.mailbox = mailbox_.get();
    scope.view = view_;
    return prog->run(scope);
  }

  bool finds(const std::string& keys, uint32_t uid) {
    auto out = run(keys);
    EXPECT_TRUE(out.ok()) << keys << ": " << out.status().toString();
    if (!out.ok()) return false;
    for (const SearchMatch& m : out->matches) {
      if (m.uid == uid) return true;
    }
    return false;
  }

  struct Stored {
    uint32_t uid;
    std::string raw;
    std::string file;
  };
  std::string dir_;
  std::unique_ptr<ScratchDir> tmp_;
  std::unique_ptr<mailbox::Store> store_;
  std::optional<mailbox::MailboxName> name_;
  std::unique_ptr<mailbox::Mailbox> mailbox_;
  std::vector<Stored> messages_;
  std::vector<uint32_t> view_;
};

TEST_F(CorpusSearch, EveryKindOfKeyRunsOverEveryMessage) {
  ASSERT_GT(messages_.size(), 300u);
  for (const char* keys :
       {"TEXT the", "BODY \"\xd0\xbf\xd1\x80\xd0\xb8\"", "TEXT \"=?\"", "BODY boundary",
        "HEADER Received from", "HEADER Content-Type multipart", "SUBJECT re",
        "FROM \"@\"", "TO a", "CC b", "BCC c", "SENTSINCE 1-Jan-2000", "SENTBEFORE 1-Jan-1990",
        "SENTON 1-Jan-1970", "OR TEXT zzzzqqq NOT BODY xyz", "LARGER 100000", "ALL"}) {
    auto out = run(keys);
    ASSERT_TRUE(out.ok()) << keys << ": " << out.status().toString();
    EXPECT_EQ(out->unreadable, 0u) << keys;
  }
  auto all = run("ALL");
  EXPECT_EQ(all->matches.size(), messages_.size());
  auto sent = run("OR SENTSINCE 1-Jan-1900 SENTBEFORE 1-Jan-1900");
  EXPECT_EQ(sent->matches.size(), messages_.size());
}

TEST_F(CorpusSearch, WhatAMessageSaysIsFound) {
  size_t checked_subjects = 0, checked_bodies = 0;
  for (const Stored& m : messages_) {
    mime::Message msg = mime::Message::parse(m.raw);
    mime::Header h = msg.header(msg.root());
    std::string uid = "UID " + std::to_string(m.uid) + " ";
    std::vector<std::string> subjects = decodedFieldValues(h, "Subject");
    if (!subjects.empty()) {
      std::string w = wordOf(subjects.front());
      if (w.size() >= 3) {
        EXPECT_TRUE(finds(uid + "SUBJECT " + asLiteral(w), m.uid)) << m.file << " " << w;
        EXPECT_TRUE(finds(uid + "TEXT " + asLiteral(w), m.uid)) << m.file << " " << w;
        ++checked_subjects;
      }
    }
    std::string first_text;
    visitSearchTexts(msg, false, [&](std::string_view t) {
      first_text = std::string(t.substr(0, 4096));
      return true;
    });
    std::string w = wordOf(first_text);
    if (w.size() >= 4) {
      EXPECT_TRUE(finds(uid + "BODY " + asLiteral(w), m.uid)) << m.file << " " << w;
      EXPECT_TRUE(finds(uid + "TEXT " + asLiteral(w), m.uid)) << m.file << " " << w;
      ++checked_bodies;
    }
  }
  // Most of the corpus has a subject and a text body; the checks must really have run.
  EXPECT_GT(checked_subjects, 200u);
  EXPECT_GT(checked_bodies, 200u);
}

}  // namespace search_corpus_test
}  // namespace darius::imapd::search
