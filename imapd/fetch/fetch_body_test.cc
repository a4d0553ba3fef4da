// Body sections from the cached part table, checked against lib/mime on the shared corpus of
// real-world and broken messages, and against the bytes of real message files written by the
// Store: BODY[n], n.MIME, HEADER, TEXT and HEADER.FIELDS of messages and encapsulated
// messages, partial windows, the cached header block, and BINARY decoding of real parts.
#include "imapd/fetch/fetch_body.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "imapd/fetch/fetch_binary.h"
#include "lib/io/temp_dir.h"
#include "lib/mime/header.h"
#include "lib/mime/mime_test_util.h"
#include "mailbox/store.h"

namespace darius::imapd::fetch {
namespace fetch_body_test {

namespace fs = std::filesystem;
using Text = mime::SectionSpec::Text;

fs::path corpusDir() {
  const char* src = std::getenv("DARIUS_SOURCE_DIR");
  fs::path root = src ? fs::path(src) : fs::path(__FILE__).parent_path() / ".." / "..";
  return root / "tests" / "data" / "mime" / "shared-corpus";
}

std::vector<uint32_t> pathOf(const std::string& number) {
  std::vector<uint32_t> out;
  size_t i = 0;
  while (i < number.size()) {
    size_t dot = number.find('.', i);
    if (dot == std::string::npos) dot = number.size();
    out.push_back(static_cast<uint32_t>(std::stoul(number.substr(i, dot - i))));
    i = dot + 1;
  }
  return out;
}

Parts partsOf(const mailbox::CacheEntry& e) {
  auto parts = mailbox::decodeSections(e.sections);
  EXPECT_TRUE(parts.ok()) << parts.status().toString();
  return parts.ok() ? *parts : Parts{};
}

// Our section against lib/mime's for one spec: the same bytes, or both "no such section".
void expectSameAsMime(const mime::Message& m, const Parts& parts, const mime::SectionSpec& spec) {
  SectionTarget mine = locateSection(parts, spec, m.data().size());
  auto theirs = mime::locateSection(m, spec);
  std::string what = formatSection(spec);
  if (!theirs.ok()) {
    EXPECT_EQ(mine.kind, SectionTarget::Kind::kMissing) << what;
    return;
  }
  ASSERT_NE(mine.kind, SectionTarget::Kind::kMissing) << what;
  EXPECT_EQ(mine.offset, theirs->offset) << what;
  EXPECT_EQ(mine.size, theirs->size) << what;
  EXPECT_EQ(mine.kind == SectionTarget::Kind::kHeaderFields,
            spec.text == Text::kHeaderFields || spec.text == Text::kHeaderFieldsNot)
      << what;
}

TEST(FetchBody, CorpusSectionsMatchLibMime) {
  fs::path dir = corpusDir();
  ASSERT_TRUE(fs::is_directory(dir)) << dir;
  size_t messages = 0, sections = 0, cached_header_checks = 0;
  const std::vector<std::string> fields = {
      "From", "To", "Subject", "Date", "Message-ID", "Content-Type", "MIME-Version", "References"};
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".eml") continue;
    SCOPED_TRACE(entry.path().filename().string());
    std::string bytes = mime::testing::canonicalCrlf(mime::testing::readFile(entry.path()));
    mime::Message m = mime::Message::parse(bytes);
    mailbox::CacheEntry cache = mailbox::buildCacheEntry(bytes);
    Parts parts = partsOf(cache);
    ASSERT_EQ(parts.size(), m.parts().size());
    ++messages;
    std::vector<std::vector<uint32_t>> paths = {{}};
    for (uint32_t i = 0; i < m.parts().size(); ++i) {
      if (auto n = mime::partNumber(m, i)) paths.push_back(pathOf(*n));
    }
    // And some that name nothing.
    std::vector<std::vector<uint32_t>> extra;
    for (const auto& p : paths) {
      auto q = p;
      q.push_back(999);
      extra.push_back(q);
      q.back() = 1;
      extra.push_back(q);
    }
    paths.insert(paths.end(), extra.begin(), extra.end());
    for (const auto& path : paths) {
      for (Text t : {Text::kNone, Text::kMime, Text::kHeader, Text::kText, Text::kHeaderFields}) {
        if (t == Text::kMime && path.empty()) continue;  // the parser refuses it
        mime::SectionSpec spec{path, t, {}};
        if (t == Text::kHeaderFields) spec.fields = fields;
        expectSameAsMime(m, parts, spec);
        ++sections;
      }
    }
    // Every leaf decodes (or is an unknown encoding), whatever the message holds.
    for (const mime::Part& p : m.parts()) {
      if (p.kind != mime::PartKind::kLeaf) continue;
      auto d = decodeLeaf(m.headerBytes(p), m.bodyBytes(p));
      if (!d.ok()) {
        EXPECT_EQ(d.status().code(), base::Code::kNotSupported);
      }
    }
    // HEADER.FIELDS answered from the cache is what the file would give.
    mime::SectionSpec hf{{}, Text::kHeaderFields, fields};
    if (cachedHeaderServes(hf, parts)) {
      EXPECT_EQ(mime::filterHeaderFields(cache.headers, fields, false),
                mime::filterHeaderFields(m.headerBytes(m.root()), fields, false));
      ++cached_header_checks;
    }
  }
  EXPECT_GE(messages, 329u);
  EXPECT_GT(sections, 10000u);
  EXPECT_GT(cached_header_checks, 300u);
}

