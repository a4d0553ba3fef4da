#include "imapd/sort/sort_context.h"

#include <utility>

namespace darius::imapd::sort {

SortOrder::SortOrder(std::vector<SortCriterion> criteria, std::vector<MessageKeys> keys)
    : criteria_(std::move(criteria)) {
  keys_.reserve(keys.size());
  for (MessageKeys& k : keys) {
    const uint32_t uid = k.match.uid;
    k.match.msn = uid;  // mailbox order is UID order
    keys_.emplace(uid, std::move(k));
  }
}

const MessageKeys& SortOrder::keysOf(uint32_t uid, MessageKeys& scratch) const {
  auto it = keys_.find(uid);
  if (it != keys_.end()) return it->second;
  scratch = MessageKeys{};
  scratch.match.uid = scratch.match.msn = uid;
  return scratch;
}

bool SortOrder::before(uint32_t a, uint32_t b) const {
  MessageKeys sa, sb;
  return sortsBefore(criteria_, keysOf(a, sa), keysOf(b, sb));
}

base::Status SortOrder::learn(const mailbox::Mailbox& mailbox, std::span<const uint32_t> uids) {
  size_t unreadable = 0;
  for (uint32_t uid : uids) {
    if (keys_.count(uid) != 0) continue;
    search::SearchMatch m;
    m.uid = m.msn = uid;
    DARIUS_ASSIGN_OR_RETURN(std::optional<MessageKeys> k,
                            readKeys(mailbox, criteria_, m, unreadable));
    if (k) keys_.emplace(uid, std::move(*k));
  }
  return base::Status::ok();
}

search::SearchContext::Order contextOrder(std::shared_ptr<SortOrder> order) {
  return [order](uint32_t a, uint32_t b) { return order->before(a, b); };
}

search::SearchContext::Learn contextLearn(std::shared_ptr<SortOrder> order) {
  return [order](const search::SearchScope& scope, std::span<const uint32_t> uids) {
    if (scope.mailbox == nullptr) return base::Status::ok();
    return order->learn(*scope.mailbox, uids);
  };
}

}  // namespace darius::imapd::sort
