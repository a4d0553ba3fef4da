#include "imapd/fetch/fetch_render.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "imapd/fetch/fetch_binary.h"
#include "imapd/session.h"
#include "lib/mime/header.h"
#include "lib/proto/imap_date.h"
#include "mailbox/cache_fill.h"
#include "mailbox/message_stage.h"

namespace darius::imapd::fetch {

using base::Result;
using base::Status;
using Text = mime::SectionSpec::Text;

namespace {

// Reads up to this size stay on the I/O thread (page-cache hits cost microseconds); larger
// ones go to the blocking pool.
constexpr uint64_t kInlineRead = 64 * 1024;
// Body literals are copied from the file in chunks of this size.
constexpr uint64_t kChunk = 256 * 1024;
// What one message's computed literals (decoded parts, header subsets) may hold, on top of
// twice the message's size (a decoded part is at most twice its encoding: quoted-printable
// gives a bare LF as CRLF): enough for every distinct item a client has reason to ask for,
// and a bound on the hostile ones.
constexpr uint64_t kHeldFloor = 8ull << 20;

constexpr uint8_t kLeaf = 0;

std::string originOf(const std::optional<Partial>& partial) {
  return partial ? "<" + std::to_string(partial->offset) + ">" : "";
}

// The part's [offset, offset + size) clamped to a file of `total` bytes.
Window clamp(uint64_t offset, uint64_t size, uint64_t total) {
  uint64_t o = std::min(offset, total);
  return Window{o, std::min(size, total - o)};
}

FetchItem itemOf(ItemKind kind) {
  FetchItem item;
  item.kind = kind;
  return item;
}

mime::SectionSpec textOf(Text text) {
  mime::SectionSpec spec;
  spec.text = text;
  return spec;
}

// RFC 9051 §4.3: a NUL may only travel in the literal8 of a BINARY item. A message stored
// with NULs (an APPEND literal8, RFC 3516 §4.4) still has its BODY[...] items sent in plain
// literals, with each NUL as 0x80, as Dovecot does: the literal keeps its size (so
// RFC822.SIZE and partial offsets stay true) and BINARY[] has the exact bytes.
void writeLiteralBytes(net::Connection& conn, std::string_view bytes, bool literal8) {
  if (literal8 || std::memchr(bytes.data(), 0, bytes.size()) == nullptr) {
    conn.write(bytes);
    return;
  }
  std::string copy(bytes);
  std::replace(copy.begin(), copy.end(), '\0', '\x80');
  conn.write(copy);
}

std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

MessageFetcher::MessageFetcher(Session& session, SelectedMailbox& selected, const FetchArgs& args,
                               const UpdateStyle& style)
    : session_(session), selected_(selected), args_(args), style_(style) {
  // RFC 7162 §3.2.4: once CONDSTORE is on, a FETCH response with mod-sequence data carries
  // the UID too (fetch() adds it for the \Seen case).
  uid_first_ = args.by_uid || style.qresync || args.has(ItemKind::kUid) ||
               (style.condstore && (args.has(ItemKind::kModseq) || args.changed_since));
  for (const FetchItem& item : args.items) {
    labels_.push_back(item.responseName() + originOf(item.partial));
  }
}

void MessageFetcher::emit(std::string_view text) {
  if (pieces_.empty() || pieces_.back().size != 0) pieces_.emplace_back();
  pieces_.back().text.append(text);
}

void MessageFetcher::emitFileLiteral(uint64_t offset, uint64_t size, bool literal8) {
  if (size == 0) {
    emit("\"\"");
    return;
  }
  if (pieces_.empty() || pieces_.back().size != 0) pieces_.emplace_back();
  pieces_.back().offset = offset;
  pieces_.back().size = size;
  pieces_.back().literal8 = literal8;
}

void MessageFetcher::emitLiteral(std::shared_ptr<const std::string> data,
                                 const std::optional<Partial>& partial, bool binary) {
  Window w = windowOf(data->size(), partial);
  if (w.size == 0) {
    emit("\"\"");
    return;
  }
  if (pieces_.empty() || pieces_.back().size != 0) pieces_.emplace_back();
  Piece& p = pieces_.back();
  p.offset = w.offset;
  p.size = w.size;
  // RFC 3516 §4.3: BINARY data with a NUL goes as a literal8.
  p.literal8 = binary && needsLiteral8(std::string_view(*data).substr(w.offset, w.size));
  p.mem = std::move(data);
}

Result<std::shared_ptr<const std::string>> MessageFetcher::keep(Loaded& m, const std::string& key,
                                                                std::string data) {
  const uint64_t cap = kHeldFloor + 2 * m.ref->record.size;
  if (m.held + data.size() > cap) {
    return Status::tooBig("the items of one message would hold more than " +
                          std::to_string(cap) + " bytes");
  }
  m.held += data.size();
  auto blob = std::make_shared<const std::string>(std::move(data));
  m.blobs.emplace(key, blob);
  return blob;
}

asio::awaitable<Result<bool>> MessageFetcher::fileHasNul(Loaded& m, uint64_t offset,
                                                         uint64_t size) {
  for (uint64_t done = 0; done < size;) {
    uint64_t n = std::min(kChunk, size - done);
    auto chunk = co_await read(m, offset + done, n);
    if (!chunk.ok()) co_return chunk.status();
    if (needsLiteral8(*chunk)) co_return true;
    done += n;
  }
  co_return false;
}

std::string MessageFetcher::recordItem(const FetchItem& item, const mailbox::IndexRecord& r) const {
  switch (item.kind) {
    case ItemKind::kFlags:
      return "FLAGS (" + selected_.flagsOf(r, style_.rev1) + ")";
    case ItemKind::kInternalDate:
      return "INTERNALDATE " + proto::formatDateTime({r.internal_date, r.tz_offset_minutes});
    case ItemKind::kRfc822Size:
      return "RFC822.SIZE " + std::to_string(r.size);
    case ItemKind::kUid:
      return "UID " + std::to_string(r.uid);
    case ItemKind::kModseq:
      return "MODSEQ (" + std::to_string(r.modseq) + ")";
    case ItemKind::kSaveDate:
      // RFC 8514 §4: NIL when the store does not know when the message was saved.
      if (r.save_date == 0) return "SAVEDATE NIL";
      return "SAVEDATE " + proto::formatDateTime({r.save_date, 0});
    case ItemKind::kEmailId:
      // RFC 8474 §5.1: the same content gets the same id, so it comes from the GUID (the
      // SHA-1 of the message), which COPY and MOVE keep; 96 bits of it are plenty.
      return "EMAILID (M" + mailbox::guidHex(r.guid).substr(0, 24) + ")";
    case ItemKind::kThreadId:
      // RFC 8474 §5.2: NIL until threading has assigned one.
      if (r.thread_id == 0) return "THREADID NIL";
      return "THREADID (T" + hex64(r.thread_id) + ")";
    default:
      return {};
  }
}

Status MessageFetcher::openFile(Loaded& m) {
  if (m.file) return Status::ok();
  auto f = MessageFile::open(selected_.mailbox().messagePath(m.ref->record.uid));
  if (!f.ok()) return f.status();
  m.file.emplace(std::move(*f));
  return Status::ok();
}

asio::awaitable<Result<std::string>> MessageFetcher::read(Loaded& m, uint64_t offset,
                                                          uint64_t size) {
  const MessageFile& f = *m.file;
  if (size <= kInlineRead) co_return f.read(offset, size);
  co_return co_await session_.blocking([&f, offset, size] { return f.read(offset, size); });
}

asio::awaitable<Status> MessageFetcher::loadCache(Loaded& m) {
  if (m.cache) co_return Status::ok();
  const mailbox::IndexRecord& r = m.ref->record;
  auto entry = m.ref->cache_usable ? selected_.mailbox().cache(r)
                                   : Result<mailbox::CacheEntry>(Status::notFound("stale"));
  Status why = entry.status();
  if (entry.ok()) {
    auto parts = mailbox::decodeSections(entry->sections);
    // Every entry has these; an entry without them is as damaged as a bad CRC.
    if (parts.ok() && !parts->empty() && !entry->envelope.empty() &&
        !entry->bodystructure.empty() && !entry->body.empty()) {
      m.parts = std::move(*parts);
      m.cache = std::move(*entry);
      co_return Status::ok();
    }
    why = parts.ok() ? Status::corruption("incomplete cache entry") : parts.status();
  }
  // Damaged or missing: parse the message file, as reconstruct would.
  if (m.ref->cache_usable) {
    log::warning(session_.logContext(), "{}: cache entry of UID {}: {}; parsing the message",
                 selected_.mailbox().dir(), r.uid, why.toString());
  }
  if (Status s = openFile(m); !s.isOk()) co_return s;
  auto bytes = co_await read(m, 0, m.file->size());
  if (!bytes.ok()) co_return bytes.status();
  mailbox::CacheEntry built = mailbox::buildCacheEntry(*bytes);
  auto parts = mailbox::decodeSections(built.sections);
  if (!parts.ok()) co_return parts.status();
  m.parts = std::move(*parts);
  m.cache = std::move(built);
  co_return Status::ok();
}

asio::awaitable<Status> MessageFetcher::prepareSection(Loaded& m, std::string_view name,
                                                       const mime::SectionSpec& spec,
                                                       const std::optional<Partial>& partial) {
  const std::string label = std::string(name) + " ";
  const bool whole = spec.path.empty() && spec.text == Text::kNone;
  if (!whole) {
    if (Status s = co_await loadCache(m); !s.isOk()) co_return s;
    if (cachedHeaderServes(spec, m.parts)) {
      const std::string key = "H" + formatSection(spec);
      auto blob = m.blobs.find(key);
      if (blob == m.blobs.end()) {
        auto kept =
            keep(m, key, mime::filterHeaderFields(m.cache->headers, spec.fields, false));
        if (!kept.ok()) co_return kept.status();
        blob = m.blobs.find(key);
      }
      emit(label);
      emitLiteral(blob->second, partial, false);
      co_return Status::ok();
    }
  }
  if (Status s = openFile(m); !s.isOk()) co_return s;
  SectionTarget t = locateSection(m.parts, spec, m.file->size());
  emit(label);
  switch (t.kind) {
    case SectionTarget::Kind::kMissing:
      emit("\"\"");
      break;
    case SectionTarget::Kind::kBytes: {
      Window w = windowOf(t.size, partial);
      emitFileLiteral(t.offset + w.offset, w.size);
      break;
    }
    case SectionTarget::Kind::kHeaderFields: {
      const std::string key = "H" + formatSection(spec);
      auto blob = m.blobs.find(key);
      if (blob == m.blobs.end()) {
        auto block = co_await read(m, t.offset, t.size);
        if (!block.ok()) co_return block.status();
        auto kept = keep(m, key,
                         mime::filterHeaderFields(*block, spec.fields,
                                                  spec.text == Text::kHeaderFieldsNot));
        if (!kept.ok()) co_return kept.status();
        blob = m.blobs.find(key);
      }
      emitLiteral(blob->second, partial, false);
      break;
    }
  }
  co_return Status::ok();
}

asio::awaitable<Status> MessageFetcher::prepareBinary(Loaded& m, const FetchItem& item,
                                                      std::string_view name) {
  const bool size_only = item.kind == ItemKind::kBinarySize;
  const std::string label = std::string(name) + " ";
  if (Status s = openFile(m); !s.isOk()) co_return s;
  const uint64_t total = m.file->size();
  // The raw bytes of [offset, offset + size): the message (BINARY[]) and composite parts,
  // which can only have an identity encoding (RFC 2045 §6.4).
  std::optional<Window> raw;
  std::string header;
  if (item.section.path.empty()) {
    raw = Window{0, total};
  } else {
    if (Status s = co_await loadCache(m); !s.isOk()) co_return s;
    std::optional<uint32_t> idx = resolvePart(m.parts, item.section.path);
    if (!idx) {
      emit(label + (size_only ? "0" : "\"\""));
      co_return Status::ok();
    }
    const mailbox::SectionRecord& p = m.parts[*idx];
    Window body = clamp(p.body_offset, p.body_size, total);
    if (p.kind != kLeaf) {
      raw = body;
    } else {
      Window hw = clamp(p.header_offset, p.header_size, total);
      auto h = co_await read(m, hw.offset, hw.size);
      if (!h.ok()) co_return h.status();
      header = std::move(*h);
      Cte cte = cteOf(header);
      if (cte == Cte::kUnknown) co_return Status::notSupported("unknown Content-Transfer-Encoding");
      if (cte == Cte::kIdentity) raw = body;
      if (!raw) {
        // Decoded once per message, whatever the number of items that window it.
        const std::string key = "D" + std::to_string(*idx);
        auto blob = m.blobs.find(key);
        if (blob == m.blobs.end()) {
          auto encoded = co_await read(m, body.offset, body.size);
          if (!encoded.ok()) co_return encoded.status();
          auto decoded = decodeLeaf(header, *encoded);
          if (!decoded.ok()) co_return decoded.status();
          encoded->clear();
          auto kept = keep(m, key, std::move(*decoded));
          if (!kept.ok()) co_return kept.status();
          blob = m.blobs.find(key);
        }
        emit(label);
        if (size_only) {
          emit(std::to_string(blob->second->size()));
        } else {
          emitLiteral(blob->second, item.partial, true);
        }
        co_return Status::ok();
      }
    }
  }
  emit(label);
  if (size_only) {
    emit(std::to_string(raw->size));
    co_return Status::ok();
  }
  // Streamed from the file like BODY[]; a scan for NUL first decides literal8 (RFC 3516
  // §4.3), so the bytes are never all in memory.
  Window w = windowOf(raw->size, item.partial);
  auto nul = co_await fileHasNul(m, raw->offset + w.offset, w.size);
  if (!nul.ok()) co_return nul.status();
  emitFileLiteral(raw->offset + w.offset, w.size, *nul);
  co_return Status::ok();
}

asio::awaitable<Status> MessageFetcher::prepareItem(Loaded& m, const FetchItem& item,
                                                    std::string_view label) {
  switch (item.kind) {
    case ItemKind::kEnvelope:
    case ItemKind::kBody:
    case ItemKind::kBodyStructure:
    case ItemKind::kPreview: {
      if (Status s = co_await loadCache(m); !s.isOk()) co_return s;
      const mailbox::CacheEntry& c = *m.cache;
      if (item.kind == ItemKind::kEnvelope) emit("ENVELOPE " + c.envelope);
      if (item.kind == ItemKind::kBody) emit("BODY " + c.body);
      if (item.kind == ItemKind::kBodyStructure) emit("BODYSTRUCTURE " + c.bodystructure);
      // RFC 8970 §3.2: the cached preview is always at hand, so LAZY gets it too; a message
      // without text has the empty string.
      if (item.kind == ItemKind::kPreview) emit("PREVIEW " + proto::quoteString(c.preview));
      co_return Status::ok();
    }
    case ItemKind::kBodySection:
      co_return co_await prepareSection(m, label, item.section, item.partial);
    case ItemKind::kRfc822:
      co_return co_await prepareSection(m, label, {}, std::nullopt);
    case ItemKind::kRfc822Header:
      co_return co_await prepareSection(m, label, textOf(Text::kHeader), std::nullopt);
    case ItemKind::kRfc822Text:
      co_return co_await prepareSection(m, label, textOf(Text::kText), std::nullopt);
    case ItemKind::kBinary:
    case ItemKind::kBinarySize:
      co_return co_await prepareBinary(m, item, label);
    default:
      emit(recordItem(item, m.ref->record));
      co_return Status::ok();
  }
}

asio::awaitable<Outcome> MessageFetcher::fetch(const MessageRef& message) {
  pieces_.clear();
  Loaded m;
  m.ref = &message;
  const mailbox::IndexRecord& r = message.record;
  // Keywords the client has not had in FLAGS yet (the \Seen that FETCH sets may have read
  // another session's new names) are announced before a response that may show them. They
  // go out now, not with this message's pieces: those are dropped if an item fails, and the
  // announcement must not be (announceFlags counts the names as told).
  std::string head;
  selected_.announceFlags(head);
  if (!head.empty()) session_.connection().write(head);
  emit("* " + std::to_string(message.msn) + " FETCH (");
  std::vector<std::string> done;
  auto next = [&](const std::string& key) {
    if (std::find(done.begin(), done.end(), key) != done.end()) return false;
    if (!done.empty()) emit(" ");
    done.push_back(key);
    return true;
  };
  const bool uid = uid_first_ || (message.flags_changed && style_.condstore);
  if (uid && next("UID")) emit(recordItem(itemOf(ItemKind::kUid), r));
  for (size_t i = 0; i < args_.items.size(); ++i) {
    if (!next(labels_[i])) continue;
    Status s = co_await prepareItem(m, args_.items[i], labels_[i]);
    if (s.isOk()) continue;
    pieces_.clear();
    if (s.code() == base::Code::kNotSupported) co_return Outcome::kUnknownCte;
    if (s.code() == base::Code::kTooBig) {
      log::warning(session_.logContext(), "{}: FETCH of UID {}: {}", selected_.mailbox().dir(),
                   r.uid, s.message());
      co_return Outcome::kTooBig;
    }
    if (!r.live()) co_return Outcome::kSkipped;  // expunged, and its data went with it
    log::error(session_.logContext(), "{}: FETCH of UID {}: {}", selected_.mailbox().dir(), r.uid,
               s.toString());
    co_return Outcome::kFailed;
  }
  bool modseq = args_.changed_since || (message.flags_changed && style_.condstore);
  if (modseq && next("MODSEQ")) emit(recordItem(itemOf(ItemKind::kModseq), r));
  if (message.flags_changed && next("FLAGS")) {
    emit(recordItem(itemOf(ItemKind::kFlags), r));
  }
  emit(")\r\n");
  co_return co_await write(m);
}

asio::awaitable<Outcome> MessageFetcher::write(Loaded& m) {
  net::Connection& conn = session_.connection();
  bool damaged = false;
  for (const Piece& p : pieces_) {
    // Text is small (literal data is in `mem` or the file), but chunking it costs nothing.
    std::string_view text = p.text;
    while (text.size() > kChunk) {
      conn.write(text.substr(0, kChunk));
      text.remove_prefix(kChunk);
      if (!(co_await session_.flushIfLarge()).isOk()) co_return Outcome::kLost;
    }
    conn.write(text);
    if (p.size == 0) continue;
    conn.write((p.literal8 ? "~{" : "{") + std::to_string(p.size) + "}\r\n");
    for (uint64_t sent = 0; sent < p.size;) {
      uint64_t n = std::min(kChunk, p.size - sent);
      if (p.mem) {
        writeLiteralBytes(conn, std::string_view(*p.mem).substr(p.offset + sent, n), p.literal8);
        sent += n;
        if (!(co_await session_.flushIfLarge()).isOk()) co_return Outcome::kLost;
        continue;
      }
      Result<std::string> chunk = std::string();
      if (!damaged) chunk = co_await read(m, p.offset + sent, n);
      if (damaged || !chunk.ok()) {
        if (!damaged) {
          log::error(session_.logContext(), "{}: reading UID {}: {}", selected_.mailbox().dir(),
                     m.ref->record.uid, chunk.status().toString());
        }
        // The literal's length has gone out: keep the framing, and fail the command.
        damaged = true;
        chunk = std::string(n, ' ');
      }
      writeLiteralBytes(conn, *chunk, p.literal8);
      sent += n;
      if (!(co_await session_.flushIfLarge()).isOk()) co_return Outcome::kLost;
    }
  }
  pieces_.clear();
  if (!(co_await session_.flushIfLarge()).isOk()) co_return Outcome::kLost;
  co_return damaged ? Outcome::kFailed : Outcome::kSent;
}

}  // namespace darius::imapd::fetch
