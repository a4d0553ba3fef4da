// Fuzzes every parser of lib/proto with the same arbitrary bytes: command framing (lines and
// literals through CommandBuffer), the generic list/value parser, the typed lists and flags,
// sequence sets, numbers, dates, and modified UTF-7 both ways. Besides "no crash, no leak,
// no UB, no unbounded recursion" it checks the invariants each parser promises:
//   - a failed element consumes nothing; a successful one consumes something;
//   - canonical forms round-trip: SequenceSet::parse(format(s)) == s, a parsed date or
//     date-time formats and parses back to the same value, a parsed Value formats and parses
//     back to the same tree;
//   - SequenceSet's membership, resolution, count, largest and iteration agree;
//   - decodeMutf7 accepts only canonical input: encodeMutf7(decodeMutf7(y)) == y, and
//     decodeMutf7(encodeMutf7(x)) == x for every valid UTF-8 x (and invalid UTF-8 is refused);
//   - mailbox() gives "INBOX" for every case variant of it.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "lib/base/utf8.h"
#include "lib/proto/arg_parser.h"
#include "lib/proto/command_buffer.h"
#include "lib/proto/flag.h"
#include "lib/proto/imap_date.h"
#include "lib/proto/list.h"
#include "lib/proto/mutf7.h"
#include "lib/proto/number.h"
#include "lib/proto/sequence_set.h"

