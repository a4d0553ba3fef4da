// Store: opening, partitions, ids, opening mailboxes and staging. The namespace operations
// are in store_namespace.cc, their intents and recovery in store_intents.cc, delivery, copy and
// move in store_append.cc.
#include "mailbox/store.h"

#include <openssl/rand.h>

#include <algorithm>
#include <ctime>

#include "lib/config/config.h"
#include "lib/io/path.h"
#include "lib/log/log.h"
#include "mailbox/cache_fill.h"
#include "mailbox/mailbox_path.h"
#include "mailbox/reconstruct.h"
#include "mailbox/store_internal.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

Store::Store(StoreOptions options, io::Env& env) : options_(std::move(options)), env_(env) {}

Store::~Store() = default;

Result<std::unique_ptr<Store>> Store::open(const config::Config& config, io::Env* env,
                                          bool serve) {
  StoreOptions o;
  o.env = env;
  o.data_dir = config.getPath("data_dir");
  DARIUS_ASSIGN_OR_RETURN(o.partitions, parsePartitions(config.getList("partitions"), o.data_dir));
  o.default_partition = config.getString("default_partition");
  DARIUS_ASSIGN_OR_RETURN(o.list_backend,
                          db::parseBackend(config.getString("mailboxes_db_backend")));
  o.list_options.max_name_length = static_cast<size_t>(config.getInt("max_mailbox_name"));
  o.compact_policy.min_dead_bytes = config.getSize("cache_compact_min_dead");
  o.compact_policy.dead_ratio =
      static_cast<double>(config.getInt("cache_compact_dead_percent")) / 100.0;
  DARIUS_ASSIGN_OR_RETURN(o.seen_backend, db::parseBackend(config.getString("seen_db_backend")));
  o.keep_expunged = config.getString("expunge_mode") != "immediate";
  o.keep_deleted = config.getString("delete_mode") != "immediate";
  o.seen_limits.max_value_bytes = config.getSize("seen_max_size");
  o.seen_limits.max_modseq_runs = static_cast<size_t>(config.getInt("seen_modseq_runs"));
  const std::string method = config.getString("sync_method");
  o.sync_method = method == "fsync"     ? SyncMethod::kFsync
                  : method == "syncfs"  ? SyncMethod::kSyncfs
                  : method == "journal" ? SyncMethod::kJournal
                                        : SyncMethod::kAuto;
  o.own_journals = serve;
  o.journal_segment_bytes = config.getSize("journal_segment_size");
  o.journal_checkpoint_ms = static_cast<int>(std::clamp<int64_t>(
      config.getDuration("journal_checkpoint_interval").count(), 10, 3600 * 1000));
  return open(std::move(o));
}

Result<std::unique_ptr<Store>> Store::open(StoreOptions options) {
  if (options.partitions.empty()) return Status::invalid("store: no partitions");
  if (options.data_dir.empty()) return Status::invalid("store: no data_dir");
  if (options.default_partition.empty()) options.default_partition = options.partitions[0].name;
  bool found = false;
  for (const Partition& p : options.partitions) found = found || p.name == options.default_partition;
  if (!found) {
    return Status::invalid("default_partition '" + options.default_partition +
                           "' is not one of the partitions");
  }
  io::Env& env = options.env != nullptr ? *options.env : *io::Env::posix();
  std::unique_ptr<Store> s(new Store(std::move(options), env));
  DARIUS_RETURN_IF_ERROR(s->init());
  return s;
}

