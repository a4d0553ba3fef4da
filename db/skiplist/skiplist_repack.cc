// skiplist_repack: compact() (a fresh file, renamed over the old one while readers go on),
// check() (a full structural verification) and salvageSkiplist() (rebuild from every intact
// committed record of a damaged file).
#include <cstring>
#include <unordered_set>

#include "db/skiplist/skiplist_db.h"
#include "db/skiplist/skiplist_impl.h"
#include "lib/io/path.h"

namespace darius::db::skiplist {

using base::Result;
using base::Status;

namespace {

using Entries = std::vector<std::pair<std::string_view, std::string_view>>;

// Writes `entries` (sorted, unique keys) as a new database file at `path` via a temporary
// file, fsync, rename and directory fsync. `level` picks each record's level.
Status writeFresh(io::Env& env, const std::string& path, uint64_t generation,
                  const Entries& entries, const std::function<int()>& level) {
  std::vector<uint8_t> levels(entries.size());
  std::vector<uint64_t> offsets(entries.size());
  std::vector<uint64_t> first(entries.size() + 1);  // index into `next` per record
  uint64_t off = kFirstRecord;
  for (size_t i = 0; i < entries.size(); ++i) {
    levels[i] = uint8_t(level());
    offsets[i] = off;
    first[i + 1] = first[i] + levels[i];
    off += recordSize(levels[i], entries[i].first.size(), entries[i].second.size());
  }
  std::vector<uint64_t> next(first.back());
  uint64_t last[kMaxLevel] = {};
  for (size_t i = entries.size(); i-- > 0;) {
    for (int l = 0; l < levels[i]; ++l) {
      next[first[i] + l] = last[l];
      last[l] = offsets[i];
    }
  }
  FileHeader h{};
  h.generation = generation;
  h.committed_end = entries.empty() ? kFirstRecord : off + recordSize(0, 0, sizeof(CommitBody));
  h.live_count = entries.size();
  std::string tmp = path + ".repack";
  DARIUS_ASSIGN_OR_RETURN(auto file, env.openWritable(tmp, io::Env::OpenMode::kTruncate));
  uint64_t raw[2 * kMaxLevel] = {};
  for (int l = 0; l < kMaxLevel; ++l) raw[2 * l] = encodeSlot(last[l]);
  std::string buf = encodeHeader(h) + encodeRecord(kHeadOffset, kHead, kMaxLevel, raw, {}, {});
  uint32_t chain = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    std::memset(raw, 0, sizeof(raw));
    for (int l = 0; l < levels[i]; ++l) raw[2 * l] = encodeSlot(next[first[i] + l]);
    std::string rec = encodeRecord(offsets[i], kAdd, levels[i], raw, entries[i].first,
                                   entries[i].second);
    chain = crc32c(chain, rec.data(), 4);
    buf += rec;
    if (buf.size() >= (1u << 20)) {
      DARIUS_RETURN_IF_ERROR(file->append(buf));
      buf.clear();
    }
  }
  if (!entries.empty()) {
    buf += encodeCommit(off, CommitBody{kFirstRecord, uint32_t(entries.size()), chain});
  }
  DARIUS_RETURN_IF_ERROR(file->append(buf));
  DARIUS_RETURN_IF_ERROR(file->sync());
  DARIUS_RETURN_IF_ERROR(file->close());
  DARIUS_RETURN_IF_ERROR(env.renameFile(tmp, path));
  return env.syncDir(io::parentDir(path));
}

}  // namespace

Status SkiplistDb::compact() {
  if (read_only_) return Status::permission("database opened read-only: " + path_);
  DARIUS_ASSIGN_OR_RETURN(io::FileLock lock, writeLock());
  DARIUS_ASSIGN_OR_RETURN(auto old_file, env_->openWritable(path_, io::Env::OpenMode::kAppend));
  DARIUS_ASSIGN_OR_RETURN(Snapshot snap, prepareWriter(old_file.get()));
  Entries entries;
  uint64_t lapped = 0;
  DARIUS_RETURN_IF_ERROR(scanSnapshot(snap, Range::all(), [&](std::string_view k,
                                                               std::string_view v) {
    entries.emplace_back(k, v);
    return true;
  }, &lapped));
  DARIUS_RETURN_IF_ERROR(lapStatus(snap, snap, lapped));
  DARIUS_RETURN_IF_ERROR(writeFresh(*env_, path_, snap.header.generation + 1, entries,
                                    [this] { return randomLevel(); }));
  // Tell readers of the old inode (other processes too) to remap. Best effort: the old file is
  // already unlinked, so a crash here changes nothing.
  FileHeader h = snap.header;
  h.flags |= kFlagSuperseded;
  (void)old_file->pwrite(0, encodeHeader(h));
  (void)old_file->close();
  return remap().status();
}

Result<CheckReport> SkiplistDb::check() {
  // A concurrent writer can lap the walk (see nextOf): then check again on a fresh snapshot.
  for (int attempt = 0;; ++attempt) {
    DARIUS_ASSIGN_OR_RETURN(Snapshot snap, snapshot());
    uint64_t lapped = 0;
    CheckReport rep = checkSnapshot(snap, &lapped);
    if (!lapped || attempt >= 100) return rep;
    DARIUS_ASSIGN_OR_RETURN(Snapshot now, snapshot());
    if (!lapStatus(snap, now, lapped).isOk()) return rep;  // damaged, not lapped
  }
}

