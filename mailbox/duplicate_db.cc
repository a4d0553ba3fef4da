#include "mailbox/duplicate_db.h"

#include <ctime>
#include <utility>
#include <vector>

#include "lib/config/config.h"
#include "lib/io/path.h"
#include "lib/log/log.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

namespace {

// Prune at most this many entries per transaction, so one prune after a long pause does not
// hold the database's write lock for long; the next prune continues.
constexpr size_t kMaxPrunePerTxn = 50000;

std::string be64(int64_t v) {
  uint64_t u = static_cast<uint64_t>(v < 0 ? 0 : v);
  std::string out(8, '\0');
  for (int i = 7; i >= 0; --i) {
    out[static_cast<size_t>(i)] = static_cast<char>(u & 0xff);
    u >>= 8;
  }
  return out;
}

Result<int64_t> fromBe64(std::string_view s) {
  if (s.size() != 8) return Status::corruption("duplicate db: time field is not 8 bytes");
  uint64_t u = 0;
  for (char c : s) u = (u << 8) | static_cast<uint8_t>(c);
  return static_cast<int64_t>(u);
}

// "msgid\0mailbox": the id is cut to kMaxMessageIdKey and any NUL in it (a BINARYMIME header
// could hold one) becomes a space, so the first NUL always ends the id.
std::string pairKey(std::string_view message_id, std::string_view mailbox_id) {
  std::string k(message_id.substr(0, kMaxMessageIdKey));
  for (char& c : k) {
    if (c == '\0') c = ' ';
  }
  k.push_back('\0');
  k.append(mailbox_id);
  return k;
}

int64_t wallNow() { return static_cast<int64_t>(::time(nullptr)); }

}  // namespace

Result<std::unique_ptr<DuplicateDb>> DuplicateDb::open(const config::Config& config) {
  DuplicateDbOptions o;
  o.path = io::joinPath(config.getPath("data_dir"), kDuplicateDbName);
  DARIUS_ASSIGN_OR_RETURN(o.backend, db::parseBackend(config.getString("duplicate_db_backend")));
  o.window = std::chrono::duration_cast<std::chrono::seconds>(
      config.getDuration("duplicate_suppression_window"));
  return open(std::move(o));
}

Result<std::unique_ptr<DuplicateDb>> DuplicateDb::open(DuplicateDbOptions options) {
  db::OpenOptions dbo;
  dbo.env = options.env;
  auto db = db::Database::open(options.path, options.backend, dbo);
  if (!db.ok()) return Status(db.status().code(), options.path + ": " + db.status().message());
  std::unique_ptr<DuplicateDb> d(new DuplicateDb(std::move(options), std::move(*db)));
  return d;
}

DuplicateDb::DuplicateDb(DuplicateDbOptions options, std::unique_ptr<db::Database> db)
    : options_(std::move(options)), db_(std::move(db)) {
  // The first prune comes one interval after open, not at once: a server restarting in a
  // loop should not rescan the expiry index each time.
  last_prune_ = wallNow();
  if (enabled() && options_.flush_interval.count() > 0) {
    flusher_ = std::thread([this] { flusherLoop(); });
  }
}

