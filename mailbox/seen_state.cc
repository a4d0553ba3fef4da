#include "mailbox/seen_state.h"

#include <algorithm>
#include <iterator>
#include <queue>
#include <tuple>

namespace darius::mailbox {

using base::Result;
using base::Status;

namespace {

constexpr std::string_view kVersion = "1";

// A decimal number without sign or leading zeros, 0 < n <= max (0 itself only if allow_zero).
bool parseNumber(std::string_view s, uint64_t max, bool allow_zero, uint64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  if (s[0] == '0' && (s.size() > 1 || !allow_zero)) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (max - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

// "a" or "a:b" with a < b, UIDs 1..2^32-1.
bool parseRange(std::string_view s, UidRange* out) {
  uint64_t a = 0, b = 0;
  size_t colon = s.find(':');
  if (colon == std::string_view::npos) {
    if (!parseNumber(s, UINT32_MAX, false, &a)) return false;
    b = a;
  } else {
    if (!parseNumber(s.substr(0, colon), UINT32_MAX, false, &a) ||
        !parseNumber(s.substr(colon + 1), UINT32_MAX, false, &b) || b <= a) {
      return false;
    }
  }
  *out = {static_cast<uint32_t>(a), static_cast<uint32_t>(b)};
  return true;
}

void appendRange(std::string& out, uint32_t first, uint32_t last) {
  out += std::to_string(first);
  if (last != first) {
    out += ':';
    out += std::to_string(last);
  }
}

// Calls fn(element) for each comma-separated element of a field that is not "-".
template <typename Fn>
bool forEachElement(std::string_view field, Fn fn) {
  if (field == "-") return true;
  if (field.empty()) return false;
  size_t start = 0;
  while (true) {
    size_t comma = field.find(',', start);
    std::string_view e = field.substr(start, comma == std::string_view::npos ? field.npos
                                                                              : comma - start);
    if (!fn(e)) return false;
    if (comma == std::string_view::npos) return true;
    start = comma + 1;
  }
}

// `uids` (ascending, maybe repeated) as ranges.
std::vector<UidRange> rangesOf(std::span<const uint32_t> uids) {
  std::vector<UidRange> out;
  for (uint32_t u : uids) {
    if (!out.empty() && (out.back().last == u || out.back().last + 1 == u)) {
      out.back().last = u;
    } else {
      out.push_back({u, u});
    }
  }
  return out;
}

// Runs of `runs` minus the UIDs of `cut` (both ascending).
std::vector<ModseqRun> subtract(const std::vector<ModseqRun>& runs,
                                const std::vector<UidRange>& cut) {
  std::vector<ModseqRun> out;
  size_t j = 0;
  for (ModseqRun r : runs) {
    while (j < cut.size() && cut[j].last < r.first) ++j;
    size_t k = j;
    bool whole = true;
    while (k < cut.size() && cut[k].first <= r.last) {
      if (cut[k].first > r.first) out.push_back({r.first, cut[k].first - 1, r.modseq});
      if (cut[k].last >= r.last) {
        whole = false;
        break;
      }
      r.first = cut[k].last + 1;
      ++k;
    }
    if (whole) out.push_back(r);
  }
  return out;
}

// Adjacent runs with one modseq become one (the canonical form).
void joinEqual(std::vector<ModseqRun>& runs) {
  std::vector<ModseqRun> out;
  for (const ModseqRun& r : runs) {
    if (!out.empty() && out.back().last + 1 == r.first && out.back().modseq == r.modseq) {
      out.back().last = r.last;
    } else {
      out.push_back(r);
    }
  }
  runs = std::move(out);
}

// Merges neighbours until at most max_runs are left, cheapest merge first: the pair whose
// higher modseq is lowest (so that only clients far behind see extra changes), then the one
// that takes in the fewest UIDs between them. O(n log n) with a heap over a linked list.
void coarsen(std::vector<ModseqRun>& runs, size_t max_runs) {
  max_runs = std::max<size_t>(max_runs, 1);
  const size_t n = runs.size();
  if (n <= max_runs) return;
  constexpr size_t kNone = SIZE_MAX;
  std::vector<size_t> next(n), prev(n);
  std::vector<uint32_t> version(n, 0);
  std::vector<bool> alive(n, true);
  for (size_t i = 0; i < n; ++i) {
    next[i] = i + 1 < n ? i + 1 : kNone;
    prev[i] = i > 0 ? i - 1 : kNone;
  }
  // (cost, gap, left, left's version, right's version); the smallest first.
  using Item = std::tuple<uint64_t, uint64_t, size_t, uint32_t, uint32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
  auto push = [&](size_t i) {
    size_t j = next[i];
    if (j == kNone) return;
    uint64_t gap = uint64_t{runs[j].first} - runs[i].last - 1;
    heap.emplace(std::max(runs[i].modseq, runs[j].modseq), gap, i, version[i], version[j]);
  };
  for (size_t i = 0; i + 1 < n; ++i) push(i);
  size_t count = n;
  while (count > max_runs && !heap.empty()) {
    auto [cost, gap, i, vi, vj] = heap.top();
    heap.pop();
    size_t j = next[i];
    if (!alive[i] || version[i] != vi || j == kNone || version[j] != vj) continue;
    runs[i].last = runs[j].last;
    runs[i].modseq = cost;
    alive[j] = false;
    next[i] = next[j];
    if (next[j] != kNone) prev[next[j]] = i;
    ++version[i];
    --count;
    if (prev[i] != kNone) push(prev[i]);
    push(i);
  }
  std::vector<ModseqRun> out;
  out.reserve(count);
  for (size_t i = 0; i < n; ++i) {
    if (alive[i]) out.push_back(runs[i]);
  }
  runs = std::move(out);
  joinEqual(runs);
}

}  // namespace

Status SeenState::check() const {
  if (last_change_ < 0) return Status::invalid("negative last-change time");
  for (size_t i = 0; i < seen_.size(); ++i) {
    const UidRange& r = seen_[i];
    if (r.first == 0 || r.last < r.first) return Status::invalid("bad seen range");
    if (i > 0 && uint64_t{seen_[i - 1].last} + 1 >= r.first) {
      return Status::invalid("seen ranges out of order, overlapping or adjacent");
    }
  }
  for (size_t i = 0; i < runs_.size(); ++i) {
    const ModseqRun& r = runs_[i];
    if (r.first == 0 || r.last < r.first) return Status::invalid("bad modseq run");
    if (r.modseq == 0 || r.modseq > kMaxSeenModseq) return Status::invalid("modseq out of range");
    if (i > 0) {
      const ModseqRun& p = runs_[i - 1];
      if (p.last >= r.first) return Status::invalid("modseq runs out of order or overlapping");
      if (p.last + 1 == r.first && p.modseq == r.modseq) {
        return Status::invalid("adjacent modseq runs with one modseq");
      }
    }
  }
  return Status::ok();
}

Result<SeenState> SeenState::fromParts(int64_t last_change, std::vector<UidRange> seen,
                                       std::vector<ModseqRun> runs) {
  SeenState s;
  s.last_change_ = last_change;
  s.seen_ = std::move(seen);
  s.runs_ = std::move(runs);
  DARIUS_RETURN_IF_ERROR(s.check());
  return s;
}

Result<SeenState> SeenState::decode(std::string_view value, const SeenLimits& limits) {
  if (value.size() > limits.max_value_bytes) {
    return Status::corruption("seen state of " + std::to_string(value.size()) +
                              " bytes is over seen_max_size (" +
                              std::to_string(limits.max_value_bytes) + ")");
  }
  // Split at spaces; a fifth field is counted, not kept.
  std::vector<std::string_view> field;
  for (size_t start = 0; field.size() < 5;) {
    size_t sp = value.find(' ', start);
    field.push_back(value.substr(start, sp == std::string_view::npos ? value.npos : sp - start));
    if (sp == std::string_view::npos) break;
    start = sp + 1;
  }
  if (field[0] != kVersion) {
    uint64_t v = 0;
    if (parseNumber(field[0], 1000000, false, &v)) {
      return Status::notSupported("seen state version " + std::string(field[0]) +
                                  " is newer than this build reads (1)");
    }
    return Status::corruption("seen state: not a seen record (bad version field)");
  }
  if (field.size() != 4) {
    return Status::corruption("seen state: version 1 has four fields, not " +
                              std::string(field.size() > 4 ? "more" : std::to_string(field.size())));
  }
  SeenState s;
  uint64_t t = 0;
  if (!parseNumber(field[1], static_cast<uint64_t>(INT64_MAX), true, &t)) {
    return Status::corruption("seen state: bad last-change time");
  }
  s.last_change_ = static_cast<int64_t>(t);
  bool ok = forEachElement(field[2], [&](std::string_view e) {
    UidRange r;
    if (!parseRange(e, &r)) return false;
    s.seen_.push_back(r);
    return true;
  });
  if (!ok) return Status::corruption("seen state: bad seen UID set");
  ok = forEachElement(field[3], [&](std::string_view e) {
    size_t eq = e.find('=');
    UidRange r;
    uint64_t m = 0;
    if (eq == std::string_view::npos || !parseRange(e.substr(0, eq), &r) ||
        !parseNumber(e.substr(eq + 1), kMaxSeenModseq, false, &m)) {
      return false;
    }
    s.runs_.push_back({r.first, r.last, m});
    return true;
  });
  if (!ok) return Status::corruption("seen state: bad modseq runs");
  Status c = s.check();
  if (!c.isOk()) return Status::corruption("seen state: " + c.message());
  return s;
}

std::string SeenState::encode() const {
  std::string out(kVersion);
  out += ' ';
  out += std::to_string(last_change_);
  out += ' ';
  if (seen_.empty()) out += '-';
  for (size_t i = 0; i < seen_.size(); ++i) {
    if (i > 0) out += ',';
    appendRange(out, seen_[i].first, seen_[i].last);
  }
  out += ' ';
  if (runs_.empty()) out += '-';
  for (size_t i = 0; i < runs_.size(); ++i) {
    if (i > 0) out += ',';
    appendRange(out, runs_[i].first, runs_[i].last);
    out += '=';
    out += std::to_string(runs_[i].modseq);
  }
  return out;
}

bool SeenState::isSeen(uint32_t uid) const {
  auto it = std::upper_bound(seen_.begin(), seen_.end(), uid,
                             [](uint32_t u, const UidRange& r) { return u < r.first; });
  return it != seen_.begin() && std::prev(it)->last >= uid;
}

uint64_t SeenState::modseqOf(uint32_t uid) const {
  auto it = std::upper_bound(runs_.begin(), runs_.end(), uid,
                             [](uint32_t u, const ModseqRun& r) { return u < r.first; });
  if (it == runs_.begin() || std::prev(it)->last < uid) return 0;
  return std::prev(it)->modseq;
}

uint64_t SeenState::highestModseq() const {
  uint64_t h = 0;
  for (const ModseqRun& r : runs_) h = std::max(h, r.modseq);
  return h;
}

std::vector<uint32_t> SeenState::setSeen(std::span<const uint32_t> uids, bool seen) {
  std::vector<uint32_t> changed;
  size_t j = 0;
  for (uint32_t u : uids) {
    if (u == 0 || (!changed.empty() && changed.back() >= u)) continue;
    while (j < seen_.size() && seen_[j].last < u) ++j;
    bool now = j < seen_.size() && seen_[j].first <= u;
    if (now != seen) changed.push_back(u);
  }
  if (changed.empty()) return changed;
  std::vector<UidRange> delta = rangesOf(changed);
  if (!seen) {
    // Subtracting is what runs need too; the modseq is a dummy here.
    std::vector<ModseqRun> as_runs;
    as_runs.reserve(seen_.size());
    for (const UidRange& r : seen_) as_runs.push_back({r.first, r.last, 1});
    seen_.clear();
    for (const ModseqRun& r : subtract(as_runs, delta)) seen_.push_back({r.first, r.last});
    return changed;
  }
  // Union: none of `delta` was seen, so the two lists are disjoint; merge, then join
  // neighbours that touch.
  std::vector<UidRange> all;
  all.reserve(seen_.size() + delta.size());
  std::merge(seen_.begin(), seen_.end(), delta.begin(), delta.end(), std::back_inserter(all),
             [](const UidRange& a, const UidRange& b) { return a.first < b.first; });
  seen_.clear();
  for (const UidRange& r : all) {
    if (!seen_.empty() && uint64_t{seen_.back().last} + 1 >= r.first) {
      seen_.back().last = std::max(seen_.back().last, r.last);
    } else {
      seen_.push_back(r);
    }
  }
  return changed;
}

void SeenState::noteChange(std::span<const uint32_t> uids, uint64_t modseq, size_t max_runs) {
  std::vector<UidRange> changed = rangesOf(uids);
  std::vector<ModseqRun> kept = subtract(runs_, changed);
  std::vector<ModseqRun> merged;
  merged.reserve(kept.size() + changed.size());
  size_t j = 0;
  for (const ModseqRun& r : kept) {
    while (j < changed.size() && changed[j].first < r.first) {
      merged.push_back({changed[j].first, changed[j].last, modseq});
      ++j;
    }
    merged.push_back(r);
  }
  for (; j < changed.size(); ++j) merged.push_back({changed[j].first, changed[j].last, modseq});
  joinEqual(merged);
  coarsen(merged, max_runs);
  runs_ = std::move(merged);
}

void SeenState::apply(IndexRecord& r) const {
  r.system_flags = (r.system_flags & ~kFlagSeen) | (isSeen(r.uid) ? kFlagSeen : 0u);
  r.modseq = std::max(r.modseq, modseqOf(r.uid));
}

size_t SeenState::countSeen(std::span<const uint32_t> uids) const {
  size_t n = 0, j = 0;
  for (uint32_t u : uids) {
    while (j < seen_.size() && seen_[j].last < u) ++j;
    if (j < seen_.size() && seen_[j].first <= u) ++n;
  }
  return n;
}

}  // namespace darius::mailbox
