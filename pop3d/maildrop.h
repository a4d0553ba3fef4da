// Maildrop: what a POP3 session sees of a user's mail (RFC 1939 §3-§6): the user's INBOX (POP3
// sees nothing else), locked for the session, as a snapshot taken when the session enters
// TRANSACTION. Message numbers 1..n index that snapshot and stay stable for the session;
// messages delivered later appear at the next login. DELE only marks; commit() (QUIT in the
// UPDATE state) expunges the marked messages, phase 1 (Mailbox::expunge), so an IMAP client
// and `darius` tools see them go the usual way and undelete stays possible.
//
// Lock (RFC 1939 §8 "exclusive-access lock on the maildrop"): an OFD lock on
// <lock_dir>/<SHA-1 of the INBOX's key>, taken without waiting, so a second POP3 session of
// the same user gets kLocked (the session answers -ERR [IN-USE], RFC 2449 §8.1.1). The lock
// belongs to the open file description: it goes when the session ends, however it ends, and
// when the process dies. It does not keep IMAP or LMTP out: they work on the mailbox as usual
// and the snapshot is unaffected by them (a message IMAP expunged meanwhile can still be
// read while its file exists, and is skipped at commit).
//
// Messages with \Deleted set (by IMAP) are left out of the snapshot, as Cyrus's pop3d does.
//
// UIDL (RFC 1939 §7) is derived from what reconstruct keeps (UIDVALIDITY and UID, or the
// message's SHA-1), so it never changes for a message: see UidlFormat.
//
// Ownership: owns the lock and the open Mailbox; borrows the Store, which must outlive it.
// Thread-safety: none — one session uses it, from one thread at a time (the session may hop
// between threads for blocking calls, never concurrently).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/result.h"
#include "lib/io/file_lock.h"
#include "mailbox/acl.h"
#include "mailbox/store.h"

namespace darius::pop3d {

enum class UidlFormat : uint8_t {
  kUidvalidityUid,  // "1700000000.42": Cyrus's form
  kUid,             // "42"
  kGuid,            // the SHA-1 of the message file, 40 hex digits
};
base::Result<UidlFormat> parseUidlFormat(std::string_view name);

inline constexpr std::string_view kPop3LockDirName = "darius.pop3locks";

class Maildrop {
 public:
  struct Message {
    uint32_t uid = 0;
    uint64_t size = 0;  // octets of the message file (RFC 1939 §5: the "exact size")
    mailbox::Guid guid{};
    bool deleted = false;  // DELE in this session
  };

  // Locks the maildrop (kLocked when another session holds it), creates INBOX if the user has
  // none yet, opens it and takes the snapshot. Blocking.
  static base::Result<std::unique_ptr<Maildrop>> open(mailbox::Store& store,
                                                      const mailbox::MailboxName& inbox,
                                                      const std::string& lock_dir,
                                                      UidlFormat uidl);

  // Messages of the snapshot, deleted ones included (message numbers run 1..count()).
  size_t count() const { return messages_.size(); }
  // Not deleted in this session: their number and total octets (STAT, RFC 1939 §5).
  size_t liveCount() const { return live_count_; }
  uint64_t liveSize() const { return live_size_; }
  // 1-based; nullptr when out of range.
  const Message* message(uint32_t msgno) const;
  std::string uidl(const Message& m) const;
  std::string path(const Message& m) const { return box_->messagePath(m.uid); }

  // The owner's rights on the INBOX (RFC 4314, mailbox::effectiveRights): the session needs
  // "r" to read it and "t" and "e" to DELE (a POP3 delete is a \Deleted flag and an expunge).
  mailbox::Rights rights() const { return rights_; }

  // False when out of range or already deleted.
  bool dele(uint32_t msgno);
  void rset();
  // Expunges the deleted messages (phase 1); returns how many there were. Blocking.
  base::Result<size_t> commit();

 private:
  Maildrop() = default;

  io::FileLock lock_;
  std::unique_ptr<mailbox::Mailbox> box_;
  mailbox::Store* store_ = nullptr;            // commit() expunges through it (quota)
  std::optional<mailbox::MailboxName> inbox_;  // the mailbox box_ is
  UidlFormat uidl_ = UidlFormat::kUidvalidityUid;
  uint32_t uidvalidity_ = 0;
  mailbox::Rights rights_ = 0;
  std::vector<Message> messages_;
  size_t live_count_ = 0;
  uint64_t live_size_ = 0;
};

}  // namespace darius::pop3d
