// Fuzzes the SORT argument parser (imapd/sort/sort_args.h) with arbitrary bytes, as SORT and
// as UID SORT, with the default search limits and small ones, and the base subject and
// sent-time extraction SORT runs over every message's cached Subject and Date (the same
// bytes read as a header value). Besides "no crash, no leak, no UB, no unbounded work" it
// checks what the parser promises:
//   - errors are kInvalid or kTooBig;
//   - a success has 1..kMaxSortCriteria criteria, a charset, a search tree with a root AND,
//     and the by_uid it was asked for;
//   - the canonical rendering (RETURN, criteria, quoted charset, search keys) parses back to
//     the same arguments;
//   - a base subject is a fixed point: extracting it again from itself changes nothing and
//     finds no reply or forward.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "imapd/search/search_args.h"
#include "imapd/sort/base_subject.h"
#include "imapd/sort/sent_time.h"
#include "imapd/sort/sort_args.h"

namespace {

using namespace darius;  // NOLINT: a fuzz driver
using imapd::search::SearchLimits;
using imapd::sort::SortArgs;

void check(bool ok) {
  if (!ok) std::abort();
}

// charset = atom / quoted: never a literal, which quoteString() makes of 8-bit or long text.
std::string quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string render(const SortArgs& a) {
  std::string out = " ";
  if (a.search.has_return) {
    const auto& r = a.search.ret;
    out += "RETURN (";
    std::string opts;
    auto opt = [&](bool on, std::string_view name) {
      if (!on) return;
      if (!opts.empty()) opts += ' ';
      opts += name;
    };
    opt(r.min, "MIN");
    opt(r.max, "MAX");
    opt(r.all, "ALL");
    opt(r.count, "COUNT");
    opt(r.save, "SAVE");
    out += opts + ") ";
  }
  out += "(" + imapd::sort::describeCriteria(a.criteria) + ") ";
  out += quoted(a.search.charset.value_or("")) + " ";
  out += imapd::search::describe(a.search);
  return out;
}

void fuzzArgs(std::string_view text, bool by_uid, const SearchLimits& limits) {
  proto::ArgParser p(text);
  auto a = imapd::sort::parseSortArgs(p, by_uid, limits);
  if (!a.ok()) {
    auto c = a.status().code();
    check(c == base::Code::kInvalid || c == base::Code::kTooBig);
    return;
  }
  check(!a->criteria.empty() && a->criteria.size() <= imapd::sort::kMaxSortCriteria);
  check(a->search.charset.has_value());
  check(a->search.by_uid == by_uid);
  check(!a->search.keys.empty() && a->search.keys.size() <= limits.max_keys);
  check(a->search.keys[0].kind == imapd::search::KeyKind::kAnd);
  if (!p.end().isOk()) return;  // BAD for its extra arguments
  std::string rendered = render(*a);
  proto::ArgParser q(rendered);
  SearchLimits generous;
  generous.max_depth = 1000;
  generous.max_keys = 1000000;
  auto b = imapd::sort::parseSortArgs(q, by_uid, generous);
  check(b.ok() && q.end().isOk());
  check(b->criteria == a->criteria);
  check(b->search.charset == a->search.charset);
  check(b->search.has_return == a->search.has_return);
  check(imapd::search::describe(b->search) == imapd::search::describe(a->search));
}

void fuzzSubject(std::string_view bytes) {
  if (bytes.size() > 64 * 1024) return;
  imapd::sort::BaseSubject b = imapd::sort::baseSubject(bytes);
  imapd::sort::BaseSubject again = imapd::sort::extractBaseSubject(b.text);
  check(again.text == b.text && again.key == b.key && !again.reply_or_forward);
  (void)imapd::sort::parseSentTime(bytes);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  SearchLimits small;
  small.max_depth = 3;
  small.max_keys = 8;
  for (bool by_uid : {false, true}) {
    fuzzArgs(text, by_uid, {});
    fuzzArgs(text, by_uid, small);
  }
  fuzzSubject(text);
  return 0;
}
