#include "mailbox/change_log.h"

#include <sys/stat.h>

#include <cerrno>
#include <vector>

#include "lib/io/file_lock.h"
#include "lib/io/path.h"
#include "mailbox/change_log_segment.h"

namespace darius::mailbox {

using base::Result;
using base::Status;
using internal::segmentCorruption;
using internal::SegmentFile;

namespace {

// A leader writes at most this much per group (more only when one batch alone is bigger).
constexpr size_t kMaxGroupBytes = 4 * 1024 * 1024;

Result<ino_t> inodeOf(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return Status::fromErrno(errno, "stat " + path);
  return st.st_ino;
}

}  // namespace

std::string changeLogDir(std::string_view partition_path) {
  return io::joinPath(partition_path, "darius.changelog");
}

// One caller's batch: encoded frames in, result out. Lives on the caller's stack while queued.
struct ChangeLog::Batch {
  std::vector<std::string> frames;
  size_t bytes = 0;
  SeqRange range;
  Status status;
  bool done = false;
  bool sync = true;  // Sync::kNow
};

ChangeLog::ChangeLog(std::string dir, ChangeLogOptions options, io::Env& env)
    : dir_(std::move(dir)), options_(options), env_(env) {}

ChangeLog::~ChangeLog() = default;

std::string ChangeLog::segmentPath(uint64_t first_seq) const {
  return io::joinPath(dir_, internal::segmentFileName(first_seq));
}

std::string ChangeLog::lockPath() const { return io::joinPath(dir_, "lock"); }

Result<std::unique_ptr<ChangeLog>> ChangeLog::open(std::string dir, ChangeLogOptions options) {
  if (options.segment_bytes == 0) return Status::invalid("change log: segment_bytes is 0");
  io::Env& env = options.env != nullptr ? *options.env : *io::Env::posix();
  DARIUS_RETURN_IF_ERROR(io::createDirs(env, dir));
  std::unique_ptr<ChangeLog> log(new ChangeLog(std::move(dir), options, env));
  // The lock file is made through the Env like every other mutation; its contents never
  // matter, and FileLock::acquire would recreate it if it went missing.
  DARIUS_ASSIGN_OR_RETURN(bool have_lock, env.fileExists(log->lockPath()));
  if (!have_lock) {
    DARIUS_ASSIGN_OR_RETURN(auto f, env.openWritable(log->lockPath(), io::Env::OpenMode::kAppend));
    DARIUS_RETURN_IF_ERROR(f->close());
    DARIUS_RETURN_IF_ERROR(env.syncDir(log->dir_));
  }
  {
    std::lock_guard io(log->io_mu_);
    DARIUS_ASSIGN_OR_RETURN(io::FileLock lock,
                            io::FileLock::acquire(log->lockPath(), io::LockMode::kExclusive, true));
    DARIUS_RETURN_IF_ERROR(log->recoverTail());
  }
  return log;
}

Result<SeqRange> ChangeLog::append(std::span<const ChangeRecord> records, Sync sync) {
  if (records.empty()) return Status::invalid("change log: empty batch");
  Batch batch;
  batch.sync = sync == Sync::kNow;
  batch.frames.reserve(records.size());
  for (const ChangeRecord& r : records) {
    DARIUS_ASSIGN_OR_RETURN(std::string frame, encodeFrame(r));
    batch.bytes += frame.size();
    batch.frames.push_back(std::move(frame));
  }
  std::unique_lock lk(queue_mu_);
  queue_.push_back(&batch);
  queue_cv_.wait(lk, [&] { return batch.done || queue_.front() == &batch; });
  if (!batch.done) {
    // Leader: take what is queued now; it is a prefix of queue_, and only the leader pops.
    std::vector<Batch*> group;
    size_t bytes = 0;
    for (Batch* b : queue_) {
      if (!group.empty() && bytes + b->bytes > kMaxGroupBytes) break;
      group.push_back(b);
      bytes += b->bytes;
    }
    lk.unlock();
    Status s;
    {
      std::lock_guard io(io_mu_);
      s = writeGroup(group);
    }
    lk.lock();
    for (Batch* b : group) {
      b->status = s;
      b->done = true;
      queue_.pop_front();
      if (s.isOk()) {
        ++appends_;
        records_ += b->frames.size();
      }
    }
    queue_cv_.notify_all();
  }
  if (!batch.status.isOk()) return batch.status;
  return batch.range;
}

Result<uint64_t> ChangeLog::append(const ChangeRecord& record) {
  DARIUS_ASSIGN_OR_RETURN(SeqRange r, append(std::span<const ChangeRecord>(&record, 1)));
  return r.first;
}

Result<uint64_t> ChangeLog::nextSeq() {
  std::lock_guard io(io_mu_);
  DARIUS_ASSIGN_OR_RETURN(io::FileLock lock,
                          io::FileLock::acquire(lockPath(), io::LockMode::kExclusive, true));
  Status s = refreshTail();
  if (!s.isOk()) {
    tail_.file.reset();
    return s;
  }
  return tail_.next_seq;
}

Status ChangeLog::sync() {
  std::lock_guard io(io_mu_);
  DARIUS_ASSIGN_OR_RETURN(std::vector<uint64_t> segs, internal::listSegments(env_, dir_));
  if (segs.empty()) return Status::ok();
  DARIUS_ASSIGN_OR_RETURN(std::unique_ptr<io::WritableFile> f,
                          env_.openWritable(segmentPath(segs.back()), io::Env::OpenMode::kExisting));
  Status s = f->sync();
  Status c = f->close();
  return s.isOk() ? c : s;
}

Result<size_t> ChangeLog::pruneBefore(uint64_t seq) {
  std::lock_guard io(io_mu_);
  DARIUS_ASSIGN_OR_RETURN(io::FileLock lock,
                          io::FileLock::acquire(lockPath(), io::LockMode::kExclusive, true));
  DARIUS_ASSIGN_OR_RETURN(std::vector<uint64_t> segs, internal::listSegments(env_, dir_));
  size_t removed = 0;
  // Oldest first, the directory synced after each: whatever a crash keeps is a contiguous
  // run of segments ending with the last one, so readers never meet a gap.
  for (size_t i = 0; i + 1 < segs.size() && segs[i + 1] <= seq; ++i) {
    DARIUS_RETURN_IF_ERROR(env_.removeFile(segmentPath(segs[i])));
    DARIUS_RETURN_IF_ERROR(env_.syncDir(dir_));
    ++removed;
  }
  return removed;
}

ChangeLog::Stats ChangeLog::stats() const {
  Stats s;
  {
    std::lock_guard lk(queue_mu_);
    s.appends = appends_;
    s.records = records_;
    s.queued = queue_.size();
  }
  s.groups = groups_.load();
  s.rotations = rotations_.load();
  s.tail_cuts = tail_cuts_.load();
  return s;
}

Status ChangeLog::writeGroup(std::span<Batch* const> group) {
  ++groups_;
  auto lock = io::FileLock::acquire(lockPath(), io::LockMode::kExclusive, true);
  Status s = lock.status();
  if (s.isOk()) s = refreshTail();
  if (s.isOk() && tail_.end >= options_.segment_bytes && tail_.next_seq > tail_.first_seq) {
    s = rotate();
  }
  if (!s.isOk()) {
    tail_.file.reset();
    return s;
  }
  std::string buf;
  uint64_t seq = tail_.next_seq;
  for (Batch* b : group) {
    b->range.first = seq;
    for (std::string& frame : b->frames) {
      finishFrame(frame, seq++);
      buf += frame;
    }
    b->range.last = seq - 1;
  }
  bool sync = false;
  for (const Batch* b : group) sync |= b->sync;
  s = tail_.file->append(buf);
  if (s.isOk() && sync) s = tail_.file->sync();
  if (!s.isOk()) {
    // What was written may or may not be there: find out under the lock next time.
    tail_.file.reset();
    return s;
  }
  tail_.end += buf.size();
  tail_.next_seq = seq;
  return Status::ok();
}

// Brings tail_ up to date with what other processes did since this object last held the lock.
Status ChangeLog::refreshTail() {
  if (!tail_.file) return recoverTail();
  std::string path = segmentPath(tail_.first_seq);
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return recoverTail();
    return Status::fromErrno(errno, "stat " + path);
  }
  if (st.st_ino != tail_.inode || static_cast<uint64_t>(st.st_size) < tail_.end) {
    return recoverTail();  // replaced by another writer's recovery
  }
  if (static_cast<uint64_t>(st.st_size) == tail_.end) {
    // A segment with no records is never sealed (its successor would have its own name).
    if (tail_.next_seq == tail_.first_seq) return Status::ok();
    DARIUS_ASSIGN_OR_RETURN(bool rotated, env_.fileExists(segmentPath(tail_.next_seq)));
    if (!rotated) return Status::ok();
  }
  // Others appended (the intact prefix we know is unchanged: nobody rewrites intact records)
  // or started a new segment: read on from where we are.
  return followFrom(tail_.first_seq, tail_.end, tail_.next_seq);
}