namespace {

using namespace darius::proto;  // NOLINT: a fuzz driver over one library's whole API

void check(bool ok) {
  if (!ok) std::abort();
}

// Runs one ArgParser method on a fresh parser: failure consumes nothing, success something
// (except list helpers, which always consume at least "(" ")" anyway).
template <typename Fn>
auto probe(std::string_view text, Fn fn) {
  ArgParser p(text);
  auto r = fn(p);
  if (r.ok()) {
    check(p.position() > 0);
  } else {
    check(p.position() == 0);
  }
  return r;
}

void fuzzSequenceSet(std::string_view data) {
  auto set = SequenceSet::parse(data, {.max_ranges = 512});
  if (!set.ok()) return;
  auto again = SequenceSet::parse(set->format(), {.max_ranges = 512 * 2});
  check(again.ok() && *again == *set);
  for (uint32_t max : {0u, 1u, 7u, 1000u, 4294967295u}) {
    auto ranges = set->resolve(max);
    uint64_t total = 0;
    for (size_t i = 0; i < ranges.size(); ++i) {
      check(ranges[i].first >= 1 && ranges[i].first <= ranges[i].last);
      // Sorted, merged: strictly increasing with gaps.
      if (i > 0) check(uint64_t{ranges[i - 1].last} + 1 < ranges[i].first);
      check(set->contains(ranges[i].first, max) && set->contains(ranges[i].last, max));
      // Just outside each range is outside the set (the ranges are merged).
      if (ranges[i].first > 1) check(!set->contains(ranges[i].first - 1, max));
      if (ranges[i].last < UINT32_MAX) check(!set->contains(ranges[i].last + 1, max));
      total += uint64_t{ranges[i].last} - ranges[i].first + 1;
    }
    check(total == set->count(max));
    check(set->largest(max) == (ranges.empty() ? 0 : ranges.back().last));
    // The first members by iteration are the members by contains().
    int seen = 0;
    uint32_t prev = 0;
    for (uint32_t n : set->members(max)) {
      check(n > prev && set->contains(n, max));
      prev = n;
      if (++seen == 64) break;
    }
    check(seen == static_cast<int>(std::min<uint64_t>(total, 64)));
  }
  if (set->hasLastResult()) {
    SequenceSet sub = set->substituteLastResult(*SequenceSet::fromNumbers({1, 5, 6}));
    check(!sub.hasLastResult() && sub.contains(5, 7));
  }
}

void fuzzDates(std::string_view data) {
  if (auto d = parseDate(data); d.ok()) {
    auto back = parseDate(formatDate(*d));
    check(back.ok() && *back == *d);
  }
  if (auto dt = parseDateTime(data); dt.ok()) {
    std::string text = formatDateTime(*dt);
    check(text.size() == 28);
    auto back = parseDateTime(text);
    check(back.ok() && *back == *dt);
  }
}

void fuzzMutf7(std::string_view data) {
  if (auto utf8 = decodeMutf7(data); utf8.ok()) {
    check(darius::base::isValidUtf8(*utf8));
    auto enc = encodeMutf7(*utf8);
    check(enc.ok() && *enc == data);  // only the canonical form decodes
  }
  auto enc = encodeMutf7(data);
  check(enc.ok() == darius::base::isValidUtf8(data));
  if (enc.ok()) {
    for (char c : *enc) check(c >= 0x20 && c <= 0x7e);
    auto dec = decodeMutf7(*enc);
    check(dec.ok() && *dec == data);
  }
}

void fuzzNumbers(std::string_view data) {
  auto n = parseNumber(data);
  auto n64 = parseNumber64(data);
  auto nz = parseNzNumber(data);
  if (n.ok()) check(n64.ok() && *n64 == *n);
  if (nz.ok()) check(n.ok() && *n == *nz && *nz != 0 && data[0] != '0');
  if (n64.ok()) {
    size_t first = data.find_first_not_of('0');
    std::string canonical = first == std::string_view::npos ? "0" : std::string(data.substr(first));
    check(std::to_string(*n64) == canonical);
  }
}

void fuzzFlags(std::string_view data) {
  FlagOptions all{.allow_wildcard = true, .allow_extension = true, .max_flags = 64};
  if (auto f = parseFlag(data, all); f.ok()) {
    check(!f->name.empty());
    if (f->kind == Flag::Kind::kSystem) check(f->name == systemFlagName(f->system));
    if (f->kind == Flag::Kind::kKeyword) check(f->name == data);
  }
  (void)probe(data, [&](ArgParser& p) { return p.flag(all); });
  (void)probe(data, [&](ArgParser& p) { return p.flagList(all); });
  (void)probe(data, [&](ArgParser& p) { return p.flagListOrFlags({.max_flags = 64}); });
}

void fuzzArgParser(std::string_view data) {
  ListLimits limits{.max_depth = 8, .max_items = 256};
  if (auto v = probe(data, [&](ArgParser& p) { return p.value(limits); }); v.ok()) {
    std::string text = formatValue(*v);
    ArgParser again(text);
    auto w = again.value(limits);
    check(w.ok() && *w == *v && again.atEnd());
  }
  (void)probe(data, [&](ArgParser& p) { return p.list(limits); });
  (void)probe(data, [](ArgParser& p) { return p.atomList({.max_items = 64}); });
  (void)probe(data, [](ArgParser& p) { return p.astringList({.max_items = 64}); });
  (void)probe(data, [](ArgParser& p) { return p.sequenceSet({.max_ranges = 512}); });
  (void)probe(data, [](ArgParser& p) { return p.date(); });
  (void)probe(data, [](ArgParser& p) { return p.dateTime(); });
  (void)probe(data, [](ArgParser& p) { return p.number(); });
  (void)probe(data, [](ArgParser& p) { return p.nzNumber64(); });
  (void)probe(data, [](ArgParser& p) { return p.nstring(); });
  if (auto m = probe(data, [](ArgParser& p) { return p.mailbox(); }); m.ok()) {
    if (equalsIgnoreCase(*m, "INBOX")) check(*m == "INBOX");
  }
}

// Frames the input as the session would (lines ending in CRLF, literals announced at line
// ends and cut to what is left), then walks the command: tag, SP, then values to the end.
void fuzzFraming(std::string_view data) {
  CommandBuffer cmd;
  size_t pos = 0;
  for (int lines = 0; lines < 64 && pos <= data.size(); ++lines) {
    size_t eol = data.find("\r\n", pos);
    std::string_view line = data.substr(pos, eol == std::string_view::npos ? eol : eol - pos);
    pos = eol == std::string_view::npos ? data.size() + 1 : eol + 2;
    std::optional<LiteralHeader> lit = cmd.addLine(line);
    if (!lit) break;
    if (pos > data.size()) break;
    size_t n = static_cast<size_t>(std::min<uint64_t>(lit->size, data.size() - pos));
    cmd.addLiteral(data.substr(pos, n));
    pos += n;
  }
  (void)cmd.replyTag();
  ArgParser p(cmd.text());
  if (!p.tag().ok() || !p.space().isOk()) return;
  ListLimits limits{.max_depth = 8, .max_items = 256};
  for (int steps = 0; steps < 1000 && !p.atEnd(); ++steps) {
    size_t before = p.position();
    if (p.skipIf(' ')) continue;
    if (!p.value(limits).ok()) {
      check(p.position() == before);
      return;
    }
    check(p.position() > before);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  std::string_view data(reinterpret_cast<const char*>(bytes), size);
  fuzzFraming(data);
  fuzzArgParser(data);
  fuzzFlags(data);
  fuzzSequenceSet(data);
  fuzzDates(data);
  fuzzMutf7(data);
  fuzzNumbers(data);
  return 0;
}