DuplicateDb::~DuplicateDb() {
  {
    std::lock_guard<std::mutex> g(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (flusher_.joinable()) flusher_.join();
  Status s = flush();
  if (!s.isOk()) log::warning("duplicate db: final flush failed: {}", s.toString());
}

void DuplicateDb::flusherLoop() {
  std::unique_lock<std::mutex> lk(mu_);
  while (!stopping_) {
    wake_.wait_for(lk, options_.flush_interval);
    if (stopping_) break;
    if (confirmed_ == 0 && wallNow() - last_prune_ < options_.prune_interval.count()) continue;
    lk.unlock();
    Status s = flush();
    if (!s.isOk()) log::warning("duplicate db: flush failed: {}", s.toString());
    lk.lock();
  }
}

Result<bool> DuplicateDb::claim(std::string_view message_id, std::string_view mailbox_id,
                                int64_t now) {
  if (!enabled() || message_id.empty()) return true;
  const std::string key = pairKey(message_id, mailbox_id);
  const int64_t cutoff = now - options_.window.count();
  std::lock_guard<std::mutex> g(mu_);
  auto it = pending_.find(key);
  if (it != pending_.end()) {
    if (!it->second.confirmed || it->second.time > cutoff) return false;
    pending_.erase(it);  // confirmed, but outside the window by now
    --confirmed_;
  }
  // The database read under mu_: a batch being written keeps its entries in pending_ until
  // the commit, so an id is always in one of the two places.
  auto stored = db_->get("d" + key);
  if (stored.ok()) {
    DARIUS_ASSIGN_OR_RETURN(int64_t when, fromBe64(*stored));
    if (when > cutoff) return false;
  } else if (!stored.status().isNotFound()) {
    return stored.status();
  }
  pending_[key] = Pending{now, false};
  return true;
}

void DuplicateDb::confirm(std::string_view message_id, std::string_view mailbox_id) {
  if (!enabled() || message_id.empty()) return;
  bool full = false;
  {
    std::lock_guard<std::mutex> g(mu_);
    auto it = pending_.find(pairKey(message_id, mailbox_id));
    if (it == pending_.end() || it->second.confirmed) return;
    it->second.confirmed = true;
    full = ++confirmed_ >= options_.batch;
  }
  if (full) {
    Status s = flush();
    if (!s.isOk()) log::warning("duplicate db: flush failed: {}", s.toString());
  }
}

void DuplicateDb::release(std::string_view message_id, std::string_view mailbox_id) {
  if (!enabled() || message_id.empty()) return;
  std::lock_guard<std::mutex> g(mu_);
  auto it = pending_.find(pairKey(message_id, mailbox_id));
  if (it != pending_.end() && !it->second.confirmed) pending_.erase(it);
}

Status DuplicateDb::flush() {
  std::lock_guard<std::mutex> w(write_mu_);
  std::map<std::string, int64_t> batch;
  {
    std::lock_guard<std::mutex> g(mu_);
    for (const auto& [k, p] : pending_) {
      if (p.confirmed) batch.emplace(k, p.time);
    }
  }
  const int64_t now = wallNow();
  const bool prune_due = now - last_prune_ >= options_.prune_interval.count();
  if (batch.empty() && !prune_due) return Status::ok();
  if (!batch.empty()) {
    DARIUS_RETURN_IF_ERROR(writeBatch(batch));
    // Written: the database answers for them now. Entries confirmed again meanwhile (a newer
    // time) stay for the next batch.
    std::lock_guard<std::mutex> g(mu_);
    for (const auto& [k, t] : batch) {
      auto it = pending_.find(k);
      if (it != pending_.end() && it->second.confirmed && it->second.time == t) {
        pending_.erase(it);
        --confirmed_;
      }
    }
  }
  if (prune_due) {
    auto pruned = pruneLocked(now);
    if (!pruned.ok()) return pruned.status();
  }
  return Status::ok();
}

Status DuplicateDb::writeBatch(std::map<std::string, int64_t> batch) {
  DARIUS_ASSIGN_OR_RETURN(auto txn, db_->begin());
  for (const auto& [k, t] : batch) {
    const std::string dkey = "d" + k;
    auto old = txn->get(dkey);
    if (old.ok()) {
      auto when = fromBe64(*old);
      if (when.ok()) {
        Status s = txn->remove("t" + be64(*when) + k);
        if (!s.isOk() && !s.isNotFound()) return s;
      }
    } else if (!old.status().isNotFound()) {
      return old.status();
    }
    DARIUS_RETURN_IF_ERROR(txn->put(dkey, be64(t)));
    DARIUS_RETURN_IF_ERROR(txn->put("t" + be64(t) + k, ""));
  }
  return txn->commit();
}

Result<size_t> DuplicateDb::prune(int64_t now) {
  std::lock_guard<std::mutex> w(write_mu_);
  return pruneLocked(now);
}

Result<size_t> DuplicateDb::pruneLocked(int64_t now) {
  last_prune_ = now;
  if (!enabled()) return size_t{0};
  const int64_t cutoff = now - options_.window.count();
  // Entries with time <= cutoff are outside the window (claim() treats them as absent).
  db::Range expired{"t", "t" + be64(cutoff + 1)};
  size_t total = 0;
  for (;;) {
    std::vector<std::string> keys;
    DARIUS_RETURN_IF_ERROR(db_->scan(expired, [&](std::string_view k, std::string_view) {
      keys.emplace_back(k);
      return keys.size() < kMaxPrunePerTxn;
    }));
    if (keys.empty()) return total;
    DARIUS_ASSIGN_OR_RETURN(auto txn, db_->begin());
    for (const std::string& tkey : keys) {
      std::string pair = tkey.substr(9);  // after "t" and the time
      std::string dkey = "d" + pair;
      // The "d" record may carry a newer time (marked again): then it stays.
      auto current = txn->get(dkey);
      if (current.ok() && *current == tkey.substr(1, 8)) {
        DARIUS_RETURN_IF_ERROR(txn->remove(dkey));
      }
      Status s = txn->remove(tkey);
      if (!s.isOk() && !s.isNotFound()) return s;
    }
    DARIUS_RETURN_IF_ERROR(txn->commit());
    total += keys.size();
    if (keys.size() < kMaxPrunePerTxn) return total;
  }
}

size_t DuplicateDb::pendingForTest() {
  std::lock_guard<std::mutex> g(mu_);
  return pending_.size();
}

}  // namespace darius::mailbox
