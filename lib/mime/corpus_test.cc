// The shared corpus of real-world and broken messages (vendored from ../shared/corpus/mime to
// tests/data/mime/shared-corpus, see its SOURCES.md): every message must parse with the tree
// invariants and render balanced IMAP, both as delivered (canonical CRLF) and as the raw file
// (bare LF, no final line end), and the canonical form must give exactly the reviewed output
// committed under tests/data/mime/corpus/ (compared with Dovecot and Cyrus: see
// tests/data/mime/anchors/README.md).
// DARIUS_MIME_REGENERATE=1 rewrites those files instead of comparing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "lib/mime/mime_test_util.h"

namespace darius::mime {
namespace corpus_test {

namespace fs = std::filesystem;
using testing::checkInvariants;
using testing::isBalancedImap;

std::vector<fs::path> emlFiles(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".eml") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

void expectSane(const Message& m) {
  ASSERT_EQ(checkInvariants(m), "");
  std::string err;
  EXPECT_TRUE(isBalancedImap(renderEnvelope(m), &err)) << err;
  EXPECT_TRUE(isBalancedImap(renderBodyStructure(m, true), &err)) << err;
  EXPECT_TRUE(isBalancedImap(renderBodyStructure(m, false), &err)) << err;
}

TEST(Corpus, SharedCorpusMatchesReviewedOutput) {
  fs::path dir = DARIUS_MIME_CORPUS_DIR;
  ASSERT_TRUE(fs::is_directory(dir)) << dir << " is missing (it is part of the repository)";
  fs::path expected_dir = fs::path(DARIUS_MIME_TESTDATA_DIR) / "corpus";
  bool regenerate = std::getenv("DARIUS_MIME_REGENERATE") != nullptr;
  std::vector<fs::path> files = emlFiles(dir);
  EXPECT_GE(files.size(), 329u);
  size_t compared = 0;
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.filename().string());
    std::string raw = testing::readFile(file.string());
    expectSane(Message::parse(raw));
    std::string canonical = testing::canonicalCrlf(raw);
    Message m = Message::parse(canonical);
    expectSane(m);
    std::string got = testing::describe(m, /*with_rev2=*/false);
    fs::path want_path = expected_dir / (file.stem().string() + ".expected");
    if (regenerate) {
      fs::create_directories(expected_dir);
      std::ofstream(want_path, std::ios::binary) << got;
      continue;
    }
    ASSERT_TRUE(fs::exists(want_path)) << "no " << want_path << " (DARIUS_MIME_REGENERATE=1)";
    EXPECT_EQ(got, testing::readFile(want_path.string()));
    ++compared;
  }
  if (!regenerate) {
    EXPECT_EQ(compared, files.size());
  }
}

}  // namespace corpus_test
}  // namespace darius::mime
