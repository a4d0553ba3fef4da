// A mailbox's header file `darius.header` (docs/formats/header.md): the facts about a mailbox
// that must survive the loss of its index and of the mailbox list: its unique id, UIDVALIDITY,
// the names of its user flags (an index record keeps only their bit numbers) and a copy of its
// ACL, from which reconstruct rebuilds the list. A small text file, replaced atomically.
//
// Ownership: plain values. Thread-safety: pure functions; writers hold the mailbox lock.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/result.h"
#include "lib/io/env.h"

namespace darius::mailbox {

inline constexpr std::string_view kHeaderFileName = "darius.header";

struct MailboxHeader {
  std::string unique_id;                // never changes, not even on rename
  std::string name;                     // internal name when last written (for reconstruct)
  uint32_t uidvalidity = 0;
  std::vector<std::string> user_flags;  // index i = bit i of IndexRecord::user_flags
  std::string acl;                      // copy of the mailbox list's ACL

  // Index of `flag` (case-insensitive, RFC 9051 §2.3.2), or -1.
  int findUserFlag(std::string_view flag) const;
  bool operator==(const MailboxHeader&) const = default;
};

std::string encodeMailboxHeader(const MailboxHeader& h);
base::Result<MailboxHeader> decodeMailboxHeader(std::string_view text);

base::Result<MailboxHeader> readMailboxHeader(io::Env& env, const std::string& dir);
// Atomic replace (temp, fsync, rename, fsync of `dir`).
base::Status writeMailboxHeader(io::Env& env, const std::string& dir, const MailboxHeader& h);

}  // namespace darius::mailbox
