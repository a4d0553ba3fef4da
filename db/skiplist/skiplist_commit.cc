// skiplist_commit: turning a transaction's buffered writes into records (the Planner), the
// one-fsync commit, and the redo of committed-but-unapplied transactions after a crash.
// The protocol and its crash-safety argument: docs/formats/skiplist.md §3.
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "db/skiplist/skiplist_impl.h"

namespace darius::db::skiplist {

using base::Result;
using base::Status;

namespace {

struct PendingNode {
  uint64_t off = 0;
  uint8_t type = 0;
  int level = 0;
  std::string_view key, value;
  uint64_t next[kMaxLevel] = {};
};

struct NodeInfo {
  std::string_view key;
  int level = 0;
  uint8_t type = 0;
};

// Plans the link changes of one transaction on top of `snap` (the writer's view, which no one
// else changes): new records get their forward links in their own bytes; links of records
// already in the file go to old_ and are rewritten in place after the fsync.
class Planner {
 public:
  explicit Planner(const Snapshot& snap) : snap_(snap), start_(snap.end()), end_(snap.end()) {}

  // Adds a record for `key` (kAdd or kDelete). level 0 = pick one; `expect_off` (redo) must be
  // where the record lands.
  Status add(uint8_t type, std::string_view key, std::string_view value, int level,
             SkiplistDb& db, uint64_t expect_off = 0) {
    uint64_t preds[kMaxLevel];
    uint64_t x = kHeadOffset;
    for (int lvl = kMaxLevel - 1; lvl >= 0; --lvl) {
      for (;;) {
        DARIUS_ASSIGN_OR_RETURN(uint64_t nx, next(x, lvl));
        if (nx == 0) break;
        DARIUS_ASSIGN_OR_RETURN(NodeInfo ni, info(nx));
        if (ni.key >= key) break;
        x = nx;
      }
      preds[lvl] = x;
    }
    DARIUS_ASSIGN_OR_RETURN(uint64_t succ, next(preds[0], 0));
    NodeInfo existing;
    if (succ != 0) {
      DARIUS_ASSIGN_OR_RETURN(existing, info(succ));
      if (existing.key != key) succ = 0;
    }
    if (succ == 0 && type == kDelete) return Status::ok();  // nothing to hide
    if (succ != 0 && existing.type == kDelete && type == kDelete) return Status::ok();
    PendingNode n;
    n.off = end_;
    n.type = type;
    n.key = key;
    n.value = value;
    if (succ != 0) {
      n.level = existing.level;  // takes over the old record's place at every level
      if (existing.type == kAdd && type == kDelete) --live_delta_;
      if (existing.type == kDelete && type == kAdd) ++live_delta_;
    } else {
      n.level = level != 0 ? level : db.randomLevel();
      ++live_delta_;
    }
    if (level != 0 && n.level != level) return Status::corruption("redo: level mismatch");
    if (expect_off != 0 && expect_off != n.off) return Status::corruption("redo: offset mismatch");
    for (int lvl = 0; lvl < n.level; ++lvl) {
      // A replacement inherits the old record's successors; a new key its predecessors'.
      DARIUS_ASSIGN_OR_RETURN(n.next[lvl], next(succ != 0 ? succ : preds[lvl], lvl));
    }
    end_ += recordSize(n.level, key.size(), value.size());
    nodes_.push_back(n);
    for (int lvl = 0; lvl < n.level; ++lvl) setNext(preds[lvl], lvl, n.off);
    return Status::ok();
  }

  // The new records and the commit record, as one buffer to write at start().
  std::string encode() const {
    std::string out;
    uint32_t chain = 0;
    for (const PendingNode& n : nodes_) {
      uint64_t raw[2 * kMaxLevel] = {};
      for (int lvl = 0; lvl < n.level; ++lvl) raw[2 * lvl] = encodeSlot(n.next[lvl]);
      std::string rec = encodeRecord(n.off, n.type, n.level, raw, n.key, n.value);
      chain = crc32c(chain, rec.data(), 4);
      out += rec;
    }
    out += encodeCommit(end_, CommitBody{start_, uint32_t(nodes_.size()), chain});
    return out;
  }

