// bench/load: the workloads of darius_load and the options they share. Each workload
// drives a real server over real sockets, checks the result for correctness (message and
// byte counts, SEARCH hits against the corpus manifest) and fills a Result; main prints it
// as one JSON object. A workload the server cannot do throws WorkloadError (see common.h).
//
// Ownership: Options is filled once by main and read-only afterwards; workloads start and
// join their own threads and share nothing else.
#pragma once

#include <cstddef>
#include <string>

#include "bench/load/common.h"
#include "bench/load/corpus.h"

namespace darius::bench {

struct Options {
  std::string host = "127.0.0.1";
  int lmtp_port = 0, imap_port = 0, pop3_port = 0;
  std::string corpus_dir;
  std::string password = "bench";
  std::string domain = "localhost";  // LMTP recipients are bench<N>@domain
  int users = 50;                    // bench1..bench<users> exist
  int first_user = 2;                // deliveries and mixed clients use bench<first_user>..
  std::string mailbox_user = "bench1";
  size_t mailbox_msgs = 0;  // messages populate put into mailbox_user's INBOX (corpus[0..n))
  size_t count = 1000;      // messages / iterations / sessions, per workload
  size_t offset = 0;        // first corpus index a delivery workload uses
  int conns = 1;            // parallel connections (LMTP) or threads
  int rcpts = 1;            // recipients per delivered message
  int server_pid = 0;       // for server CPU and memory from /proc; 0 = not measured
  double timeout_s = 120;   // per socket operation
  double duration_s = 60;   // mixed load
  int deliverers = 8, imap_clients = 32;
  double think_ms = 10;     // mixed: pause between an IMAP client's commands
  size_t mem_budget_mb = 8192;  // idle: stop adding sessions when the server exceeds this
  size_t min_avail_mb = 3072;   // idle: ... or when the machine has less than this left
  std::string dir;              // physical: where to measure fsync and read bandwidth
  std::string tag;              // splice into delivered Message-IDs (unique per run)
  // shared_setup, imap_list, acl_quota (bench/load/wl_acl.cc):
  std::string admin_user;       // an administrator (password: `password`); empty = none
  std::string create_prefix;    // shared_setup: how the admin names a shared mailbox ("Shared Folders/")
  std::string list_prefix;      // imap_list: how mailbox_user sees them ("Shared Folders/", "Shared/")
  size_t shared = 0;            // shared mailboxes in the store (shared_setup creates them)
  size_t visible = 0;           // of which mailbox_user may see every (shared/visible)-th
  std::string other_user = "bench2";  // who gets the invisible ones
  std::string quota_root;       // acl_quota: SETQUOTA root, %u = the user ("Other Users/%u")
  uint64_t quota_kib = 0;       // acl_quota: STORAGE limit (KiB) to set and to expect
  uint64_t quota_msgs = 0;      // acl_quota: MESSAGE limit
  bool warm_only = false;       // acl_quota: only the same logins, nothing set (the "off" baseline)
  // expire, undelete (bench/load/wl_expire.cc):
  std::string exec;             // the server's expire command / undelete command (%u: the user)
  std::string via = "imap";     // undelete: imap (.EXPUNGED/INBOX), exec (--exec) or none
  size_t reps = 3;              // undelete: users bench<first_user>.. each with --count messages
  double baseline_s = 1;        // expire: the other session's commands before the expire starts
  // imap_sort_search (bench/load/wl_search.cc): the rare words SEARCH looks for.
  std::string body_word;        // planted in bodies only (manifest "body")
  std::string header_word;      // planted in Subject headers only

  std::string user(int n) const { return "bench" + std::to_string(n); }
  std::string rcpt(int n) const { return user(n) + "@" + domain; }
};

void runLmtp(const Options& o, const Corpus& c, Result& r);       // "lmtp"
void runPopulate(const Options& o, const Corpus& c, Result& r);   // "populate"
void runImapLogin(const Options& o, Result& r);                   // "imap_login"
void runImapSelect(const Options& o, Result& r);                  // "imap_select"
void runFetchMeta(const Options& o, const Corpus& c, Result& r);  // "imap_fetch_meta"
void runFetchBody(const Options& o, Result& r);                   // "imap_fetch_body"
void runSearch(const Options& o, const Corpus& c, Result& r);     // "imap_search"
void runStore(const Options& o, Result& r);                       // "imap_store"
void runAppend(const Options& o, const Corpus& c, Result& r);     // "imap_append"
void runExpunge(const Options& o, Result& r);                     // "imap_expunge"
void runPop3(const Options& o, Result& r);                        // "pop3_retr"
void runIdle(const Options& o, Result& r);                        // "imap_idle_sessions"
void runMixed(const Options& o, const Corpus& c, Result& r);      // "mixed"
void runPhysical(const Options& o, Result& r);                    // "physical"
void runSharedSetup(const Options& o, Result& r);                 // "shared_setup"
void runImapList(const Options& o, Result& r);                    // "imap_list"
void runAclQuota(const Options& o, Result& r);                    // "acl_quota"
void runExpire(const Options& o, Result& r);                      // "expire"
void runUndelete(const Options& o, Result& r);                    // "undelete"
void runSortSearch(const Options& o, const Corpus& c, Result& r); // "imap_sort_search"
int runSelfTest();                                                // "selftest"

}  // namespace darius::bench
