#include "mailbox/change_watcher.h"

#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace darius::mailbox {

using base::Result;
using base::Status;

namespace {

constexpr uint32_t kWatchMask =
    IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;

}  // namespace

Result<std::unique_ptr<ChangeWatcher>> ChangeWatcher::open(const std::string& dir) {
  io::UniqueFd fd(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
  if (!fd.valid()) return Status::fromErrno(errno, "inotify_init1");
  if (::inotify_add_watch(fd.get(), dir.c_str(), kWatchMask) < 0) {
    return Status::fromErrno(errno, "inotify_add_watch " + dir);
  }
  return std::unique_ptr<ChangeWatcher>(new ChangeWatcher(std::move(fd)));
}

Result<bool> ChangeWatcher::drain() {
  // Aligned as the kernel's records are; big enough for many events per read.
  alignas(struct inotify_event) char buf[16 * 1024];
  bool any = false;
  for (;;) {
    ssize_t n = ::read(fd_.get(), buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return any;
      return Status::fromErrno(errno, "read inotify");
    }
    if (n == 0) return any;
    any = true;
    for (ssize_t at = 0; at + static_cast<ssize_t>(sizeof(struct inotify_event)) <= n;) {
      struct inotify_event ev;
      std::memcpy(&ev, buf + at, sizeof ev);
      if ((ev.mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) != 0) {
        return Status::notFound("change log directory was removed or moved");
      }
      at += static_cast<ssize_t>(sizeof(struct inotify_event) + ev.len);
    }
  }
}

Result<bool> ChangeWatcher::wait(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() < 0) left = std::chrono::milliseconds(0);
    struct pollfd p = {fd_.get(), POLLIN, 0};
    int rc = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), INT32_MAX)));
    if (rc < 0) {
      if (errno == EINTR) continue;
      return Status::fromErrno(errno, "poll inotify");
    }
    if (rc == 0) return false;
    DARIUS_ASSIGN_OR_RETURN(bool any, drain());
    if (any) return true;
    // Readable but empty (another reader of the fd got there first): keep waiting.
    if (left.count() == 0) return false;
  }
}

ChangeFeed::ChangeFeed(std::unique_ptr<ChangeWatcher> watcher, ChangeLogReader reader,
                       uint64_t from_seq, std::string mailbox_id)
    : watcher_(std::move(watcher)),
      reader_(std::move(reader)),
      last_seen_(from_seq - 1),
      mailbox_id_(std::move(mailbox_id)) {}

Result<std::unique_ptr<ChangeFeed>> ChangeFeed::open(std::string dir, uint64_t from_seq,
                                                     std::string mailbox_id) {
  // Watch first, then position: a record written in between is read by the first poll().
  DARIUS_ASSIGN_OR_RETURN(std::unique_ptr<ChangeWatcher> watcher, ChangeWatcher::open(dir));
  ChangeLogReader reader(std::move(dir));
  DARIUS_RETURN_IF_ERROR(reader.readFrom(from_seq));
  return std::unique_ptr<ChangeFeed>(
      new ChangeFeed(std::move(watcher), std::move(reader), from_seq, std::move(mailbox_id)));
}

Result<std::vector<ChangeRecord>> ChangeFeed::poll() {
  DARIUS_ASSIGN_OR_RETURN(bool notified, watcher_->drain());
  (void)notified;  // read regardless: the first poll, or a caller that lost the race
  if (reposition_) {
    DARIUS_RETURN_IF_ERROR(reader_.readFrom(last_seen_ + 1));
    reposition_ = false;
  }
  std::vector<ChangeRecord> out;
  for (;;) {
    Result<std::optional<ChangeRecord>> r = reader_.next();
    if (!r.ok()) {
      reposition_ = true;
      return r.status();
    }
    if (!*r) return out;
    last_seen_ = (*r)->seq;
    if (mailbox_id_.empty() || (*r)->mailbox_id == mailbox_id_) out.push_back(std::move(**r));
  }
}

Result<std::vector<ChangeRecord>> ChangeFeed::wait(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    DARIUS_ASSIGN_OR_RETURN(std::vector<ChangeRecord> got, poll());
    if (!got.empty()) return got;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return got;
    DARIUS_ASSIGN_OR_RETURN(bool woke, watcher_->wait(left));
    if (!woke) return got;
  }
}

}  // namespace darius::mailbox
