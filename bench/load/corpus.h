// bench/load: read-only view of a corpus written by bench/corpus/gen_corpus.py —
// messages.bin (mmap'd), index.tsv (offset, size per message) and manifest.txt (which
// message indexes contain each planted word in the body and in the subject).
//
// Ownership: a Corpus owns its mapping; message() views stay valid while it lives.
// Thread-safety: immutable after open(), so any number of threads may read it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace darius::bench {

class Corpus {
 public:
  static Corpus open(const std::string& dir);  // throws HarnessError
  Corpus(Corpus&& o) noexcept;
  Corpus(const Corpus&) = delete;
  Corpus& operator=(const Corpus&) = delete;
  ~Corpus();

  size_t size() const { return index_.size(); }
  std::string_view message(size_t i) const {
    return {data_ + index_[i].first, index_[i].second};
  }
  uint64_t totalBytes() const { return total_; }

  struct Planted {
    std::set<size_t> body, subject;
  };
  const std::map<std::string, Planted>& planted() const { return planted_; }

  // Expected hit count of SEARCH TEXT word / SEARCH SUBJECT word over the messages whose
  // indexes are in [first, first+count).
  size_t expectText(const std::string& word, size_t first, size_t count) const;
  size_t expectSubject(const std::string& word, size_t first, size_t count) const;

 private:
  Corpus() = default;
  const char* data_ = nullptr;
  size_t map_len_ = 0;
  uint64_t total_ = 0;
  std::vector<std::pair<uint64_t, size_t>> index_;
  std::map<std::string, Planted> planted_;
};

}  // namespace darius::bench
