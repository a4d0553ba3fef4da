#include "mailbox/search_grams.h"

#include <algorithm>

#include "lib/mime/message.h"
#include "mailbox/search_fold.h"
#include "mailbox/search_text.h"

namespace darius::mailbox {
namespace {

uint32_t gramAt(std::string_view s, size_t i) {
  return (uint32_t{static_cast<unsigned char>(s[i])} << 16) |
         (uint32_t{static_cast<unsigned char>(s[i + 1])} << 8) |
         uint32_t{static_cast<unsigned char>(s[i + 2])};
}

void addGrams(std::string_view folded, bool body, std::vector<TaggedGram>& out) {
  if (folded.size() < 3) return;
  const uint32_t tag = body ? 1 : 0;
  for (size_t i = 0; i + 3 <= folded.size(); ++i) out.push_back((gramAt(folded, i) << 1) | tag);
}

}  // namespace

std::vector<TaggedGram> messageGrams(std::string_view message) {
  std::vector<TaggedGram> all;
  mime::Message parsed = mime::Message::parse(message);
  visitTaggedSearchTexts(parsed, [&](std::string_view text, bool in_body) {
    addGrams(foldForSearch(text), in_body, all);
    return false;
  });
  // Sorted by gram then tag, so the last of each run of one gram has the body bit if any does.
  std::sort(all.begin(), all.end());
  std::vector<TaggedGram> out;
  out.reserve(all.size() / 2);
  for (size_t i = 0; i < all.size(); ++i) {
    if (i + 1 < all.size() && gramOf(all[i + 1]) == gramOf(all[i])) continue;
    out.push_back(all[i]);
  }
  return out;
}

std::vector<uint32_t> needleGrams(std::string_view folded) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i + 3 <= folded.size(); ++i) out.push_back(gramAt(folded, i));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace darius::mailbox