Status ChangeLog::recoverTail() {
  tail_ = Tail{};
  DARIUS_ASSIGN_OR_RETURN(std::vector<std::string> names, env_.listDir(dir_));
  bool removed = false;
  for (const std::string& n : names) {
    if (internal::isTempFileName(n)) {  // a cut that did not get as far as its rename
      DARIUS_RETURN_IF_ERROR(env_.removeFile(io::joinPath(dir_, n)));
      removed = true;
    }
  }
  if (removed) DARIUS_RETURN_IF_ERROR(env_.syncDir(dir_));
  DARIUS_ASSIGN_OR_RETURN(std::vector<uint64_t> segs, internal::listSegments(env_, dir_));
  if (segs.empty()) return createSegment(1);
  return followFrom(segs.back(), 0, segs.back());
}

// Scans segment `first_seq` from `offset` (0: from its header), whose next record must carry
// `expect`, and on through any later segments; then makes the end the tail, cutting off a
// torn tail. Every earlier byte of the log is known intact.
Status ChangeLog::followFrom(uint64_t first_seq, uint64_t offset, uint64_t expect) {
  for (;;) {
    DARIUS_ASSIGN_OR_RETURN(SegmentFile seg, SegmentFile::open(segmentPath(first_seq)));
    DARIUS_ASSIGN_OR_RETURN(uint64_t size, seg.size());
    if (offset == 0) {
      DARIUS_ASSIGN_OR_RETURN(HeaderDecode h, seg.header());
      if (h.state == DecodeState::kValid) {
        if (h.header.first_seq != first_seq) {
          return segmentCorruption(
              first_seq, 0,
              "header says first sequence number " + std::to_string(h.header.first_seq));
        }
        offset = h.header.header_size;
        expect = first_seq;
      } else if (h.unsupported) {
        return Status::notSupported(seg.path() + ": " + h.error);
      } else if (h.state == DecodeState::kIncomplete || size <= kSegmentHeaderSize) {
        // A segment whose creation a crash cut short (its records would come only after a
        // durable header): write its header again.
        DARIUS_ASSIGN_OR_RETURN(std::vector<uint64_t> segs, internal::listSegments(env_, dir_));
        if (segs.back() != first_seq) {
          return segmentCorruption(first_seq, 0, "torn header before a later segment");
        }
        DARIUS_RETURN_IF_ERROR(rewriteSegment(first_seq, encodeSegmentHeader(first_seq)));
        return adoptTail(first_seq, kSegmentHeaderSize, first_seq);
      } else {
        return segmentCorruption(first_seq, 0, h.error);
      }
    }
    FrameDecode f;
    for (;;) {
      DARIUS_ASSIGN_OR_RETURN(f, seg.frameAt(offset));
      if (f.state != DecodeState::kValid) break;
      if (f.seq != expect) {
        return segmentCorruption(
            first_seq, offset,
            "sequence number " + std::to_string(f.seq) + ", expected " + std::to_string(expect));
      }
      offset += f.size;
      ++expect;
    }
    bool sealed = false;  // an empty segment never is: rotation needs a record first
    if (expect != first_seq) {
      DARIUS_ASSIGN_OR_RETURN(sealed, env_.fileExists(segmentPath(expect)));
    }
    if (sealed) {
      // A later segment exists, so this one was complete and synced before it was made.
      if (offset != size) return segmentCorruption(first_seq, offset, f.error + " (sealed)");
      first_seq = expect;
      offset = 0;
      continue;
    }
    // Not followed by a segment named after its end: then no later one may exist at all.
    DARIUS_ASSIGN_OR_RETURN(std::vector<uint64_t> segs, internal::listSegments(env_, dir_));
    if (segs.empty() || segs.back() > first_seq) {
      return segmentCorruption(first_seq, offset,
                               (offset != size ? f.error : std::string("end of segment")) +
                                   ", but the next segment does not start at " +
                                   std::to_string(expect));
    }
    if (offset != size) {
      if (f.state == DecodeState::kBad && f.size > 0) {
        DARIUS_ASSIGN_OR_RETURN(FrameDecode next, seg.frameAt(offset + f.size));
        if (next.state == DecodeState::kValid && next.seq == expect + 1) {
          return segmentCorruption(first_seq, offset, f.error + " (followed by intact records)");
        }
      }
      DARIUS_ASSIGN_OR_RETURN(std::string intact, seg.readAt(0, offset));
      if (intact.size() != offset) return Status::ioError(seg.path() + ": shrank under the lock");
      DARIUS_RETURN_IF_ERROR(rewriteSegment(first_seq, intact));
    }
    return adoptTail(first_seq, offset, expect);
  }
}

