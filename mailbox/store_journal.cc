// The Store's side of the delivery journal (delivery_journal.h; docs/formats/journal.md):
// replaying each partition's journal at open, before any mailbox is opened, and opening it for
// writing in the process that owns it.
#include <map>

#include "lib/io/path.h"
#include "lib/log/log.h"
#include "mailbox/change_log.h"
#include "mailbox/header_file.h"
#include "mailbox/mailbox_path.h"
#include "mailbox/store.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

Status Store::openJournals() {
  const bool write = options_.own_journals && (options_.sync_method == SyncMethod::kJournal ||
                                               options_.sync_method == SyncMethod::kAuto);
  for (const Partition& p : options_.partitions) {
    const std::string dir = p.journalDir();
    // The owner waits for a tool's replay to finish; a tool leaves a live owner's journal be.
    auto lock = DeliveryJournal::lockDir(env_, dir, /*wait=*/options_.own_journals);
    if (!lock.ok()) {
      if (lock.status().code() == base::Code::kLocked) continue;
      return lock.status().withContext("delivery journal of partition " + p.name);
    }
    DARIUS_RETURN_IF_ERROR(replayJournal(p, dir));
    if (!write) continue;
    JournalOptions jo;
    jo.segment_bytes = options_.journal_segment_bytes;
    jo.checkpoint_interval_ms = options_.journal_checkpoint_ms;
    jo.background = options_.journal_background;
    // A checkpoint is off the delivery path, so one filesystem sync serves it even on a
    // filesystem shared with other data; where write-back errors would not be reported to
    // it, the checkpoint syncs file by file.
    std::vector<std::string> paths = {p.root, p.stageDir(), dir};
    if (ChangeLog* log = changeLog(p.name); log != nullptr) {
      paths.push_back(log->dir());
      jo.sync_also = [log] { return log->sync(); };
    }
    if (options_.journal_checkpoint_syncfs) {
      if (auto fs = env_.openFilesystemSync(paths); fs.ok()) jo.filesystem_sync = std::move(*fs);
    }
    DARIUS_ASSIGN_OR_RETURN(auto j, DeliveryJournal::openOwned(env_, dir, std::move(*lock),
                                                               std::move(jo)));
    log::info("partition {}: appends commit through the delivery journal ({})", p.name,
              j->dir());
    journals_.emplace(p.name, std::move(j));
  }
  return Status::ok();
}

Status Store::checkpointJournals() {
  for (auto& [name, j] : journals_) {
    DARIUS_RETURN_IF_ERROR(j->checkpoint().withContext("journal of partition " + name));
  }
  return Status::ok();
}

void Store::abandonJournals() {
  for (auto& [name, j] : journals_) j->abandon();
  journals_.clear();
}

DeliveryJournal* Store::journal(std::string_view partition) {
  auto it = journals_.find(partition);
  return it == journals_.end() ? nullptr : it->second.get();
}

void Store::attachJournal(Mailbox& m, std::string_view partition_name) {
  DeliveryJournal* j = journal(partition_name);
  auto p = partition(partition_name);
  if (j == nullptr || !p.ok()) return;
  const std::string& dir = m.dir();
  if (dir.size() <= (*p)->root.size() + 1 || dir.compare(0, (*p)->root.size(), (*p)->root) != 0) {
    return;  // not below the partition root: appends sync file by file
  }
  m.setJournal(j, dir.substr((*p)->root.size() + 1));
}

// The change log record of a replayed append, again: the append logged it without a sync
// after its flush, so a crash may have lost it (docs/formats/journal.md, "Change log"). A
// record twice is what the log's readers already allow (changelog.md, "In flight").
void Store::relogJournaledAppend(const Partition& p, const JournalAppend& a) {
  ChangeLog* log = changeLog(p.name);
  if (log == nullptr) return;
  ChangeRecord r;
  r.type = ChangeType::kAppend;
  r.mailbox_id = a.unique_id;
  for (const JournalAppendEntry& e : a.entries) r.uids.push_back({e.record.uid, e.record.modseq});
  if (auto done = log->append(std::span(&r, 1)); !done.ok()) {
    log::warning("partition {}: replayed append to {} not logged: {}", p.name, a.mailbox_dir,
                 done.status().toString());
  }
}