TEST(FetchBody, ResolvePartSurvivesDamagedTables) {
  // A sibling cycle and a child pointing at itself: the walk ends, it does not hang.
  Parts parts(3);
  parts[0].kind = 1;
  parts[0].first_child = 1;
  parts[1].next_sibling = 2;
  parts[2].next_sibling = 1;
  EXPECT_FALSE(resolvePart(parts, std::vector<uint32_t>{4000000000u}));
  parts[1].kind = 2;
  parts[1].first_child = 1;
  std::vector<uint32_t> deep(100, 1);
  (void)resolvePart(parts, deep);
  EXPECT_FALSE(resolvePart(Parts{}, std::vector<uint32_t>{1}));
  // Ranges past the file are clamped.
  Parts one(1);
  one[0].body_offset = 50;
  one[0].body_size = 1000;
  SectionTarget t = locateSection(one, {{1}, Text::kNone, {}}, 60);
  EXPECT_EQ(t.offset, 50u);
  EXPECT_EQ(t.size, 10u);
  t = locateSection(one, {{1}, Text::kNone, {}}, 20);
  EXPECT_EQ(t.offset, 20u);
  EXPECT_EQ(t.size, 0u);
}

TEST(FetchBody, Windows) {
  EXPECT_EQ(windowOf(100, std::nullopt).size, 100u);
  Window w = windowOf(100, Partial{10, 20});
  EXPECT_EQ(w.offset, 10u);
  EXPECT_EQ(w.size, 20u);
  w = windowOf(100, Partial{90, 20});
  EXPECT_EQ(w.offset, 90u);
  EXPECT_EQ(w.size, 10u);
  w = windowOf(100, Partial{100, 1});
  EXPECT_EQ(w.size, 0u);
  w = windowOf(100, Partial{UINT64_MAX, UINT64_MAX});
  EXPECT_EQ(w.size, 0u);
  w = windowOf(100, Partial{0, UINT64_MAX});
  EXPECT_EQ(w.size, 100u);
}

// A message with every kind of part, delivered through the Store into a real mailbox.
const std::string kPdf = std::string("%PDF-1.4\n\0\x01\x02\xff binary\r\n", 22);

std::string multipartMessage() {
  return "Received: from relay.example by mx.example; Mon, 1 Jan 2024 00:00:00 +0000\r\n"
         "From: Alice <alice@example.com>\r\n"
         "To: Bob <bob@example.com>\r\n"
         "Subject: parts\r\n"
         "MIME-Version: 1.0\r\n"
         "Content-Type: multipart/mixed; boundary=\"outer\"\r\n"
         "\r\n"
         "preamble\r\n"
         "--outer\r\n"
         "Content-Type: text/plain; charset=iso-8859-1\r\n"
         "Content-Transfer-Encoding: quoted-printable\r\n"
         "\r\n"
         "caf=E9 cr=E8me=\r\n"
         " br=FBl=E9e\r\n"
         "--outer\r\n"
         "Content-Type: application/pdf; name=\"a.pdf\"\r\n"
         "Content-Transfer-Encoding: base64\r\n"
         "\r\n"
         "JVBERi0xLjQKAAEC/yBiaW5hcnkNCg==\r\n"
         "--outer\r\n"
         "Content-Type: message/rfc822\r\n"
         "\r\n"
         "From: Carol <carol@example.com>\r\n"
         "Subject: inner\r\n"
         "Content-Type: multipart/alternative; boundary=\"inner\"\r\n"
         "\r\n"
         "--inner\r\n"
         "Content-Type: text/plain\r\n"
         "\r\n"
         "plain inner\r\n"
         "--inner\r\n"
         "Content-Type: text/html\r\n"
         "\r\n"
         "<p>html inner</p>\r\n"
         "--inner--\r\n"
         "--outer--\r\n";
}

class FetchBodyStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto t = io::TempDir::create("fetch-body");
    ASSERT_TRUE(t.ok());
    tmp_ = std::make_unique<io::TempDir>(std::move(*t));
    mailbox::StoreOptions o;
    o.data_dir = tmp_->file("data");
    o.partitions = {{"default", tmp_->file("p1")}};
    o.list_options.max_name_length = 490;
    auto s = mailbox::Store::open(o);
    ASSERT_TRUE(s.ok()) << s.status().toString();
    store_ = std::move(*s);
    auto name = mailbox::MailboxName::personal("", "alice", {});
    ASSERT_TRUE(name.ok());
    ASSERT_TRUE(store_->create(*name).ok());
    auto part = store_->partition("default");
    ASSERT_TRUE(part.ok());
    auto staged = store_->stage(**part, multipartMessage());
    ASSERT_TRUE(staged.ok()) << staged.status().toString();
    mailbox::AppendRequest req{&*staged, 1700000000, 60, 0, {}};
    ASSERT_TRUE(store_->append(*name, std::span(&req, 1)).ok());
    ASSERT_TRUE(store_->unstage(*staged).isOk());
    auto opened = store_->openMailbox(*name);
    ASSERT_TRUE(opened.ok()) << opened.status().toString();
    mailbox_ = std::move(opened->mailbox);
    auto r = mailbox_->record(0);
    ASSERT_TRUE(r.ok());
    record_ = *r;
    auto c = mailbox_->cache(record_);
    ASSERT_TRUE(c.ok()) << c.status().toString();
    cache_ = *c;
    parts_ = partsOf(cache_);
    auto f = MessageFile::open(mailbox_->messagePath(record_.uid));
    ASSERT_TRUE(f.ok()) << f.status().toString();
    file_.emplace(std::move(*f));
  }

  // The bytes BODY[<section>] gives, or "<missing>".
  std::string section(std::vector<uint32_t> path, Text text = Text::kNone,
                      std::vector<std::string> fields = {}) {
    mime::SectionSpec spec{std::move(path), text, std::move(fields)};
    SectionTarget t = locateSection(parts_, spec, file_->size());
    if (t.kind == SectionTarget::Kind::kMissing) return "<missing>";
    auto b = file_->read(t.offset, t.size);
    EXPECT_TRUE(b.ok());
    if (t.kind == SectionTarget::Kind::kHeaderFields) {
      return mime::filterHeaderFields(*b, spec.fields, text == Text::kHeaderFieldsNot);
    }
    return *b;
  }

  std::unique_ptr<io::TempDir> tmp_;
  std::unique_ptr<mailbox::Store> store_;
  std::unique_ptr<mailbox::Mailbox> mailbox_;
  mailbox::IndexRecord record_;
  mailbox::CacheEntry cache_;
  Parts parts_;
  std::optional<MessageFile> file_;
};

