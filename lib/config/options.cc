#include "lib/config/options.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace darius::config {
namespace {

using T = OptionType;

constexpr std::string_view kServices[] = {"imap", "imaps", "pop3", "pop3s", "lmtp", "metrics"};
constexpr std::string_view kLogLevels[] = {"debug", "info", "notice", "warning", "error"};
constexpr std::string_view kTlsVersions[] = {"TLSv1.2", "TLSv1.3"};
constexpr std::string_view kDbBackends[] = {"skiplist", "berkeley", "flat"};
constexpr std::string_view kSyncMethods[] = {"auto", "journal", "syncfs", "fsync"};
constexpr std::string_view kUidlFormats[] = {"uidvalidity.uid", "uid", "guid"};
constexpr std::string_view kRemoveModes[] = {"delayed", "immediate"};

// Mozilla's "intermediate" TLS 1.2 suites: forward secrecy and AEAD only. DHE is left out
// because ECDHE is universally available and finite-field DH invites weak-group mistakes.
constexpr std::string_view kDefaultCiphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

constexpr OptionDef kOptions[] = {
    // general
    {.name = "services", .type = T::kList, .default_value = "imap imaps pop3 pop3s lmtp",
     .description = "Services dariusd runs; each listens where its `<service>_listen` "
                    "option says.",
     .section = "general", .allowed = kServices},
    {.name = "servername", .type = T::kString, .default_value = "",
     .description = "Host name announced in greetings and used in generated message ids; "
                    "empty means the system's host name.",
     .section = "general"},
    {.name = "data_dir", .type = T::kPath, .default_value = "/var/lib/darius",
     .description = "Root of the mail store: partitions, mailbox list and other databases.",
     .section = "general"},
    {.name = "run_dir", .type = T::kPath, .default_value = "/run/darius",
     .description = "Runtime state: the pid file, the listener file and unix sockets.",
     .section = "general"},
    {.name = "users_file", .type = T::kPath, .default_value = "/var/lib/darius/users",
     .description = "The user database (names, password hashes, admin rights).",
     .section = "general"},
    {.name = "worker_threads", .type = T::kInt, .default_value = "0",
     .description = "Threads serving connections; 0 means one per CPU core.",
     .section = "general", .min = 0, .max = 256},
    {.name = "blocking_threads", .type = T::kInt, .default_value = "16",
     .description = "Threads that run the sessions' mailbox work (SELECT, STORE, SEARCH, ...) "
                    "and password checks off the network threads. Most of that work is short, "
                    "but some of it waits for the disk (a STORE's fsync): with too few threads, "
                    "one session's wait holds up every other session's command.",
     .section = "general", .min = 1, .max = 256},
    {.name = "shutdown_timeout", .type = T::kDuration, .default_value = "10s",
     .description = "How long a graceful shutdown waits for sessions to finish before "
                    "closing them.",
     .section = "general"},

    // logging
    {.name = "log_file", .type = T::kPath, .default_value = "",
     .description = "Log file, reopened on SIGHUP; empty means standard error.",
     .section = "logging"},
    {.name = "log_level", .type = T::kEnum, .default_value = "info",
     .description = "Least severe level that is logged.",
     .section = "logging", .allowed = kLogLevels},

    // listeners
    {.name = "imap_listen", .type = T::kAddressList, .default_value = "*:143",
     .description = "Addresses for IMAP (STARTTLS available).", .section = "listeners"},
    {.name = "imaps_listen", .type = T::kAddressList, .default_value = "*:993",
     .description = "Addresses for IMAP over implicit TLS.", .section = "listeners"},
    {.name = "pop3_listen", .type = T::kAddressList, .default_value = "*:110",
     .description = "Addresses for POP3 (STLS available).", .section = "listeners"},
    {.name = "pop3s_listen", .type = T::kAddressList, .default_value = "*:995",
     .description = "Addresses for POP3 over implicit TLS.", .section = "listeners"},
    {.name = "lmtp_listen", .type = T::kAddressList, .default_value = "127.0.0.1:24",
     .description = "Addresses for LMTP delivery; keep them private to the MTA.",
     .section = "listeners"},
    {.name = "metrics_listen", .type = T::kAddressList, .default_value = "127.0.0.1:9100",
     .description = "Addresses for the Prometheus metrics endpoint (plain HTTP).",
     .section = "listeners"},

    // tls
    {.name = "tls_cert_file", .type = T::kPath, .default_value = "",
     .description = "PEM certificate chain, leaf first; empty disables TLS.", .section = "tls"},
    {.name = "tls_key_file", .type = T::kPath, .default_value = "",
     .description = "PEM private key for `tls_cert_file`.", .section = "tls"},
    {.name = "tls_min_version", .type = T::kEnum, .default_value = "TLSv1.2",
     .description = "Oldest TLS protocol version accepted.", .section = "tls",
     .allowed = kTlsVersions},
    {.name = "tls_ciphers", .type = T::kString, .default_value = kDefaultCiphers,
     .description = "OpenSSL cipher list for TLS 1.2.", .section = "tls"},
    {.name = "tls_ciphersuites", .type = T::kString, .default_value = "",
     .description = "OpenSSL cipher suites for TLS 1.3; empty means OpenSSL's default.",
     .section = "tls"},

    // auth
    {.name = "allow_plaintext_auth", .type = T::kBool, .default_value = "no",
     .description = "Allow LOGIN, USER/PASS and AUTHENTICATE PLAIN on connections without "
                    "TLS.",
     .section = "auth"},
    {.name = "auth_cache_ttl", .type = T::kDuration, .default_value = "10m",
     .description = "How long a successful password check is remembered (in memory, as a keyed "
                    "MAC), so that repeated logins skip yescrypt; 0 turns the cache off.",
     .section = "auth"},
    {.name = "auth_cache_size", .type = T::kInt, .default_value = "100000",
     .description = "Most users the password check cache remembers at once.", .section = "auth",
     .min = 0, .max = 100000000},
    {.name = "auth_failure_delay", .type = T::kDuration, .default_value = "2s",
     .description = "Delay before answering a failed authentication, to slow down guessing.",
     .section = "auth"},
    {.name = "scram_iterations", .type = T::kInt, .default_value = "10000",
     .description = "PBKDF2 iterations for newly stored SCRAM credentials.", .section = "auth",
     .min = 4096},

    // limits
    {.name = "max_connections", .type = T::kInt, .default_value = "10000",
     .description = "Most client connections served at once, over all services. At the "
                    "limit, a new connection closes the oldest IMAP or POP3 connection, from "
                    "any address, that has not logged in (as `max_connections_per_host` "
                    "does); when there is none, the new connection is refused.",
     .section = "limits", .min = 1},
    {.name = "max_connections_per_host", .type = T::kInt, .default_value = "200",
     .description = "Most connections at once from one client address, over all services. At "
                    "the limit, a new connection from that address closes the address's "
                    "oldest IMAP or POP3 connection that has not logged in (with `* BYE` or "
                    "`-ERR [SYS/TEMP]`), so idle unauthenticated connections cannot lock its "
                    "users out; logged-in sessions and LMTP connections are never closed for "
                    "it, and when only those are left the new connection is refused.",
     .section = "limits", .min = 1},
    {.name = "max_line_length", .type = T::kSize, .default_value = "64K",
     .description = "Longest protocol command line accepted, literals excluded.",
     .section = "limits", .min = 1024},
    {.name = "max_literal_size", .type = T::kSize, .default_value = "64M",
     .description = "Largest literal (and so message) a client may send.", .section = "limits",
     .min = 1024},
    {.name = "login_timeout", .type = T::kDuration, .default_value = "60s",
     .description = "How long an unauthenticated connection may stay open.",
     .section = "limits"},
    {.name = "idle_timeout", .type = T::kDuration, .default_value = "30m",
     .description = "How long an authenticated connection may stay silent (IDLE included).",
     .section = "limits"},

    // mailboxes: naming (Cyrus's imapd.conf names where Cyrus has the same knob)
    // Both on by default, as in Cyrus 3: what today's clients expect ("Sent", "a/b").
    {.name = "altnamespace", .type = T::kBool, .default_value = "yes",
     .description = "Show a user's folders beside INBOX (`Sent`) instead of under it "
                    "(`INBOX.Sent`); other users' folders appear under `Other Users`.",
     .section = "mailboxes"},
    {.name = "unixhiersep", .type = T::kBool, .default_value = "yes",
     .description = "Use `/` as the hierarchy separator clients see, instead of `.`.",
     .section = "mailboxes"},
    {.name = "virtdomains", .type = T::kBool, .default_value = "yes",
     .description = "Treat `user@domain` logins as users of virtual domain `domain`, each "
                    "with its own mailboxes; with `no`, `@` is just a character of a user "
                    "name.",
     .section = "mailboxes"},
    {.name = "admins", .type = T::kList, .default_value = "",
     .description = "Administrators, as Cyrus's `admins`: a user id without a domain "
                    "(`cyrus`) administers every mailbox, `admin@example.com` only those of "
                    "example.com. An admin has the `l` and `a` rights on every mailbox of that "
                    "scope, may set quotas, and may log in as any user of it with SASL PLAIN's "
                    "authorization identity.",
     .section = "mailboxes"},
    {.name = "defaultdomain", .type = T::kString, .default_value = "",
     .description = "Domain of users who log in without `@domain`; their mailboxes are "
                    "stored outside any domain directory.",
     .section = "mailboxes"},
    {.name = "max_mailbox_name", .type = T::kInt, .default_value = "490",
     .description = "Longest mailbox name in bytes (UTF-8, full internal name).",
     .section = "mailboxes", .min = 16, .max = 4000},
    {.name = "cache_compact_min_dead", .type = T::kSize, .default_value = "64K",
     .description = "A mailbox's cache file is rewritten without the records of expunged "
                    "messages when its dead bytes reach this many and "
                    "`cache_compact_dead_percent` of the file (checked at each index "
                    "rewrite).",
     .section = "mailboxes"},
    {.name = "cache_compact_dead_percent", .type = T::kInt, .default_value = "25",
     .description = "Share of a cache file, in percent, that must be dead before it is "
                    "rewritten (see `cache_compact_min_dead`).",
     .section = "mailboxes", .min = 1, .max = 100},
    {.name = "mailboxes_db_backend", .type = T::kEnum, .default_value = "skiplist",
     .description = "Backend of the mailbox list database `mailboxes.db` in data_dir.",
     .section = "mailboxes", .allowed = kDbBackends},
    {.name = "seen_db_backend", .type = T::kEnum, .default_value = "skiplist",
     .description = "Backend of `seen.db` in data_dir: each user's \\Seen of the mailboxes "
                    "they do not own (shared mailboxes, other users' folders); an owner's "
                    "\\Seen stays in the mailbox index (docs/formats/seen.md).",
     .section = "mailboxes", .allowed = kDbBackends},
    {.name = "seen_max_size", .type = T::kSize, .default_value = "4M",
     .description = "Largest seen state of one user in one mailbox; a \\Seen change that "
                    "would make it larger fails with NO [LIMIT], and a larger one read from "
                    "disk is reported as damaged. Alternate seen and unseen messages take "
                    "about 12 bytes per pair.",
     .section = "mailboxes", .min = 4096},
    {.name = "quota_warn_percent", .type = T::kInt, .default_value = "90",
     .description = "SELECT and EXAMINE send an untagged `OK [ALERT]` when the mailbox's quota "
                    "root uses at least this percentage of any of its limits (RFC 9208); 0 "
                    "never warns.",
     .section = "mailboxes", .min = 0, .max = 100},
    {.name = "seen_modseq_runs", .type = T::kInt, .default_value = "512",
     .description = "Runs of per-message modseqs a seen state keeps for CONDSTORE; past "
                    "this many, neighbouring runs are merged, so a client resynchronising "
                    "from an old modseq may be told of a few messages whose \\Seen did not "
                    "change.",
     .section = "mailboxes", .min = 1, .max = 100000},
    {.name = "sync_method", .type = T::kEnum, .default_value = "auto",
     .description = "How an append (LMTP delivery, IMAP APPEND, COPY) is made durable before "
                    "it is acknowledged. `journal`: the message's bytes and the records the "
                    "append wrote go to the partition's delivery journal "
                    "(`<partition>/darius.journal/`, docs/formats/journal.md), and one "
                    "fdatasync of it, shared by every delivery in flight to any mailbox, is "
                    "the durable point; the mailboxes' files are synced later, all at once, "
                    "at a checkpoint (`journal_segment_size`, `journal_checkpoint_interval`), "
                    "and a restart after a crash replays the journal before any mailbox "
                    "opens. Works on any filesystem, shared or not. COPY and MOVE still sync "
                    "file by file. `fsync`: each file and directory an append wrote is synced "
                    "on its own. `syncfs`: one sync of the partition's whole filesystem, "
                    "shared by every append in flight; it also writes back unrelated data on "
                    "that filesystem, and a write-back error there fails the appends in "
                    "flight; it needs ext2/3/4, XFS, Btrfs, F2FS or tmpfs and Linux 5.17 or "
                    "later (earlier ones do not report every write-back error to syncfs), "
                    "and stops startup where that does not hold. `auto`: `journal` in "
                    "dariusd; the command-line tools, which never write a journal, use "
                    "`syncfs` where the partition is a filesystem of its own that qualifies, "
                    "else `fsync`. A mailbox directory on another filesystem than its "
                    "partition syncs file by file.",
     .section = "mailboxes", .allowed = kSyncMethods},
    {.name = "journal_segment_size", .type = T::kSize, .default_value = "64M",
     .description = "sync_method journal: a journal segment this large is closed and "
                    "checkpointed (its mailboxes' files synced, then the segment removed). "
                    "Bounds the journal's disk use and what a replay reads.",
     .section = "mailboxes", .min = 1 << 20, .max = int64_t{1} << 32},
    {.name = "journal_checkpoint_interval", .type = T::kDuration, .default_value = "5s",
     .description = "sync_method journal: the longest a journaled delivery waits for its "
                    "checkpoint (its mailbox files synced in place of the journal).",
     .section = "mailboxes"},
    {.name = "partitions", .type = T::kList, .default_value = "default:spool",
     .description = "Mail partitions as `name:path` (path relative to data_dir unless "
                    "absolute); each holds mailbox directories, a stage directory, the "
                    "deleted area and a change log.",
     .section = "mailboxes"},
    {.name = "default_partition", .type = T::kString, .default_value = "default",
     .description = "Partition of new mailboxes (a new user's INBOX; a child mailbox goes to "
                    "its parent's partition).",
     .section = "mailboxes"},

    // the search index (issue 19; docs/formats/search-index.md)
    {.name = "search_index", .type = T::kBool, .default_value = "yes",
     .description = "Keep a search index per mailbox (`darius.search`), so that SEARCH TEXT "
                    "and BODY read only the messages that may match. dariusd indexes new "
                    "messages in the background shortly after they arrive, and a SEARCH "
                    "first indexes what is still missing (up to `search_index_catch_up` "
                    "messages). `no`: SEARCH reads every message.",
     .section = "search"},
    {.name = "search_index_catch_up", .type = T::kInt, .default_value = "5000",
     .description = "The most messages a SEARCH indexes itself before answering; a larger "
                    "backlog goes to the background indexer and the SEARCH reads the messages "
                    "not yet indexed (its answer is the same either way).",
     .section = "search"},
    {.name = "sort_key_cache", .type = T::kSize, .default_value = "64M",
     .description = "Memory for the sort keys (sent date, base subject, addresses) and THREAD "
                    "inputs (message ids, references) of messages a SORT or THREAD has read, "
                    "so that sorting or threading a folder again reads no cache entries. They "
                    "never go stale; when full, the folders sorted least recently are "
                    "forgotten. 0: every SORT and THREAD reads them.",
     .section = "search", .min = 0},
    {.name = "search_threads", .type = T::kInt, .default_value = "4",
     .description = "Threads one SEARCH, SORT or THREAD may use to read and check the messages "
                    "that the search index and the cache cannot settle (the candidates of "
                    "TEXT and BODY), never more than the machine's cores. 1: the session's own "
                    "thread only.",
     .section = "search", .min = 1, .max = 64},
    {.name = "search_contexts", .type = T::kInt, .default_value = "8",
     .description = "Live search results one IMAP session may keep (RFC 5267 CONTEXT=SEARCH "
                    "and CONTEXT=SORT: SEARCH or SORT RETURN (UPDATE)). Each holds the "
                    "matching UIDs and is re-checked against every change to the mailbox; a "
                    "request beyond the limit gets its answer with NO [NOUPDATE] and is not "
                    "kept.",
     .section = "search", .min = 0, .max = 1024},
    {.name = "search_index_delay", .type = T::kDuration, .default_value = "2s",
     .description = "How long dariusd waits after a delivery to a mailbox before indexing it, "
                    "so that a burst of deliveries is indexed in one pass.",
     .section = "search"},

    // two-phase expunge and delete, expire (issue 18; docs/design/expunge.md)
    {.name = "expunge_mode", .type = T::kEnum, .default_value = "delayed",
     .description = "`delayed`: an expunged message keeps its file and its record (with its "
                    "flags and cache record) in the mailbox's expunged index until expire "
                    "removes it; the user can still see and recover it. `immediate`: its file "
                    "is removed as soon as the expunge is durable.",
     .section = "expunge", .allowed = kRemoveModes},
    {.name = "delete_mode", .type = T::kEnum, .default_value = "delayed",
     .description = "`delayed`: DELETE moves the folder, with its messages and its expunged "
                    "ones, into the partition's deleted area, where the owner sees it as "
                    "`.DELETED/<folder>-<YYYYMMDD-HH:MM:SS>` and can RENAME it back until expire "
                    "removes it. `immediate`: its files are removed once the DELETE is durable.",
     .section = "expunge", .allowed = kRemoveModes},
    {.name = "expunge_vol_min", .type = T::kSize, .default_value = "50M",
     .description = "When a user's expunged messages exceed expunge_vol_max, expire removes the "
                    "oldest until this much is left.",
     .section = "expunge", .min = 0},
    {.name = "expunge_vol_max", .type = T::kSize, .default_value = "75M",
     .description = "The most expunged mail a user keeps after a nightly expire (the oldest "
                    "goes first, down to expunge_vol_min).",
     .section = "expunge", .min = 0},
    {.name = "expunge_vol_overflow", .type = T::kSize, .default_value = "100M",
     .description = "When a user's expunged messages exceed this, dariusd expires that user at "
                    "once (down to expunge_vol_min) instead of waiting for expire_at; 0: never "
                    "at once.",
     .section = "expunge", .min = 0},
    {.name = "expunge_timeout", .type = T::kDuration, .default_value = "28d",
     .description = "Expire removes an expunged message once it has been expunged this long.",
     .section = "expunge"},
    {.name = "deleted_vol_min", .type = T::kSize, .default_value = "50M",
     .description = "When a user's deleted folders exceed deleted_vol_max, expire removes the "
                    "oldest until this much is left.",
     .section = "expunge", .min = 0},
    {.name = "deleted_vol_max", .type = T::kSize, .default_value = "75M",
     .description = "The most deleted-folder mail a user keeps after a nightly expire (the "
                    "oldest folder goes first, down to deleted_vol_min).",
     .section = "expunge", .min = 0},
    {.name = "deleted_vol_overflow", .type = T::kSize, .default_value = "100M",
     .description = "When a user's deleted folders exceed this, dariusd expires that user at "
                    "once instead of waiting for expire_at; 0: never at once.",
     .section = "expunge", .min = 0},
    {.name = "deleted_timeout", .type = T::kDuration, .default_value = "28d",
     .description = "Expire removes a deleted folder once it has been deleted this long.",
     .section = "expunge"},
    {.name = "expire_at", .type = T::kString, .default_value = "03:00",
     .description = "Local time of day (HH:MM) at which dariusd runs expire over every user; "
                    "empty: never by itself (run `darius expire` from cron instead).",
     .section = "expunge"},

    // delivery (LMTP) and POP3 (issue 5)
    {.name = "duplicate_suppression_window", .type = T::kDuration, .default_value = "3d",
     .description = "A message whose Message-ID was already delivered to the same mailbox "
                    "within this window is accepted but not stored again; 0 disables "
                    "suppression.",
     .section = "delivery"},
    {.name = "duplicate_db_backend", .type = T::kEnum, .default_value = "skiplist",
     .description = "Backend of the duplicate-delivery database `duplicates.db` in data_dir.",
     .section = "delivery", .allowed = kDbBackends},
    {.name = "lmtp_max_recipients", .type = T::kInt, .default_value = "1000",
     .description = "Recipients accepted in one LMTP transaction; more get 452 4.5.3 and are "
                    "sent again by the client in a later transaction.",
     .section = "delivery", .min = 1, .max = 100000},
    {.name = "lmtp_max_line_length", .type = T::kSize, .default_value = "64K",
     .description = "Longest line of a message sent with DATA; a longer one fails the message "
                    "with 554 5.6.0 (RFC 5322 allows 998 octets).",
     .section = "delivery", .min = 1000},
    {.name = "lmtp_strict_rcpt", .type = T::kBool, .default_value = "no",
     .description = "Refuse an LMTP recipient without a domain (`RCPT TO:<bob>`) with "
                    "`501 5.1.3`, as RFC 5321 has it. By default it names a user of the "
                    "default domain (`defaultdomain`; none when that is unset), as Cyrus and "
                    "Dovecot take it, since delivery agents written for them send it.",
     .section = "delivery"},
    {.name = "lmtp_over_quota_perm_failure", .type = T::kBool, .default_value = "yes",
     .description = "A recipient whose quota root cannot take the message gets `552 5.2.2` "
                    "(permanent: the sender is told) when yes, `452 4.2.2` (temporary: the "
                    "MTA retries) when no. Cyrus's option of the same name. The reply comes at "
                    "RCPT when the root is already full or cannot take the size declared with "
                    "MAIL FROM's `SIZE=` (recipients without `+detail`), otherwise after DATA.",
     .section = "delivery"},
    {.name = "lmtp_delivery_threads", .type = T::kInt, .default_value = "16",
     .description = "Threads that write and fsync delivered messages, so the network threads "
                    "never wait for the disk; concurrent deliveries share fsyncs.",
     .section = "delivery", .min = 1, .max = 256},
    {.name = "lmtp_delivery_nice", .type = T::kInt, .default_value = "10",
     .description = "The nice value of the delivery threads (0 to 19; 0 leaves them as the "
                    "sessions). Interactive work first: when the cores are busy, IMAP and POP3 "
                    "sessions get most of them and deliveries, which an MTA can wait for, slow "
                    "down instead; at 10 a delivery thread weighs about a tenth of a session's "
                    "thread, so deliveries never starve.",
     .section = "delivery", .min = 0, .max = 19},
    {.name = "pop3_uidl_format", .type = T::kEnum, .default_value = "uidvalidity.uid",
     .description = "What POP3 UIDL answers for a message: `uidvalidity.uid` (Cyrus's form), "
                    "`uid`, or `guid` (the SHA-1 of the message); all are stable across "
                    "restarts and reconstruct. Keep the former server's form when migrating, "
                    "or leave-on-server clients fetch everything again.",
     .section = "pop3", .allowed = kUidlFormats},
};

// Optimal string alignment distance (Levenshtein plus adjacent transposition, which is the most
// common typing slip). Both inputs are short: callers bound their length.
size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev2(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        cur[j] = std::min(cur[j], prev2[j - 2] + 1);
      }
    }
    prev2.swap(prev);
    prev.swap(cur);
  }
  return prev[b.size()];
}

}  // namespace

