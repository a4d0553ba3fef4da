#include "mailbox/mailbox_list_cache.h"

#include <algorithm>

#include "mailbox/acl.h"

namespace darius::mailbox {

using base::Result;
using base::Status;

namespace {

// Reads a view whose stamp moved during the read at most this many times; then the caller
// gets no view and reads its own part of the list (a list changing that fast gains nothing
// from a copy, and a domain's range costs less than the whole store).
constexpr int kReadAttempts = 2;

}  // namespace

MailboxListView::Item MailboxListView::at(size_t i) const {
  const Packed& p = items_[i];
  Item item;
  item.key = std::string_view(text_).substr(p.key_at, p.key_len);
  item.flags = p.flags;
  item.acl = std::string_view(text_).substr(p.acl_at, p.acl_len);
  item.special_use = std::string_view(text_).substr(p.special_use_at, p.special_use_len);
  return item;
}

size_t MailboxListView::lowerBound(std::string_view key) const {
  auto it = std::lower_bound(items_.begin(), items_.end(), key,
                             [&](const Packed& p, std::string_view k) {
                               return std::string_view(text_).substr(p.key_at, p.key_len) < k;
                             });
  return size_t(it - items_.begin());
}

// Keys order bytewise and a descendant's key is key(X) 00 ..., so the subtree is every key
// from key(X) up to (not including) key(X) 01.
MailboxListView::Range MailboxListView::subtree(std::string_view key) const {
  std::string after(key);
  after += '\x01';
  return {lowerBound(key), lowerBound(after)};
}

MailboxListView::Range MailboxListView::domain(std::string_view domain) const {
  std::string from(domain);
  from += '\0';
  std::string to(domain);
  to += '\x01';
  return {lowerBound(from), lowerBound(to)};
}

std::span<const uint32_t> MailboxListView::naming(std::string_view identifier) const {
  auto it = by_identifier_.find(std::string(identifier));
  if (it == by_identifier_.end()) return {};
  return it->second;
}

void MailboxListView::add(std::string_view key, const MailboxEntry& entry) {
  const uint32_t position = uint32_t(items_.size());
  Packed p{};
  p.key_at = text_.size();
  p.key_len = uint32_t(key.size());
  text_ += key;
  p.acl_at = text_.size();
  p.acl_len = uint32_t(entry.acl.size());
  text_ += entry.acl;
  p.special_use_at = text_.size();
  p.special_use_len = uint32_t(entry.special_use.size());
  text_ += entry.special_use;
  p.flags = entry.flags;
  items_.push_back(p);
  // The same identifiers Acl::rightsOf() matches; an ACL that does not parse grants nothing
  // but the implicit rights, which come from the key (owner) or the viewer (admin).
  auto acl = Acl::parse(entry.acl);
  if (!acl.ok()) return;
  for (const AclEntry& e : acl->entries()) {
    std::string_view id = e.identifier;
    if (!id.empty() && id[0] == '-') id.remove_prefix(1);
    std::vector<uint32_t>& positions = by_identifier_[std::string(id)];
    if (positions.empty() || positions.back() != position) positions.push_back(position);
  }
}

Result<std::shared_ptr<const MailboxListView>> MailboxListCache::view() {
  DARIUS_ASSIGN_OR_RETURN(std::optional<db::CommitStamp> stamp, list_.database().commitStamp());
  if (!stamp) return std::shared_ptr<const MailboxListView>();
  {
    std::lock_guard<std::mutex> g(mu_);
    if (current_ && stamp_ == *stamp) return current_;
  }
  std::lock_guard<std::mutex> reading(read_mu_);
  return readWhole();
}

// With read_mu_ held. Reads between two stamps: equal stamps mean no commit came between, so
// the view is one committed state (scan() alone may resume on a newer snapshot).
Result<std::shared_ptr<const MailboxListView>> MailboxListCache::readWhole() {
  for (int attempt = 0; attempt < kReadAttempts; ++attempt) {
    DARIUS_ASSIGN_OR_RETURN(std::optional<db::CommitStamp> before,
                            list_.database().commitStamp());
    if (!before) return std::shared_ptr<const MailboxListView>();
    {
      std::lock_guard<std::mutex> g(mu_);  // another thread's read may have just finished
      if (current_ && stamp_ == *before) return current_;
    }
    auto view = std::make_shared<MailboxListView>();
    DARIUS_RETURN_IF_ERROR(list_.forEach(
        [&](const MailboxName& name, const MailboxEntry& entry) {
          view->add(name.key(), entry);
          return true;
        },
        &view->damaged_));
    view->text_.shrink_to_fit();
    view->items_.shrink_to_fit();
    DARIUS_ASSIGN_OR_RETURN(std::optional<db::CommitStamp> after, list_.database().commitStamp());
    std::lock_guard<std::mutex> g(mu_);
    ++reads_;
    if (after && *after == *before) {
      current_ = view;
      stamp_ = *before;
      return std::shared_ptr<const MailboxListView>(view);
    }
  }
  return std::shared_ptr<const MailboxListView>();
}

uint64_t MailboxListCache::reads() const {
  std::lock_guard<std::mutex> g(mu_);
  return reads_;
}

}  // namespace darius::mailbox
