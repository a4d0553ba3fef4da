// The sort keys (sort_keys.h) and THREAD inputs (imapd/thread/thread_inputs.h) of messages a
// SORT or THREAD has already read, kept in memory by mailbox and UID, so that sorting or
// threading a folder again (a webmail does it at every page) reads no cache entries and parses
// no headers. Reading them is most of a SORT's or THREAD's cost: the cache entry's CRC over
// its whole record, the header block's parse, the dates, addresses and message ids.
//
// Never stale: a message's keys come from its own header and its record's internal date and
// size, none of which change while it exists, and UIDs are not reused within a UIDVALIDITY
// (which is part of the mailbox's identity here). An expunged message's keys are only unused.
// Each message's entry records which keys it holds; a SORT by another key reads that key
// then and adds it.
//
// Bounded by `sort_key_cache` bytes (the strings' sizes plus a fixed overhead per message).
// When a fill would go past it, the mailboxes sorted least recently are dropped whole; a
// single mailbox larger than the budget keeps what it has and stops growing.
//
// Ownership: the cache owns the keys; lookups copy them out. Thread-safety: every method may
// be called from any thread (the sessions' blocking pool): one mutex for the table of
// mailboxes and the byte count, one per mailbox for its keys, never held while a key is read.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "imapd/sort/sort_args.h"
#include "imapd/sort/sort_keys.h"
#include "imapd/thread/thread_algorithms.h"

namespace darius::imapd::sort {

class SortKeyCache {
 public:
  explicit SortKeyCache(size_t max_bytes) : max_bytes_(max_bytes) {}
  SortKeyCache(const SortKeyCache&) = delete;
  SortKeyCache& operator=(const SortKeyCache&) = delete;

  // Fills `keys[i]` for each match whose keys for `criteria` are known (keys[i].match set,
  // the other fields those the criteria name) and returns the indexes of the others, which
  // the caller reads and gives to remember().
  std::vector<size_t> lookup(const std::string& mailbox_dir, uint32_t uidvalidity,
                             const std::vector<SortCriterion>& criteria,
                             const std::vector<search::SearchMatch>& matches,
                             std::vector<MessageKeys>& keys);
  // Keeps the keys `criteria` name of each of `keys` (read from the mailbox).
  void remember(const std::string& mailbox_dir, uint32_t uidvalidity,
                const std::vector<SortCriterion>& criteria, const std::vector<MessageKeys>& keys);

  // The same for THREAD: `out[i]` for each match whose inputs are known (its id left 0 for
  // the caller to set), and the indexes of the others.
  std::vector<size_t> lookupThread(const std::string& mailbox_dir, uint32_t uidvalidity,
                                   std::span<const search::SearchMatch> matches,
                                   std::vector<thread::ThreadMessage>& out);
  // Keeps `inputs[i]` as the THREAD inputs of uids[i].
  void rememberThread(const std::string& mailbox_dir, uint32_t uidvalidity,
                      const std::vector<uint32_t>& uids,
                      const std::vector<thread::ThreadMessage>& inputs);

  size_t bytes() const;
  size_t mailboxes() const;

 private:
  // Which keys an Entry holds: see neededKeyBits(); kThreadBit: thread.
  static constexpr uint16_t kThreadBit = 1u << 9;
  struct Entry {
    int64_t arrival = 0;
    int64_t sent = 0;
    uint64_t size = 0;
    uint16_t have = 0;
    std::array<std::string, 6> text;
    thread::ThreadMessage thread;
  };
  struct Box {
    std::mutex mu;
    std::unordered_map<uint32_t, Entry> entries;
    size_t bytes = 0;  // guarded by the cache's mu_, like the LRU order
    std::list<std::string>::iterator lru;
  };

  std::shared_ptr<Box> box(const std::string& key, bool create);
  // Makes room for `more` bytes in `box` (dropping other mailboxes); false if none can be made.
  bool reserve(const std::string& key, Box& box, size_t more);

  const size_t max_bytes_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<Box>> boxes_;
  std::list<std::string> lru_;  // most recently used first
  size_t bytes_ = 0;
};

// The bits of what a list of criteria needs: bit 0 DATE, bit 1 + textSlot for the strings,
// and always kRecordKeyBit (ARRIVAL and SIZE, read with any of them).
inline constexpr uint16_t kRecordKeyBit = 1u << 8;
uint16_t neededKeyBits(const std::vector<SortCriterion>& criteria);

}  // namespace darius::imapd::sort
