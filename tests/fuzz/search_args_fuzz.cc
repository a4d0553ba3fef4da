// Fuzzes the SEARCH argument parser (imapd/search/search_args.h) with arbitrary bytes, as
// SEARCH and as UID SEARCH, with the default limits and with small ones, and then what the
// parsed strings flow into (charset conversion, ICU case folding, compilation). The same bytes
// are also read as a hostile message by the code SEARCH runs over mail: the MIME text
// visitor (transfer decoding, charset conversion) and the Date parser. Besides "no crash, no
// leak, no UB, no unbounded work" it checks what the parser promises:
//   - errors are kInvalid or kTooBig;
//   - a success is a tree: keys[0] is the root AND, every other key is the child of exactly
//     one key, OR has two children and NOT one, no deeper than the depth limit, no more keys
//     than the key limit;
//   - describe() parses back to the same tree (the rendering is canonical);
//   - the program compiles unless the CHARSET is unknown, and every search string, folded,
//     matches itself.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "mailbox/search_text.h"
#include "imapd/search/search_args.h"
#include "imapd/search/search_eval.h"
#include "mailbox/sent_date.h"
#include "mailbox/search_fold.h"
#include "lib/mime/message.h"

namespace {

using namespace darius;  // NOLINT: a fuzz driver
using imapd::search::KeyKind;
using imapd::search::SearchArgs;
using imapd::search::SearchLimits;

void check(bool ok) {
  if (!ok) std::abort();
}

void checkTree(const SearchArgs& a, const SearchLimits& limits) {
  check(!a.keys.empty() && a.keys.size() <= limits.max_keys);
  check(a.keys[0].kind == KeyKind::kAnd && !a.keys[0].children.empty());
  std::vector<int> parents(a.keys.size(), 0);
  for (const auto& k : a.keys) {
    for (uint32_t c : k.children) {
      check(c > 0 && c < a.keys.size());
      ++parents[c];
    }
    if (k.kind == KeyKind::kOr) check(k.children.size() == 2);
    if (k.kind == KeyKind::kNot) check(k.children.size() == 1);
    if (k.kind == KeyKind::kAnd) check(!k.children.empty());
    if (k.kind != KeyKind::kAnd && k.kind != KeyKind::kOr && k.kind != KeyKind::kNot) {
      check(k.children.empty());
    }
  }
  for (size_t i = 1; i < parents.size(); ++i) check(parents[i] == 1);
  // Depth, iteratively: (key, depth) pairs.
  std::vector<std::pair<uint32_t, int>> todo{{0, 0}};
  while (!todo.empty()) {
    auto [k, d] = todo.back();
    todo.pop_back();
    // NEW adds a level of its own below the key that holds it.
    check(d <= limits.max_depth + 1);
    for (uint32_t c : a.keys[k].children) todo.push_back({c, d + 1});
  }
}

void checkRoundTrip(const SearchArgs& a) {
  std::string text = " " + imapd::search::describe(a);
  proto::ArgParser p(text);
  SearchLimits generous;
  generous.max_depth = 1000;
  generous.max_keys = 1000000;
  auto b = imapd::search::parseSearchArgs(p, a.by_uid, generous);
  check(b.ok() && p.end().isOk());
  check(imapd::search::describe(*b) == imapd::search::describe(a));
}

void checkCompile(const SearchArgs& a) {
  auto prog = imapd::search::SearchProgram::compile(a);
  if (!prog.ok()) {
    check(prog.status().code() == base::Code::kNotSupported && a.charset.has_value());
    return;
  }
  for (const auto& k : a.keys) {
    if (k.text.empty() || k.text.size() > 4096) continue;
    auto utf8 = mailbox::convertSearchString(k.text, a.charset);
    if (!utf8) continue;
    mailbox::TextMatcher m(*utf8);
    check(m.matches(*utf8));
  }
}

void fuzzArgs(std::string_view text, bool by_uid, const SearchLimits& limits) {
  proto::ArgParser p(text);
  auto a = imapd::search::parseSearchArgs(p, by_uid, limits);
  if (!a.ok()) {
    auto c = a.status().code();
    check(c == base::Code::kInvalid || c == base::Code::kTooBig);
    return;
  }
  check(a->by_uid == by_uid);
  // RFC 9394 §3.1: a PARTIAL range has nonzero ends and never comes with ALL.
  check(!a->ret.partial || (a->ret.partial->low() != 0 && !a->ret.all));
  checkTree(*a, limits);
  if (!p.end().isOk()) return;  // the command would be BAD for its extra arguments
  checkRoundTrip(*a);
  checkCompile(*a);
}

// The bytes as mail: what BODY/TEXT and SENT* do with a hostile message.
void fuzzMessage(std::string_view bytes) {
  if (bytes.size() > 64 * 1024) return;
  (void)mailbox::parseSentDate(bytes);
  mime::Message m = mime::Message::parse(bytes);
  static const mailbox::TextMatcher needle("\xd0\xbf\xd1\x80\xd0\xb8 needle");
  for (bool with_headers : {false, true}) {
    mailbox::visitSearchTexts(m, with_headers, [](std::string_view t) {
      (void)needle.matches(t);
      return false;
    });
  }
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
  fuzzMessage(text);
  return 0;
}