  // Rewrites the links of old records in place: into the slot this transaction already wrote
  // (redo), else the older of the two, so readers of the previous state keep the other.
  Status applyOldLinks(io::WritableFile& file) const {
    std::vector<std::pair<uint64_t, uint64_t>> writes(old_.begin(), old_.end());
    std::sort(writes.begin(), writes.end());
    for (auto [k, v] : writes) {
      uint64_t off = k >> 5;
      int lvl = int(k & 31);
      DARIUS_ASSIGN_OR_RETURN(Record r, parseRecord(snap_.file(), start_, off, false));
      uint64_t a, b;
      bool a_ok = decodeSlot(loadSlot(r.slots, 2 * lvl), &a);
      bool b_ok = decodeSlot(loadSlot(r.slots, 2 * lvl + 1), &b);
      int which;
      if (a_ok && a >= start_) which = 0;
      else if (b_ok && b >= start_) which = 1;
      else if (!a_ok) which = 0;
      else if (!b_ok) which = 1;
      else which = a < b ? 0 : 1;
      uint64_t raw = encodeSlot(v);
      DARIUS_RETURN_IF_ERROR(file.pwrite(off + sizeof(RecordHeader) + 16 * uint64_t(lvl) +
                                             8 * uint64_t(which),
                                         std::string_view(reinterpret_cast<char*>(&raw), 8)));
    }
    return Status::ok();
  }

  FileHeader newHeader() const {
    FileHeader h = snap_.header;
    h.committed_end = end_ + recordSize(0, 0, sizeof(CommitBody));
    h.live_count = uint64_t(int64_t(h.live_count) + live_delta_);
    h.commit_count += 1;
    return h;
  }
  bool empty() const { return nodes_.empty(); }
  uint64_t start() const { return start_; }

 private:
  const PendingNode* pending(uint64_t off) const {
    auto it = std::lower_bound(nodes_.begin(), nodes_.end(), off,
                               [](const PendingNode& n, uint64_t o) { return n.off < o; });
    return it != nodes_.end() && it->off == off ? &*it : nullptr;
  }
  Result<NodeInfo> info(uint64_t off) const {
    if (off >= start_) {
      const PendingNode* n = pending(off);
      if (n == nullptr) return Status::corruption("planner: dangling pending link");
      return NodeInfo{n->key, n->level, n->type};
    }
    DARIUS_ASSIGN_OR_RETURN(Record r, parseRecord(snap_.file(), start_, off, false));
    if (r.type != kAdd && r.type != kDelete) {
      return Status::corruption("link to a non-data record at offset " + std::to_string(off));
    }
    return NodeInfo{r.key, r.level, r.type};
  }
  Result<uint64_t> next(uint64_t off, int lvl) const {
    if (off >= start_) {
      const PendingNode* n = pending(off);
      if (n == nullptr) return Status::corruption("planner: dangling pending link");
      return n->next[lvl];
    }
    auto it = old_.find(off << 5 | uint64_t(lvl));
    if (it != old_.end()) return it->second;
    DARIUS_ASSIGN_OR_RETURN(Record r, parseRecord(snap_.file(), start_, off, false));
    if (r.level <= lvl) {
      return Status::corruption("link at level " + std::to_string(lvl) + " to offset " +
                                std::to_string(off) + " of lower level");
    }
    uint64_t lapped = 0;
    DARIUS_ASSIGN_OR_RETURN(uint64_t nx, nextOf(snap_, r, lvl, &lapped));
    if (lapped) return Status::corruption("no valid link slot at offset " + std::to_string(off));
    return nx;
  }
  void setNext(uint64_t off, int lvl, uint64_t value) {
    if (off >= start_) {
      const_cast<PendingNode*>(pending(off))->next[lvl] = value;
    } else {
      old_[off << 5 | uint64_t(lvl)] = value;
    }
  }

