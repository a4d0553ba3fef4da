// Staging a message (DESIGN.md §3): the bytes are written once to the partition's stage
// directory and fsync'd (by the stage step, or with kDeferred by the append that links it,
// at the same time as its other syncs), then hard-linked into every target mailbox (single-instance store), and
// the stage file is removed. The GUID (SHA-1 of the bytes) and the header size are computed
// here, once, for all targets.
//
// Ownership: a StagedMessage owns nothing but its path; the caller removes the file with
// unstage() after linking (a crash leaves it behind; cleanStageDir() removes leftovers when
// the partition is opened). Thread-safety: functions are safe from any thread; stage names are
// unique per process, thread and call.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "lib/base/result.h"
#include "lib/io/env.h"
#include "mailbox/cache_format.h"
#include "mailbox/index_format.h"
#include "mailbox/journal_format.h"

namespace darius::io {
class SyncBarrier;
}  // namespace darius::io

namespace darius::mailbox {

class DeliveryJournal;

// The fsync of a stage file that was written but not yet synced (stageMessage with
// kDeferred). Mailbox::append runs it in its round of syncs (Env::runConcurrently), before it
// acknowledges the message; the index is marked unsettled until the round has finished
// (docs/formats/index.md, "Commit"). Under sync_method syncfs the round's filesystem sync
// covers the stage file instead and this is never run (StagedMessage::sync_mark). Several
// appends of one message (one per recipient mailbox, possibly at once) share it: the first
// one syncs, the others find it done. Thread-safe.
class PendingSync {
 public:
  explicit PendingSync(std::unique_ptr<io::WritableFile> file) : file_(std::move(file)) {}
  base::Status run();

 private:
  std::mutex mu_;
  std::unique_ptr<io::WritableFile> file_;  // null once synced and closed
  base::Status status_;
};

struct StagedMessage {
  std::string path;          // the fsync'd file in the stage directory
  uint64_t size = 0;
  uint32_t header_size = 0;  // bytes up to and including the blank line (all if none)
  Guid guid{};
  CacheEntry cache;          // built once here with lib/mime (cache_fill.h)
  // Set when the file's data is not durable yet (kDeferred): whoever commits the message
  // makes it durable before acknowledging it (run(), or a filesystem sync). Null: the file
  // is already durable.
  std::shared_ptr<PendingSync> pending_sync;
  // io::SyncBarrier::mark() taken before the file was written (Store::stage, when its
  // partition commits by syncfs); kNoSyncMark when the file did not need one.
  static constexpr uint64_t kNoSyncMark = UINT64_MAX;
  uint64_t sync_mark = kNoSyncMark;
  const io::SyncBarrier* sync_barrier = nullptr;  // whose mark it is; null: none
  // sync_method journal (delivery_journal.h): the bytes are also in this journal, whose
  // sync makes them durable; the stage file itself is never synced. Null: not journaled.
  const DeliveryJournal* journal = nullptr;
  JournalRef journal_ref;
  // A journaled message has no stage file (path empty): its bytes are kept here, and the
  // first append writes them as its UID file, which the later appends of the same message
  // link to (single-instance store). No file is created and unlinked per delivery: on ext4
  // every unlinked inode makes the next allocations nearby search past it (issue 23's
  // profile: a sixth of the server's CPU).
  std::shared_ptr<const std::string> bytes;
  struct FirstCopy {
    std::mutex mu;
    std::string path;  // the UID file the first append wrote; empty until then
  };
  std::shared_ptr<FirstCopy> first_copy;
};

enum class StageSync {
  kNow,       // stageMessage syncs the file before it returns
  kDeferred,  // the caller's append syncs it, alongside its own syncs (pending_sync)
};

// Messages must already be in canonical CRLF form (the protocol layers normalise). Parses the
// message for its cache entry.
base::Result<StagedMessage> stageMessage(io::Env& env, const std::string& stage_dir,
                                         std::string_view bytes,
                                         StageSync sync = StageSync::kNow);
base::Status unstage(io::Env& env, const StagedMessage& m);
// A journaled message (StagedMessage::bytes): described as stageMessage does, but no file is
// written.
StagedMessage describeMessage(std::string_view bytes);

// Removes every file in `stage_dir` (leftovers of a crash); creates the directory if missing.
base::Status cleanStageDir(io::Env& env, const std::string& stage_dir);

Guid sha1Of(std::string_view bytes);
std::string guidHex(const Guid& g);
uint32_t headerSizeOf(std::string_view message);

}  // namespace darius::mailbox
