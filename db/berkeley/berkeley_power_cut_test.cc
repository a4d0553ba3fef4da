// Power-cut tests of the berkeley backend: FaultyEnv's crash model applied to Berkeley DB's own
// system calls by BdbPowerCut (bdb_power_cut.h). A scenario — create the environment, commit
// transactions, compact(), close, reopen with recovery, commit, close — runs in a forked child
// once to list its mutating calls, then once per call with the power cut at that call: every
// fsync, create, rename, unlink, ftruncate, mkdir and directory sync, and the writes (below).
// At the cut the child rolls the disk back to what a strict POSIX file system keeps and dies;
// the parent is the rebooted machine: it opens the database normally (BDB recovery) and
// requires exactly the acknowledged transactions — all of each, none of any other, except that
// the one whose commit() was running may be there if its log fsync had completed — a clean
// check() and a working commit.
//
// Equivalent cut points: in this model what survives changes only at syncs, so the writes of
// an uninterrupted run (no other call and no acknowledgement between them) all leave the same
// disk and the same acknowledgements; the test cuts at the first write of each run. Most
// writes skipped so are BDB zeroing the 10 MB log tail after recovery, 4 KB at a time (2,500).
// DARIUS_BDB_CUT_EVERY_WRITE=1 cuts at every single write instead (minutes).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "db/berkeley/bdb_power_cut.h"
#include "db/berkeley/berkeley_db.h"
#include "lib/io/env.h"
#include "lib/io/temp_dir.h"