Status Store::init() {
  DARIUS_RETURN_IF_ERROR(io::createDirs(env_, options_.data_dir));
  DARIUS_RETURN_IF_ERROR(
      io::createDirs(env_, io::joinPath(options_.data_dir, kIntentDirName)));
  const std::string usage_dir = io::joinPath(options_.data_dir, kQuotaUsageDirName);
  DARIUS_RETURN_IF_ERROR(io::createDirs(env_, usage_dir));
  usage_ = std::make_unique<QuotaUsageFiles>(
      env_, usage_dir, options_.boot_id ? *options_.boot_id : QuotaUsageFiles::currentBoot());
  for (const Partition& p : options_.partitions) {
    DARIUS_RETURN_IF_ERROR(io::createDirs(env_, p.root));
    DARIUS_RETURN_IF_ERROR(io::createDirs(env_, p.deletedDir()));
    DARIUS_RETURN_IF_ERROR(cleanStageDir(env_, p.stageDir()));
    if (options_.change_log) {
      ChangeLogOptions co;
      co.env = &env_;
      DARIUS_ASSIGN_OR_RETURN(auto log, ChangeLog::open(p.changeLogDir(), co));
      change_logs_.emplace(p.name, std::move(log));
    }
    const bool journaled = options_.own_journals && (options_.sync_method == SyncMethod::kJournal ||
                                                     options_.sync_method == SyncMethod::kAuto);
    if (options_.sync_method != SyncMethod::kFsync && !journaled) {
      std::vector<std::string> paths = {p.root, p.stageDir()};
      if (options_.change_log) paths.push_back(p.changeLogDir());
      auto fs = env_.openFilesystemSync(paths);
      Status why = fs.status();
      if (fs.ok() && options_.sync_method == SyncMethod::kAuto) {
        // A syncfs writes back everyone's data on the filesystem: auto takes it only where
        // the partition has a filesystem of its own.
        auto own = (*fs)->isRoot(p.root);
        why = !own.ok() ? own.status()
              : *own    ? Status::ok()
                        : Status::notSupported(p.root + " is not a filesystem of its own");
      }
      if (why.isOk()) {
        barriers_.emplace(p.name, std::make_unique<io::SyncBarrier>(std::move(*fs)));
      } else if (options_.sync_method == SyncMethod::kSyncfs) {
        return why.withContext("sync_method syncfs, partition " + p.name);
      } else {
        log::info("partition {}: sync_method auto: appends sync file by file ({})", p.name,
                  why.message());
      }
    }
  }
  db::OpenOptions dbo;
  dbo.env = &env_;
  DARIUS_ASSIGN_OR_RETURN(list_, MailboxList::open(io::joinPath(options_.data_dir, "mailboxes.db"),
                                                   options_.list_backend, dbo,
                                                   options_.list_options));
  list_cache_ = std::make_unique<MailboxListCache>(*list_);
  DARIUS_ASSIGN_OR_RETURN(subscriptions_,
                          Subscriptions::open(io::joinPath(options_.data_dir, "subscriptions.db"),
                                              options_.list_backend, dbo));
  DARIUS_ASSIGN_OR_RETURN(quotas_, QuotaDb::open(io::joinPath(options_.data_dir, kQuotaDbName),
                                                 options_.list_backend, dbo));
  DARIUS_ASSIGN_OR_RETURN(expire_policies_,
                          ExpirePolicyDb::open(io::joinPath(options_.data_dir, kExpirePolicyDbName),
                                               options_.list_backend, dbo));
  DARIUS_ASSIGN_OR_RETURN(seen_, SeenDb::open(io::joinPath(options_.data_dir, kSeenDbName),
                                              options_.seen_backend, dbo, options_.seen_limits));
  DARIUS_ASSIGN_OR_RETURN(io::FileLock l, lockNamespace());
  DARIUS_RETURN_IF_ERROR(recoverLocked());
  // After the intents (a rename they finish moves mailboxes the journal names), before any
  // mailbox is opened (an open would settle a tail the journal still holds).
  return openJournals();
}

Result<const Partition*> Store::partition(std::string_view name) const {
  for (const Partition& p : options_.partitions) {
    if (p.name == name) return &p;
  }
  return Status::notFound("no partition '" + std::string(name) + "'");
}

const Partition& Store::defaultPartition() const {
  for (const Partition& p : options_.partitions) {
    if (p.name == options_.default_partition) return p;
  }
  return options_.partitions.front();  // open() checked the name; not reached
}

io::SyncBarrier* Store::syncBarrier(std::string_view partition) {
  auto it = barriers_.find(partition);
  return it == barriers_.end() ? nullptr : it->second.get();
}

io::SyncBarrier* Store::barrierFor(std::string_view partition, const std::string& dir) {
  io::SyncBarrier* b = syncBarrier(partition);
  if (b == nullptr) return nullptr;
  // A mailbox directory on another filesystem (a mount point below the partition) is not
  // covered by the partition's syncfs: its appends sync file by file.
  auto on = b->covers(dir);
  return on.ok() && *on ? b : nullptr;
}

ChangeLog* Store::changeLog(std::string_view partition) {
  auto it = change_logs_.find(partition);
  return it == change_logs_.end() ? nullptr : it->second.get();
}

