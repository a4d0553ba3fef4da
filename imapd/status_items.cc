#include "imapd/status_items.h"

#include "lib/proto/chars.h"

namespace darius::imapd {

using base::Result;
using base::Status;

Result<StatusItem> parseStatusItem(std::string_view name) {
  std::string u = proto::asciiUpper(name);
  if (u == "MESSAGES") return StatusItem::kMessages;
  if (u == "UIDNEXT") return StatusItem::kUidNext;
  if (u == "UIDVALIDITY") return StatusItem::kUidValidity;
  if (u == "UNSEEN") return StatusItem::kUnseen;
  if (u == "DELETED") return StatusItem::kDeleted;
  if (u == "DELETED-STORAGE") return StatusItem::kDeletedStorage;
  if (u == "SIZE") return StatusItem::kSize;
  if (u == "RECENT") return StatusItem::kRecent;
  if (u == "HIGHESTMODSEQ") return StatusItem::kHighestModseq;
  if (u == "APPENDLIMIT") return StatusItem::kAppendLimit;
  if (u == "MAILBOXID") return StatusItem::kMailboxId;
  return Status::invalid("Unknown STATUS item " + u);
}

namespace {

// RFC 9208 §4.1.4 DELETED-STORAGE: the octets an EXPUNGE would give back to the quota root,
// exactly (the sizes of the live \Deleted messages, as quotaCharge counts them). A pass over
// the index records, only when asked for.
Result<uint64_t> deletedStorage(const mailbox::Mailbox& m) {
  uint64_t bytes = 0;
  if (m.index().num_deleted == 0) return bytes;
  for (size_t i = 0; i < m.recordCount(); ++i) {
    DARIUS_ASSIGN_OR_RETURN(mailbox::IndexRecord r, m.record(i));
    if (r.live() && (r.system_flags & mailbox::kFlagDeleted) != 0) bytes += r.size;
  }
  return bytes;
}

// UNSEEN by the user's own seen state (issue 17): the live messages not in it.
Result<uint32_t> unseenFor(mailbox::Store& store, const mailbox::Mailbox& m,
                           std::string_view user) {
  DARIUS_ASSIGN_OR_RETURN(mailbox::SeenState seen, store.seen().get(user, m.header().unique_id));
  std::vector<uint32_t> live;
  live.reserve(m.index().num_records - m.index().num_expunged);
  for (size_t i = 0; i < m.recordCount(); ++i) {
    DARIUS_ASSIGN_OR_RETURN(mailbox::IndexRecord r, m.record(i));
    if (r.live()) live.push_back(r.uid);
  }
  return static_cast<uint32_t>(live.size() - seen.countSeen(live));
}

}  // namespace

Result<std::string> statusValues(mailbox::Store& store, const mailbox::MailboxName& name,
                                 const std::vector<StatusItem>& items, uint64_t append_limit,
                                 std::string_view seen_user) {
  DARIUS_ASSIGN_OR_RETURN(mailbox::OpenMailbox m, store.openMailbox(name));
  return statusValuesOf(store, m, items, append_limit, seen_user);
}

Result<std::string> statusValuesOf(mailbox::Store& store, mailbox::OpenMailbox& m,
                                   const std::vector<StatusItem>& items, uint64_t append_limit,
                                   std::string_view seen_user) {
  const mailbox::IndexHeader& h = m.mailbox->index();
  uint32_t messages = h.num_records - h.num_expunged;
  std::string out;
  for (StatusItem item : items) {
    if (!out.empty()) out += ' ';
    switch (item) {
      case StatusItem::kMessages:
        out += "MESSAGES " + std::to_string(messages);
        break;
      case StatusItem::kUidNext:
        out += "UIDNEXT " + std::to_string(h.uidnext);
        break;
      case StatusItem::kUidValidity:
        out += "UIDVALIDITY " + std::to_string(m.entry.uidvalidity);
        break;
      case StatusItem::kUnseen: {
        uint32_t unseen = messages - h.num_seen;
        if (!seen_user.empty()) {
          DARIUS_ASSIGN_OR_RETURN(unseen, unseenFor(store, *m.mailbox, seen_user));
        }
        out += "UNSEEN " + std::to_string(unseen);
        break;
      }
      case StatusItem::kDeleted:
        out += "DELETED " + std::to_string(h.num_deleted);
        break;
      case StatusItem::kDeletedStorage: {
        DARIUS_ASSIGN_OR_RETURN(uint64_t bytes, deletedStorage(*m.mailbox));
        out += "DELETED-STORAGE " + std::to_string(bytes);
        break;
      }
      case StatusItem::kSize:
        out += "SIZE " + std::to_string(h.quota_used);
        break;
      case StatusItem::kRecent: {
        DARIUS_ASSIGN_OR_RETURN(size_t recent, m.mailbox->countAbove(h.recent_uid));
        out += "RECENT " + std::to_string(recent);
        break;
      }
      case StatusItem::kHighestModseq:
        out += "HIGHESTMODSEQ " + std::to_string(h.highest_modseq);
        break;
      case StatusItem::kAppendLimit:
        out += "APPENDLIMIT " + std::to_string(append_limit);
        break;
      case StatusItem::kMailboxId:
        out += "MAILBOXID (" + m.entry.unique_id + ")";
        break;
    }
  }
  return out;
}

}  // namespace darius::imapd
