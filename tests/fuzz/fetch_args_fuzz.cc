// Fuzzes the FETCH argument parser (imapd/fetch/fetch_args.h) with arbitrary bytes, as FETCH
// and as UID FETCH, with the default limits and with small ones. Besides "no crash, no leak,
// no UB, no unbounded work" it checks what the parser promises:
//   - a success has at least one item, every section within the depth limit, every header
//     list within its limits, VANISHED only with UID and CHANGEDSINCE;
//   - the section echoed in responses (formatSection) parses back to the same section;
//   - locating every parsed section in a fixed message from its cached part table
//     (fetch_body.h) gives the bytes lib/mime's locateSection gives, or "missing" for both,
//     and partial windows stay inside the section.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "imapd/fetch/fetch_args.h"
#include "imapd/fetch/fetch_body.h"
#include "lib/mime/message.h"
#include "lib/mime/section.h"
#include "mailbox/cache_fill.h"

namespace {

using namespace darius;  // NOLINT: a fuzz driver
using imapd::fetch::FetchArgs;
using imapd::fetch::FetchItem;
using imapd::fetch::ItemKind;

void check(bool ok) {
  if (!ok) std::abort();
}

const std::string& sampleMessage() {
  static const std::string m =
      "From: a@example.com\r\nSubject: s\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n"
      "--b\r\nContent-Type: text/plain\r\n\r\nhello\r\n"
      "--b\r\nContent-Type: message/rfc822\r\n\r\n"
      "Subject: inner\r\nContent-Type: multipart/alternative; boundary=c\r\n\r\n"
      "--c\r\n\r\none\r\n--c\r\nContent-Type: text/html\r\n\r\n<p>two</p>\r\n--c--\r\n"
      "--b\r\nContent-Type: application/octet-stream\r\nContent-Transfer-Encoding: base64\r\n\r\n"
      "AAEC\r\n--b--\r\n";
  return m;
}

void checkSection(const mime::SectionSpec& spec, const std::optional<imapd::fetch::Partial>& p) {
  static const mime::Message message = mime::Message::parse(sampleMessage());
  static const imapd::fetch::Parts parts = [] {
    auto decoded = mailbox::decodeSections(mailbox::buildCacheEntry(sampleMessage()).sections);
    check(decoded.ok());
    return *decoded;
  }();
  imapd::fetch::SectionTarget mine =
      imapd::fetch::locateSection(parts, spec, sampleMessage().size());
  auto theirs = mime::locateSection(message, spec);
  if (theirs.ok()) {
    check(mine.kind != imapd::fetch::SectionTarget::Kind::kMissing);
    check(mine.offset == theirs->offset && mine.size == theirs->size);
  } else {
    check(mine.kind == imapd::fetch::SectionTarget::Kind::kMissing);
  }
  imapd::fetch::Window w = imapd::fetch::windowOf(mine.size, p);
  check(w.offset <= mine.size && w.size <= mine.size - w.offset);
}

void checkArgs(const FetchArgs& a, bool by_uid, const imapd::fetch::FetchLimits& limits) {
  check(!a.items.empty() && a.items.size() <= std::max<size_t>(limits.max_items, 5));
  check(!a.vanished || (by_uid && a.changed_since));
  // RFC 9394 §3.3: PARTIAL only on UID FETCH, both ends nonzero.
  check(!a.partial || (by_uid && a.partial->first != 0 && a.partial->last != 0));
  for (const FetchItem& item : a.items) {
    const mime::SectionSpec& s = item.section;
    check(s.path.size() <= limits.max_section_depth);
    check(s.fields.size() <= limits.max_header_fields);
    for (uint32_t n : s.path) check(n != 0);
    for (const std::string& f : s.fields) check(!f.empty() && f.size() <= limits.max_field_name);
    if (item.kind != ItemKind::kBodySection && item.kind != ItemKind::kBinary &&
        item.kind != ItemKind::kBinarySize) {
      continue;
    }
    if (item.kind != ItemKind::kBodySection) check(s.text == mime::SectionSpec::Text::kNone);
    if (item.partial) check(item.partial->count > 0);
    // The echo parses back to the same section.
    std::string again = " 1 BODY.PEEK[" + imapd::fetch::formatSection(s) + "]";
    proto::ArgParser p(again);
    auto b = imapd::fetch::parseFetchArgs(p, false);
    check(b.ok() && p.end().isOk() && b->items.size() == 1);
    const mime::SectionSpec& t = b->items[0].section;
    check(t.path == s.path && t.text == s.text && t.fields == s.fields);
    checkSection(s, item.partial);
  }
}

void fuzzOnce(std::string_view text, bool by_uid, const imapd::fetch::FetchLimits& limits) {
  proto::ArgParser p(text);
  auto a = imapd::fetch::parseFetchArgs(p, by_uid, limits);
  if (!a.ok()) {
    auto c = a.status().code();
    check(c == base::Code::kInvalid || c == base::Code::kTooBig);
    return;
  }
  checkArgs(*a, by_uid, limits);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  imapd::fetch::FetchLimits small;
  small.max_items = 3;
  small.max_header_fields = 2;
  small.max_field_name = 8;
  small.max_section_depth = 3;
  for (bool by_uid : {false, true}) {
    fuzzOnce(text, by_uid, {});
    fuzzOnce(text, by_uid, small);
  }
  return 0;
}
