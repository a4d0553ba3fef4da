#include "imapd/search/search_response.h"

#include <algorithm>
#include <span>

#include "lib/proto/chars.h"

namespace darius::imapd::search {
namespace {

uint32_t searchNumberOf(const SearchArgs& args, const SearchMatch& m) {
  return args.by_uid ? m.uid : m.msn;
}

std::string searchSetOf(const SearchArgs& args, std::span<const SearchMatch> matches) {
  std::vector<proto::SeqRange> ranges;
  for (const SearchMatch& m : matches) {
    uint32_t n = searchNumberOf(args, m);
    if (!ranges.empty() && ranges.back().last + 1 == n) {
      ranges.back().last = n;
    } else {
      ranges.push_back({n, n});
    }
  }
  auto set = proto::SequenceSet::fromRanges(std::move(ranges));
  return set.ok() ? set->format() : std::string();
}

uint64_t highestModseqOf(const std::vector<SearchMatch>& matches) {
  uint64_t h = 0;
  for (const SearchMatch& m : matches) h = std::max(h, m.modseq);
  return h;
}

// Options that ask for result data; CONTEXT and UPDATE ask for none (RFC 5267 §4.3) and SAVE
// has its own rule (RFC 5182 §2.4).
bool asksForData(const ReturnOptions& r) {
  return r.min || r.max || r.all || r.count || r.partial.has_value();
}

}  // namespace

Window partialWindow(const PartialRange& range, size_t count) {
  Window w;
  size_t lo = range.low(), hi = range.high();  // 1-based, inclusive
  if (lo > count) return w;
  if (hi > count) hi = count;
  if (!range.from_end) {
    w.begin = lo - 1;
    w.end = hi;
  } else {
    // -1 is the last result: positions -hi..-lo are indices count-hi .. count-lo.
    w.begin = count - hi;
    w.end = count - lo + 1;
  }
  return w;
}

std::string formatPartialRange(const PartialRange& range) {
  const char* sign = range.from_end ? "-" : "";
  return sign + std::to_string(range.first) + ":" + sign + std::to_string(range.last);
}

bool wantsEsearch(const SearchArgs& args, bool imap4rev2) { return args.has_return || imap4rev2; }

std::string formatSearchResponse(const SearchArgs& args, const ResponseStyle& style,
                                 const std::vector<SearchMatch>& matches) {
  if (!style.esearch) {
    std::string out = "* SEARCH";
    out.reserve(9 + matches.size() * 6);
    for (const SearchMatch& m : matches) {
      out += ' ';
      out += std::to_string(searchNumberOf(args, m));
    }
    if (args.uses_modseq && !matches.empty()) {
      out += " (MODSEQ " + std::to_string(highestModseqOf(matches)) + ")";
    }
    out += "\r\n";
    return out;
  }
  ReturnOptions r = args.ret;
  bool any = asksForData(r);
  if (!any) {
    if (args.has_return && r.save) return {};  // SAVE alone: no ESEARCH (RFC 9051 §6.4.4)
    r.all = true;                              // RETURN () or none at all: ALL
  }
  std::string out = "* ESEARCH (TAG " + proto::quoteString(style.tag) + ")";
  if (args.by_uid) out += " UID";
  if (!matches.empty()) {
    if (r.min) out += " MIN " + std::to_string(searchNumberOf(args, matches.front()));
    if (r.max) out += " MAX " + std::to_string(searchNumberOf(args, matches.back()));
  }
  if (r.count) out += " COUNT " + std::to_string(matches.size());
  if (r.all && !matches.empty()) out += " ALL " + searchSetOf(args, matches);
  if (r.partial) {
    Window w = partialWindow(*r.partial, matches.size());
    out += " PARTIAL (" + formatPartialRange(*r.partial) + " ";
    if (w.empty()) {
      out += "NIL";
    } else {
      out += searchSetOf(args, std::span(matches).subspan(w.begin, w.end - w.begin));
    }
    out += ")";
  }
  if (args.uses_modseq && !matches.empty()) {
    // RFC 4731 §3.2: the modseq of what was returned.
    uint64_t modseq = 0;
    if (!r.all && !r.count && r.min != r.max) {
      modseq = r.min ? matches.front().modseq : matches.back().modseq;
    } else if (!r.all && !r.count && r.min && r.max) {
      modseq = std::max(matches.front().modseq, matches.back().modseq);
    } else {
      modseq = highestModseqOf(matches);
    }
    out += " MODSEQ " + std::to_string(modseq);
  }
  out += "\r\n";
  return out;
}

proto::SequenceSet savedResult(const ReturnOptions& ret, const std::vector<SearchMatch>& matches) {
  std::vector<uint32_t> uids;
  if (ret.partial && !ret.count) {
    // RFC 9394 §3.2, Table 1: the PARTIAL's messages, and MIN's and MAX's.
    Window w = partialWindow(*ret.partial, matches.size());
    for (size_t i = w.begin; i < w.end; ++i) uids.push_back(matches[i].uid);
    if (!matches.empty()) {
      if (ret.min) uids.push_back(matches.front().uid);
      if (ret.max) uids.push_back(matches.back().uid);
    }
  } else if (!(ret.min || ret.max) || ret.all || ret.count) {
    uids.reserve(matches.size());
    for (const SearchMatch& m : matches) uids.push_back(m.uid);
  } else if (!matches.empty()) {
    if (ret.min) uids.push_back(matches.front().uid);
    if (ret.max) uids.push_back(matches.back().uid);
  }
  if (uids.empty()) return proto::SequenceSet();
  auto set = proto::SequenceSet::fromNumbers(std::move(uids));
  return set.ok() ? std::move(*set) : proto::SequenceSet();
}

}  // namespace darius::imapd::search
