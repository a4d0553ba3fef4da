// What one message offers the keys of a SEARCH (search_eval.h), each source loaded on first
// use and kept until the message is settled: the record (always), the cache entry, the file
// read and parsed (text only: no line counts or envelopes, lib/mime/message.h).
//
// With defer_files, a key that needs the file does not read it: it answers false and marks
// the state deferred(), so the caller knows the outcome is not final and evaluates the
// message again later (allowFiles()), possibly on another thread. That second evaluation
// must not touch the Mailbox (its cache mapping is not thread-safe): preloadCache() reads
// the cache entry first, and the file is read through its path alone.
//
// Ownership: a MessageState owns its copy of the record, the cache entry and the file's bytes,
// and borrows the Mailbox. Thread-safety: one thread at a time; see above for which calls
// touch the Mailbox.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <string_view>

#include "lib/io/fd.h"
#include "lib/mime/header.h"
#include "lib/mime/message.h"
#include "lib/proto/imap_date.h"
#include "mailbox/cache_format.h"
#include "mailbox/index_format.h"
#include "mailbox/mailbox.h"
#include "mailbox/sent_date.h"

namespace darius::imapd::search {

inline constexpr int64_t kSecondsPerDay = 86400;

inline int64_t floorDiv(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

// The day of the internal date in the zone it was given in (RFC 9051 §6.4.4), as days since
// 1970-01-01.
inline int64_t internalDay(const mailbox::IndexRecord& r) {
  return floorDiv(r.internal_date + int64_t{r.tz_offset_minutes} * 60, kSecondsPerDay);
}

class MessageState {
 public:
  MessageState(const mailbox::Mailbox& mailbox, const mailbox::IndexRecord& record, uint32_t msn,
               bool defer_files = false)
      : mailbox_(mailbox), record_(record), msn_(msn), defer_files_(defer_files) {}
  MessageState(const MessageState&) = delete;
  MessageState& operator=(const MessageState&) = delete;

  const mailbox::IndexRecord& record() const { return record_; }
  uint32_t msn() const { return msn_; }
  bool unreadable() const { return unreadable_; }
  bool fileOpened() const { return file_read_; }
  bool deferred() const { return deferred_; }
  void preloadCache() { (void)cachedHeader(); }
  void allowFiles() {
    defer_files_ = false;
    deferred_ = false;
  }
  // Frees the file once the message is settled (a deferred state lives until the search ends).
  void dropFile() {
    file_header_.reset();
    message_.reset();
    data_.reset();
    size_ = 0;
  }

  // The header block: from the cache when it has the field, else from the file. Null when
  // neither can be read.
  const mime::Header* header(bool need_trace_fields) {
    if (!need_trace_fields) {
      if (const mime::Header* h = cachedHeader()) return h;
    }
    const mime::Message* m = message();
    if (m == nullptr) return nullptr;
    if (!file_header_) file_header_.emplace(m->header(m->root()));
    return &*file_header_;
  }

  const mime::Message* message() {
    if (defer_files_) {
      deferred_ = true;
      return nullptr;
    }
    if (!file_tried_) {
      file_tried_ = true;
      if (!readFile()) {
        unreadable_ = true;
      } else {
        mime::ParseOptions text_only;
        text_only.lines_and_envelopes = false;  // the keys read texts and headers only
        message_.emplace(mime::Message::parse(std::string_view(data_.get(), size_), text_only));
        file_read_ = true;
      }
    }
    return message_ ? &*message_ : nullptr;
  }

  int64_t sentDay() {
    if (!sent_day_) {
      sent_day_ = internalDay(record_);
      if (const mime::Header* h = header(false)) {
        // The last Date field, as the envelope takes it (lib/mime/envelope.h).
        if (const mime::HeaderField* f = h->last("Date")) {
          if (auto d = mailbox::parseSentDate(mime::unfoldValue(f->value))) sent_day_ = proto::daysFromCivil(*d);
        }
      }
    }
    return *sent_day_;
  }

 private:
  const mime::Header* cachedHeader() {
    if (!cache_tried_) {
      cache_tried_ = true;
      auto e = mailbox_.cache(record_);
      if (e.ok()) {
        cache_ = std::move(*e);
        cached_header_.emplace(cache_->headers);
      }
    }
    return cached_header_ ? &*cached_header_ : nullptr;
  }

  // Read, not mapped: mmap and munmap take the process's address-space lock for writing and
  // munmap interrupts every other core running dariusd to flush its TLB, so the threads of one
  // SEARCH (and every other session) would queue behind each other's mappings.
  // The buffer is not zero-filled first (a string's would be: a second pass over every byte).
  bool readFile() {
    auto fd = io::openFile(mailbox_.messagePath(record_.uid), O_RDONLY);  // const, no state
    if (!fd.ok()) return false;
    struct stat st {};
    if (::fstat(fd->get(), &st) != 0 || st.st_size < 0) return false;
    const auto size = static_cast<size_t>(st.st_size);
    data_.reset(new (std::nothrow) char[size == 0 ? 1 : size]);
    if (!data_) return false;
    size_t got = 0;
    while (got < size) {
      ssize_t n = ::pread(fd->get(), data_.get() + got, size - got, static_cast<off_t>(got));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // an error, or the file shrank: what was read is the message
      got += static_cast<size_t>(n);
    }
    size_ = got;
    return true;
  }

  const mailbox::Mailbox& mailbox_;
  const mailbox::IndexRecord record_;  // a copy: a deferred state outlives the caller's record
  const uint32_t msn_;
  bool defer_files_ = false;
  bool deferred_ = false;
  bool unreadable_ = false;
  bool cache_tried_ = false;
  std::optional<mailbox::CacheEntry> cache_;
  std::optional<mime::Header> cached_header_;  // views cache_->headers
  bool file_tried_ = false;
  bool file_read_ = false;
  std::unique_ptr<char[]> data_;  // the file's bytes (size_ of them)
  size_t size_ = 0;
  std::optional<mime::Message> message_;     // views data_
  std::optional<mime::Header> file_header_;  // views data_
  std::optional<int64_t> sent_day_;
};


}  // namespace darius::imapd::search
