// Differential test of the search index (mailbox/search_index.h, issue 19): random SEARCH
// programs run twice over the same mailbox, once with the index (SearchScope::index) and its
// candidates read on three threads, and once scanning every message on one, and must give
// the same answer. Mailboxes: the shared MIME corpus and
// generated messages (encoded words, quoted-printable and base64 bodies, HTML with entities,
// attached message/rfc822, non-ASCII and case variants, random flags); states: fully indexed
// in several segments, after an expunge of a third and a merging update, and partly indexed
// (messages appended after the last update). Needles are substrings of what the messages
// decode to, so most programs have hits. A failure prints the seed and the program.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "imapd/search/search_eval.h"
#include "imapd/search/search_test_util.h"
#include "lib/mime/message.h"
#include "mailbox/search_index.h"
#include "mailbox/search_text.h"
#include "mailbox/store.h"

namespace darius::imapd::search {
namespace {

namespace fs = std::filesystem;

// Fixed, so that a failure repeats; DARIUS_SEARCH_DIFF_SEED runs another.
const uint32_t kSeed = [] {
  const char* s = std::getenv("DARIUS_SEARCH_DIFF_SEED");
  return s != nullptr ? static_cast<uint32_t>(std::strtoul(s, nullptr, 10)) : 0x5d1ff19u;
}();

std::string corpusDir() {
  if (const char* src = std::getenv("DARIUS_SOURCE_DIR")) {
    std::string d = std::string(src) + "/tests/data/mime/shared-corpus";
    if (fs::is_directory(d)) return d;
  }
  for (const char* d : {"../tests/data/mime/shared-corpus", "../../tests/data/mime/shared-corpus",
                        "/work/shared/corpus/mime"}) {
    if (fs::is_directory(d)) return d;
  }
  return {};
}

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string toCrlf(const std::string& raw) {
  std::string out;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\n' && (i == 0 || raw[i - 1] != '\r')) out += '\r';
    out += raw[i];
  }
  return out;
}

std::string base64(std::string_view in) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += k[(v >> s) & 63];
    if (out.size() % 78 == 76) out += "\r\n";
  }
  if (i < in.size()) {
    uint32_t v = uint8_t(in[i]) << 16;
    if (i + 1 < in.size()) v |= uint8_t(in[i + 1]) << 8;
    out += k[(v >> 18) & 63];
    out += k[(v >> 12) & 63];
    out += i + 1 < in.size() ? k[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string quotedPrintable(std::string_view in) {
  std::string out;
  size_t line = 0;
  for (unsigned char c : in) {
    std::string piece;
    if ((c >= 33 && c <= 126 && c != '=') || c == ' ') {
      piece = std::string(1, static_cast<char>(c));
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "=%02X", c);
      piece = buf;
    }
    if (line + piece.size() > 72) {
      out += "=\r\n";
      line = 0;
    }
    out += piece;
    line += piece.size();
  }
  return out;
}

const char* kVocab[] = {"alpha",  "Bravo",   "CHARLIE", "delta", "Straße", "STRASSE", "naïve",
                        "Ünïcode", "日本語", "café",    "CAFÉ",  "grüße",  "Ελληνικά", "écho",
                        "kilo",   "Lima",    "mike",    "ÇA",    "zulu",   "x-ray",   "ÅNGSTRÖM",
                        // Decomposed, compatibility and other folds (NFKC_Casefold).
                        "cafe\u0301s", "ＡＢＣdef", "\uFB01le", "Ǆemal", "ΣΊΣΥΦΟΣ", "İstanbul"};

class Generator {
 public:
  explicit Generator(std::mt19937& rng) : rng_(rng) {}
  std::string words(int n) {
    std::string s;
    for (int i = 0; i < n; ++i) {
      if (i) s += (rng_() % 11 == 0) ? "\r\n" : " ";
      s += kVocab[rng_() % std::size(kVocab)];
    }
    return s;
  }
  // A unique token per message: the selective needle of the files_opened check.
  static std::string token(int i) {
    std::string t = "qv";
    for (int k = 0; k < 4; ++k, i /= 26) t += static_cast<char>('a' + i % 26);
    return t;
  }
  std::string encodedWord(const std::string& s) {
    if (rng_() % 2) return "=?UTF-8?B?" + base64(s) + "?=";
    std::string q = quotedPrintable(s);
    std::string out;
    for (char c : q) out += c == ' ' ? std::string("_") : std::string(1, c);
    return "=?utf-8?Q?" + out + "?=";
  }
  std::string headers(int i) {
    std::string h = "From: " + encodedWord(words(2)) + " <u" + std::to_string(i) +
                    "@example.org>\r\nTo: " + words(1) + " <to" + std::to_string(i % 7) +
                    "@example.net>\r\n";
    if (rng_() % 2) h += "Cc: " + encodedWord(words(1)) + " <cc" + std::to_string(i % 5) + "@x.org>\r\n";
    if (rng_() % 3 == 0) h += "Bcc: bcc" + std::to_string(i % 3) + "@hidden.example\r\n";
    h += "Subject: " + words(1) + " " + encodedWord(words(2)) + " n" + std::to_string(i) + "\r\n";
    h += "X-Tag: " + words(2) + "\r\nDate: Tue, 3 Mar 2026 10:00:00 +0100\r\nMIME-Version: 1.0\r\n";
    return h;
  }
  std::string leaf(int i) {
    std::string text = words(5 + static_cast<int>(rng_() % 25)) + " " + token(i);
    switch (rng_() % 4) {
      case 0:
        return "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: "
               "quoted-printable\r\n\r\n" + quotedPrintable(text) + "\r\n";
      case 1:
        return "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: "
               "base64\r\n\r\n" + base64(text) + "\r\n";
      case 2:
        return "Content-Type: text/html; charset=utf-8\r\n\r\n<html><body><p class=\"para\">" +
               text + " &amp; caf&eacute; &#233;t&#xE9; &lt;div&gt;</p><table><tr><td>" +
               words(2) + "</td></tr></table></body></html>\r\n";
      default:
        return "Content-Type: text/plain; charset=utf-8\r\n\r\n" + text + "\r\n";
    }
  }
  std::string message(int i) {
    std::string m = headers(i);
    if (rng_() % 3 != 0) return m + leaf(i);
    std::string b = "b" + std::to_string(i) + "=_x";
    m += "Content-Type: multipart/mixed; boundary=\"" + b + "\"\r\n\r\npreamble\r\n--" + b +
         "\r\n" + leaf(i) + "--" + b + "\r\n";
    if (rng_() % 2) {
      m += "Content-Type: message/rfc822\r\n\r\n" + headers(i + 100000) + leaf(i + 100000) +
           "--" + b + "\r\n";
    }
    m += leaf(i + 200000) + "--" + b + "--\r\n";
    return m;
  }

 private:
  std::mt19937& rng_;
};

struct Stored {
  uint32_t uid = 0;
  std::vector<std::string> body;     // decoded body texts
  std::vector<std::string> all;      // decoded headers and bodies
  std::vector<std::string> fields;   // decoded Subject, From, To, Cc, Bcc, X-Tag values
};

class SearchIndexDiff : public ::testing::Test {
 protected:
  void SetUp() override {
    tmp_ = std::make_unique<ScratchDir>("search-index-diff");
    ASSERT_TRUE(tmp_->ok());
    mailbox::StoreOptions o;
    o.data_dir = tmp_->file("data");
    o.partitions = {{"default", tmp_->file("p1")}};
    auto s = mailbox::Store::open(o);
    ASSERT_TRUE(s.ok());
    store_ = std::move(*s);
    auto n = mailbox::MailboxName::personal("", "diff", {});
    ASSERT_TRUE(n.ok());
    name_ = *n;
    ASSERT_TRUE(store_->create(*name_).ok());
    auto m = store_->openMailbox(*name_);
    ASSERT_TRUE(m.ok());
    mailbox_ = std::move(m->mailbox);
    std::printf("search index diff seed %u\n", kSeed);
  }

  void add(const std::string& raw) {
    auto p = store_->partition("default");
    auto staged = store_->stage(**p, raw);
    ASSERT_TRUE(staged.ok());
    uint32_t flags = 0;
    for (uint32_t f : {mailbox::kFlagSeen, mailbox::kFlagFlagged, mailbox::kFlagDeleted,
                       mailbox::kFlagAnswered, mailbox::kFlagDraft}) {
      if (rng_() % 3 == 0) flags |= f;
    }
    mailbox::AppendRequest r{&*staged, 1700000000, 60, flags, {}};
    auto a = store_->append(*name_, std::span<const mailbox::AppendRequest>(&r, 1));
    ASSERT_TRUE(a.ok()) << a.status().toString();
    ASSERT_TRUE(store_->unstage(*staged).isOk());
    Stored st;
    st.uid = (*a)[0].uid;
    mime::Message msg = mime::Message::parse(raw);
    mailbox::visitSearchTexts(msg, false, [&](std::string_view t) {
      st.body.emplace_back(t.substr(0, 8192));
      return false;
    });
    mailbox::visitSearchTexts(msg, true, [&](std::string_view t) {
      st.all.emplace_back(t.substr(0, 8192));
      return false;
    });
    mime::Header h = msg.header(msg.root());
    for (const char* f : {"Subject", "From", "To", "Cc", "Bcc", "X-Tag"}) {
      for (std::string& v : mailbox::decodedFieldValues(h, f)) st.fields.push_back(std::move(v));
    }
    messages_.push_back(std::move(st));
  }

  void refresh() {
    ASSERT_TRUE(mailbox_->refresh().isOk());
    view_.clear();
    for (size_t i = 0; i < mailbox_->recordCount(); ++i) {
      auto r = mailbox_->record(i);
      ASSERT_TRUE(r.ok());
      if (r->live()) view_.push_back(r->uid);
    }
    index_ = mailbox::SearchIndex::open(mailbox_->dir(), mailbox_->index().uidvalidity);
  }

  void update(const mailbox::SearchUpdateOptions& opt) {
    ASSERT_TRUE(mailbox_->refresh().isOk());
    auto u = mailbox::updateSearchIndex(*mailbox_, opt);
    ASSERT_TRUE(u.ok()) << u.status().toString();
    last_update_ = *u;
    refresh();
    ASSERT_FALSE(index_->stats().damaged);
  }

  // 1..12 characters of a random text of a random live message (so most needles hit), with
  // ASCII case flipped at random; or a vocabulary word in another case; or a non-hit.
  std::string needle(bool fields_only, bool body_only) {
    int pick = static_cast<int>(rng_() % 20);
    if (pick == 0) return "zz" + std::to_string(rng_() % 100000) + "qq";
    if (pick == 1) return "ЖЖ" + std::string(kVocab[rng_() % std::size(kVocab)]);
    if (pick == 2) return kVocab[rng_() % std::size(kVocab)];
    for (int attempt = 0; attempt < 20; ++attempt) {
      const Stored& m = messages_[rng_() % messages_.size()];
      const auto& texts = fields_only ? m.fields : body_only ? m.body : m.all;
      if (texts.empty()) continue;
      const std::string& t = texts[rng_() % texts.size()];
      if (t.empty()) continue;
      size_t at = rng_() % t.size();
      while (at > 0 && (static_cast<unsigned char>(t[at]) & 0xC0) == 0x80) --at;
      size_t chars = 1 + rng_() % 12, end = at;
      for (size_t c = 0; c < chars && end < t.size(); ++c) {
        ++end;
        while (end < t.size() && (static_cast<unsigned char>(t[end]) & 0xC0) == 0x80) ++end;
      }
      std::string s = t.substr(at, end - at);
      bool bad = false;
      for (unsigned char c : s) bad = bad || c < 0x20 || c == 0x7F;
      if (bad || s.empty()) continue;
      for (char& c : s) {
        if (rng_() % 3 == 0 && std::isalpha(static_cast<unsigned char>(c))) c ^= 0x20;
      }
      return s;
    }
    return "the";
  }

  static std::string literal(const std::string& s) {
    return "{" + std::to_string(s.size()) + "}\r\n" + s;
  }

  std::string key(int depth) {
    static const char* kFlags[] = {"SEEN", "UNSEEN", "FLAGGED", "UNFLAGGED", "DELETED",
                                   "UNDELETED", "ANSWERED", "DRAFT", "UNDRAFT"};
    int r = static_cast<int>(rng_() % 20);
    if (depth < 3 && r == 0) return "NOT " + key(depth + 1);
    if (depth < 3 && r == 1) return "OR " + key(depth + 1) + " " + key(depth + 1);
    if (depth < 3 && r == 2) return "(" + key(depth + 1) + " " + key(depth + 1) + ")";
    if (r == 3) return kFlags[rng_() % std::size(kFlags)];
    if (r < 9) return "TEXT " + literal(needle(false, false));
    if (r < 14) return "BODY " + literal(needle(false, true));
    static const char* kFieldKeys[] = {"SUBJECT", "FROM", "TO", "CC", "BCC"};
    if (r < 18) return std::string(kFieldKeys[rng_() % 5]) + " " + literal(needle(true, false));
    static const char* kHeaders[] = {"Subject", "X-Tag", "Received", "Content-Type", "Message-ID"};
    return std::string("HEADER ") + kHeaders[rng_() % 5] + " " + literal(needle(true, false));
  }

  std::string program() {
    std::string p = "CHARSET UTF-8 " + key(0);
    for (int extra = static_cast<int>(rng_() % 3); extra > 0; --extra) p += " " + key(0);
    return p;
  }

  base::Result<SearchOutcome> run(const std::string& keys, bool with_index) {
    std::string text = " " + keys;
    proto::ArgParser p(text);
    auto args = parseSearchArgs(p, false);
    if (!args.ok()) return args.status();
    auto prog = SearchProgram::compile(*args);
    if (!prog.ok()) return prog.status();
    SearchScope scope;
    scope.mailbox = mailbox_.get();
    scope.view = view_;
    scope.index = with_index ? index_.get() : nullptr;
    // The indexed run also reads its candidates on three threads (SearchScope::threads), so
    // the parallel path is compared with the plain scan as well.
    scope.threads = with_index ? 3 : 1;
    return prog->run(scope);
  }

  // Runs `count` random programs both ways; returns how many had hits.
  size_t compare(int count, const char* state) {
    size_t with_hits = 0;
    for (int i = 0; i < count; ++i) {
      std::string keys = program();
      auto scan = run(keys, false);
      auto indexed = run(keys, true);
      EXPECT_EQ(scan.ok(), indexed.ok()) << "seed " << kSeed << " " << state << ": " << keys;
      if (!scan.ok() || !indexed.ok()) {
        ADD_FAILURE() << "seed " << kSeed << " " << state << ": " << keys << ": "
                      << (scan.ok() ? indexed : scan).status().toString();
        continue;
      }
      ++programs_;
      EXPECT_EQ(scan->unreadable, 0u) << keys;
      EXPECT_EQ(indexed->unreadable, 0u) << keys;
      std::vector<uint32_t> a, b;
      for (const SearchMatch& m : scan->matches) a.push_back(m.uid);
      for (const SearchMatch& m : indexed->matches) b.push_back(m.uid);
      EXPECT_EQ(a, b) << "seed " << kSeed << " " << state << " program " << i << ": " << keys;
      if (a != b && ++failures_ > 5) return with_hits;
      if (!a.empty()) ++with_hits;
    }
    return with_hits;
  }

  // The index is used: a token found in one message opens a handful of files, not all.
  void checkSelective(int first, int last) {
    size_t opened_scan = 0, opened_index = 0;
    for (int k = 0; k < 40; ++k) {
      int i = first + static_cast<int>(rng_() % static_cast<uint32_t>(last - first));
      for (const char* kw : {"BODY ", "TEXT "}) {
        std::string keys = kw + Generator::token(i);
        auto scan = run(keys, false);
        auto indexed = run(keys, true);
        ASSERT_TRUE(scan.ok() && indexed.ok()) << keys;
        EXPECT_EQ(scan->matches, indexed->matches) << "seed " << kSeed << ": " << keys;
        opened_scan += scan->files_opened;
        opened_index += indexed->files_opened;
      }
    }
    std::printf("files opened: scan %zu, with index %zu\n", opened_scan, opened_index);
    EXPECT_GT(opened_scan, 0u);
    EXPECT_LT(opened_index * 10, opened_scan);
  }

  std::mt19937 rng_{kSeed};
  std::unique_ptr<ScratchDir> tmp_;
  std::unique_ptr<mailbox::Store> store_;
  std::optional<mailbox::MailboxName> name_;
  std::unique_ptr<mailbox::Mailbox> mailbox_;
  std::unique_ptr<mailbox::SearchIndex> index_;
  mailbox::SearchUpdate last_update_;
  std::vector<Stored> messages_;
  std::vector<uint32_t> view_;
  size_t programs_ = 0, failures_ = 0;
};

TEST_F(SearchIndexDiff, CorpusSameAnswerWithAndWithoutTheIndex) {
  std::string dir = corpusDir();
  if (dir.empty()) GTEST_SKIP() << "corpus not found";
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().filename().string()[0] != '.') files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) add(toCrlf(readFile(f)));
  ASSERT_GT(messages_.size(), 300u);
  mailbox::SearchUpdateOptions opt;
  opt.max_postings = 20000;  // several segments
  opt.max_segments = 100;
  update(opt);
  EXPECT_EQ(index_->lastUid(), view_.back());
  EXPECT_GT(index_->stats().segments, 1u);
  EXPECT_GT(compare(250, "corpus"), 60u);
  EXPECT_GE(programs_, 250u);
}

