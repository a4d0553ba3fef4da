#include "lib/config/config_docs.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "lib/config/options.h"

namespace darius::config {
namespace {

TEST(ConfigDocs, CheckedInFileIsUpToDate) {
  const char* src = std::getenv("DARIUS_SOURCE_DIR");
  if (src == nullptr) GTEST_SKIP() << "DARIUS_SOURCE_DIR is not set (run through ctest)";
  std::string path = std::string(src) + "/docs/config.md";
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path << " is missing; generate it with `darius config docs > docs/config.md`";
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_TRUE(text.str() == configMarkdown())
      << path << " is out of date with lib/config/options.cc; regenerate it with "
      << "`darius config docs > docs/config.md`";
}

TEST(ConfigDocs, MentionsEveryOption) {
  std::string md = configMarkdown();
  EXPECT_EQ(md.rfind("_Generated", 0), 0u);
  for (const OptionDef& d : allOptions()) {
    EXPECT_NE(md.find("| `" + std::string(d.name) + "` |"), std::string::npos) << d.name;
  }
  EXPECT_NE(md.find("## limits"), std::string::npos);
}

}  // namespace
}  // namespace darius::config
