// bench/load: corpus reader (see corpus.h).
#include "bench/load/corpus.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "bench/load/common.h"

namespace darius::bench {

Corpus Corpus::open(const std::string& dir) {
  Corpus c;
  std::ifstream ix(dir + "/index.tsv");
  if (!ix) throw HarnessError("cannot read " + dir + "/index.tsv");
  uint64_t off = 0;
  size_t len = 0;
  while (ix >> off >> len) c.index_.emplace_back(off, len);

  int fd = ::open((dir + "/messages.bin").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw HarnessError("cannot open " + dir + "/messages.bin");
  struct stat st {};
  fstat(fd, &st);
  c.map_len_ = static_cast<size_t>(st.st_size);
  if (c.map_len_ > 0) {
    void* p = mmap(nullptr, c.map_len_, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
      ::close(fd);
      throw HarnessError("mmap messages.bin failed");
    }
    c.data_ = static_cast<const char*>(p);
  }
  ::close(fd);
  for (auto& [o, l] : c.index_) {
    if (o + l > c.map_len_) throw HarnessError("index.tsv points past messages.bin");
    c.total_ += l;
  }

  std::ifstream mf(dir + "/manifest.txt");
  if (!mf) throw HarnessError("cannot read " + dir + "/manifest.txt");
  std::string line;
  while (std::getline(mf, line)) {
    std::istringstream ls(line);
    std::string kind, word, where, ids;
    ls >> kind;
    if (kind != "word") continue;
    ls >> word >> where >> ids;
    auto& p = c.planted_[word];
    auto& set = where == "body" ? p.body : p.subject;
    if (ids == "-") continue;
    std::istringstream is(ids);
    std::string id;
    while (std::getline(is, id, ',')) set.insert(std::stoul(id));
  }
  if (c.index_.empty() || c.planted_.empty()) throw HarnessError("empty corpus in " + dir);
  return c;
}

Corpus::Corpus(Corpus&& o) noexcept
    : data_(o.data_), map_len_(o.map_len_), total_(o.total_), index_(std::move(o.index_)),
      planted_(std::move(o.planted_)) {
  o.data_ = nullptr;
  o.map_len_ = 0;
}

Corpus::~Corpus() {
  if (data_) munmap(const_cast<char*>(data_), map_len_);
}

namespace {
size_t countIn(const std::set<size_t>& s, size_t first, size_t count) {
  size_t n = 0;
  for (auto it = s.lower_bound(first); it != s.end() && *it < first + count; ++it) ++n;
  return n;
}
}  // namespace

size_t Corpus::expectText(const std::string& word, size_t first, size_t count) const {
  auto it = planted_.find(word);
  if (it == planted_.end()) return 0;
  std::set<size_t> u = it->second.body;
  u.insert(it->second.subject.begin(), it->second.subject.end());
  return countIn(u, first, count);
}

size_t Corpus::expectSubject(const std::string& word, size_t first, size_t count) const {
  auto it = planted_.find(word);
  return it == planted_.end() ? 0 : countIn(it->second.subject, first, count);
}

}  // namespace darius::bench