namespace darius::db::berkeley {
namespace berkeley_power_cut_test {

using State = std::map<std::string, std::string>;
using Op = std::pair<std::string, std::optional<std::string>>;

enum class Kind { kOpen, kTxn, kCompact, kClose };
struct Step {
  Kind kind;
  std::vector<Op> ops;  // kTxn only
};

// Each transaction writes several keys, so a half-applied one shows as a state that is
// neither before nor after it.
std::vector<Step> mainScenario() {
  std::vector<Step> s;
  s.push_back({Kind::kOpen, {}});  // creates the directory, the environment and data.db
  s.push_back({Kind::kTxn, {{"a", "1"}, {"b", "2"}, {"c", "3"}}});
  std::vector<Op> many{{"a", "11"}, {"b", std::nullopt}};
  for (int i = 0; i < 150; ++i)
    many.push_back({"k" + std::to_string(1000 + i), std::string(100, 'k')});
  s.push_back({Kind::kTxn, many});  // several leaf pages
  std::vector<Op> fewer{{"c", "33"}};
  for (int i = 0; i < 140; ++i) fewer.push_back({"k" + std::to_string(1000 + i), std::nullopt});
  s.push_back({Kind::kTxn, fewer});  // leaves nearly empty pages for compact()
  s.push_back({Kind::kCompact, {}});
  s.push_back({Kind::kTxn, {{"big", std::string(20000, 'B')}, {"d", "4"}}});  // overflow pages
  s.push_back({Kind::kClose, {}});
  s.push_back({Kind::kOpen, {}});  // alone, so it runs recovery
  s.push_back({Kind::kTxn, {{"e", "5"}, {"a", std::nullopt}, {"big", std::string(300, 'b')}}});
  s.push_back({Kind::kClose, {}});
  return s;
}

State applyOps(State s, const std::vector<Op>& ops) {
  for (const auto& [k, v] : ops) {
    if (v) {
      s[k] = *v;
    } else {
      s.erase(k);
    }
  }
  return s;
}

State contents(Database& db) {
  State s;
  base::Status st = db.scan(Range::all(), [&](std::string_view k, std::string_view v) {
    s.emplace(k, v);
    return true;
  });
  EXPECT_TRUE(st.isOk()) << st.toString();
  return s;
}

std::string summary(const State& s) {
  std::string out;
  int bulk = 0;
  for (const auto& [k, v] : s) {
    if (k.size() == 5 && k[0] == 'k') {
      ++bulk;
      continue;
    }
    out += k + "=" + (v.size() > 8 ? v.substr(0, 2) + "..(" + std::to_string(v.size()) + ")" : v);
    out += " ";
  }
  return out + "+" + std::to_string(bulk) + " bulk keys";
}

// ---- the child: the machine that loses power ----

void say(int fd, const std::string& line) {
  std::string l = line + "\n";
  (void)!::write(fd, l.data(), l.size());  // one write per line: lines never interleave
}

// Runs `steps` with the shim installed, tells the parent what it acknowledged, and ends at
// the cut — or, having completed, with a cut right after the last acknowledgement.
[[noreturn]] void childMain(const std::string& path, const std::vector<Step>& steps,
                            std::optional<uint64_t> cut, bool trace, int fd) {
  ::alarm(120);  // a hang ends the child (and fails the run) instead of blocking ctest
  auto shim = BdbPowerCut::install();
  if (!shim.ok()) {
    say(fd, "fail install: " + shim.status().toString());
    ::_exit(1);
  }
  BdbPowerCut& pc = **shim;
  pc.reportTo(fd, trace);
  if (cut) pc.losePowerAfterOps(*cut);
  OpenOptions options;
  options.env = pc.env();
  std::unique_ptr<Database> db;
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& step = steps[i];
    base::Status s;
    switch (step.kind) {
      case Kind::kOpen: {
        auto r = openBerkeley(path, options);
        s = r.status();
        if (r.ok()) db = std::move(r).value();
        break;
      }
      case Kind::kClose:
        db.reset();
        break;
      case Kind::kCompact:
        s = db->compact();
        break;
      case Kind::kTxn: {
        auto t = db->begin();
        s = t.status();
        for (const auto& [k, v] : step.ops) {
          if (!s.isOk()) break;
          s = v ? (*t)->put(k, *v) : (*t)->remove(k);
        }
        if (!s.isOk()) break;
        say(fd, "commit " + std::to_string(i) + " " + std::to_string(pc.logSyncs()));
        s = (*t)->commit();
        break;
      }
    }
    // Nothing fails: the power cut ends the process inside the call instead.
    if (!s.isOk()) {
      say(fd, "fail step " + std::to_string(i) + ": " + s.toString());
      ::_exit(1);
    }
    say(fd, "ack " + std::to_string(i) + " " + std::to_string(pc.counts().ops()));
  }
  pc.losePowerNow();
}

// ---- the parent: runs a child, then reboots ----

struct ChildReport {
  std::vector<std::pair<size_t, uint64_t>> acks;          // step, mutating calls done by then
  std::optional<std::pair<size_t, uint64_t>> committing;  // step, log syncs at commit()
  bool cut = false;
  uint64_t cut_index = 0, cut_log_syncs = 0;
  char cut_kind = '?';
  std::string cut_what;
  std::vector<std::pair<char, std::string>> ops;  // with trace: every mutating call
  std::string failure;
};

ChildReport runChild(const std::string& path, const std::vector<Step>& steps,
                     std::optional<uint64_t> cut, bool trace) {
  ChildReport r;
  int fds[2];
  if (::pipe(fds) != 0) {
    r.failure = "pipe failed";
    return r;
  }
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    childMain(path, steps, cut, trace, fds[1]);
  }
  ::close(fds[1]);
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid) {
    r.failure = "fork or waitpid failed";
    return r;
  }
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream in(line);
    std::string word;
    in >> word;
    if (word == "ack") {
      size_t step;
      uint64_t calls;
      in >> step >> calls;
      r.acks.emplace_back(step, calls);
      if (r.committing && r.committing->first == step) r.committing.reset();
    } else if (word == "commit") {
      size_t step;
      uint64_t syncs;
      in >> step >> syncs;
      r.committing.emplace(step, syncs);
    } else if (word == "cut") {
      r.cut = true;
      in >> r.cut_index >> r.cut_log_syncs >> r.cut_kind;
      std::getline(in >> std::ws, r.cut_what);
    } else if (word == "op") {
      uint64_t index;
      char kind;
      std::string what;
      in >> index >> kind;
      std::getline(in >> std::ws, what);
      r.ops.emplace_back(kind, what);
    } else if (word == "fail") {
      r.failure += line.substr(5) + "; ";
    }
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != BdbPowerCut::kPowerCutExit) {
    r.failure += "child ended with status " + std::to_string(status);
  }
  return r;
}

enum class RegionFate { kKeep, kRemove, kEmpty };

// A real power cut leaves BDB's region files intact, gone or empty, depending on which pages
// and names reached the disk; recovery must cope with each.
void applyRegionFate(const std::string& path, RegionFate fate) {
  auto names = io::Env::posix()->listDir(path);
  if (!names.ok() || fate == RegionFate::kKeep) return;  // no directory survived: nothing to do
  for (const std::string& name : *names) {
    if (!BdbPowerCut::isRegionFile(name)) continue;
    std::string p = path + "/" + name;
    if (fate == RegionFate::kRemove) {
      ASSERT_TRUE(io::Env::posix()->removeFile(p).isOk());
    } else {
      ASSERT_EQ(::truncate(p.c_str(), 0), 0);
    }
  }
}

struct Verdict {
  bool in_flight_seen = false;  // the unacknowledged commit that reached its log fsync survived
};