  const Snapshot& snap_;
  uint64_t start_, end_;
  std::vector<PendingNode> nodes_;
  std::unordered_map<uint64_t, uint64_t> old_;  // (offset << 5 | level) -> new successor
  int64_t live_delta_ = 0;
};

// Applies a durable transaction's links and header: shared by commit and redo.
Status applyPlan(io::WritableFile& file, const Planner& plan) {
  DARIUS_RETURN_IF_ERROR(plan.applyOldLinks(file));
  return file.pwrite(0, encodeHeader(plan.newHeader()));
}

}  // namespace

Status SkiplistDb::commitWrites(io::WritableFile& file, const Snapshot& snap,
                                const Writes& writes) {
  Planner plan(snap);
  for (const auto& [key, value] : writes) {
    DARIUS_RETURN_IF_ERROR(plan.add(value ? kAdd : kDelete, key,
                                    value ? std::string_view(*value) : std::string_view(), 0,
                                    *this));
  }
  if (plan.empty()) return Status::ok();
  // Step 1-2: append records + commit record, one fsync. This is the commit point.
  std::string bytes = plan.encode();
  DARIUS_RETURN_IF_ERROR(file.pwrite(plan.start(), bytes));
  if (Status s = file.sync(); !s.isOk()) {
    // Not acknowledged, so it must not come back: the next begin() would redo a complete
    // transaction it finds in the page cache. Best effort; after a power loss it is moot.
    (void)file.pwrite(plan.start() + bytes.size() - 32, std::string(32, '\0'));
    return s;
  }
  // Step 3: link in place and publish the header, unsynced; a crash here is repaired by redo.
  // The transaction is durable whatever happens now, so its commit() reports OK.
  (void)applyPlan(file, plan);
  return Status::ok();
}

Result<Snapshot> SkiplistDb::prepareWriter(io::WritableFile* file) {
  for (;;) {
    struct stat st;
    if (::stat(path_.c_str(), &st) != 0) return Status::fromErrno(errno, "stat " + path_);
    std::shared_ptr<const Mapping> m;
    {
      std::lock_guard<std::mutex> g(mu_);
      m = mapping_;
    }
    if (m->dev != st.st_dev || m->ino != st.st_ino || m->bytes().size() < uint64_t(st.st_size)) {
      DARIUS_RETURN_IF_ERROR(remap().status());
    }
    DARIUS_ASSIGN_OR_RETURN(Snapshot snap, snapshot());
    DARIUS_RETURN_IF_ERROR(parseRecord(snap.file(), snap.end(), kHeadOffset, true).status());
    // Is there a complete committed transaction after the header's end? (A crash between the
    // fsync and the header update.) Anything else after the end is a dead uncommitted tail.
    std::string_view f = snap.file();
    std::vector<Record> recs;
    uint64_t at = snap.end();
    uint32_t chain = 0;
    bool complete = false;
    for (;;) {
      auto r = parseRecord(f, f.size(), at, true);
      if (!r.ok()) break;
      if (r->type == kCommit) {
        CommitBody body;
        std::memcpy(&body, r->value.data(), sizeof(body));
        complete = body.txn_start == snap.end() && body.records == recs.size() &&
                   body.chain_crc == chain && !recs.empty();
        break;
      }
      if (r->type == kHead) break;
      if (!recs.empty() && r->key <= recs.back().key) break;
      chain = crc32c(chain, &r->crc, 4);
      recs.push_back(*r);
      at += r->size;
    }
    if (!complete) return snap;
    Planner plan(snap);
    for (const Record& r : recs) {
      Status s = plan.add(r.type, r.key, r.value, r.level, *this, r.offset);
      if (!s.isOk()) return s.withContext("redo of the transaction at offset " +
                                          std::to_string(snap.end()));
    }
    DARIUS_RETURN_IF_ERROR(applyPlan(*file, plan));
  }
}

}  // namespace darius::db::skiplist
