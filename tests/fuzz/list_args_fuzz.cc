// Fuzzes the LIST and LSUB argument parser (imapd/list/list_args.h) and the pattern matcher
// it feeds (imapd/list/list_pattern.h). The input is the framed text after the command name
// (literals inline as CommandBuffer leaves them: "{3}\r\nabc"); its first byte picks LIST or
// LSUB. Invariants: no crash, no unbounded work; a parse that succeeds has at least one and
// at most kMaxListPatterns patterns, STATUS items exactly when STATUS was asked,
// RECURSIVEMATCH only with SUBSCRIBED, implied return options set; a failed parse is kInvalid
// or kTooBig. For each pattern (bounded in size) against names taken from the input: a
// match implies that every prefix of the name could still match, a pattern without
// wildcards matches itself, and "*" matches everything.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "imapd/list/list_args.h"
#include "imapd/list/list_pattern.h"
#include "imapd/list/list_walk.h"

namespace {

using darius::imapd::ListArgs;
using darius::imapd::ListPattern;

void check(bool ok) {
  if (!ok) std::abort();
}

void checkArgs(const ListArgs& a, bool lsub) {
  check(!a.patterns.empty() && a.patterns.size() <= darius::imapd::kMaxListPatterns);
  check(a.return_status == !a.status_items.empty());
  check(!a.select_recursive || a.select_subscribed);
  check(!a.select_subscribed || a.return_subscribed);
  check(!a.select_special_use || a.return_special_use);
  if (lsub) check(!a.extended && a.patterns.size() == 1);
}

void checkPattern(std::string_view pattern, std::string_view name, char sep) {
  // Bound the automaton's work per input (the server bounds it by the name length limit).
  if (pattern.size() > 512 || name.size() > 512) return;
  ListPattern p(pattern, sep, 1024);
  if (p.matches(name)) {
    for (size_t i = 0; i <= name.size(); ++i) check(p.couldMatchWithPrefix(name.substr(0, i)));
  }
  if (pattern.find_first_of("*%") == std::string_view::npos) check(p.matches(pattern));
  check(ListPattern("*", sep).matches(name));
  // Every match lies strictly below the fixed parent.
  if (p.matches(name) && !p.fixedParent().empty()) {
    check(name.substr(0, p.fixedParent().size() + 1) == p.fixedParent() + sep ||
          // INBOX's case folds, so compare the rest exactly only
          darius::imapd::isInboxRooted(name, sep));
  }
  std::string joined = darius::imapd::canonicalPattern(name, pattern, sep);
  check(joined.size() <= name.size() + pattern.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool lsub = (data[0] & 1) != 0;
  const char sep = (data[0] & 2) != 0 ? '.' : '/';
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  darius::proto::ArgParser p(text);
  auto a = lsub ? darius::imapd::parseLsubArgs(p) : darius::imapd::parseListArgs(p);
  if (!a.ok()) {
    auto code = a.status().code();
    check(code == darius::base::Code::kInvalid || code == darius::base::Code::kTooBig);
    return 0;
  }
  checkArgs(*a, lsub);
  // The names to match: the reference and the patterns themselves, read as names.
  for (const std::string& pattern : a->patterns) {
    checkPattern(pattern, a->reference, sep);
    for (const std::string& other : a->patterns) checkPattern(pattern, other, sep);
  }
  return 0;
}
