#include "imapd/fetch/fetch_body.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>

namespace darius::imapd::fetch {

using base::Result;
using base::Status;
using Text = mime::SectionSpec::Text;

namespace {

constexpr uint32_t kNoChild = UINT32_MAX;
constexpr uint8_t kMultipart = 1;  // SectionRecord::kind, lib/mime's PartKind
constexpr uint8_t kMessage = 2;

// The n-th (1-based) child of parts[idx], or kNoChild. At most parts.size() steps, so neither a
// huge n nor a damaged sibling chain can make it loop long.
uint32_t nthChild(const Parts& parts, uint32_t idx, uint32_t n) {
  uint32_t c = parts[idx].first_child;
  size_t steps = 0;
  for (uint32_t k = 1; c != kNoChild && k < n; ++k) {
    if (++steps > parts.size()) return kNoChild;
    c = parts[c].next_sibling;
  }
  return c;
}

// Part n of the message entity parts[msg]: its n-th body part if it is multipart, else the
// message itself is its only part, 1.
uint32_t partOfMessage(const Parts& parts, uint32_t msg, uint32_t n) {
  if (parts[msg].kind == kMultipart) return nthChild(parts, msg, n);
  return n == 1 ? msg : kNoChild;
}

SectionTarget bytes(SectionTarget::Kind kind, uint64_t offset, uint64_t size, uint32_t part,
                    uint64_t message_size) {
  SectionTarget t;
  t.kind = kind;
  t.offset = std::min(offset, message_size);
  t.size = std::min(size, message_size - t.offset);
  t.part = part;
  return t;
}

}  // namespace

std::optional<uint32_t> resolvePart(const Parts& parts, std::span<const uint32_t> path) {
  if (parts.empty()) return std::nullopt;
  uint32_t cur = 0;
  bool in_message = true;  // `cur` is a message whose numbering applies to the next number
  for (uint32_t n : path) {
    const mailbox::SectionRecord& p = parts[cur];
    uint32_t next = kNoChild;
    if (in_message) {
      next = partOfMessage(parts, cur, n);
    } else if (p.kind == kMultipart) {
      next = nthChild(parts, cur, n);
    } else if (p.kind == kMessage && p.first_child != kNoChild) {
      next = partOfMessage(parts, p.first_child, n);
    }
    if (next == kNoChild) return std::nullopt;
    cur = next;
    in_message = false;
  }
  return cur;
}

SectionTarget locateSection(const Parts& parts, const mime::SectionSpec& spec,
                            uint64_t message_size) {
  using Kind = SectionTarget::Kind;
  if (spec.path.empty() && spec.text == Text::kNone) {
    return bytes(Kind::kBytes, 0, message_size, 0, message_size);  // BODY[]: all of it
  }
  std::optional<uint32_t> idx = resolvePart(parts, spec.path);
  if (!idx) return SectionTarget{};
  uint32_t i = *idx;
  if (spec.text == Text::kNone) {
    return bytes(Kind::kBytes, parts[i].body_offset, parts[i].body_size, i, message_size);
  }
  if (spec.text == Text::kMime) {
    if (spec.path.empty()) return SectionTarget{};
    return bytes(Kind::kBytes, parts[i].header_offset, parts[i].header_size, i, message_size);
  }
  if (!spec.path.empty()) {
    // HEADER and TEXT of a numbered part: only of a message/rfc822 part, meaning the
    // encapsulated message (RFC 9051 §6.4.5.1).
    if (parts[i].kind != kMessage || parts[i].first_child == kNoChild) return SectionTarget{};
    i = parts[i].first_child;
  }
  const mailbox::SectionRecord& p = parts[i];
  switch (spec.text) {
    case Text::kText:
      return bytes(Kind::kBytes, p.body_offset, p.body_size, i, message_size);
    case Text::kHeader:
      return bytes(Kind::kBytes, p.header_offset, p.header_size, i, message_size);
    default:
      return bytes(Kind::kHeaderFields, p.header_offset, p.header_size, i, message_size);
  }
}

Window windowOf(uint64_t total, const std::optional<Partial>& partial) {
  if (!partial) return Window{0, total};
  if (partial->offset >= total) return Window{total, 0};
  return Window{partial->offset, std::min(partial->count, total - partial->offset)};
}

bool cachedHeaderServes(const mime::SectionSpec& spec, const Parts& parts) {
  if (!spec.path.empty() || spec.text != Text::kHeaderFields || parts.empty()) return false;
  if (parts[0].body_size == 0) return false;
  return std::none_of(spec.fields.begin(), spec.fields.end(),
                      [](const std::string& f) { return mailbox::isUncachedHeaderField(f); });
}

Result<MessageFile> MessageFile::open(const std::string& path) {
  DARIUS_ASSIGN_OR_RETURN(io::UniqueFd fd, io::openFile(path, O_RDONLY));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return Status::fromErrno(errno, "fstat " + path);
  return MessageFile(std::move(fd), static_cast<uint64_t>(st.st_size));
}

Result<std::string> MessageFile::read(uint64_t offset, uint64_t length) const {
  if (offset > size_ || length > size_ - offset) {
    return Status::corruption("read past the end of the message file");
  }
  DARIUS_ASSIGN_OR_RETURN(std::string data, io::preadUpTo(fd_.get(), offset, length));
  if (data.size() != length) return Status::corruption("message file shorter than it was");
  return data;
}

}  // namespace darius::imapd::fetch
