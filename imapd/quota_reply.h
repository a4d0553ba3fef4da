// The RFC 9208 pieces GETQUOTA, GETQUOTAROOT and SETQUOTA share: a quota root's name on the
// wire (the user's name for the root mailbox, "INBOX" for their own), the untagged QUOTA
// response, and who may look at a root, so that none of them tells a user about a mailbox
// they may not see (issue 6, Security).
//
// Thread-safety: functions of one session's strand.
#pragma once

#include <string>
#include <string_view>

#include "imapd/command_table.h"
#include "lib/base/result.h"
#include "mailbox/store.h"

namespace darius::imapd {

class Session;

// The quota root argument as sent -> the root's internal name (as internalName()).
base::Result<mailbox::MailboxName> quotaRootName(const Session& session, std::string_view wire);

// Whether the user may see the quota of `name` (a root, or a mailbox whose root they ask
// for): an admin of its domain, its owner (their own tree, listed or not: RFC 9208 §4.1.2
// allows names not yet created), or someone who may see the mailbox (l or r, RFC 4314 §4).
bool maySeeQuotaOf(Session& session, const mailbox::MailboxName& name);

// "QUOTA <root> (<resource> <usage> <limit> ...)" (RFC 9208 §4.2.1, without "* "): only the
// limited resources, STORAGE in KiB (usage rounded up), in STORAGE, MESSAGE, MAILBOX order.
base::Result<std::string> quotaResponse(const Session& session, const mailbox::QuotaRootInfo& q);

}  // namespace darius::imapd
