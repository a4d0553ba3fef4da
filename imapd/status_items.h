// The STATUS data items of one mailbox (RFC 9051 §6.3.11, §7.3.4; SIZE RFC 8438, DELETED
// RFC 9051, DELETED-STORAGE RFC 9208 §4.1.4 (a record pass when asked), HIGHESTMODSEQ RFC 7162 §3.1.9, APPENDLIMIT RFC 7889, RECENT RFC 3501, MAILBOXID RFC 8474), straight
// from the index header (no message file, no record scan except RECENT's tail and a
// non-owner's UNSEEN). Shared by
// STATUS and LIST-STATUS (RFC 5819).
//
// Thread-safety: blocking disk reads; call from the session's blocking pool or strand.
#pragma once

#include <string>
#include <vector>

#include "lib/base/result.h"
#include "mailbox/mailbox_name.h"
#include "mailbox/store.h"

namespace darius::imapd {

enum class StatusItem { kMessages, kUidNext, kUidValidity, kUnseen, kDeleted, kSize, kRecent,
                        kHighestModseq, kAppendLimit, kMailboxId,
                        kDeletedStorage };  // RFC 9208 §4.1.4

// Parses one item name (any case); kInvalid for an unknown one.
base::Result<StatusItem> parseStatusItem(std::string_view name);

// "MESSAGES 3 UIDNEXT 7 ..." in the order asked, for the STATUS response's list.
// `seen_user` (imapd/user_seen.h): UNSEEN counts that user's own \Seen, which costs a pass
// over the index records; "" counts the index's (the owner's) from the header.
base::Result<std::string> statusValues(mailbox::Store& store, const mailbox::MailboxName& name,
                                       const std::vector<StatusItem>& items,
                                       uint64_t append_limit, std::string_view seen_user = {});
// The same of a mailbox already open (a view of the expunged or deleted area).
base::Result<std::string> statusValuesOf(mailbox::Store& store, mailbox::OpenMailbox& m,
                                         const std::vector<StatusItem>& items,
                                         uint64_t append_limit, std::string_view seen_user = {});

}  // namespace darius::imapd