// The reboot: open normally (recovery), and check contents against the acknowledgements.
void verifyAfterCut(const std::string& path, const std::vector<Step>& steps, const ChildReport& r,
                    RegionFate fate, Verdict* verdict) {
  ASSERT_TRUE(r.failure.empty()) << r.failure;
  ASSERT_TRUE(r.cut);
  applyRegionFate(path, fate);
  if (::testing::Test::HasFatalFailure()) return;
  State acked;
  for (const auto& [step, calls] : r.acks) {
    if (steps[step].kind == Kind::kTxn) acked = applyOps(acked, steps[step].ops);
  }
  // A commit cut after its log fsync is durable though never acknowledged; one cut before
  // must leave no trace.
  std::optional<State> maybe;
  if (r.committing && r.cut_log_syncs > r.committing->second) {
    maybe = applyOps(acked, steps[r.committing->first].ops);
  }

  auto shim = BdbPowerCut::installWithoutSyncs();
  ASSERT_TRUE(shim.ok()) << shim.status().toString();
  OpenOptions options;
  options.env = (*shim)->env();
  // create = true: a cut while creating must leave a directory that opens.
  auto db = openBerkeley(path, options);
  ASSERT_TRUE(db.ok()) << db.status().toString();
  State got = contents(**db);
  verdict->in_flight_seen = maybe && got == *maybe && got != acked;
  EXPECT_TRUE(got == acked || (maybe && got == *maybe))
      << "power cut at: " << r.cut_what << "\nafter recovery: " << summary(got)
      << "\nacknowledged:   " << summary(acked)
      << (maybe ? "\nor with the in-flight commit: " + summary(*maybe) : std::string());
  auto report = (*db)->check();
  ASSERT_TRUE(report.ok()) << report.status().toString();
  EXPECT_TRUE(report->ok()) << report->problems.front();
  EXPECT_EQ(report->records, got.size());
  auto t = (*db)->begin();  // and the database goes on working
  ASSERT_TRUE(t.ok()) << t.status().toString();
  ASSERT_TRUE((*t)->put("after", "x").isOk());
  ASSERT_TRUE((*t)->commit().isOk());
  EXPECT_EQ((*db)->get("after").valueOr("?"), "x");
}

