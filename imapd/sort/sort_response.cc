#include "imapd/sort/sort_response.h"

#include <algorithm>

#include "imapd/search/search_response.h"
#include "lib/proto/chars.h"

namespace darius::imapd::sort {
namespace {

uint32_t numberOf(const search::SearchArgs& args, const search::SearchMatch& m) {
  return args.by_uid ? m.uid : m.msn;
}

uint64_t highestModseq(const std::vector<search::SearchMatch>& matches) {
  uint64_t h = 0;
  for (const search::SearchMatch& m : matches) h = std::max(h, m.modseq);
  return h;
}

}  // namespace

std::string orderedSet(const std::vector<uint32_t>& numbers) {
  std::string out;
  size_t i = 0;
  while (i < numbers.size()) {
    size_t j = i;
    while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(numbers[i]);
    if (j > i) {
      out += ':';
      out += std::to_string(numbers[j]);
    }
    i = j + 1;
  }
  return out;
}

std::string formatSortResponse(const search::SearchArgs& args, std::string_view tag,
                               const std::vector<search::SearchMatch>& sorted) {
  if (!args.has_return) {
    std::string out = "* SORT";
    out.reserve(8 + sorted.size() * 6);
    for (const search::SearchMatch& m : sorted) {
      out += ' ';
      out += std::to_string(numberOf(args, m));
    }
    if (args.uses_modseq && !sorted.empty()) {
      out += " (MODSEQ " + std::to_string(highestModseq(sorted)) + ")";
    }
    out += "\r\n";
    return out;
  }
  search::ReturnOptions r = args.ret;
  if (!(r.min || r.max || r.all || r.count || r.partial)) {
    if (r.save) return {};  // SAVE alone (CONTEXT and UPDATE ask for no data)
    r.all = true;           // RETURN (), RETURN (UPDATE)
  }
  std::string out = "* ESEARCH (TAG " + proto::quoteString(tag) + ")";
  if (args.by_uid) out += " UID";
  if (!sorted.empty()) {
    if (r.min) out += " MIN " + std::to_string(numberOf(args, sorted.front()));
    if (r.max) out += " MAX " + std::to_string(numberOf(args, sorted.back()));
  }
  if (r.count) out += " COUNT " + std::to_string(sorted.size());
  if (r.all && !sorted.empty()) {
    std::vector<uint32_t> numbers;
    numbers.reserve(sorted.size());
    for (const search::SearchMatch& m : sorted) numbers.push_back(numberOf(args, m));
    out += " ALL " + orderedSet(numbers);
  }
  if (r.partial) {
    // RFC 9394 §3.1: the range counts positions in the sort order (RFC 5267 §4.4).
    search::Window w = search::partialWindow(*r.partial, sorted.size());
    out += " PARTIAL (" + search::formatPartialRange(*r.partial) + " ";
    if (w.empty()) {
      out += "NIL";
    } else {
      std::vector<uint32_t> numbers;
      numbers.reserve(w.end - w.begin);
      for (size_t i = w.begin; i < w.end; ++i) numbers.push_back(numberOf(args, sorted[i]));
      out += orderedSet(numbers);
    }
    out += ")";
  }
  if (args.uses_modseq && !sorted.empty()) {
    uint64_t modseq = 0;
    if (!r.all && !r.count && r.min != r.max) {
      modseq = r.min ? sorted.front().modseq : sorted.back().modseq;
    } else if (!r.all && !r.count && r.min && r.max) {
      modseq = std::max(sorted.front().modseq, sorted.back().modseq);
    } else {
      modseq = highestModseq(sorted);
    }
    out += " MODSEQ " + std::to_string(modseq);
  }
  out += "\r\n";
  return out;
}

}  // namespace darius::imapd::sort