// Makes segment `first_seq`, whose intact data ends at `end`, the tail for appending.
Status ChangeLog::adoptTail(uint64_t first_seq, uint64_t end, uint64_t next_seq) {
  tail_ = Tail{};
  std::string path = segmentPath(first_seq);
  DARIUS_ASSIGN_OR_RETURN(auto file, env_.openWritable(path, io::Env::OpenMode::kAppend));
  if (file->size() != end) {
    return Status::ioError(path + ": size " + std::to_string(file->size()) + ", expected " +
                           std::to_string(end) + " (a writer not holding the lock?)");
  }
  DARIUS_ASSIGN_OR_RETURN(ino_t inode, inodeOf(path));
  tail_ = Tail{first_seq, end, next_seq, inode, std::move(file)};
  return Status::ok();
}

// Replaces a segment's contents: temp file, fsync, rename over, fsync of the directory.
Status ChangeLog::rewriteSegment(uint64_t first_seq, std::string_view contents) {
  std::string path = segmentPath(first_seq);
  std::string tmp = path + ".tmp";
  DARIUS_ASSIGN_OR_RETURN(auto file, env_.openWritable(tmp, io::Env::OpenMode::kTruncate));
  DARIUS_RETURN_IF_ERROR(file->append(contents));
  DARIUS_RETURN_IF_ERROR(file->sync());
  DARIUS_RETURN_IF_ERROR(file->close());
  DARIUS_RETURN_IF_ERROR(env_.renameFile(tmp, path));
  DARIUS_RETURN_IF_ERROR(env_.syncDir(dir_));
  ++tail_cuts_;
  return Status::ok();
}

