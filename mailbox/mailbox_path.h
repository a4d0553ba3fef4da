// Where a mailbox lives in its partition: the directory of a MailboxName under a partition
// root, and back (reconstruct walks a partition and turns directories into names). The
// layout (docs/design/naming.md) nests by hierarchy, so renaming one directory moves the
// sub-folders with it:
//
//   <root>/user/<owner>/<c1>/<c2>                       personal, default domain
//   <root>/shared/<c1>/<c2>                             shared, default domain
//   <root>/domain/<domain>/user/<owner>/<c1>            personal, virtual domain
//   <root>/domain/<domain>/shared/<c1>                  shared, virtual domain
//
// A mailbox directory also holds the mailbox's files: messages "<uid>." and metadata
// "darius.*" (and whatever else the store names with a '.'). So a component is written with
// every '.' escaped, as are '%', '/' and bytes below 0x20 or 0x7f, as %XX (upper-case hex);
// all other bytes, UTF-8 included, pass through. Hence the rule the store and reconstruct
// rely on: inside a mailbox directory, an entry whose name has a '.' is a file of that
// mailbox, an entry without one may be a child mailbox. Owner and domain directories sit in
// directories that hold no files, so a '.' passes through there ("user/john.smith",
// "domain/example.com"). Decoding accepts only the canonical encoding, so each directory
// has exactly one name and each name exactly one directory.
//
// The partition root's other entries (anything but "user", "shared", "domain") are free for
// the store (staging, the deleted area, …) and are never mailboxes.
//
// Limits: an encoded entry longer than 255 bytes (NAME_MAX) or a path of 4096 bytes or more
// (PATH_MAX) is kTooBig; such a mailbox cannot be created.
//
// Thread-safety: pure functions. Nothing here touches the filesystem.
#pragma once

#include <string>
#include <string_view>

#include "lib/base/result.h"
#include "mailbox/mailbox_name.h"

namespace darius::mailbox {

inline constexpr std::string_view kUserDirName = "user";
inline constexpr std::string_view kSharedDirName = "shared";
inline constexpr std::string_view kDomainDirName = "domain";
inline constexpr size_t kMaxDirEntryLength = 255;  // NAME_MAX
inline constexpr size_t kMaxPathLength = 4095;     // PATH_MAX - 1

// One mailbox component as a directory entry name, and back (kInvalid unless canonical and a
// valid component).
std::string encodeComponentDir(std::string_view component);
base::Result<std::string> decodeComponentDir(std::string_view entry);

// A user's local part as the directory name under user/ ('.' passes through), and back.
std::string encodeOwnerDir(std::string_view owner);
base::Result<std::string> decodeOwnerDir(std::string_view entry, bool has_domain);

// "user/alice/Sent" and friends, relative to a partition root; kTooBig over the limits.
base::Result<std::string> mailboxRelativeDir(const MailboxName& name);
// <partition_root>/<relative dir>.
base::Result<std::string> mailboxDir(std::string_view partition_root, const MailboxName& name);

// The inverse of mailboxRelativeDir(): kInvalid for anything that is not exactly the
// directory of some mailbox.
base::Result<MailboxName> mailboxNameFromRelativeDir(std::string_view relative);
// The inverse of mailboxDir(): `dir` must lie below `partition_root` (compared after lexical
// normalisation).
base::Result<MailboxName> mailboxNameFromDir(std::string_view partition_root,
                                             std::string_view dir);

// Whether an entry of a mailbox directory can be a child mailbox's directory (it has no
// '.'); entries with a '.' belong to the mailbox itself.
bool mayBeChildMailboxDir(std::string_view entry);

}  // namespace darius::mailbox
