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

// Which grams a message has, as two bitmaps over the 2^24 grams (2 MiB each, one pair per
// thread, cleared after each message by walking the distinct grams found): a test-and-set per
// trigram instead of sorting every occurrence, which was most of the indexing time.
class GramSet {
 public:
  GramSet() : seen_(kWords, 0), body_(kWords, 0) {}
  void add(uint32_t g, bool body) {
    uint64_t bit = uint64_t{1} << (g & 63);
    uint64_t& w = seen_[g >> 6];
    if ((w & bit) == 0) {
      w |= bit;
      distinct_.push_back(g);
    }
    if (body) body_[g >> 6] |= bit;
  }
  // The distinct grams, tagged and ascending; the set is empty afterwards.
  std::vector<TaggedGram> take() {
    std::sort(distinct_.begin(), distinct_.end());
    std::vector<TaggedGram> out;
    out.reserve(distinct_.size());
    for (uint32_t g : distinct_) {
      uint64_t bit = uint64_t{1} << (g & 63);
      out.push_back((g << 1) | ((body_[g >> 6] & bit) != 0 ? 1u : 0u));
      seen_[g >> 6] &= ~bit;
      body_[g >> 6] &= ~bit;
    }
    distinct_.clear();
    return out;
  }

 private:
  static constexpr size_t kWords = (size_t{1} << 24) / 64;
  std::vector<uint64_t> seen_, body_;
  std::vector<uint32_t> distinct_;
};

void addGrams(std::string_view folded, bool body, GramSet& set) {
  if (folded.size() < 3) return;
  uint32_t g = (uint32_t{static_cast<unsigned char>(folded[0])} << 8) |
               uint32_t{static_cast<unsigned char>(folded[1])};
  for (size_t i = 2; i < folded.size(); ++i) {
    g = ((g << 8) | static_cast<unsigned char>(folded[i])) & 0xFFFFFF;
    set.add(g, body);
  }
}

}  // namespace

std::vector<TaggedGram> messageGrams(std::string_view message) {
  thread_local GramSet set;
  mime::ParseOptions text_only;
  text_only.lines_and_envelopes = false;  // only the texts are read (search_text.h)
  mime::Message parsed = mime::Message::parse(message, text_only);
  visitTaggedSearchTexts(parsed, [&](std::string_view text, bool in_body) {
    addGrams(foldForSearch(text), in_body, set);
    return false;
  });
  return set.take();
}

std::vector<uint32_t> needleGrams(std::string_view folded) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i + 3 <= folded.size(); ++i) out.push_back(gramAt(folded, i));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace darius::mailbox
