#include "imapd/thread/thread_inputs.h"

#include <optional>
#include <string>

#include "imapd/sort/base_subject.h"
#include "imapd/sort/sort_key_cache.h"
#include "imapd/sort/sent_time.h"
#include "imapd/thread/message_ids.h"
#include "lib/mime/header.h"

namespace darius::imapd::thread {
namespace {

// The unfolded value of the last field of that name (the one the envelope shows), if any.
std::optional<std::string> lastValue(const mime::Header& h, std::string_view name) {
  const mime::HeaderField* f = h.last(name);
  if (f == nullptr) return std::nullopt;
  return mime::unfoldValue(f->value);
}

}  // namespace

ThreadMessage threadMessageFromHeader(uint32_t id, std::string_view header_block,
                                      int64_t internal_date) {
  mime::Header h(header_block);
  ThreadMessage m;
  m.id = id;
  if (auto v = lastValue(h, "Message-ID")) m.message_id = firstMessageId(*v);
  std::optional<std::string> refs = lastValue(h, "References");
  std::optional<std::string> irt = lastValue(h, "In-Reply-To");
  std::optional<std::string_view> refs_view, irt_view;
  if (refs) refs_view = *refs;
  if (irt) irt_view = *irt;
  m.references = threadReferences(refs_view, irt_view);
  std::optional<std::string> subject = lastValue(h, "Subject");
  sort::BaseSubject base = sort::baseSubject(subject ? *subject : std::string());
  m.base_subject = std::move(base.key);
  m.reply_or_fwd = base.reply_or_forward;
  std::optional<std::string> date = lastValue(h, "Date");
  std::optional<std::string_view> date_view;
  if (date) date_view = *date;
  m.sent_date = sort::sentTimeOr(date_view, internal_date);
  return m;
}

base::Result<ThreadInputs> readThreadInputs(const mailbox::Mailbox& mailbox,
                                            std::span<const search::SearchMatch> matches,
                                            bool by_uid, sort::SortKeyCache* cache) {
  ThreadInputs out;
  std::vector<size_t> todo;
  const uint32_t uidvalidity = mailbox.header().uidvalidity;
  if (cache != nullptr) {
    todo = cache->lookupThread(mailbox.dir(), uidvalidity, matches, out.messages);
  } else {
    out.messages.resize(matches.size());
    todo.resize(matches.size());
    for (size_t i = 0; i < todo.size(); ++i) todo[i] = i;
  }
  for (size_t i = 0; i < matches.size(); ++i) {
    out.messages[i].id = by_uid ? matches[i].uid : matches[i].msn;
  }
  std::vector<uint32_t> fresh_uids;
  std::vector<ThreadMessage> fresh;
  for (size_t i : todo) {
    const search::SearchMatch& match = matches[i];
    ThreadMessage& m = out.messages[i];
    DARIUS_ASSIGN_OR_RETURN(int64_t pos, mailbox.findUid(match.uid));
    if (pos < 0) {  // expunged by another session since the search: still answer for it
      ++out.unreadable;
      continue;
    }
    DARIUS_ASSIGN_OR_RETURN(mailbox::IndexRecord record, mailbox.record(static_cast<size_t>(pos)));
    auto entry = mailbox.cache(record);
    if (!entry.ok()) {
      m.sent_date = record.internal_date;
      ++out.unreadable;
      continue;
    }
    m = threadMessageFromHeader(m.id, entry->headers, record.internal_date);
    if (cache != nullptr) {
      fresh_uids.push_back(match.uid);
      fresh.push_back(m);
    }
  }
  if (cache != nullptr) cache->rememberThread(mailbox.dir(), uidvalidity, fresh_uids, fresh);
  return out;
}

}  // namespace darius::imapd::thread
