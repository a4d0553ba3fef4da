// Golden files: the generated nasty cases of tests/data/mime/cases (generate.py) and their
// reviewed ENVELOPE, BODYSTRUCTURE (IMAP4rev1 and rev2), BODY and part offsets (*.expected).
// DARIUS_MIME_REGENERATE=1 rewrites the .expected files instead of comparing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "lib/mime/mime_test_util.h"

namespace darius::mime {
namespace {

namespace fs = std::filesystem;

TEST(Golden, GeneratedCases) {
  fs::path dir = fs::path(DARIUS_MIME_TESTDATA_DIR) / "cases";
  ASSERT_TRUE(fs::is_directory(dir)) << dir;
  bool regenerate = std::getenv("DARIUS_MIME_REGENERATE") != nullptr;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".eml") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  EXPECT_GE(files.size(), 30u);
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.filename().string());
    std::string data = testing::readFile(file.string());
    Message m = Message::parse(data);
    EXPECT_EQ(testing::checkInvariants(m), "");
    std::string got = testing::describe(m, /*with_rev2=*/true);
    fs::path want_path = file;
    want_path.replace_extension(".expected");
    if (regenerate) {
      std::ofstream(want_path, std::ios::binary) << got;
      continue;
    }
    ASSERT_TRUE(fs::exists(want_path)) << "no " << want_path;
    EXPECT_EQ(got, testing::readFile(want_path.string()));
  }
}

// A sample of the golden outputs spelled out here, so a regenerated file that silently
// changed meaning would still be caught.
TEST(Golden, SpotChecks) {
  fs::path dir = fs::path(DARIUS_MIME_TESTDATA_DIR) / "cases";
  Message m = Message::parse(testing::readFile((dir / "boundary_never_closed.eml").string()));
  EXPECT_EQ(renderBodyStructure(m, false),
            "((\"TEXT\" \"PLAIN\" (\"CHARSET\" \"US-ASCII\") NIL NIL \"7BIT\" 5 0)(\"TEXT\" \"HTML\" "
            "(\"CHARSET\" \"US-ASCII\") NIL NIL \"7BIT\" 15 1) \"MIXED\")");
  std::string torture = testing::readFile((dir / "address_torture.eml").string());
  EXPECT_EQ(renderEnvelope(Message::parse(torture)).substr(0, 120),
            "(NIL \"addresses\" ((\"Doe, John\" NIL \"john\" \"example.org\")(\"Jane\" NIL \"jane\" "
            "\"example.org\")) ((NIL \"@relay1.example,@relay");
}

}  // namespace
}  // namespace darius::mime