Result<std::string> Store::directoryOf(const MailboxName& name, const MailboxEntry& entry) const {
  DARIUS_ASSIGN_OR_RETURN(const Partition* p, partition(entry.partition));
  return mailboxDir(p->root, name);
}

std::string Store::newUniqueId() {
  unsigned char bytes[16];
  if (RAND_bytes(bytes, sizeof bytes) != 1) {
    // OpenSSL's generator does not fail once seeded; if it ever does, time and a counter
    // still give a unique id within this store (ids only need to be unique, not secret).
    static std::atomic<uint64_t> counter{0};
    uint64_t t = static_cast<uint64_t>(::time(nullptr)), c = ++counter;
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<unsigned char>(t >> (8 * i));
    for (int i = 0; i < 8; ++i) bytes[8 + i] = static_cast<unsigned char>(c >> (8 * i));
  }
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

Result<std::unique_ptr<Mailbox>> Store::openDir(const std::string& dir,
                                                const std::string& partition) {
  auto m = Mailbox::open(env_, dir, journal(partition));
  if (!m.ok() && m.status().code() == base::Code::kCorruption) {
    // DESIGN.md §3: a damaged index repairs itself at open; the message files are the truth.
    log::warning("{}: {}; reconstructing", dir, m.status().message());
    ReconstructOptions ro;
    ro.fill_cache = buildCacheEntry;
    auto report = reconstructMailbox(env_, dir, ro);
    if (!report.ok()) return report.status();
    for (const std::string& p : report->problems) log::notice("{}: reconstruct: {}", dir, p);
    if (report->changed) noteRepaired(dir);  // what it counts may have changed
    m = Mailbox::open(env_, dir, journal(partition));
  }
  if (!m.ok()) return m.status();
  (*m)->setChangeLog(changeLog(partition));
  (*m)->setSyncBarrier(barrierFor(partition, dir));
  attachJournal(**m, partition);
  (*m)->setCompactPolicy(options_.compact_policy);
  (*m)->setKeepExpunged(options_.keep_expunged);
  return m;
}

Result<OpenMailbox> Store::openExpungedView(const MailboxName& name) {
  // Opened as a mailbox first, so that repair at open and a namespace operation in flight
  // are handled as for any other open.
  DARIUS_ASSIGN_OR_RETURN(OpenMailbox live, openMailbox(name));
  auto view = Mailbox::openExpungedView(env_, live.mailbox->dir());
  if (!view.ok()) return view.status();
  return OpenMailbox{std::move(live.entry), std::move(*view)};
}

Result<OpenMailbox> Store::openMailbox(const MailboxName& name) {
  for (int attempt = 0;; ++attempt) {
    auto entry = list_->lookup(name);
    if (!entry.ok()) return entry.status();
    if ((entry->flags & (MailboxEntry::kDeleted | MailboxEntry::kNoSelect)) != 0) {
      return Status::notFound(name.toString() + ": no such mailbox");
    }
    DARIUS_ASSIGN_OR_RETURN(std::string dir, directoryOf(name, *entry));
    auto m = openDir(dir, entry->partition);
    if (m.ok()) return OpenMailbox{std::move(*entry), std::move(*m)};
    if (m.status().code() != base::Code::kNotFound || attempt > 0) return m.status();
    // Listed but not on disk: a namespace operation is in flight or was cut short. Wait for
    // the namespace lock (and finish a crashed one), then look again.
    DARIUS_ASSIGN_OR_RETURN(io::FileLock l, lockNamespace());
    DARIUS_RETURN_IF_ERROR(recoverLocked());
  }
}

Result<StagedMessage> Store::stage(const Partition& partition, std::string_view bytes) {
  return stage(partition, bytes, StageSync::kNow);
}

Status Store::unstage(const StagedMessage& message) { return mailbox::unstage(env_, message); }

Result<io::FileLock> Store::lockNamespace() {
  return io::FileLock::acquire(io::joinPath(options_.data_dir, kNamespaceLockName),
                               io::LockMode::kExclusive, /*wait=*/true);
}

void Store::logNamespaceChange(const std::string& partition, const ChangeRecord& record) {
  ChangeLog* log = changeLog(partition);
  if (log == nullptr) return;
  auto done = log->append(record);
  if (!done.ok()) {
    log::warning("change log of partition {}: {} not logged: {}", partition,
                 changeTypeName(record.type), done.status().toString());
  }
}

}  // namespace darius::mailbox
