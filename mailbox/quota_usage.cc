#include "mailbox/quota_usage.h"

#include <fcntl.h>
#include <openssl/rand.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

#include "lib/base/digits.h"
#include "lib/io/fd.h"
#include "mailbox/mailbox_name.h"
#include "mailbox/message_stage.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

namespace {

// "6f1c...-....": 32 hex digits and four dashes.
std::optional<BootId> parseBootId(std::string_view text) {
  BootId id{};
  size_t n = 0;
  int high = -1;
  for (char c : text) {
    if (c == '-' || c == '\n') continue;
    int v = base::hexDigitValue(c);
    if (v < 0 || n >= id.size()) return std::nullopt;
    if (high < 0) {
      high = v;
    } else {
      id[n++] = static_cast<uint8_t>(high << 4 | v);
      high = -1;
    }
  }
  if (n != id.size() || high >= 0) return std::nullopt;
  return id;
}

}  // namespace

BootId QuotaUsageFiles::currentBoot() {
  // Not storage, so not through the Env: the kernel's id of this boot.
  io::UniqueFd fd(::open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC));
  if (fd.valid()) {
    char buf[64];
    ssize_t n;
    do {
      n = ::read(fd.get(), buf, sizeof buf);
    } while (n < 0 && errno == EINTR);
    if (n > 0) {
      auto id = parseBootId(std::string_view(buf, static_cast<size_t>(n)));
      if (id) return *id;
    }
  }
  static const BootId kPerProcess = [] {
    BootId id{};
    if (RAND_bytes(id.data(), static_cast<int>(id.size())) != 1) {
      uint64_t v = static_cast<uint64_t>(::getpid()) ^ static_cast<uint64_t>(::time(nullptr)) << 20;
      for (size_t i = 0; i < 8; ++i) id[i] = static_cast<uint8_t>(v >> (8 * i));
    }
    return id;
  }();
  return kPerProcess;
}

std::string QuotaUsageFiles::pathOf(const std::string& root) const {
  return dir_ + "/" + guidHex(sha1Of(root));
}

std::optional<QuotaUsage> QuotaUsageFiles::trust(const Result<QuotaUsageRecord>& r,
                                                 const std::string& root) const {
  if (!r.ok() || r->root != root || r->boot != boot_ || r->pending) return std::nullopt;
  return r->usage;
}

Result<QuotaUsageFiles::Hold> QuotaUsageFiles::lock(const std::string& root) {
  Hold h;
  h.files_ = this;
  h.root_ = root;
  h.path_ = pathOf(root);
  DARIUS_ASSIGN_OR_RETURN(h.lock_, io::FileLock::acquire(h.path_, io::LockMode::kExclusive,
                                                         /*wait=*/true));
  DARIUS_ASSIGN_OR_RETURN(h.file_, env_.openWritable(h.path_, io::Env::OpenMode::kExisting));
  DARIUS_ASSIGN_OR_RETURN(std::string bytes,
                          h.file_->pread(0, kQuotaUsageFixedSize + kMaxMailboxNameLength + 1));
  auto record = decodeQuotaUsageRecord(bytes);
  if (record.ok() && record->root == root) {
    h.stored_ = *record;
    h.exact_size_ = true;
  }
  h.trusted_ = trust(record, root);
  return h;
}

std::optional<QuotaUsage> QuotaUsageFiles::peek(const std::string& root) {
  auto bytes = env_.readFile(pathOf(root));
  if (!bytes.ok()) return std::nullopt;
  return trust(decodeQuotaUsageRecord(*bytes), root);
}

Status QuotaUsageFiles::Hold::write(const QuotaUsage& usage, bool pending) {
  QuotaUsageRecord r;
  r.pending = pending;
  r.boot = files_->boot_;
  r.usage = usage;
  r.root = root_;
  std::string bytes = encodeQuotaUsageRecord(r);
  if (!exact_size_) {
    // Empty, damaged or another root's bytes: start the file over (the record is a cache; a
    // crash that leaves it empty only costs a recount).
    DARIUS_RETURN_IF_ERROR(file_->close());
    DARIUS_ASSIGN_OR_RETURN(file_, files_->env_.openWritable(path_, io::Env::OpenMode::kTruncate));
    exact_size_ = true;
  }
  // One pwrite of one sector's worth, never synced: see the header comment.
  DARIUS_RETURN_IF_ERROR(file_->pwrite(0, bytes));
  stored_ = r;
  trusted_ = pending ? std::nullopt : std::optional<QuotaUsage>(usage);
  return Status::ok();
}

Status QuotaUsageFiles::Hold::begin(const QuotaUsage& after) { return write(after, true); }

Status QuotaUsageFiles::Hold::commit(const QuotaUsage& usage) { return write(usage, false); }

}  // namespace darius::mailbox
