// Helpers shared by the change log tests (change_log*_test.cc, change_watcher_test.cc):
// sample records of every type, reading a whole log, and a scratch directory on tmpfs for
// tests that fsync a lot. Test-only.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "lib/io/env.h"
#include "lib/io/temp_dir.h"
#include "mailbox/change_log.h"
#include "mailbox/change_log_reader.h"

namespace darius::mailbox::testing {

// One record of each known type, plus one of a type this version does not know.
inline std::vector<ChangeRecord> sampleRecords(int64_t time_usec = 1700000000000000) {
  std::vector<ChangeRecord> v;
  auto add = [&](ChangeType t, std::string id) -> ChangeRecord& {
    ChangeRecord& r = v.emplace_back();
    r.type = t;
    r.mailbox_id = std::move(id);
    r.time_usec = time_usec + static_cast<int64_t>(v.size());
    return r;
  };
  add(ChangeType::kCreate, "mb-1").name = "user.alice.Drafts";
  add(ChangeType::kAppend, "mb-1").uids = {{1, 5}, {2, 6}, {3, 7}};
  add(ChangeType::kFlags, "mb-1").uids = {{2, 8}};
  add(ChangeType::kExpunge, "mb-1").uids = {{1, 9}, {3, 9}};
  ChangeRecord& rn = add(ChangeType::kRename, "mb-1");
  rn.old_name = "user.alice.Drafts";
  rn.name = "user.alice.Entw\xc3\xbcrfe";
  ChangeRecord& acl = add(ChangeType::kAcl, "mb-1");
  acl.identifier = "bob";
  acl.rights = "lrs";
  ChangeRecord& q = add(ChangeType::kQuota, "");
  q.quota_root = "user.alice";
  q.limits = {{"STORAGE", 1048576}, {"MESSAGE", -1}};
  add(ChangeType::kDelete, "mb-1").name = "user.alice.Entw\xc3\xbcrfe";
  ChangeRecord& unknown = add(static_cast<ChangeType>(200), "mb-2");
  unknown.raw_payload = std::string("\x00\x01future\xff", 9);
  return v;
}

inline ChangeRecord appendRecord(std::string mailbox_id, uint32_t uid) {
  ChangeRecord r;
  r.type = ChangeType::kAppend;
  r.mailbox_id = std::move(mailbox_id);
  r.uids = {{uid, uid + 100u}};
  r.time_usec = 1;
  return r;
}

// Every record from `from` to the current end; fails the test on an error.
inline std::vector<ChangeRecord> readAll(const std::string& dir, uint64_t from = 1) {
  ChangeLogReader reader(dir);
  base::Status s = reader.readFrom(from);
  EXPECT_TRUE(s.isOk()) << s.toString();
  if (!s.isOk()) return {};
  auto all = reader.readAvailable();
  EXPECT_TRUE(all.ok()) << all.status().toString();
  return all.ok() ? *all : std::vector<ChangeRecord>{};
}

// A private directory on tmpfs when there is one: crash tests fsync hundreds of times, and
// their crash model is FaultyEnv's, not the disk's. Removed on destruction.
class ScratchDir {
 public:
  ScratchDir() {
    struct stat st;
    std::string base =
        ::stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && ::access("/dev/shm", W_OK) == 0
            ? "/dev/shm"
            : "/tmp";
    std::string tmpl = base + "/darius-clog.XXXXXX";
    if (::mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~ScratchDir() {
    if (!path_.empty()) (void)io::removeTree(*io::Env::posix(), path_);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  bool ok() const { return !path_.empty(); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace darius::mailbox::testing