TEST_F(SearchIndexDiff, GeneratedSameAnswerIndexedMergedAndPartlyIndexed) {
  Generator gen(rng_);
  for (int i = 0; i < 240; ++i) add(toCrlf(gen.message(i)));
  mailbox::SearchUpdateOptions opt;
  opt.max_postings = 30000;
  opt.max_segments = 100;
  update(opt);
  EXPECT_GT(index_->stats().segments, 1u);
  EXPECT_EQ(index_->stats().documents, 240u);
  EXPECT_GT(compare(200, "generated"), 60u);
  checkSelective(0, 240);

  // Expunge a third; the merging update drops their documents.
  std::vector<uint32_t> gone;
  for (size_t i = 0; i < messages_.size(); i += 3) gone.push_back(messages_[i].uid);
  ASSERT_TRUE(mailbox_->expunge(gone).ok());
  std::vector<Stored> kept;
  for (size_t i = 0; i < messages_.size(); ++i) {
    if (i % 3 != 0) kept.push_back(std::move(messages_[i]));
  }
  messages_ = std::move(kept);
  opt.min_dead = 10;
  opt.max_segments = 2;
  update(opt);
  EXPECT_TRUE(last_update_.merged);
  EXPECT_EQ(index_->stats().documents, 160u);
  EXPECT_LE(index_->stats().segments, 2u);
  EXPECT_GT(compare(150, "after expunge and merge"), 30u);
  checkSelective(0, 240);

  // Partly indexed: 80 more messages that the index does not know yet, then 40 indexed on
  // top of a stale tail, then the rest.
  for (int i = 240; i < 320; ++i) add(toCrlf(gen.message(i)));
  refresh();
  EXPECT_LT(index_->lastUid(), view_.back());
  EXPECT_GT(compare(150, "partly indexed"), 30u);
  update(opt);
  EXPECT_EQ(index_->lastUid(), view_.back());
  EXPECT_GT(compare(60, "caught up"), 10u);
  checkSelective(240, 320);
  EXPECT_GE(programs_, 500u);
}

}  // namespace
}  // namespace darius::imapd::search
