// The deleted area (phase one of two-phase delete, docs/design/expunge.md): what DELETE keeps
// of a folder, and the names it goes by. DELETE moves a mailbox's directory to
// `<partition>/darius.deleted/<unix time>-<unique id>` (store_namespace.cc); its darius.header
// still holds the name it had, its UIDVALIDITY and its ACL, so the area needs no catalogue of
// its own. IMAP shows each as `.DELETED<sep><folder>-<YYYYMMDD-HH:MM:SS>` (UTC); two deletes
// of one name in the same second get `-2`, `-3`, ... after the second one, in the order they
// were deleted (the entry's name keeps the nanoseconds too).
//
// Ownership: plain values and pure functions. Thread-safety: safe from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "mailbox/mailbox_name.h"

namespace darius::mailbox {

// One folder in a deleted area (Store::listDeleted).
struct DeletedMailbox {
  MailboxName name;       // the name it had when it was deleted
  std::string partition{};
  std::string entry{};    // "<time>-<unique id>" in the partition's darius.deleted/
  std::string dir{};      // the directory: <partition root>/darius.deleted/<entry>
  std::string unique_id{};
  int64_t deleted_at = 0;  // seconds since the epoch
  int64_t deleted_ns = 0;  // and nanoseconds within it (0 in entries made before they were kept)
  uint32_t uidvalidity = 0;
  std::string acl{};
  // 1 unless another folder of the same name was deleted in the same second (see above).
  uint32_t ordinal = 1;
};

// "<time>[.<nanoseconds, 9 digits>]-<unique id>" -> its parts; nullopt for anything else in
// the area (".uncreated" debris of a rolled-back create, ".purging" directories of a removal
// in progress). The nanoseconds order two deletes within one second.
struct DeletedEntryName {
  int64_t deleted_at = 0;
  int64_t deleted_ns = 0;
  std::string unique_id;
};
// The entry a DELETE at `sec`.`ns` of `unique_id` moves to.
std::string deletedEntryName(int64_t sec, int64_t ns, std::string_view unique_id);
std::optional<DeletedEntryName> parseDeletedEntryName(std::string_view entry);

// The suffix IMAP adds to a deleted folder's name: "-YYYYMMDD-HH:MM:SS" in UTC, then "-N"
// for an ordinal above 1.
std::string deletedSuffix(int64_t deleted_at, uint32_t ordinal);

// The inverse on a whole external name: the folder's external name, the time and the
// ordinal; nullopt when `display` does not end in such a suffix.
struct DeletedDisplayName {
  std::string folder;
  int64_t deleted_at = 0;
  uint32_t ordinal = 1;
};
std::optional<DeletedDisplayName> parseDeletedDisplayName(std::string_view display);

// Sets each folder's ordinal: folders of one name deleted in one second are numbered 1, 2, ...
// in the order of `deleted`, which must be sorted by time.
void numberDeleted(std::span<DeletedMailbox> deleted);

}  // namespace darius::mailbox
