#include "lib/proto/sequence_set.h"

#include <algorithm>

#include "lib/proto/number.h"

namespace darius::proto {

using base::Result;
using base::Status;

namespace {

constexpr uint32_t kStar = 0;  // a parsed seq-number of "*" (zero is never a valid number)

// seq-number = nz-number / "*"
Result<uint32_t> seqNumber(std::string_view s) {
  if (s == "*") return kStar;
  if (s.empty()) return Status::invalid("Invalid sequence set: missing number");
  auto n = parseNzNumber(s);
  if (!n.ok()) return Status::invalid("Invalid sequence set: " + n.status().message());
  return *n;
}

SeqRange ordered(uint32_t a, uint32_t b) { return a <= b ? SeqRange{a, b} : SeqRange{b, a}; }

void appendRange(std::string& out, uint32_t first, uint32_t last) {
  if (!out.empty()) out += ',';
  out += std::to_string(first);
  if (last != first) {
    out += ':';
    out += std::to_string(last);
  }
}

}  // namespace

Result<SequenceSet> SequenceSet::parse(std::string_view text, const SequenceSetOptions& options) {
  SequenceSet set;
  if (text.empty()) return Status::invalid("Missing sequence set");
  size_t elements = 0;
  size_t pos = 0;
  while (true) {
    size_t comma = text.find(',', pos);
    std::string_view element =
        text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    if (++elements > options.max_ranges) {
      return Status::tooBig("Too many ranges in sequence set (limit " +
                            std::to_string(options.max_ranges) + ")");
    }
    if (element == "$") {
      // RFC 5182 §3 adds "$" as an alternative of sequence-set itself, so by the ABNF it can
      // only be the whole set or the last element after a comma ("1:5,$"), never a range end.
      if (!options.allow_last_result) {
        return Status::invalid("Invalid sequence set: \"$\" is not allowed here");
      }
      if (comma != std::string_view::npos) {
        return Status::invalid("Invalid sequence set: \"$\" must come last");
      }
      set.last_result_ = true;
      break;
    }
    size_t colon = element.find(':');
    Result<uint32_t> a = seqNumber(element.substr(0, colon));
    if (!a.ok()) return a.status();
    uint32_t b = *a;
    if (colon != std::string_view::npos) {
      Result<uint32_t> r = seqNumber(element.substr(colon + 1));
      if (!r.ok()) return r.status();  // also "1:2:3" and "1:$": not a seq-number
      b = *r;
    }
    if (a.value() == kStar || b == kStar) {
      uint32_t anchor = a.value() == kStar ? b : *a;  // "*" and "*:*" have none
      set.star_ = true;
      if (anchor != kStar) {
        set.star_low_ = set.star_low_ == 0 ? anchor : std::min(set.star_low_, anchor);
        set.star_high_ = std::max(set.star_high_, anchor);
      }
    } else {
      set.ranges_.push_back(ordered(*a, b));
    }
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
    if (pos == text.size()) return Status::invalid("Invalid sequence set: trailing comma");
  }
  set.normalize();
  return set;
}

Result<SequenceSet> SequenceSet::fromNumbers(std::vector<uint32_t> numbers) {
  SequenceSet set;
  set.ranges_.reserve(numbers.size());
  for (uint32_t n : numbers) {
    if (n == 0) return Status::invalid("Zero in a sequence set");
    set.ranges_.push_back({n, n});
  }
  set.normalize();
  return set;
}

Result<SequenceSet> SequenceSet::fromRanges(std::vector<SeqRange> ranges) {
  SequenceSet set;
  for (SeqRange& r : ranges) {
    if (r.first == 0 || r.last == 0) return Status::invalid("Zero in a sequence set");
    r = ordered(r.first, r.last);
  }
  set.ranges_ = std::move(ranges);
  set.normalize();
  return set;
}

SequenceSet SequenceSet::lastResult() {
  SequenceSet set;
  set.last_result_ = true;
  return set;
}

void SequenceSet::normalize() {
  std::sort(ranges_.begin(), ranges_.end(),
            [](const SeqRange& a, const SeqRange& b) { return a.first < b.first; });
  size_t out = 0;
  for (size_t i = 0; i < ranges_.size(); ++i) {
    // Adjacent ranges merge too (1:3,4:6 is 1:6); 64-bit so last + 1 cannot wrap.
    if (out > 0 && uint64_t{ranges_[i].first} <= uint64_t{ranges_[out - 1].last} + 1) {
      ranges_[out - 1].last = std::max(ranges_[out - 1].last, ranges_[i].last);
    } else {
      ranges_[out++] = ranges_[i];
    }
  }
  ranges_.resize(out);
}

Status SequenceSet::add(uint32_t first, uint32_t last) {
  if (first == 0 || last == 0) return Status::invalid("Zero in a sequence set");
  SeqRange r = ordered(first, last);
  // Insert in order, then merge with neighbours: ranges_ stays canonical.
  auto it =
      std::lower_bound(ranges_.begin(), ranges_.end(), r,
                       [](const SeqRange& a, const SeqRange& b) { return a.first < b.first; });
  const size_t i = static_cast<size_t>(it - ranges_.begin());
  ranges_.insert(it, r);
  // Only the range before can reach into the new one (the list was merged); any number of
  // ranges after it can be swallowed.
  size_t j = i;
  if (i > 0 && uint64_t{ranges_[i].first} <= uint64_t{ranges_[i - 1].last} + 1) {
    j = i - 1;
    ranges_[j].last = std::max(ranges_[j].last, ranges_[i].last);
  }
  size_t k = i + 1;
  while (k < ranges_.size() && uint64_t{ranges_[k].first} <= uint64_t{ranges_[j].last} + 1) {
    ranges_[j].last = std::max(ranges_[j].last, ranges_[k].last);
    ++k;
  }
  ranges_.erase(ranges_.begin() + static_cast<std::ptrdiff_t>(j + 1),
                ranges_.begin() + static_cast<std::ptrdiff_t>(k));
  return Status::ok();
}

SequenceSet SequenceSet::substituteLastResult(const SequenceSet& saved) const {
  if (!last_result_) return *this;
  SequenceSet out = *this;
  out.last_result_ = false;
  out.ranges_.insert(out.ranges_.end(), saved.ranges_.begin(), saved.ranges_.end());
  if (saved.star_) {
    // A saved result is concrete in practice; merge its "*" part faithfully all the same.
    out.star_ = true;
    if (saved.star_low_ != 0) {
      out.star_low_ =
          out.star_low_ == 0 ? saved.star_low_ : std::min(out.star_low_, saved.star_low_);
      out.star_high_ = std::max(out.star_high_, saved.star_high_);
    }
  }
  out.normalize();
  return out;
}

std::vector<SeqRange> SequenceSet::resolve(uint32_t max) const {
  std::vector<SeqRange> out = ranges_;
  if (star_) {
    // Every "n:*" spans n..max in either order; together they are the interval from
    // min(lowest n, max) to max(highest n, max). "*" alone is max itself.
    uint32_t low = star_low_ == 0 ? max : std::min(star_low_, max);
    uint32_t high = std::max(star_high_, max);
    if (low == 0) low = 1;  // an empty mailbox: there is no message 0
    if (high >= low) {
      auto it = std::lower_bound(out.begin(), out.end(), low,
                                 [](const SeqRange& r, uint32_t v) { return r.first < v; });
      out.insert(it, SeqRange{low, high});
      // One insertion into a sorted, merged list: merge in one pass.
      size_t j = 0;
      for (size_t k = 1; k < out.size(); ++k) {
        if (uint64_t{out[k].first} <= uint64_t{out[j].last} + 1) {
          out[j].last = std::max(out[j].last, out[k].last);
        } else {
          out[++j] = out[k];
        }
      }
      out.resize(j + 1);
    }
  }
  return out;
}

bool SequenceSet::contains(uint32_t n, uint32_t max) const {
  if (n == 0) return false;
  if (star_) {
    uint32_t low = star_low_ == 0 ? max : std::min(star_low_, max);
    uint32_t high = std::max(star_high_, max);
    if (n >= low && n <= high) return true;
  }
  // The last range starting at or before n.
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), n,
                             [](uint32_t v, const SeqRange& r) { return v < r.first; });
  if (it == ranges_.begin()) return false;
  return n <= std::prev(it)->last;
}

