// Golden files of docs/formats/search-index.md, format 1.0 (tests/data/formats/search/v1.0/,
// README beside them), written by an independent Python encoder (make_golden.py). The
// builder must keep producing the same bytes for the same documents, and the reader must keep
// reading them, so an incompatible change of the encoding fails here. The documents are
// spelled out here as the script spells them (trigrams of words; "body" when a body word has
// the gram).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "lib/io/atomic_file.h"
#include "lib/io/env.h"
#include "lib/io/path.h"
#include "lib/io/temp_dir.h"
#include "mailbox/search_index.h"
#include "mailbox/search_index_format.h"

namespace darius::mailbox {
namespace search_index_golden_test {

constexpr uint32_t kUidvalidity = 1790000001;

std::string goldenPath(const std::string& file) {
  const char* src = std::getenv("DARIUS_SOURCE_DIR");
  std::string root = src != nullptr ? src : io::parentDir(io::parentDir(__FILE__));
  return root + "/tests/data/formats/search/v1.0/" + file;
}

std::string readGolden(const std::string& file) {
  auto data = io::Env::posix()->readFile(goldenPath(file));
  EXPECT_TRUE(data.ok()) << goldenPath(file) << ": " << data.status().toString();
  return data.ok() ? *data : std::string();
}

std::set<uint32_t> trigrams(const std::string& w) {
  std::set<uint32_t> out;
  for (size_t i = 0; i + 2 < w.size(); ++i) {
    out.insert((uint32_t{static_cast<unsigned char>(w[i])} << 16) |
               (uint32_t{static_cast<unsigned char>(w[i + 1])} << 8) |
               static_cast<unsigned char>(w[i + 2]));
  }
  return out;
}

// make_golden.py's document(): tagged grams, ascending.
std::vector<TaggedGram> document(const std::vector<std::string>& body,
                                 const std::vector<std::string>& header, uint32_t extra_from = 0,
                                 uint32_t extra_count = 0) {
  std::map<uint32_t, bool> grams;
  for (const auto& w : header) {
    for (uint32_t g : trigrams(w)) grams.emplace(g, false);
  }
  for (const auto& w : body) {
    for (uint32_t g : trigrams(w)) grams[g] = true;
  }
  for (uint32_t i = 0; i < extra_count; ++i) grams.emplace(extra_from + i, false);
  std::vector<TaggedGram> out;
  for (const auto& [g, b] : grams) out.push_back((g << 1) | (b ? 1 : 0));
  return out;
}

std::string goldenHeaderAndSegments() {
  std::string out = encodeSearchHeader(kUidvalidity);
  SegmentBuilder b;
  b.add(1, document({"hello", "world"}, {"subject"}));
  b.add(3, document({"yellow"}, {"hello"}));
  b.add(5, document({}, {"help"}));
  b.add(7, document({"zebra"}, {}, 0x100000, 300));
  out += b.finish(1, 10);
  b.add(12, document({"shell"}, {}));
  b.add(20, document({"hello"}, {"zebra"}));
  out += b.finish(11, 20);
  return out;
}

std::vector<uint32_t> matching(const SearchIndex& index, const std::string& needle, bool body) {
  SearchFilter f = index.filter(needle, body);
  std::vector<uint32_t> out;
  for (uint32_t uid = 1; uid <= 22; ++uid) {
    if (f.mayMatch(uid)) out.push_back(uid);
  }
  return out;
}

io::TempDir tempDir() {
  auto t = io::TempDir::create("search-golden-test");
  EXPECT_TRUE(t.ok());
  return std::move(*t);
}

std::unique_ptr<SearchIndex> openGolden(io::TempDir& dir, const std::string& file) {
  std::string bytes = readGolden(file);
  EXPECT_TRUE(io::writeFileAtomic(*io::Env::posix(),
                                  dir.path() + "/" + std::string(kSearchIndexFileName), bytes)
                  .ok());
  return SearchIndex::open(dir.path(), kUidvalidity);
}

TEST(SearchIndexGolden, BuilderWritesTheGoldenBytes) {
  EXPECT_EQ(goldenHeaderAndSegments(), readGolden("darius.search"));
}

TEST(SearchIndexGolden, ReaderFindsTheDocuments) {
  io::TempDir dir = tempDir();
  auto index = openGolden(dir, "darius.search");
  SearchIndexStats st = index->stats();
  EXPECT_FALSE(st.damaged);
  EXPECT_EQ(st.segments, 2u);
  EXPECT_EQ(st.documents, 6u);
  EXPECT_EQ(st.last_uid, 20u);
  // UIDs 2, 4, 6, 8-11, 13-19 are not documents of their segment (unreadable when indexed,
  // or gone), 21 and 22 not indexed: every one stays a candidate.
  const std::vector<uint32_t> others = {2, 4, 6, 8, 9, 10, 11, 13, 14, 15, 16, 17, 18, 19, 21, 22};
  auto with = [&](std::vector<uint32_t> docs) {
    docs.insert(docs.end(), others.begin(), others.end());
    std::sort(docs.begin(), docs.end());
    return docs;
  };
  EXPECT_EQ(matching(*index, "ell", false), with({1, 3, 12, 20}));
  EXPECT_EQ(matching(*index, "hel", false), with({1, 3, 5, 12, 20}));
  EXPECT_EQ(matching(*index, "hel", true), with({1, 12, 20}));  // 3 and 5: header only
  EXPECT_EQ(matching(*index, "zebra", false), with({7, 20}));
  EXPECT_EQ(matching(*index, "zebra", true), with({7}));
  EXPECT_EQ(matching(*index, "nothing", false), with({}));
  EXPECT_TRUE(index->filter("he", false).passesAll());
  // The synthetic grams of UID 7 lie in the second block of its gram table.
  EXPECT_EQ(matching(*index, std::string("\x10\x01\x2b", 3), false), with({7}));
  // segmentDocuments gives back what was built.
  auto docs = index->segmentDocuments(0);
  ASSERT_TRUE(docs.ok()) << docs.status().toString();
  ASSERT_EQ(docs->size(), 4u);
  EXPECT_EQ((*docs)[1], document({"yellow"}, {"hello"}));
  EXPECT_EQ((*docs)[3], document({"zebra"}, {}, 0x100000, 300));
}

TEST(SearchIndexGolden, DamagedTailKeepsTheSegmentsBeforeIt) {
  io::TempDir dir = tempDir();
  auto index = openGolden(dir, "damaged-tail.search");
  SearchIndexStats st = index->stats();
  EXPECT_TRUE(st.damaged);
  EXPECT_EQ(st.segments, 2u);
  EXPECT_EQ(st.last_uid, 20u);
  EXPECT_EQ(index->validSegmentBytes(),
            std::string_view(readGolden("darius.search")).substr(kSearchHeaderSize));
  SearchFilter f = index->filter("zebra", false);
  EXPECT_FALSE(f.mayMatch(1));
  EXPECT_TRUE(f.mayMatch(7));
  EXPECT_TRUE(f.mayMatch(25));  // in the torn segment: not indexed
  // Another UIDVALIDITY: nothing of the file is used.
  auto foreign = SearchIndex::open(dir.path(), kUidvalidity + 1);
  EXPECT_TRUE(foreign->stats().damaged);
  EXPECT_EQ(foreign->segmentCount(), 0u);
  EXPECT_TRUE(foreign->filter("zebra", false).passesAll());
}

}  // namespace search_index_golden_test
}  // namespace darius::mailbox
