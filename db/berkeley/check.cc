// check() and compact() of the berkeley backend.
//
// check(): DB->verify must not run on a file another handle is changing, so it runs while
// we hold write.lock (no writer can be inside) after flushing the shared cache to the file
// (memp_sync), on a fresh standalone handle (verify consumes its handle). A cursor walk in a
// snapshot transaction then counts the records and re-checks key order and limits.
#include <cstring>
#include <optional>

#include "db/berkeley/bdb_env.h"
#include "db/db.h"

namespace darius::db::berkeley {

using base::Result;
using base::Status;

namespace {

void splitMessages(const std::string& text, std::vector<std::string>& out,
                   const std::string& where) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find("; ", pos);
    if (end == std::string::npos) end = text.size();
    out.push_back(where + ": " + text.substr(pos, end - pos));
    pos = end + 2;
  }
}

}  // namespace

Result<CheckReport> checkStore(BdbStore& store) {
  CheckReport report;
  DARIUS_ASSIGN_OR_RETURN(io::FileLock lock,
                          io::FileLock::acquire(store.file(kWriteLockFile),
                                                io::LockMode::kExclusive, /*wait=*/true));
  takeBdbMessages();
  int ret = store.env()->memp_sync(store.env(), nullptr);
  if (ret != 0) return bdbStatus(ret, "flush cache", store.path());

  DB* vdb = nullptr;
  ret = db_create(&vdb, nullptr, 0);
  if (ret != 0) return bdbStatus(ret, "db_create", store.path());
  vdb->set_errcall(vdb, bdbErrCall);
  std::string data = store.file(kDataFile);
  ret = vdb->verify(vdb, data.c_str(), nullptr, nullptr, 0);  // frees vdb
  std::string messages = takeBdbMessages();
  if (ret != 0) {
    if (messages.empty()) messages = db_strerror(ret);
    splitMessages(messages, report.problems, data + " (verify)");
  }

  DB_TXN* t = nullptr;
  ret = store.env()->txn_begin(store.env(), nullptr, &t, DB_TXN_SNAPSHOT);
  if (ret != 0) return bdbStatus(ret, "begin read transaction", store.path());
  DbTxn txn(t);
  DBC* raw = nullptr;
  ret = store.db()->cursor(store.db(), txn.get(), &raw, 0);
  if (ret != 0) return bdbStatus(ret, "cursor", store.path());
  DbCursor cursor(raw);
  DbtBuf k, v;
  std::optional<std::string> prev;
  for (;;) {
    ret = cursor.get()->get(cursor.get(), k.dbt(), v.dbt(), DB_NEXT);
    if (ret == DB_NOTFOUND) break;
    if (ret != 0) {
      report.problems.push_back(bdbStatus(ret, "walk after record " +
                                                   std::to_string(report.records),
                                          data).toString());
      break;
    }
    ++report.records;
    if (Status s = validateRecord(k.view(), v.view()); !s.isOk()) {
      report.problems.push_back(data + ": record " + std::to_string(report.records) + ": " +
                                s.message());
    }
    if (prev && !(std::string_view(*prev) < k.view())) {
      report.problems.push_back(data + ": record " + std::to_string(report.records) +
                                " is out of order");
    }
    prev = std::string(k.view());
  }
  return report;
}

Status compactStore(BdbStore& store) {
  DARIUS_ASSIGN_OR_RETURN(io::FileLock lock,
                          io::FileLock::acquire(store.file(kWriteLockFile),
                                                io::LockMode::kExclusive, /*wait=*/true));
  takeBdbMessages();
  // No transaction handle: BDB protects the compaction with its own short transactions,
  // so snapshot readers go on.
  int ret = store.db()->compact(store.db(), nullptr, nullptr, nullptr, nullptr, DB_FREE_SPACE,
                                nullptr);
  if (ret != 0) return bdbStatus(ret, "compact", store.path());
  ret = store.env()->txn_checkpoint(store.env(), 0, 0, DB_FORCE);
  if (ret != 0) return bdbStatus(ret, "checkpoint", store.path());
  // Logs before the checkpoint are no longer needed for recovery.
  ret = store.env()->log_archive(store.env(), nullptr, DB_ARCH_REMOVE);
  if (ret != 0) return bdbStatus(ret, "remove old logs", store.path());
  return Status::ok();
}

}  // namespace darius::db::berkeley