uint64_t SequenceSet::count(uint32_t max) const {
  uint64_t n = 0;
  for (const SeqRange& r : resolve(max)) n += uint64_t{r.last} - r.first + 1;
  return n;
}

uint32_t SequenceSet::largest(uint32_t max) const {
  uint32_t high = ranges_.empty() ? 0 : ranges_.back().last;
  if (star_) high = std::max({high, star_high_, max});
  return high;
}

std::string SequenceSet::format() const {
  std::string out;
  for (const SeqRange& r : ranges_) appendRange(out, r.first, r.last);
  if (star_) {
    if (!out.empty()) out += ',';
    if (star_low_ == 0) {
      out += '*';
    } else {
      out += std::to_string(star_low_) + ":*";
      if (star_high_ != star_low_) out += "," + std::to_string(star_high_) + ":*";
    }
  }
  if (last_result_) out += out.empty() ? "$" : ",$";
  return out;
}

SequenceSet::Members::Iterator::Iterator(const std::vector<SeqRange>* r, size_t index)
    : ranges_(r), index_(index), value_(index < r->size() ? (*r)[index].first : 0) {}

SequenceSet::Members::Iterator& SequenceSet::Members::Iterator::operator++() {
  if (value_ < (*ranges_)[index_].last) {
    ++value_;
  } else {
    ++index_;
    value_ = index_ < ranges_->size() ? (*ranges_)[index_].first : 0;
  }
  return *this;
}

}  // namespace darius::proto
