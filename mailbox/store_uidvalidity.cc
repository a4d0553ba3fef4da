// Store::newUidValidity: UIDVALIDITY values that never repeat in a store, across processes and
// restarts (RFC 9051 §2.3.1.1: a mailbox deleted and created again under the same name must
// not get back a UIDVALIDITY a client may have cached, or the client would trust stale UIDs).
//
// Time-based like Cyrus, but the last value handed out is kept in <data_dir>/darius.uidvalidity
// (decimal text), so a clock that steps back, a mailbox re-created within the same second by
// another process (`darius mailbox create` beside dariusd) or a restart cannot repeat one. The
// file is locked for the read-modify-write and replaced atomically before the value is used:
// after a crash it holds the last value handed out or a later one (a gap, which is harmless).
#include <algorithm>
#include <charconv>
#include <ctime>

#include "lib/io/atomic_file.h"
#include "lib/io/file_lock.h"
#include "lib/io/path.h"
#include "mailbox/store.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

Result<uint32_t> Store::newUidValidity() {
  std::lock_guard<std::mutex> g(ids_mu_);
  std::string path = io::joinPath(options_.data_dir, kUidValidityFileName);
  // acquire() notices when the file it locked was replaced meanwhile and locks the new one.
  DARIUS_ASSIGN_OR_RETURN(io::FileLock lock,
                          io::FileLock::acquire(path, io::LockMode::kExclusive, /*wait=*/true));
  DARIUS_ASSIGN_OR_RETURN(std::string text, env_.readFile(path));
  uint32_t last = 0;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (!text.empty()) {
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), last);
    if (ec != std::errc() || end != text.data() + text.size()) {
      return Status::corruption(path + ": not a UIDVALIDITY value: \"" + text.substr(0, 20) +
                                "\"");
    }
  }
  last = std::max(last, last_uidvalidity_);
  if (last == UINT32_MAX) return Status::tooBig(path + ": UIDVALIDITY values exhausted");
  uint32_t next = std::max(static_cast<uint32_t>(::time(nullptr)), last + 1);
  DARIUS_RETURN_IF_ERROR(io::writeFileAtomic(env_, path, std::to_string(next) + "\n"));
  last_uidvalidity_ = next;
  return next;
}

}  // namespace darius::mailbox