// Replays every segment left in `dir` (the caller holds its lock), then removes them. A
// segment that cannot be replayed whole is kept under another name for a person to look at,
// and startup goes on: one damaged mailbox must not keep a whole store down.
Status Store::replayJournal(const Partition& p, const std::string& dir) {
  DARIUS_ASSIGN_OR_RETURN(std::vector<uint64_t> segments, DeliveryJournal::listSegments(env_, dir));
  if (segments.empty()) return Status::ok();
  std::map<std::string, std::string> dir_of_id;  // unique id -> directory, built when needed
  bool ids_loaded = false;
  auto findDir = [&](const JournalAppend& a) -> Result<std::string> {
    const std::string here = p.root + "/" + a.mailbox_dir;
    auto h = readMailboxHeader(env_, here);
    if (h.ok() && h->unique_id == a.unique_id) return here;
    if (!h.ok() && h.status().code() != base::Code::kNotFound) return h.status();
    // Renamed since (the unique id stays) or deleted.
    if (!ids_loaded) {
      ids_loaded = true;
      DARIUS_RETURN_IF_ERROR(list_->forEach([&](const MailboxName& name, const MailboxEntry& e) {
        if (e.partition == p.name && (e.flags & MailboxEntry::kDeleted) == 0) {
          if (auto d = mailboxDir(p.root, name); d.ok()) dir_of_id[e.unique_id] = *d;
        }
        return true;
      }));
    }
    auto it = dir_of_id.find(a.unique_id);
    if (it == dir_of_id.end()) return Status::notFound("mailbox " + a.unique_id + " is gone");
    return it->second;
  };
  JournalReplay total;
  size_t appends = 0;
  for (uint64_t number : segments) {
    const std::string path = io::joinPath(dir, journalSegmentName(number));
    auto bytes = env_.readFile(path);
    if (!bytes.ok()) return bytes.status();
    Status failed;
    auto header = decodeJournalSegmentHeader(*bytes);
    if (!header.ok() || header->segment != number) {
      // A segment whose creation a crash cut short (its header is synced before any record)
      // holds nothing; anything else is damage.
      if (bytes->size() >= kJournalHeaderSize) {
        failed = header.ok() ? Status::corruption("segment number does not match its name")
                             : header.status();
      }
    } else {
      std::map<uint64_t, std::string_view> messages;
      for (uint64_t at = kJournalHeaderSize; failed.isOk();) {
        auto frame = readJournalFrame(*bytes, number, at);
        if (!frame.ok()) {
          // The end, or a torn last write: what follows was never acknowledged (a write that
          // fails part-way closes its segment, so nothing is written after a torn frame).
          if (frame.status().code() == base::Code::kCorruption) {
            log::notice("{}: replay stops at a torn record: {}", path, frame.status().message());
          }
          break;
        }
        const uint64_t frame_at = at;
        at = frame->next;
        if (frame->type == JournalRecordType::kMessage) {
          auto m = decodeJournalMessage(frame->body);
          if (!m.ok()) {
            failed = m.status();
            break;
          }
          messages[frame_at] = m->bytes;
          continue;
        }
        if (frame->type != JournalRecordType::kAppend) continue;  // a newer minor's record
        auto a = decodeJournalAppend(frame->body);
        if (!a.ok()) {
          failed = a.status();
          break;
        }
        auto target = findDir(*a);
        if (!target.ok()) {
          if (target.status().code() != base::Code::kNotFound) {
            failed = target.status();
            break;
          }
          log::info("{}: journaled append to {} passed over: {}", path, a->mailbox_dir,
                    target.status().message());
          continue;
        }
        auto done = Mailbox::applyJournalAppend(
            env_, *target, *a, [&](size_t i) -> Result<std::string_view> {
              auto it = messages.find(a->entries[i].message_offset);
              if (it == messages.end()) {
                return Status::corruption("append entry names no message record");
              }
              return it->second;
            });
        if (!done.ok()) {
          failed = done.status().withContext(*target);
          break;
        }
        ++appends;
        relogJournaledAppend(p, *a);
        total.files_restored += done->files_restored;
        total.records_restored += done->records_restored;
        total.cache_restored += done->cache_restored;
        total.skipped += done->skipped;
        total.header_restored = total.header_restored || done->header_restored;
      }
    }
    if (!failed.isOk()) {
      const std::string kept = path + ".unreplayed";
      log::error("{}: journal segment not replayed ({}); kept as {}", path, failed.toString(),
                 kept);
      DARIUS_RETURN_IF_ERROR(env_.renameFile(path, kept));
    } else {
      DARIUS_RETURN_IF_ERROR(env_.removeFile(path));
    }
  }
  DARIUS_RETURN_IF_ERROR(env_.syncDir(dir));
  if (appends == 0) return Status::ok();  // empty segments: a stop without its checkpoint
  log::notice("partition {}: delivery journal replayed: {} appends; restored {} message files, "
              "{} index records, {} cache records; {} entries purged since",
              p.name, appends, total.files_restored, total.records_restored,
              total.cache_restored, total.skipped);
  recovery_.finished.push_back("journal replay of partition " + p.name + ": " +
                               std::to_string(appends) + " appends, " +
                               std::to_string(total.files_restored) + " files restored");
  return Status::ok();
}

}  // namespace darius::mailbox
