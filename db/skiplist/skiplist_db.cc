// skiplist_db: opening a skiplist database, the lock-free read path, and the Txn's buffered
// writes. Commit and recovery live in skiplist_commit.cc, compact/check in skiplist_repack.cc.
#include "db/skiplist/skiplist_db.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cstring>
#include <thread>

#include "db/skiplist/skiplist_impl.h"
#include "lib/io/atomic_file.h"
#include "lib/io/fd.h"

namespace darius::db::skiplist {

using base::Result;
using base::Status;

namespace {
constexpr int kMaxRetries = 1000;  // lapped or torn-header retries before giving up
}  // namespace

Status lapStatus(const Snapshot& before, const Snapshot& now, uint64_t lapped) {
  // Lapped, but no commit happened since: the slots are damaged, not overwritten.
  if (lapped == 0) return Status::ok();
  if (before.mapping && before.mapping->ino == now.mapping->ino &&
      before.mapping->dev == now.mapping->dev && before.end() == now.end() &&
      before.header.commit_count == now.header.commit_count) {
    return Status::corruption("no valid link slot in the record at offset " +
                              std::to_string(lapped));
  }
  return Status::ok();
}

Result<uint64_t> nextOf(const Snapshot& snap, const Record& node, int level,
                        uint64_t* lapped) {
  uint64_t best = 0;
  bool any = false;
  for (int i = 0; i < 2; ++i) {
    uint64_t off;
    if (!decodeSlot(loadSlot(node.slots, 2 * level + i), &off)) continue;
    if (off >= snap.end()) continue;
    if (off != 0 && off < kFirstRecord) continue;
    any = true;
    if (off > best) best = off;
  }
  if (!any) {
    *lapped = node.offset;
    return uint64_t{0};
  }
  return best;
}

namespace {

// Finds the last node with key < `key` at every level and the level-0 successor of the last.
Status seek(const Snapshot& snap, std::string_view key, uint64_t* succ0,
            uint64_t* lapped) {
  DARIUS_ASSIGN_OR_RETURN(Record x, parseRecord(snap.file(), snap.end(), kHeadOffset, false));
  if (x.type != kHead || x.level != kMaxLevel) {
    return Status::corruption("bad head record at offset " + std::to_string(kHeadOffset));
  }
  for (int lvl = kMaxLevel - 1; lvl >= 0; --lvl) {
    for (;;) {
      DARIUS_ASSIGN_OR_RETURN(uint64_t nx, nextOf(snap, x, lvl, lapped));
      if (*lapped) return Status::ok();
      if (nx == 0) break;
      DARIUS_ASSIGN_OR_RETURN(Record r, parseRecord(snap.file(), snap.end(), nx, false));
      if (r.type == kHead || r.type == kCommit || r.level <= lvl ||
          (x.type != kHead && r.key <= x.key)) {
        return Status::corruption("broken link at level " + std::to_string(lvl) +
                                  " from offset " + std::to_string(x.offset) + " to " +
                                  std::to_string(nx));
      }
      if (r.key >= key) break;
      x = r;
    }
  }
  DARIUS_ASSIGN_OR_RETURN(*succ0, nextOf(snap, x, 0, lapped));
  return Status::ok();
}

}  // namespace

Result<std::unique_ptr<Database>> openSkiplist(const std::string& path,
                                               const OpenOptions& options) {
  io::Env* env = options.env != nullptr ? options.env : io::Env::posix();
  auto db = std::make_unique<SkiplistDb>(path, env, options.read_only);
  DARIUS_ASSIGN_OR_RETURN(bool exists, env->fileExists(path));
  if (!exists) {
    if (!options.create || options.read_only) {
      return Status::notFound("no skiplist database at " + path);
    }
    DARIUS_ASSIGN_OR_RETURN(io::FileLock lock, db->writeLock());
    DARIUS_ASSIGN_OR_RETURN(exists, env->fileExists(path));
    if (!exists) DARIUS_RETURN_IF_ERROR(createEmpty(*env, path));
  }
  DARIUS_RETURN_IF_ERROR(db->openExisting());
  return std::unique_ptr<Database>(std::move(db));
}

Status createEmpty(io::Env& env, const std::string& path) {
  FileHeader h{};
  h.committed_end = kFirstRecord;
  h.generation = 1;
  std::string bytes = encodeHeader(h);
  bytes += encodeRecord(kHeadOffset, kHead, kMaxLevel, nullptr, {}, {});
  return io::writeFileAtomic(env, path, bytes);
}

Status SkiplistDb::openExisting() {
  DARIUS_RETURN_IF_ERROR(remap().status());
  if (read_only_) {
    DARIUS_ASSIGN_OR_RETURN(Snapshot snap, snapshot());
    return parseRecord(snap.file(), snap.end(), kHeadOffset, true).status();
  }
  // A writable open repairs what a crashed writer left (redo of a committed tail).
  DARIUS_ASSIGN_OR_RETURN(io::FileLock lock, writeLock());
  DARIUS_ASSIGN_OR_RETURN(auto file, env_->openWritable(path_, io::Env::OpenMode::kAppend));
  Status s = prepareWriter(file.get()).status();
  Status c = file->close();
  DARIUS_RETURN_IF_ERROR(s);
  return c;
}

Result<io::FileLock> SkiplistDb::writeLock() {
  return io::FileLock::acquire(path_ + ".lock", io::LockMode::kExclusive, true);
}

int SkiplistDb::randomLevel() {
  int level = 1;
  while (level < kMaxLevel && (rng_() & 3) == 0) ++level;  // p = 1/4, as in Cyrus
  return level;
}

Result<std::shared_ptr<const Mapping>> SkiplistDb::remap() {
  DARIUS_ASSIGN_OR_RETURN(io::UniqueFd fd, io::openFile(path_, O_RDONLY));
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return Status::fromErrno(errno, "fstat " + path_);
  auto m = std::make_shared<Mapping>();
  DARIUS_ASSIGN_OR_RETURN(m->map, io::MappedFile::map(fd.get(), size_t(st.st_size), false));
  m->dev = st.st_dev;
  m->ino = st.st_ino;
  std::lock_guard<std::mutex> g(mu_);
  // Threads remap concurrently: never replace a newer mapping by an older, smaller one.
  if (!mapping_ || mapping_->ino != m->ino || mapping_->dev != m->dev ||
      mapping_->bytes().size() < m->bytes().size()) {
    mapping_ = m;
  }
  return std::shared_ptr<const Mapping>(std::move(m));
}

Result<Snapshot> SkiplistDb::snapshot() {
  Snapshot s;
  {
    std::lock_guard<std::mutex> g(mu_);
    s.mapping = mapping_;
  }
  int remaps = 0;
  for (int attempt = 0; attempt < kMaxRetries; ++attempt) {
    std::string_view f = s.mapping->bytes();
    // Copy the header before checking it: a writer may be rewriting it right now.
    char buf[kHeaderSize] = {};
    size_t n = std::min<size_t>(f.size(), kHeaderSize);
    if (n > 0) std::memcpy(buf, f.data(), n);
    auto h = decodeHeader(std::string_view(buf, n));
    if (!h.ok()) {
      if (h.status().code() != base::Code::kCorruption || attempt > 20) return h.status();
      std::this_thread::yield();  // maybe a torn read of a header being rewritten
      continue;
    }
    s.header = *h;
    bool superseded = (s.header.flags & kFlagSuperseded) != 0;
    bool beyond = s.header.committed_end > f.size();
    // After a remap, a superseded flag on the file now at our path (left by a repack that
    // crashed) is moot.
    if (!beyond && (!superseded || remaps > 0)) return s;
    if (beyond && remaps >= 50) {
      return Status::corruption("header's committed end " +
                                std::to_string(s.header.committed_end) +
                                " is beyond the end of the file (" + std::to_string(f.size()) +
                                ") at offset 24");
    }
    // The file grew (or was replaced) since we mapped it: the header we read may even be newer
    // than the size we mapped, so map again and re-read.
    DARIUS_ASSIGN_OR_RETURN(s.mapping, remap());
    ++remaps;
  }
  return Status::temporary("skiplist: could not read a stable header of " + path_);
}

// Every commit moves the header's committed end forward (a commit record is appended), a
// repack or salvage writes a new file with the next generation: so (file, generation, end)
// changes with every commit, read from the header snapshot() maps anyway. Readers notice a
// replaced file by the superseded flag its replacer sets on the old one; a salvage does not
// set it, and a repack that crashed before setting it leaves none, so the stamp also stats
// the path (one syscall) and follows a file that is no longer the one mapped.
Result<std::optional<CommitStamp>> SkiplistDb::commitStamp() {
  struct stat st;
  if (::stat(path_.c_str(), &st) != 0) return Status::fromErrno(errno, "stat " + path_);
  std::shared_ptr<const Mapping> mapped;
  {
    std::lock_guard<std::mutex> g(mu_);
    mapped = mapping_;
  }
  if (mapped->dev != st.st_dev || mapped->ino != st.st_ino) {
    DARIUS_RETURN_IF_ERROR(remap().status());
  }
  DARIUS_ASSIGN_OR_RETURN(Snapshot snap, snapshot());
  CommitStamp stamp;
  stamp.file = (uint64_t(snap.mapping->dev) << 32) ^ uint64_t(snap.mapping->ino);
  stamp.generation = snap.header.generation;
  stamp.position = snap.header.committed_end;
  return std::optional<CommitStamp>(stamp);
}

Result<std::optional<std::string>> SkiplistDb::getSnapshot(const Snapshot& snap,
                                                           std::string_view key, uint64_t* lapped) {
  uint64_t at = 0;
  DARIUS_RETURN_IF_ERROR(seek(snap, key, &at, lapped));
  if (*lapped || at == 0) return std::optional<std::string>();
  DARIUS_ASSIGN_OR_RETURN(Record r, parseRecord(snap.file(), snap.end(), at, true));
  if (r.key != key || r.type != kAdd) return std::optional<std::string>();
  return std::optional<std::string>(std::string(r.value));
}

Result<std::string> SkiplistDb::get(std::string_view key) {
  if (key.empty()) return Status::invalid("empty key");
  for (int attempt = 0; attempt < kMaxRetries; ++attempt) {
    DARIUS_ASSIGN_OR_RETURN(Snapshot snap, snapshot());
    uint64_t lapped = 0;
    DARIUS_ASSIGN_OR_RETURN(auto v, getSnapshot(snap, key, &lapped));
    if (lapped) {
      DARIUS_ASSIGN_OR_RETURN(Snapshot now, snapshot());
      DARIUS_RETURN_IF_ERROR(lapStatus(snap, now, lapped));
      continue;
    }
    if (!v) return Status::notFound("no such key");
    return std::move(*v);
  }
  return Status::temporary("skiplist: reader lapped by writers too often");
}

Status SkiplistDb::scanSnapshot(const Snapshot& snap, const Range& range, const ScanFn& fn,
                                uint64_t* lapped) {
  uint64_t at = 0;
  DARIUS_RETURN_IF_ERROR(seek(snap, range.start, &at, lapped));
  std::string_view prev;
  while (!*lapped && at != 0) {
    DARIUS_ASSIGN_OR_RETURN(Record r, parseRecord(snap.file(), snap.end(), at, true));
    if (r.type == kHead || r.type == kCommit || (!prev.empty() && r.key <= prev)) {
      return Status::corruption("broken level-0 link to offset " + std::to_string(at));
    }
    if (range.end && r.key >= std::string_view(*range.end)) break;
    if (r.type == kAdd && !fn(r.key, r.value)) break;
    prev = r.key;
    DARIUS_ASSIGN_OR_RETURN(at, nextOf(snap, r, 0, lapped));
  }
  return Status::ok();
}

Status SkiplistDb::scan(const Range& range, const ScanFn& fn) {
  // Lock-free: if two commits lap the scan (nextOf), it resumes after the last key it gave
  // out, on a fresh snapshot. Keys stay strictly ordered and each value is intact; only a
  // lapped scan spans two committed states (docs/formats/skiplist.md §4).
  Range r = range;
  std::string last;
  bool resumed = false;
  for (int attempt = 0; attempt < kMaxRetries; ++attempt) {
    DARIUS_ASSIGN_OR_RETURN(Snapshot snap, snapshot());
    uint64_t lapped = 0;
    DARIUS_RETURN_IF_ERROR(scanSnapshot(snap, r, [&](std::string_view k, std::string_view v) {
      if (resumed && k <= std::string_view(last)) return true;
      last.assign(k);
      resumed = true;
      return fn(k, v);
    }, &lapped));
    if (!lapped) return Status::ok();
    DARIUS_ASSIGN_OR_RETURN(Snapshot now, snapshot());
    DARIUS_RETURN_IF_ERROR(lapStatus(snap, now, lapped));
    if (resumed) r.start = last;
  }
  return Status::temporary("skiplist: scan lapped by writers too often");
}

Result<std::unique_ptr<Txn>> SkiplistDb::begin() {
  if (read_only_) return Status::permission("database opened read-only: " + path_);
  DARIUS_ASSIGN_OR_RETURN(io::FileLock lock, writeLock());
  DARIUS_ASSIGN_OR_RETURN(auto file, env_->openWritable(path_, io::Env::OpenMode::kAppend));
  DARIUS_ASSIGN_OR_RETURN(Snapshot snap, prepareWriter(file.get()));
  return std::unique_ptr<Txn>(
      std::make_unique<SkiplistTxn>(this, std::move(lock), std::move(file), std::move(snap)));
}

// --- SkiplistTxn: writes are buffered in memory and applied by commit() ---

Status SkiplistTxn::live() const {
  return done_ ? Status::invalid("transaction already committed or aborted") : Status::ok();
}

Result<std::string> SkiplistTxn::get(std::string_view key) {
  DARIUS_RETURN_IF_ERROR(live());
  if (key.empty()) return Status::invalid("empty key");
  auto it = writes_.find(key);
  if (it != writes_.end()) {
    if (!it->second) return Status::notFound("no such key");
    return *it->second;
  }
  uint64_t lapped = 0;  // impossible: we hold the write lock
  DARIUS_ASSIGN_OR_RETURN(auto v, db_->getSnapshot(snap_, key, &lapped));
  DARIUS_RETURN_IF_ERROR(lapStatus(snap_, snap_, lapped));
  if (!v) return Status::notFound("no such key");
  return std::move(*v);
}

Status SkiplistTxn::put(std::string_view key, std::string_view value) {
  DARIUS_RETURN_IF_ERROR(live());
  DARIUS_RETURN_IF_ERROR(validateRecord(key, value));
  writes_.insert_or_assign(std::string(key), std::optional<std::string>(std::string(value)));
  return Status::ok();
}

Status SkiplistTxn::remove(std::string_view key) {
  DARIUS_RETURN_IF_ERROR(live());
  DARIUS_ASSIGN_OR_RETURN(std::string old, get(key));
  writes_.insert_or_assign(std::string(key), std::optional<std::string>());
  return Status::ok();
}

Status SkiplistTxn::scan(const Range& range, const ScanFn& fn) {
  DARIUS_RETURN_IF_ERROR(live());
  // Merge the committed state with the buffered writes; the buffered entry wins on equal keys.
  auto it = writes_.lower_bound(range.start);
  bool stopped = false;
  auto emitOverlayBelow = [&](std::optional<std::string_view> limit) {
    for (; !stopped && it != writes_.end(); ++it) {
      if (range.end && it->first >= *range.end) { it = writes_.end(); break; }
      if (limit && it->first >= *limit) break;
      if (it->second && !fn(it->first, *it->second)) stopped = true;
    }
  };
  uint64_t lapped = 0;
  DARIUS_RETURN_IF_ERROR(db_->scanSnapshot(snap_, range, [&](std::string_view k,
                                                              std::string_view v) {
    emitOverlayBelow(k);
    if (stopped) return false;
    if (it != writes_.end() && it->first == k) return true;  // overridden; emitted in order
    if (!fn(k, v)) stopped = true;
    return !stopped;
  }, &lapped));
  DARIUS_RETURN_IF_ERROR(lapStatus(snap_, snap_, lapped));
  if (!stopped) emitOverlayBelow(std::nullopt);
  return Status::ok();
}

Status SkiplistTxn::commit() {
  DARIUS_RETURN_IF_ERROR(live());
  done_ = true;
  Status s = writes_.empty() ? Status::ok() : db_->commitWrites(*file_, snap_, writes_);
  Status c = file_->close();
  writes_.clear();
  lock_.unlock();
  DARIUS_RETURN_IF_ERROR(s);
  (void)c;  // the data is durable already (or the error above says why not)
  return Status::ok();
}

void SkiplistTxn::abort() {
  if (done_) return;
  done_ = true;
  writes_.clear();
  if (file_) (void)file_->close();
  lock_.unlock();
}

}  // namespace darius::db::skiplist
