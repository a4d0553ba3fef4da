#include "imapd/search/search_context.h"

#include <algorithm>
#include <ctime>

#include "lib/proto/chars.h"

namespace darius::imapd::search {

using base::Status;

namespace {

// A set of client numbers in mailbox order, in its shortest form.
std::string setOf(std::vector<uint32_t> numbers) {
  auto set = proto::SequenceSet::fromNumbers(std::move(numbers));
  return set.ok() ? set->format() : std::string();
}

}  // namespace

SearchContext::SearchContext(std::string tag, bool by_uid, SearchProgram program,
                             std::vector<uint32_t> results, Order order, Learn learn)
    : tag_(std::move(tag)),
      by_uid_(by_uid),
      program_(std::move(program)),
      order_(std::move(order)),
      learn_(std::move(learn)),
      members_(results.begin(), results.end()) {
  ages_ = program_.ages();
  evaluated_at_ = static_cast<int64_t>(::time(nullptr));
  if (order_) {
    ordered_ = std::move(results);
    std::stable_sort(ordered_.begin(), ordered_.end(), order_);
  }
}

std::vector<uint32_t> SearchContext::results() const {
  if (order_) return ordered_;
  return {members_.begin(), members_.end()};
}

base::Result<std::vector<uint32_t>> SearchContext::agedSince(const SearchScope& scope,
                                                             int64_t now) {
  std::vector<uint32_t> out;
  const int64_t then = evaluated_at_;
  evaluated_at_ = now;
  if (ages_.empty() || now == then || scope.mailbox == nullptr || scope.view.empty()) return out;
  // A key with interval I flips for INTERNALDATEs between then - I and now - I; a second of
  // slack each side covers the command's own clock reading, which came a moment earlier.
  const int64_t lo = std::min(then, now) - 1, hi = std::max(then, now) + 1;
  const mailbox::Mailbox& mb = *scope.mailbox;
  for (size_t i = 0; i < mb.recordCount(); ++i) {
    DARIUS_ASSIGN_OR_RETURN(mailbox::IndexRecord r, mb.record(i));
    if (!std::binary_search(scope.view.begin(), scope.view.end(), r.uid)) continue;
    for (int64_t age : ages_) {
      if (r.internal_date >= lo - age && r.internal_date <= hi - age) {
        out.push_back(r.uid);
        break;
      }
    }
  }
  return out;
}

Status SearchContext::setChecked(const SearchScope& scope, std::vector<uint32_t> checked,
                                 std::vector<uint32_t> matching) {
  if (learn_ && !matching.empty()) DARIUS_RETURN_IF_ERROR(learn_(scope, matching));
  checked_ = std::move(checked);
  matching_ = std::move(matching);
  return Status::ok();
}

uint32_t SearchContext::clientNumber(uint32_t uid, const NumberOf& msn_of) const {
  return by_uid_ ? uid : msn_of(uid);
}

std::string SearchContext::line(const std::string& items) const {
  if (items.empty()) return {};
  std::string out = "* ESEARCH (TAG " + proto::quoteString(tag_) + ")";
  if (by_uid_) out += " UID";
  return out + items + "\r\n";
}

std::string SearchContext::removeItems(const std::vector<uint32_t>& uids,
                                       const NumberOf& number_of) {
  if (uids.empty()) return {};
  std::string pairs;
  if (!order_) {
    // Position 0: the client removes them wherever they are (RFC 5267 §4.3.4).
    std::vector<uint32_t> numbers;
    for (uint32_t uid : uids) {
      members_.erase(uid);
      if (uint32_t n = clientNumber(uid, number_of); n != 0) numbers.push_back(n);
    }
    if (numbers.empty()) return {};
    pairs = "0 " + setOf(std::move(numbers));
  } else {
    // Each at the position it has when its turn comes, the earlier removals done.
    for (uint32_t uid : uids) {
      auto it = std::find(ordered_.begin(), ordered_.end(), uid);
      if (it == ordered_.end()) continue;
      size_t pos = static_cast<size_t>(it - ordered_.begin()) + 1;
      ordered_.erase(it);
      members_.erase(uid);
      uint32_t n = clientNumber(uid, number_of);
      if (n == 0) continue;
      if (!pairs.empty()) pairs += ' ';
      pairs += std::to_string(pos) + " " + std::to_string(n);
    }
    if (pairs.empty()) return {};
  }
  return " REMOVEFROM (" + pairs + ")";
}

std::string SearchContext::addItems(const std::vector<uint32_t>& uids,
                                    const NumberOf& number_of) {
  if (uids.empty()) return {};
  std::string pairs;
  if (!order_) {
    // Position 0, one set in mailbox order (RFC 5267 §4.3.3 recommends it).
    std::vector<uint32_t> numbers;
    for (uint32_t uid : uids) {
      members_.insert(uid);
      if (uint32_t n = clientNumber(uid, number_of); n != 0) numbers.push_back(n);
    }
    if (numbers.empty()) return {};
    pairs = "0 " + setOf(std::move(numbers));
  } else {
    for (uint32_t uid : uids) {
      auto it = std::upper_bound(ordered_.begin(), ordered_.end(), uid, order_);
      size_t pos = static_cast<size_t>(it - ordered_.begin()) + 1;
      ordered_.insert(it, uid);
      members_.insert(uid);
      uint32_t n = clientNumber(uid, number_of);
      if (n == 0) continue;
      if (!pairs.empty()) pairs += ' ';
      pairs += std::to_string(pos) + " " + std::to_string(n);
    }
    if (pairs.empty()) return {};
  }
  return " ADDTO (" + pairs + ")";
}

std::string SearchContext::removeExpunged(const std::set<uint32_t>& gone,
                                          const NumberOf& number_of) {
  std::vector<uint32_t> removed;
  for (uint32_t uid : gone) {
    if (contains(uid)) removed.push_back(uid);
  }
  if (order_) {
    std::stable_sort(removed.begin(), removed.end(), order_);
  }
  return line(removeItems(removed, number_of));
}

std::string SearchContext::applyChecks(const NumberOf& number_of) {
  std::vector<uint32_t> added, removed;
  size_t j = 0;
  for (uint32_t uid : checked_) {
    while (j < matching_.size() && matching_[j] < uid) ++j;
    bool match = j < matching_.size() && matching_[j] == uid;
    if (match && !contains(uid)) added.push_back(uid);
    if (!match && contains(uid)) removed.push_back(uid);
  }
  checked_.clear();
  matching_.clear();
  if (order_) {
    std::stable_sort(added.begin(), added.end(), order_);
    std::stable_sort(removed.begin(), removed.end(), order_);
  }
  // Removals first: a sorted context then inserts into the list the client has after them.
  std::string items = removeItems(removed, number_of);
  items += addItems(added, number_of);
  return line(items);
}

bool SearchContexts::has(std::string_view tag) const {
  for (const auto& c : contexts_) {
    if (c->tag() == tag) return true;
  }
  return false;
}

void SearchContexts::add(std::unique_ptr<SearchContext> context) {
  contexts_.push_back(std::move(context));
}

bool SearchContexts::cancel(std::string_view tag) {
  auto it = std::find_if(contexts_.begin(), contexts_.end(),
                         [&](const auto& c) { return c->tag() == tag; });
  if (it == contexts_.end()) return false;
  contexts_.erase(it);
  return true;
}

int SearchContexts::cost() const {
  int cost = 0;
  for (const auto& c : contexts_) cost = std::max(cost, c->program().cost());
  return cost;
}

bool SearchContexts::ages() const {
  return std::any_of(contexts_.begin(), contexts_.end(), [](const auto& c) { return c->ages(); });
}

Status SearchContexts::evaluate(const SearchScope& given, std::span<const uint32_t> uids) {
  // One clock reading for every context and key of this round.
  SearchScope scope = given;
  if (scope.now == 0) scope.now = static_cast<int64_t>(::time(nullptr));
  for (auto& c : contexts_) {
    std::vector<uint32_t> checks(uids.begin(), uids.end());
    if (c->ages()) {
      DARIUS_ASSIGN_OR_RETURN(std::vector<uint32_t> aged, c->agedSince(scope, scope.now));
      if (!aged.empty()) {
        std::vector<uint32_t> both;
        both.reserve(checks.size() + aged.size());
        std::set_union(checks.begin(), checks.end(), aged.begin(), aged.end(),
                       std::back_inserter(both));
        checks = std::move(both);
      }
    }
    std::vector<uint32_t> matching;
    if (!checks.empty()) {
      DARIUS_ASSIGN_OR_RETURN(SearchOutcome o, c->program().runOn(scope, checks));
      matching.reserve(o.matches.size());
      for (const SearchMatch& m : o.matches) matching.push_back(m.uid);
    }
    DARIUS_RETURN_IF_ERROR(c->setChecked(scope, std::move(checks), std::move(matching)));
  }
  return Status::ok();
}

std::string SearchContexts::removeExpunged(const std::set<uint32_t>& gone,
                                           const NumberOf& number_of) {
  std::string out;
  if (gone.empty()) return out;
  for (auto& c : contexts_) out += c->removeExpunged(gone, number_of);
  return out;
}

std::string SearchContexts::applyChecks(const NumberOf& number_of) {
  std::string out;
  for (auto& c : contexts_) out += c->applyChecks(number_of);
  return out;
}

SearchArgs pinSets(SearchArgs args, const ResolveSet& resolve) {
  for (SearchKey& k : args.keys) {
    if (k.kind != KeyKind::kSequence && k.kind != KeyKind::kUid) continue;
    std::vector<uint32_t> uids = resolve(k.set, k.kind == KeyKind::kUid);
    auto set = proto::SequenceSet::fromNumbers(std::move(uids));
    k.kind = KeyKind::kUid;
    k.set = set.ok() ? std::move(*set) : proto::SequenceSet();
  }
  return args;
}

}  // namespace darius::imapd::search
