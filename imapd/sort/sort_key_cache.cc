#include "imapd/sort/sort_key_cache.h"

namespace darius::imapd::sort {
namespace {

// A rough per-message cost besides the strings' bytes: the map node, the entry, the strings'
// own headers.
constexpr size_t kEntryOverhead = 64 + sizeof(std::array<std::string, 6>);

std::string boxKey(const std::string& dir, uint32_t uidvalidity) {
  return std::to_string(uidvalidity) + ":" + dir;
}

size_t textBytes(const std::string& s) { return s.size() > 15 ? s.size() : 0; }  // past SSO

size_t threadBytes(const thread::ThreadMessage& m) {
  size_t n = textBytes(m.message_id) + textBytes(m.base_subject);
  for (const std::string& r : m.references) n += sizeof(std::string) + textBytes(r);
  return n;
}

}  // namespace

uint16_t neededKeyBits(const std::vector<SortCriterion>& criteria) {
  uint16_t bits = kRecordKeyBit;
  for (const SortCriterion& c : criteria) {
    if (c.key == SortKey::kDate) bits |= 1;
    int slot = textSlotOf(c.key);
    if (slot >= 0) bits |= static_cast<uint16_t>(2u << slot);
  }
  return bits;
}

std::shared_ptr<SortKeyCache::Box> SortKeyCache::box(const std::string& key, bool create) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = boxes_.find(key);
  if (it != boxes_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second->lru);  // most recently used
    return it->second;
  }
  if (!create || max_bytes_ == 0) return nullptr;
  auto b = std::make_shared<Box>();
  lru_.push_front(key);
  b->lru = lru_.begin();
  boxes_.emplace(key, b);
  return b;
}

bool SortKeyCache::reserve(const std::string& key, Box& box, size_t more) {
  std::lock_guard<std::mutex> lock(mu_);
  auto self = boxes_.find(key);
  if (self == boxes_.end() || self->second.get() != &box) return false;  // dropped meanwhile
  while (bytes_ + more > max_bytes_ && !lru_.empty() && lru_.back() != key) {
    auto victim = boxes_.find(lru_.back());
    bytes_ -= victim->second->bytes;
    boxes_.erase(victim);  // a SORT still using it keeps its shared_ptr; nothing reaches it again
    lru_.pop_back();
  }
  if (bytes_ + more > max_bytes_) return false;
  bytes_ += more;
  box.bytes += more;
  return true;
}

std::vector<size_t> SortKeyCache::lookup(const std::string& mailbox_dir, uint32_t uidvalidity,
                                         const std::vector<SortCriterion>& criteria,
                                         const std::vector<search::SearchMatch>& matches,
                                         std::vector<MessageKeys>& keys) {
  keys.assign(matches.size(), MessageKeys{});
  std::vector<size_t> missing;
  std::shared_ptr<Box> b = box(boxKey(mailbox_dir, uidvalidity), false);
  if (b == nullptr) {
    missing.resize(matches.size());
    for (size_t i = 0; i < matches.size(); ++i) missing[i] = i;
    return missing;
  }
  const uint16_t need = neededKeyBits(criteria);
  std::lock_guard<std::mutex> lock(b->mu);
  for (size_t i = 0; i < matches.size(); ++i) {
    auto it = b->entries.find(matches[i].uid);
    if (it == b->entries.end() || (it->second.have & need) != need) {
      missing.push_back(i);
      continue;
    }
    const Entry& e = it->second;
    MessageKeys& k = keys[i];
    k.match = matches[i];
    k.arrival = e.arrival;
    k.size = e.size;
    k.sent = e.sent;
    for (int slot = 0; slot < 6; ++slot) {
      if (need & (2u << slot)) k.text[static_cast<size_t>(slot)] = e.text[static_cast<size_t>(slot)];
    }
  }
  return missing;
}

void SortKeyCache::remember(const std::string& mailbox_dir, uint32_t uidvalidity,
                            const std::vector<SortCriterion>& criteria,
                            const std::vector<MessageKeys>& keys) {
  if (keys.empty() || max_bytes_ == 0) return;
  const std::string key = boxKey(mailbox_dir, uidvalidity);
  std::shared_ptr<Box> b = box(key, true);
  if (b == nullptr) return;
  const uint16_t need = neededKeyBits(criteria);
  std::lock_guard<std::mutex> lock(b->mu);
  for (const MessageKeys& k : keys) {
    auto it = b->entries.find(k.match.uid);
    size_t more = it == b->entries.end() ? kEntryOverhead : 0;
    for (int slot = 0; slot < 6; ++slot) {
      const auto s = static_cast<size_t>(slot);
      if ((need & (2u << slot)) && (it == b->entries.end() || !(it->second.have & (2u << slot)))) {
        more += textBytes(k.text[s]);
      }
    }
    if (!reserve(key, *b, more)) return;  // full: what is kept stays, nothing more is added
    Entry& e = it == b->entries.end() ? b->entries[k.match.uid] : it->second;
    e.arrival = k.arrival;
    e.size = k.size;
    if (need & 1) e.sent = k.sent;
    for (int slot = 0; slot < 6; ++slot) {
      if (need & (2u << slot)) e.text[static_cast<size_t>(slot)] = k.text[static_cast<size_t>(slot)];
    }
    e.have |= need;
  }
}

std::vector<size_t> SortKeyCache::lookupThread(const std::string& mailbox_dir,
                                               uint32_t uidvalidity,
                                               std::span<const search::SearchMatch> matches,
                                               std::vector<thread::ThreadMessage>& out) {
  out.assign(matches.size(), thread::ThreadMessage{});
  std::vector<size_t> missing;
  std::shared_ptr<Box> b = box(boxKey(mailbox_dir, uidvalidity), false);
  std::unique_lock<std::mutex> lock;
  if (b != nullptr) lock = std::unique_lock<std::mutex>(b->mu);
  for (size_t i = 0; i < matches.size(); ++i) {
    if (b == nullptr) {
      missing.push_back(i);
      continue;
    }
    auto it = b->entries.find(matches[i].uid);
    if (it == b->entries.end() || !(it->second.have & kThreadBit)) {
      missing.push_back(i);
      continue;
    }
    out[i] = it->second.thread;
  }
  return missing;
}

void SortKeyCache::rememberThread(const std::string& mailbox_dir, uint32_t uidvalidity,
                                  const std::vector<uint32_t>& uids,
                                  const std::vector<thread::ThreadMessage>& inputs) {
  if (uids.empty() || max_bytes_ == 0) return;
  const std::string key = boxKey(mailbox_dir, uidvalidity);
  std::shared_ptr<Box> b = box(key, true);
  if (b == nullptr) return;
  std::lock_guard<std::mutex> lock(b->mu);
  for (size_t i = 0; i < uids.size() && i < inputs.size(); ++i) {
    auto it = b->entries.find(uids[i]);
    if (it != b->entries.end() && (it->second.have & kThreadBit)) continue;
    size_t more = (it == b->entries.end() ? kEntryOverhead : 0) + threadBytes(inputs[i]);
    if (!reserve(key, *b, more)) return;
    Entry& e = it == b->entries.end() ? b->entries[uids[i]] : it->second;
    e.thread = inputs[i];
    e.thread.id = 0;  // the id is the caller's (UID or sequence number), set per THREAD
    e.have |= kThreadBit;
  }
}

size_t SortKeyCache::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

size_t SortKeyCache::mailboxes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return boxes_.size();
}

}  // namespace darius::imapd::sort