TEST_F(FetchBodyStoreTest, SectionsAreTheRightBytes) {
  const std::string msg = multipartMessage();
  EXPECT_EQ(file_->size(), msg.size());
  EXPECT_EQ(record_.size, msg.size());
  EXPECT_EQ(section({}), msg);
  EXPECT_EQ(*file_->readAll(), msg);
  EXPECT_EQ(section({}, Text::kHeader), msg.substr(0, msg.find("\r\n\r\n") + 4));
  EXPECT_EQ(section({}, Text::kText), msg.substr(msg.find("\r\n\r\n") + 4));
  EXPECT_EQ(section({1}), "caf=E9 cr=E8me=\r\n br=FBl=E9e");
  EXPECT_EQ(section({1}, Text::kMime),
            "Content-Type: text/plain; charset=iso-8859-1\r\n"
            "Content-Transfer-Encoding: quoted-printable\r\n\r\n");
  EXPECT_EQ(section({2}), "JVBERi0xLjQKAAEC/yBiaW5hcnkNCg==");
  EXPECT_EQ(section({3, 1}), "plain inner");
  EXPECT_EQ(section({3, 2}), "<p>html inner</p>");
  EXPECT_EQ(section({3, 2}, Text::kMime), "Content-Type: text/html\r\n\r\n");
  EXPECT_EQ(section({3}, Text::kHeader),
            "From: Carol <carol@example.com>\r\nSubject: inner\r\n"
            "Content-Type: multipart/alternative; boundary=\"inner\"\r\n\r\n");
  EXPECT_EQ(section({3}, Text::kHeaderFields, {"subject"}), "Subject: inner\r\n\r\n");
  EXPECT_EQ(section({3}, Text::kText).substr(0, 9), "--inner\r\n");
  EXPECT_EQ(section({3}).substr(0, 6), "From: ");
  // Sections that name nothing.
  EXPECT_EQ(section({4}), "<missing>");
  EXPECT_EQ(section({1, 1}), "<missing>");
  EXPECT_EQ(section({1}, Text::kHeader), "<missing>");
  EXPECT_EQ(section({3, 3}), "<missing>");
  EXPECT_EQ(section({4000000000u, 1}), "<missing>");
}

TEST_F(FetchBodyStoreTest, HeaderFieldsFromTheCacheOrTheFile) {
  mime::SectionSpec from{{}, Text::kHeaderFields, {"FROM", "subject", "X-None"}};
  ASSERT_TRUE(cachedHeaderServes(from, parts_));
  std::string cached = mime::filterHeaderFields(cache_.headers, from.fields, false);
  EXPECT_EQ(cached, "From: Alice <alice@example.com>\r\nSubject: parts\r\n\r\n");
  EXPECT_EQ(cached, section({}, Text::kHeaderFields, from.fields));
  // A trace field is not in the cache: the file answers.
  mime::SectionSpec received{{}, Text::kHeaderFields, {"Received"}};
  EXPECT_FALSE(cachedHeaderServes(received, parts_));
  EXPECT_EQ(mime::filterHeaderFields(cache_.headers, received.fields, false), "\r\n");
  EXPECT_EQ(section({}, Text::kHeaderFields, received.fields).substr(0, 15), "Received: from ");
  EXPECT_EQ(section({}, Text::kHeaderFieldsNot, {"Received", "To", "From", "MIME-Version"}),
            "Subject: parts\r\nContent-Type: multipart/mixed; boundary=\"outer\"\r\n\r\n");
  EXPECT_FALSE(cachedHeaderServes({{}, Text::kHeaderFieldsNot, {"To"}}, parts_));
  EXPECT_FALSE(cachedHeaderServes({{3}, Text::kHeaderFields, {"To"}}, parts_));
}

TEST_F(FetchBodyStoreTest, BinaryOfRealParts) {
  auto part = [&](std::vector<uint32_t> path) {
    auto idx = resolvePart(parts_, path);
    EXPECT_TRUE(idx);
    const mailbox::SectionRecord& p = parts_[*idx];
    std::string header = *file_->read(p.header_offset, p.header_size);
    std::string body = *file_->read(p.body_offset, p.body_size);
    auto d = decodeLeaf(header, body);
    EXPECT_TRUE(d.ok());
    return d.ok() ? *d : std::string();
  };
  EXPECT_EQ(part({2}), kPdf);
  EXPECT_TRUE(needsLiteral8(part({2})));
  EXPECT_EQ(part({1}),
            "caf\xe9 cr\xe8me br\xfbl\xe9"
            "e");
  EXPECT_EQ(part({3, 1}), "plain inner");
}

TEST_F(FetchBodyStoreTest, ReadsPastTheEndFail) {
  EXPECT_EQ(file_->read(file_->size(), 1).status().code(), base::Code::kCorruption);
  EXPECT_EQ(file_->read(UINT64_MAX, 2).status().code(), base::Code::kCorruption);
  EXPECT_TRUE(file_->read(file_->size(), 0).ok());
  EXPECT_FALSE(MessageFile::open(tmp_->file("no-such-file")).ok());
}

}  // namespace fetch_body_test
}  // namespace darius::imapd::fetch
