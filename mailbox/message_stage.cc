#include "mailbox/message_stage.h"

#include <openssl/sha.h>
#include <unistd.h>

#include <atomic>
#include <chrono>

#include "mailbox/cache_fill.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

Guid sha1Of(std::string_view bytes) {
  Guid g{};
  SHA1(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), g.data());
  return g;
}

std::string guidHex(const Guid& g) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(g.size() * 2);
  for (uint8_t b : g) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

uint32_t headerSizeOf(std::string_view m) {
  // RFC 5322 §2.1: the header ends at the first empty line. A message that starts with CRLF
  // has an empty header of 2 bytes; one without a blank line is all header.
  if (m.substr(0, 2) == "\r\n") return 2;
  size_t end = m.find("\r\n\r\n");
  size_t n = end == std::string_view::npos ? m.size() : end + 4;
  return static_cast<uint32_t>(std::min<size_t>(n, UINT32_MAX));
}

Status PendingSync::run() {
  std::lock_guard<std::mutex> g(mu_);
  if (file_ == nullptr) return status_;
  status_ = file_->sync();
  Status c = file_->close();
  if (status_.isOk()) status_ = c;
  // A failed sync stays failed: a retried fsync does not bring back pages the kernel may
  // have dropped (env.h), so every append of this message fails.
  file_.reset();
  return status_;
}

namespace {

// What every staged message carries, computed once for all its recipients.
void describeInto(StagedMessage& m, std::string_view bytes) {
  m.size = bytes.size();
  m.header_size = headerSizeOf(bytes);
  m.guid = sha1Of(bytes);
  m.cache = buildCacheEntry(bytes);
}

}  // namespace

Result<StagedMessage> stageMessage(io::Env& env, const std::string& stage_dir,
                                   std::string_view bytes, StageSync sync) {
  static std::atomic<uint64_t> counter{0};
  auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  StagedMessage m;
  m.path = stage_dir + "/" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1)) + "-" +
           std::to_string(now);
  auto file = env.openWritable(m.path, io::Env::OpenMode::kCreateNew);
  if (!file.ok()) return file.status();
  Status s = (*file)->append(bytes);
  if (s.isOk() && sync == StageSync::kDeferred) {
    m.pending_sync = std::make_shared<PendingSync>(std::move(*file));
  } else {
    if (s.isOk()) s = (*file)->sync();
    Status c = (*file)->close();
    if (s.isOk()) s = c;
  }
  if (!s.isOk()) {
    (void)env.removeFile(m.path);
    return s;
  }
  describeInto(m, bytes);
  return m;
}

StagedMessage describeMessage(std::string_view bytes) {
  StagedMessage m;
  describeInto(m, bytes);
  m.bytes = std::make_shared<const std::string>(bytes);
  m.first_copy = std::make_shared<StagedMessage::FirstCopy>();
  return m;
}

Status unstage(io::Env& env, const StagedMessage& m) {
  if (m.path.empty()) return Status::ok();  // journaled: no stage file
  Status s = env.removeFile(m.path);
  return s.code() == base::Code::kNotFound ? Status::ok() : s;
}

Status cleanStageDir(io::Env& env, const std::string& stage_dir) {
  Status s = io::createDirs(env, stage_dir);
  if (!s.isOk()) return s;
  auto names = env.listDir(stage_dir);
  if (!names.ok()) return names.status();
  for (const std::string& n : *names) {
    s = env.removeFile(stage_dir + "/" + n);
    if (!s.isOk() && s.code() != base::Code::kNotFound) return s;
  }
  return Status::ok();
}

}  // namespace darius::mailbox