CheckReport SkiplistDb::checkSnapshot(const Snapshot& snap, uint64_t* lapped_out) {
  CheckReport rep;
  std::string_view f = snap.file();
  const uint64_t end = snap.end();
  auto head = parseRecord(f, end, kHeadOffset, true);
  if (!head.ok() || head->type != kHead || head->level != kMaxLevel) {
    rep.problems.push_back("bad head record" + atOffset(kHeadOffset));
    return rep;
  }
  // 1. The log: every record intact, every transaction closed by a matching commit record.
  std::unordered_set<uint64_t> data;
  uint64_t pos = kFirstRecord, txn_start = pos;
  uint32_t count = 0, chain = 0;
  bool broken = false;
  while (pos < end) {
    auto r = parseRecord(f, end, pos, true);
    if (!r.ok()) {
      rep.problems.push_back(r.status().message());
      broken = true;
      do pos += 8; while (pos < end && !parseRecord(f, end, pos, true).ok());
      continue;
    }
    if (r->type == kCommit) {
      CommitBody body;
      std::memcpy(&body, r->value.data(), sizeof(body));
      if (!broken && (body.txn_start != txn_start || body.records != count ||
                      body.chain_crc != chain)) {
        rep.problems.push_back("commit record" + atOffset(pos) +
                               " does not match its transaction starting" + atOffset(txn_start));
      }
      txn_start = pos + r->size;
      count = chain = 0;
      broken = false;
    } else if (r->type == kHead) {
      rep.problems.push_back("stray head record" + atOffset(pos));
    } else {
      data.insert(pos);
      ++count;
      chain = crc32c(chain, &r->crc, 4);
    }
    pos += r->size;
  }
  if (count != 0) rep.problems.push_back("records without a commit record" + atOffset(txn_start));
  // 2. The links: every level an ordered chain of committed data records, each level a
  //    subset of level 0.
  std::unordered_set<uint64_t> level0;
  for (int lvl = 0; lvl < kMaxLevel; ++lvl) {
    Record x = *head;
    uint64_t live = 0, steps = 0;
    for (;;) {
      uint64_t lapped = 0;
      auto nx = nextOf(snap, x, lvl, &lapped);
      std::string where = " from offset " + std::to_string(x.offset) + " at level " +
                          std::to_string(lvl);
      if (lapped) {
        *lapped_out = x.offset;
        rep.problems.push_back("no valid link slot" + where);
        break;
      }
      if (*nx == 0) break;
      if (!data.count(*nx) || (lvl > 0 && !level0.count(*nx)) || ++steps > data.size()) {
        rep.problems.push_back("link to offset " + std::to_string(*nx) + where +
                               " is not a committed data record on the lower level");
        break;
      }
      Record r = *parseRecord(f, end, *nx, false);
      if (r.level <= lvl || (x.type != kHead && r.key <= x.key)) {
        rep.problems.push_back("link to offset " + std::to_string(*nx) + where +
                               " breaks the key order or the record's level");
        break;
      }
      if (lvl == 0) level0.insert(*nx);
      if (r.type == kAdd) ++live;
      x = r;
    }
    if (lvl == 0) {
      rep.records = live;
      if (live != snap.header.live_count) {
        rep.problems.push_back("header says " + std::to_string(snap.header.live_count) +
                               " live keys but level 0 holds " + std::to_string(live) +
                               atOffset(offsetof(FileHeader, live_count)));
      }
    }
  }
  return rep;
}

Result<uint64_t> salvageSkiplist(const std::string& path, io::Env* env) {
  if (env == nullptr) env = io::Env::posix();
  SkiplistDb db(path, env, false);
  DARIUS_ASSIGN_OR_RETURN(io::FileLock lock, db.writeLock());
  DARIUS_ASSIGN_OR_RETURN(std::string f, env->readFile(path));
  uint64_t generation = 1;
  if (auto h = decodeHeader(f); h.ok()) generation = h->generation;
  std::map<std::string, std::string, std::less<>> state;
  std::vector<Record> pending;
  bool damaged = false;
  for (uint64_t pos = kFirstRecord; pos < f.size();) {
    auto r = parseRecord(f, f.size(), pos, true);
    if (!r.ok()) {
      damaged = true;  // resynchronise on the next record that parses with a good CRC
      pos += 8;
      continue;
    }
    if (r->type == kCommit) {
      CommitBody body;
      std::memcpy(&body, r->value.data(), sizeof(body));
      bool ours = !pending.empty() && (pending.front().offset == body.txn_start ||
                                       (damaged && body.txn_start <= pending.front().offset));
      for (const Record& p : pending) {
        if (!ours) break;
        if (p.type == kAdd) state[std::string(p.key)] = std::string(p.value);
        else state.erase(std::string(p.key));
      }
      pending.clear();
      damaged = false;
    } else if (r->type != kHead) {
      pending.push_back(*r);
    }
    pos += r->size;
  }
  Entries entries(state.begin(), state.end());
  DARIUS_RETURN_IF_ERROR(writeFresh(*env, path, generation + 1, entries,
                                    [&db] { return db.randomLevel(); }));
  return uint64_t(entries.size());
}

}  // namespace darius::db::skiplist