// Header written and synced, then the name made durable; records come only after that.
Status ChangeLog::createSegment(uint64_t first_seq) {
  tail_ = Tail{};
  std::string path = segmentPath(first_seq);
  DARIUS_ASSIGN_OR_RETURN(auto file, env_.openWritable(path, io::Env::OpenMode::kCreateNew));
  DARIUS_RETURN_IF_ERROR(file->append(encodeSegmentHeader(first_seq)));
  DARIUS_RETURN_IF_ERROR(file->sync());
  DARIUS_RETURN_IF_ERROR(env_.syncDir(dir_));
  DARIUS_ASSIGN_OR_RETURN(ino_t inode, inodeOf(path));
  tail_ = Tail{first_seq, kSegmentHeaderSize, first_seq, inode, std::move(file)};
  return Status::ok();
}

Status ChangeLog::rotate() {
  // Whole records a dead writer left unsynced must be durable before a later segment exists,
  // or a crash could leave a gap between the two.
  DARIUS_RETURN_IF_ERROR(tail_.file->sync());
  DARIUS_RETURN_IF_ERROR(tail_.file->close());
  DARIUS_RETURN_IF_ERROR(createSegment(tail_.next_seq));
  ++rotations_;
  return Status::ok();
}

}  // namespace darius::mailbox