std::string_view typeName(OptionType type) {
  switch (type) {
    case T::kString: return "string";
    case T::kInt: return "integer";
    case T::kBool: return "boolean";
    case T::kSize: return "size";
    case T::kDuration: return "duration";
    case T::kEnum: return "enum";
    case T::kList: return "list";
    case T::kPath: return "path";
    case T::kAddressList: return "address list";
  }
  return "unknown";
}

std::span<const OptionDef> allOptions() { return kOptions; }

const OptionDef* findOption(std::string_view name) {
  // Built once; the table is small, but getters run in hot-ish paths (per connection limits).
  static const std::vector<const OptionDef*> sorted = [] {
    std::vector<const OptionDef*> v;
    for (const OptionDef& d : kOptions) v.push_back(&d);
    std::sort(v.begin(), v.end(), [](auto* a, auto* b) { return a->name < b->name; });
    for (size_t i = 1; i < v.size(); ++i) {
      if (v[i - 1]->name == v[i]->name) {
        std::fprintf(stderr, "darius: config: option '%.*s' is defined twice\n",
                     static_cast<int>(v[i]->name.size()), v[i]->name.data());
        std::abort();
      }
    }
    return v;
  }();
  auto it = std::lower_bound(sorted.begin(), sorted.end(), name,
                             [](const OptionDef* d, std::string_view n) { return d->name < n; });
  if (it == sorted.end() || (*it)->name != name) return nullptr;
  return *it;
}

size_t optionIndex(const OptionDef& def) { return static_cast<size_t>(&def - kOptions); }

std::string_view suggestOption(std::string_view name) {
  // At most two slips are accepted (below), so a name whose length differs from an option's by
  // more than two cannot match it; skipping those keeps hostile keys from costing much.
  constexpr size_t kMaxSlips = 2;
  if (name.empty() || name.size() > 64) return {};
  std::string lower(name);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c == '-') c = '_';  // "max-line-length" is a plausible slip too
  }
  std::string_view best;
  size_t best_distance = SIZE_MAX;
  for (const OptionDef& d : kOptions) {
    size_t diff = lower.size() > d.name.size() ? lower.size() - d.name.size()
                                               : d.name.size() - lower.size();
    if (diff > kMaxSlips) continue;
    size_t dist = editDistance(lower, d.name);
    if (dist < best_distance) {
      best_distance = dist;
      best = d.name;
    }
  }
  // One slip in a short name, two in a longer one; more is a different word.
  size_t allowed = best.size() >= 6 ? kMaxSlips : 1;
  if (best_distance > allowed) return {};
  return best;
}

}  // namespace darius::config
