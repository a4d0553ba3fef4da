#include "imapd/sort/sort_keys.h"

#include <algorithm>
#include <optional>

#include "imapd/sort/base_subject.h"
#include "imapd/sort/sort_key_cache.h"
#include "imapd/sort/sent_time.h"
#include "lib/mime/address.h"
#include "lib/mime/header.h"
#include "mailbox/search_fold.h"
#include "mailbox/search_text.h"

namespace darius::imapd::sort {
namespace {

// The slot of a string key in MessageKeys::text, or -1 for the numeric ones.
int textSlot(SortKey k) {
  switch (k) {
    case SortKey::kSubject: return 0;
    case SortKey::kFrom: return 1;
    case SortKey::kTo: return 2;
    case SortKey::kCc: return 3;
    case SortKey::kDisplayFrom: return 4;
    case SortKey::kDisplayTo: return 5;
    default: return -1;
  }
}

}  // namespace

int textSlotOf(SortKey key) { return textSlot(key); }

namespace {

std::string_view fieldOf(SortKey k) {
  switch (k) {
    case SortKey::kFrom: case SortKey::kDisplayFrom: return "From";
    case SortKey::kTo: case SortKey::kDisplayTo: return "To";
    case SortKey::kCc: return "Cc";
    default: return {};
  }
}

// The first address structure of the fields, as ENVELOPE lists them.
std::optional<mime::Address> firstAddress(const std::vector<std::string_view>& values) {
  for (std::string_view v : values) {
    std::vector<mime::Address> list = mime::parseAddressList(mime::unfoldValue(v));
    if (!list.empty()) return std::move(list.front());
  }
  return std::nullopt;
}

std::optional<std::string> realMailbox(const mime::Address& a) {
  if (!a.mailbox || *a.mailbox == mime::kMissingMailbox) return std::nullopt;
  return a.mailbox;
}

std::optional<std::string> realHost(const mime::Address& a) {
  if (!a.host || *a.host == mime::kMissingDomain) return std::nullopt;
  return a.host;
}

std::vector<std::string_view> valuesOf(const mime::Header& h, std::string_view name) {
  std::vector<std::string_view> out;
  for (const mime::HeaderField* f : h.all(name)) out.push_back(f->value);
  return out;
}

template <typename T>
int compare(const T& a, const T& b) {
  if (a < b) return -1;
  if (b < a) return 1;
  return 0;
}

}  // namespace

bool needsHeader(const std::vector<SortCriterion>& criteria) {
  return std::any_of(criteria.begin(), criteria.end(), [](const SortCriterion& c) {
    return c.key != SortKey::kArrival && c.key != SortKey::kSize;
  });
}

std::string addressMailboxKey(const std::vector<std::string_view>& field_values) {
  std::optional<mime::Address> a = firstAddress(field_values);
  if (!a) return {};
  std::optional<std::string> mbox = realMailbox(*a);
  return mbox ? mailbox::foldForSearch(*mbox) : std::string();
}

std::string displayAddressKey(const std::vector<std::string_view>& field_values) {
  std::optional<mime::Address> a = firstAddress(field_values);
  if (!a) return {};
  // RFC 5957 §3: the decoded display name if not empty, else mailbox@host, else mailbox.
  if (a->name) {
    std::string name = mailbox::decodeHeaderValue(*a->name);
    if (!name.empty()) return mailbox::foldForSearch(name);
  }
  std::optional<std::string> mbox = realMailbox(*a);
  if (!mbox) return {};
  std::optional<std::string> host = realHost(*a);
  return mailbox::foldForSearch(host ? *mbox + "@" + *host : *mbox);
}

MessageKeys keysOf(const std::vector<SortCriterion>& criteria, const search::SearchMatch& match,
                   const mailbox::IndexRecord& record, std::string_view header_block) {
  MessageKeys k;
  k.match = match;
  k.arrival = record.internal_date;
  k.size = record.size;
  std::optional<mime::Header> header;
  if (needsHeader(criteria)) header.emplace(header_block);
  std::array<bool, 6> done{};
  bool sent_done = false;
  for (const SortCriterion& c : criteria) {
    if (c.key == SortKey::kDate) {
      if (sent_done) continue;
      sent_done = true;
      const mime::HeaderField* f = header->last("Date");
      std::optional<std::string> value;
      if (f != nullptr) value = mime::unfoldValue(f->value);
      k.sent = sentTimeOr(value ? std::optional<std::string_view>(*value) : std::nullopt,
                          record.internal_date);
      continue;
    }
    int slot = textSlot(c.key);
    if (slot < 0 || done[slot]) continue;
    done[slot] = true;
    switch (c.key) {
      case SortKey::kSubject: {
        const mime::HeaderField* f = header->last("Subject");
        k.text[slot] = f != nullptr ? baseSubject(f->value).key : std::string();
        break;
      }
      case SortKey::kFrom: case SortKey::kTo: case SortKey::kCc:
        k.text[slot] = addressMailboxKey(valuesOf(*header, fieldOf(c.key)));
        break;
      default:
        k.text[slot] = displayAddressKey(valuesOf(*header, fieldOf(c.key)));
        break;
    }
  }
  return k;
}

bool sortsBefore(const std::vector<SortCriterion>& criteria, const MessageKeys& a,
                 const MessageKeys& b) {
  for (const SortCriterion& c : criteria) {
    int r = 0;
    switch (c.key) {
      case SortKey::kArrival: r = compare(a.arrival, b.arrival); break;
      case SortKey::kDate: r = compare(a.sent, b.sent); break;
      case SortKey::kSize: r = compare(a.size, b.size); break;
      default: {
        int slot = textSlot(c.key);
        r = compare(a.text[slot], b.text[slot]);
        break;
      }
    }
    if (r != 0) return c.reverse ? r > 0 : r < 0;
  }
  return a.match.msn < b.match.msn;  // RFC 5256 §3: the implicit last key
}

base::Result<std::optional<MessageKeys>> readKeys(const mailbox::Mailbox& mailbox,
                                                  const std::vector<SortCriterion>& criteria,
                                                  const search::SearchMatch& match,
                                                  size_t& unreadable) {
  DARIUS_ASSIGN_OR_RETURN(int64_t at, mailbox.findUid(match.uid));
  if (at < 0) return std::optional<MessageKeys>();
  DARIUS_ASSIGN_OR_RETURN(mailbox::IndexRecord record, mailbox.record(static_cast<size_t>(at)));
  std::string block;
  if (needsHeader(criteria)) {
    auto entry = mailbox.cache(record);
    if (entry.ok()) {
      block = std::move(entry->headers);
    } else {
      ++unreadable;
    }
  }
  return std::optional<MessageKeys>(keysOf(criteria, match, record, block));
}

base::Result<SortOutcome> sortMatches(const mailbox::Mailbox& mailbox,
                                      const std::vector<SortCriterion>& criteria,
                                      std::vector<search::SearchMatch> matches, bool keep_keys,
                                      SortKeyCache* cache) {
  SortOutcome out;
  std::vector<MessageKeys> keys;
  if (cache != nullptr) {
    const uint32_t uidvalidity = mailbox.header().uidvalidity;
    std::vector<size_t> missing = cache->lookup(mailbox.dir(), uidvalidity, criteria, matches, keys);
    std::vector<char> gone(matches.size(), 0);
    std::vector<MessageKeys> fresh;
    fresh.reserve(missing.size());
    for (size_t i : missing) {
      const size_t unreadable = out.unreadable;
      DARIUS_ASSIGN_OR_RETURN(std::optional<MessageKeys> k,
                              readKeys(mailbox, criteria, matches[i], out.unreadable));
      if (!k) {
        gone[i] = 1;
        continue;
      }
      keys[i] = *k;
      if (out.unreadable == unreadable) fresh.push_back(std::move(*k));
    }
    cache->remember(mailbox.dir(), uidvalidity, criteria, fresh);
    if (std::find(gone.begin(), gone.end(), 1) != gone.end()) {
      size_t w = 0;
      for (size_t i = 0; i < keys.size(); ++i) {
        if (!gone[i]) keys[w++] = std::move(keys[i]);
      }
      keys.resize(w);
    }
  } else {
    keys.reserve(matches.size());
    for (const search::SearchMatch& m : matches) {
      DARIUS_ASSIGN_OR_RETURN(std::optional<MessageKeys> k,
                              readKeys(mailbox, criteria, m, out.unreadable));
      if (k) keys.push_back(std::move(*k));
    }
  }
  std::sort(keys.begin(), keys.end(), [&](const MessageKeys& a, const MessageKeys& b) {
    return sortsBefore(criteria, a, b);
  });
  out.matches.reserve(keys.size());
  for (const MessageKeys& k : keys) out.matches.push_back(k.match);
  if (keep_keys) out.keys = std::move(keys);
  return out;
}

}  // namespace darius::imapd::sort
