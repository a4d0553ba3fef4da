// Renders the option table (options.h) as the Markdown reference docs/config.md, so the
// document cannot drift from the code: config_docs_test fails when the checked-in file differs
// from what this produces, and `darius config docs > docs/config.md` regenerates it.
//
// Ownership: returns a fresh string. Thread-safety: pure function of static data.
#pragma once

#include <string>

namespace darius::config {

// The whole of docs/config.md: a generated-file notice, the file syntax, the value types, and
// one table per section with every option's name, type, default and description.
std::string configMarkdown();

}  // namespace darius::config
