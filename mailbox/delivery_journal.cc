// The delivery journal's writer: segments, group-committed fdatasync, checkpoints
// (delivery_journal.h; docs/formats/journal.md).
#include "mailbox/delivery_journal.h"

#include <algorithm>
#include <chrono>

#include "lib/io/path.h"
#include "lib/log/log.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

namespace {

int64_t journalNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string journalMessagePath(const std::string& dir, uint32_t uid) {
  return dir + "/" + std::to_string(uid) + ".";
}

}  // namespace

DeliveryJournal::DeliveryJournal(io::Env& env, std::string dir, io::FileLock lock,
                                 JournalOptions options)
    : env_(env), dir_(std::move(dir)), lock_(std::move(lock)), options_(std::move(options)) {}

Result<io::FileLock> DeliveryJournal::lockDir(io::Env& env, const std::string& dir, bool wait) {
  DARIUS_RETURN_IF_ERROR(io::createDirs(env, dir));
  return io::FileLock::acquire(io::joinPath(dir, kJournalLockName), io::LockMode::kExclusive,
                               wait);
}

Result<std::vector<uint64_t>> DeliveryJournal::listSegments(io::Env& env, const std::string& dir) {
  DARIUS_ASSIGN_OR_RETURN(std::vector<std::string> names, env.listDir(dir));
  std::vector<uint64_t> out;
  for (const std::string& n : names) {
    uint64_t s = 0;
    if (parseJournalSegmentName(n, &s)) out.push_back(s);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::unique_ptr<DeliveryJournal>> DeliveryJournal::openOwned(io::Env& env, std::string dir,
                                                                    io::FileLock lock,
                                                                    JournalOptions options) {
  if (!lock.held()) return Status::invalid("journal: opened without its lock");
  DARIUS_ASSIGN_OR_RETURN(std::vector<uint64_t> left, listSegments(env, dir));
  std::unique_ptr<DeliveryJournal> j(
      new DeliveryJournal(env, std::move(dir), std::move(lock), std::move(options)));
  // Segments still here were replayed by the caller; numbering goes on after them so that a
  // crash before they are removed never pairs old records with a new file's number.
  j->next_segment_ = left.empty() ? 1 : left.back() + 1;
  for (uint64_t s : left) {
    Status gone = env.removeFile(io::joinPath(j->dir_, journalSegmentName(s)));
    if (!gone.isOk() && gone.code() != base::Code::kNotFound) return gone;
  }
  {
    std::lock_guard<std::mutex> g(j->mu_);
    DARIUS_RETURN_IF_ERROR(j->startSegmentLocked());
  }
  if (j->options_.background) j->thread_ = std::thread([p = j.get()] { p->checkpointLoop(); });
  return j;
}

DeliveryJournal::~DeliveryJournal() {
  {
    std::lock_guard<std::mutex> g(mu_);
    stopping_ = true;
  }
  wake_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  // A clean stop leaves nothing to replay: everything becomes durable and the segments go.
  std::vector<std::unique_ptr<Segment>> closed;
  {
    std::lock_guard<std::mutex> g(mu_);
    if (abandoned_) return;
    if (active_ != nullptr) closeActiveLocked();
    closed.swap(closed_);
  }
  if (!closed.empty()) {
    Status s = makeDurable(closed);
    if (!s.isOk()) log::warning("{}: journal left for replay at the next start: {}", dir_, s.toString());
  }
}

void DeliveryJournal::abandon() {
  std::lock_guard<std::mutex> g(mu_);
  abandoned_ = true;
}

Status DeliveryJournal::startSegmentLocked() {
  const uint64_t number = next_segment_++;
  const std::string path = io::joinPath(dir_, journalSegmentName(number));
  DARIUS_ASSIGN_OR_RETURN(std::unique_ptr<io::WritableFile> f,
                          env_.openWritable(path, io::Env::OpenMode::kCreateNew));
  JournalSegmentHeader h;
  h.segment = number;
  DARIUS_RETURN_IF_ERROR(f->append(encodeJournalSegmentHeader(h)));
  // The header and the file's name are durable before any record counts on them.
  DARIUS_RETURN_IF_ERROR(f->sync());
  DARIUS_RETURN_IF_ERROR(env_.syncDir(dir_));
  auto s = std::make_unique<Segment>();
  s->number = number;
  s->file = std::move(f);
  s->base_lsn = written_lsn_;
  written_lsn_ += kJournalHeaderSize;
  durable_lsn_ = written_lsn_;
  active_ = std::move(s);
  active_since_ms_ = 0;
  return Status::ok();
}

Status DeliveryJournal::makeRoomLocked(size_t frame_size) {
  const bool full = active_ != nullptr && active_->file->size() > kJournalHeaderSize &&
                    active_->file->size() + frame_size > options_.segment_bytes;
  if (active_ != nullptr && !active_->failed && !active_->sealed && !full) return Status::ok();
  // A failed or sealed segment takes nothing more; a full one is closed.
  if (active_ != nullptr) closeActiveLocked();
  return startSegmentLocked();
}

void DeliveryJournal::closeActiveLocked() {
  // Its records are synced at the close, so that a closed segment never holds anything not
  // yet durable (sync() only ever flushes the active one).
  if (!active_->failed && active_->file->size() > kJournalHeaderSize) {
    if (Status s = active_->file->sync(); !s.isOk()) {
      active_->failed = true;
      failed_below_ = std::max(failed_below_, written_lsn_);
    } else {
      durable_lsn_ = std::max(durable_lsn_, written_lsn_);
    }
    synced_cv_.notify_all();
  }
  closed_.push_back(std::move(active_));
  wake_cv_.notify_all();
}

Status DeliveryJournal::appendFrameLocked(const std::string& frame) {
  if (Status s = active_->file->append(frame); !s.isOk()) {
    // Part of the frame may be there: a replay stops at it, so nothing may follow it in this
    // segment. The next write starts another.
    active_->sealed = true;
    return s;
  }
  written_lsn_ += frame.size();
  if (active_since_ms_ == 0) active_since_ms_ = journalNowMs();
  if (active_->file->size() >= options_.segment_bytes) wake_cv_.notify_all();
  return Status::ok();
}

Result<JournalRef> DeliveryJournal::writeMessage(const Guid& guid, std::string_view bytes) {
  std::lock_guard<std::mutex> g(mu_);
  DARIUS_RETURN_IF_ERROR(makeRoomLocked(kJournalFrameSize + 1 + guid.size() + bytes.size()));
  // The frame's CRC covers the segment number, known only here under the lock.
  JournalRef ref{active_->number, active_->file->size()};
  DARIUS_RETURN_IF_ERROR(appendFrameLocked(encodeJournalMessage(active_->number, guid, bytes)));
  ++stats_.messages;
  return ref;
}

Result<uint64_t> DeliveryJournal::writeAppend(
    JournalAppend a, const std::vector<JournalRef>& refs,
    const std::function<Result<std::string>(size_t)>& load, const std::string& mailbox_path) {
  if (refs.size() != a.entries.size()) return Status::invalid("journal: one ref per entry");
  std::lock_guard<std::mutex> g(mu_);
  DARIUS_RETURN_IF_ERROR(makeRoomLocked(0));
  const uint64_t seg = active_->number;
  // Messages whose record is in an older segment (closed since they were staged) are
  // written again here: a checkpoint may remove that segment before this record's.
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> moved;
  for (size_t i = 0; i < refs.size(); ++i) {
    if (refs[i].segment == seg) {
      a.entries[i].message_offset = refs[i].offset;
      continue;
    }
    auto key = std::make_pair(refs[i].segment, refs[i].offset);
    auto it = moved.find(key);
    if (it == moved.end()) {
      DARIUS_ASSIGN_OR_RETURN(std::string bytes, load(i));
      const uint64_t at = active_->file->size();
      DARIUS_RETURN_IF_ERROR(
          appendFrameLocked(encodeJournalMessage(seg, a.entries[i].record.guid, bytes)));
      ++stats_.messages;
      it = moved.emplace(key, at).first;
    }
    a.entries[i].message_offset = it->second;
  }
  // The record lands in the segment its offsets point into, even when that takes the
  // segment past its size (the next write then starts another).
  DARIUS_ASSIGN_OR_RETURN(std::string frame, encodeJournalAppend(seg, a));
  DARIUS_RETURN_IF_ERROR(appendFrameLocked(frame));
  if (options_.filesystem_sync == nullptr) {  // a checkpoint by syncfs needs no list
    auto& uids = active_->touched[mailbox_path];
    for (const JournalAppendEntry& e : a.entries) uids.insert(e.record.uid);
  }
  ++stats_.appends;
  return written_lsn_;
}

Status DeliveryJournal::sync(uint64_t lsn) {
  std::unique_lock<std::mutex> lk(mu_);
  if (lsn > durable_lsn_) ++stats_.sync_calls;
  while (true) {
    if (lsn <= failed_below_) return Status::ioError(dir_ + ": journal fdatasync failed");
    if (lsn <= durable_lsn_) return Status::ok();
    if (syncing_) {
      synced_cv_.wait(lk);
      continue;
    }
    // Lead: sync the active segment up to what is written now; the lsn is in it (a closed
    // segment was synced when it was closed).
    if (active_ == nullptr) return Status::ioError(dir_ + ": journal has no segment");
    syncing_ = true;
    std::shared_ptr<io::WritableFile> file = active_->file;
    const uint64_t target = written_lsn_;
    Segment* seg = active_.get();
    lk.unlock();
    Status s = file->sync();
    lk.lock();
    syncing_ = false;
    ++stats_.fdatasyncs;
    if (s.isOk()) {
      durable_lsn_ = std::max(durable_lsn_, target);
    } else {
      failed_below_ = std::max(failed_below_, target);
      if (active_.get() == seg) active_->failed = true;  // the next write starts a new one
      log::error("{}: journal fdatasync failed: {}", dir_, s.toString());
    }
    synced_cv_.notify_all();
  }
}

void DeliveryJournal::beginTail(const std::string& dir, uint64_t lsn) {
  std::lock_guard<std::mutex> g(tails_mu_);
  tails_[dir] = lsn;
}

void DeliveryJournal::endTail(const std::string& dir) {
  std::lock_guard<std::mutex> g(tails_mu_);
  tails_.erase(dir);
}

std::optional<uint64_t> DeliveryJournal::tailInFlight(const std::string& dir) const {
  std::lock_guard<std::mutex> g(tails_mu_);
  auto it = tails_.find(dir);
  if (it == tails_.end()) return std::nullopt;
  return it->second;
}

Status DeliveryJournal::makeDurable(const std::vector<std::unique_ptr<Segment>>& closed) {
  Status s;
  if (options_.filesystem_sync != nullptr) {
    s = options_.filesystem_sync->sync();
  } else {
    // File by file: each message file the segments name, then each mailbox's cache, index
    // and directory (the message files' names). A file gone since (expunged and purged, the
    // mailbox deleted) needs nothing.
    std::map<std::string, std::set<uint32_t>> all;
    for (const auto& seg : closed) {
      for (const auto& [dir, uids] : seg->touched) all[dir].insert(uids.begin(), uids.end());
    }
    std::vector<std::function<Status()>> round;
    auto syncPath = [this](std::string p) {
      return [this, p = std::move(p)]() -> Status {
        auto f = env_.openWritable(p, io::Env::OpenMode::kAppend);
        if (!f.ok()) return f.status().code() == base::Code::kNotFound ? Status::ok() : f.status();
        Status st = (*f)->sync();
        Status c = (*f)->close();
        return st.isOk() ? c : st;
      };
    };
    for (const auto& [dir, uids] : all) {
      for (uint32_t uid : uids) round.push_back(syncPath(journalMessagePath(dir, uid)));
      round.push_back(syncPath(dir + "/darius.cache"));
      round.push_back(syncPath(dir + "/darius.index"));
      round.push_back([this, d = dir]() -> Status {
        Status st = env_.syncDir(d);
        return st.code() == base::Code::kNotFound ? Status::ok() : st;
      });
    }
    constexpr size_t kBatch = 64;
    for (size_t at = 0; at < round.size() && s.isOk(); at += kBatch) {
      std::span<const std::function<Status()>> part(round.data() + at,
                                                    std::min(kBatch, round.size() - at));
      s = env_.runConcurrently(part);
    }
    if (s.isOk() && options_.sync_also) s = options_.sync_also();
  }
  if (!s.isOk()) return s;
  for (const auto& seg : closed) {
    Status gone = env_.removeFile(io::joinPath(dir_, journalSegmentName(seg->number)));
    if (!gone.isOk() && gone.code() != base::Code::kNotFound) return gone;
  }
  return env_.syncDir(dir_);
}

Status DeliveryJournal::checkpoint() {
  std::lock_guard<std::mutex> one(checkpoint_mu_);
  std::vector<std::unique_ptr<Segment>> closed;
  {
    std::lock_guard<std::mutex> g(mu_);
    if (active_ != nullptr && active_->file->size() > kJournalHeaderSize) {
      // Close the active segment: what it describes is written (an append record comes after
      // its files, index and cache writes), and a new segment takes what comes next.
      closeActiveLocked();
      DARIUS_RETURN_IF_ERROR(startSegmentLocked());
    }
    closed.swap(closed_);
  }
  if (closed.empty()) return Status::ok();
  Status s = makeDurable(closed);
  std::lock_guard<std::mutex> g(mu_);
  if (!s.isOk()) {
    ++stats_.checkpoint_failures;
    // Kept for the next try (or for the replay at the next start).
    for (auto& seg : closed) closed_.push_back(std::move(seg));
    std::sort(closed_.begin(), closed_.end(),
              [](const auto& x, const auto& y) { return x->number < y->number; });
    return s;
  }
  stats_.checkpoints += closed.size();
  return Status::ok();
}

void DeliveryJournal::checkpointLoop() {
  std::unique_lock<std::mutex> lk(mu_);
  while (!stopping_) {
    const int64_t now = journalNowMs();
    const bool full = active_ != nullptr && active_->file->size() >= options_.segment_bytes;
    const bool old = active_since_ms_ != 0 &&
                     now - active_since_ms_ >= options_.checkpoint_interval_ms;
    if (full || old || !closed_.empty()) {
      lk.unlock();
      Status s = checkpoint();
      if (!s.isOk()) log::warning("{}: journal checkpoint failed (retried): {}", dir_, s.toString());
      lk.lock();
      if (!s.isOk()) wake_cv_.wait_for(lk, std::chrono::milliseconds(options_.checkpoint_interval_ms));
      continue;
    }
    const int64_t wait_ms = active_since_ms_ == 0
                                ? options_.checkpoint_interval_ms
                                : options_.checkpoint_interval_ms - (now - active_since_ms_);
    wake_cv_.wait_for(lk, std::chrono::milliseconds(std::max<int64_t>(wait_ms, 1)));
  }
}

DeliveryJournal::Stats DeliveryJournal::stats() const {
  std::lock_guard<std::mutex> g(mu_);
  return stats_;
}

}  // namespace darius::mailbox