// The runs' directories. What the real disk keeps does not matter (the model decides), and
// every run makes ~16 MB of region files and a 10 MB log that on a disk the kernel would write
// back for nothing: use tmpfs when it has room.
class Scratch {
 public:
  Scratch() {
    struct statvfs fs;
    std::string base = "/tmp";
    if (const char* t = std::getenv("TMPDIR"); t != nullptr && *t != '\0') base = t;
    if (::statvfs("/dev/shm", &fs) == 0 && fs.f_bavail * fs.f_frsize >= (1ull << 30)) {
      base = "/dev/shm";
    }
    std::string templ = base + "/bdbcut.XXXXXX";
    if (::mkdtemp(templ.data()) != nullptr) path_ = templ;
  }
  ~Scratch() {
    if (!path_.empty()) (void)io::removeTree(*io::Env::posix(), path_);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  bool ok() const { return !path_.empty(); }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

bool cutEveryWrite() {
  const char* v = std::getenv("DARIUS_BDB_CUT_EVERY_WRITE");
  return v != nullptr && std::string(v) == "1";
}

// The cut points of a traced dry run: every call but a write that continues a run of writes
// with no acknowledgement since the previous one (see the file comment).
std::vector<uint64_t> cutPoints(const ChildReport& dry) {
  std::vector<bool> ack_before(dry.ops.size() + 1, false);
  for (const auto& [step, calls] : dry.acks) {
    if (calls <= dry.ops.size()) ack_before[calls] = true;
  }
  std::vector<uint64_t> points;
  for (uint64_t i = 0; i < dry.ops.size(); ++i) {
    bool continues =
        i > 0 && dry.ops[i].first == 'w' && dry.ops[i - 1].first == 'w' && !ack_before[i];
    if (!continues || cutEveryWrite()) points.push_back(i);
  }
  return points;
}

struct CutSummary {
  size_t points = 0, in_flight_seen = 0;
  uint64_t writes = 0, syncs = 0, others = 0;
};

// The dry run (itself a cut, right after the last acknowledgement), then one run per cut point
// from the call described `from_op` (empty: the first) on.
void cutEverywhere(const std::vector<Step>& steps, const std::string& from_op, CutSummary* sum) {
  Scratch dir;
  ASSERT_TRUE(dir.ok());
  ChildReport dry = runChild(dir.file("dry"), steps, std::nullopt, /*trace=*/true);
  Verdict v;
  verifyAfterCut(dir.file("dry"), steps, dry, RegionFate::kKeep, &v);
  if (::testing::Test::HasFatalFailure()) return;
  ASSERT_EQ(dry.acks.size(), steps.size());
  sum->points = 1;
  std::vector<uint64_t> points = cutPoints(dry);
  size_t begin = 0;
  while (!from_op.empty() && begin < points.size() && dry.ops[points[begin]].second != from_op) {
    ++begin;
  }
  ASSERT_LT(begin, points.size()) << "no call \"" << from_op << "\" in the scenario";
  for (const auto& [kind, what] : dry.ops) {
    sum->writes += kind == 'w';
    sum->syncs += kind == 's';
    sum->others += kind == 'o';
  }
  for (size_t i = begin; i < points.size(); ++i) {
    uint64_t n = points[i];
    SCOPED_TRACE("power cut at call " + std::to_string(n) + " of " +
                 std::to_string(dry.ops.size()) + ": " + dry.ops[n].second);
    std::string path = dir.file("db" + std::to_string(n));
    ChildReport r = runChild(path, steps, n, /*trace=*/false);
    // The calls come in the same order every time, so call n is the one the dry run listed.
    EXPECT_EQ(r.cut_index, n);
    EXPECT_EQ(r.cut_kind, dry.ops[n].first);
    verifyAfterCut(path, steps, r, static_cast<RegionFate>(n % 3), &v);
    if (::testing::Test::HasFatalFailure()) return;
    ++sum->points;
    sum->in_flight_seen += v.in_flight_seen ? 1 : 0;
    ASSERT_TRUE(io::removeTree(*io::Env::posix(), path).isOk());
  }
}

void record(const CutSummary& sum) {
  ::testing::Test::RecordProperty("cut_points", std::to_string(sum.points));
  ::testing::Test::RecordProperty("writes", std::to_string(sum.writes));
  ::testing::Test::RecordProperty("syncs", std::to_string(sum.syncs));
  ::testing::Test::RecordProperty("other_calls", std::to_string(sum.others));
  ::testing::Test::RecordProperty("in_flight_commit_survived", std::to_string(sum.in_flight_seen));
}

TEST(BerkeleyPowerCutTest, CutAtEveryCallOfCreateCommitCompactCloseRecover) {
  CutSummary sum;
  cutEverywhere(mainScenario(), "", &sum);
  if (HasFatalFailure()) return;
  EXPECT_GT(sum.writes, 40u);
  EXPECT_GT(sum.syncs, 20u);
  EXPECT_GT(sum.points, 50u);  // the sequence really was cut at many points
  record(sum);
}

// BDB starts a new log file when the current one is full (10 MB) and never syncs the
// directory: unless the backend does, a commit in the new file is lost with its name.
TEST(BerkeleyPowerCutTest, CommitsInANewLogFileSurvive) {
  std::vector<Step> steps;
  steps.push_back({Kind::kOpen, {}});
  steps.push_back({Kind::kTxn, {{"x", "1"}}});
  steps.push_back(
      {Kind::kTxn, {{"big", std::string(10 * 1024 * 1024 + 512 * 1024, 'L')}, {"y", "2"}}});
  steps.push_back({Kind::kTxn, {{"z", "3"}, {"x", std::nullopt}}});
  CutSummary sum;
  // From the creation of the second log file to the end.
  cutEverywhere(steps, "create log.0000000002", &sum);
  if (HasFatalFailure()) return;
  EXPECT_GT(sum.points, 5u);
  record(sum);
}

// The shim's own check: a change BDB (or anyone) makes behind its back fails the run rather
// than escaping the model.
TEST(BerkeleyPowerCutTest, ChangesBehindTheShimAreCaught) {
  auto dir = io::TempDir::create("bdbcut");
  ASSERT_TRUE(dir.ok());
  std::string path = dir->file("db");
  std::vector<Step> steps{{Kind::kOpen, {}}, {Kind::kTxn, {{"a", "1"}}}};
  // A child that completes the steps, then appends to data.db with a plain write(2).
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[0]);
    ::alarm(60);
    auto shim = BdbPowerCut::install();
    if (!shim.ok()) ::_exit(1);
    (*shim)->reportTo(fds[1], false);
    OpenOptions options;
    options.env = (*shim)->env();
    auto db = openBerkeley(path, options);
    if (!db.ok()) ::_exit(2);
    auto t = (*db)->begin();
    if (!t.ok() || !(*t)->put("a", "1").isOk() || !(*t)->commit().isOk()) ::_exit(3);
    int fd = ::open((path + "/data.db").c_str(), O_WRONLY | O_APPEND);
    if (fd < 0 || ::write(fd, "x", 1) != 1) ::_exit(4);
    (*shim)->losePowerNow();
  }
  ::close(fds[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
    out.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), BdbPowerCut::kShimFailedExit) << out;
  EXPECT_NE(out.find("data.db was changed outside the replaced system calls"), std::string::npos)
      << out;
}

}  // namespace berkeley_power_cut_test
}  // namespace darius::db::berkeley
