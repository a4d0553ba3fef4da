#include "imapd/sort/sort_args.h"

#include <array>
#include <string_view>

#include "lib/proto/chars.h"

namespace darius::imapd::sort {
namespace {

using base::Result;
using base::Status;
using proto::ArgParser;

struct KeyName {
  std::string_view name;
  SortKey key;
};

constexpr std::array<KeyName, 9> kKeys = {{{"ARRIVAL", SortKey::kArrival},
                                           {"CC", SortKey::kCc},
                                           {"DATE", SortKey::kDate},
                                           {"FROM", SortKey::kFrom},
                                           {"SIZE", SortKey::kSize},
                                           {"SUBJECT", SortKey::kSubject},
                                           {"TO", SortKey::kTo},
                                           {"DISPLAYFROM", SortKey::kDisplayFrom},
                                           {"DISPLAYTO", SortKey::kDisplayTo}}};

std::string clip(std::string_view s) { return std::string(s.substr(0, 32)); }

Status parseCriteria(ArgParser& p, std::vector<SortCriterion>& out) {
  bool pending_reverse = false;
  Status s = p.listOf(
      [&](ArgParser& q) -> Status {
        auto a = q.atom();
        if (!a.ok()) return Status::invalid("Invalid sort criterion");
        std::string u = proto::asciiUpper(*a);
        if (u == "REVERSE") {
          // RFC 5256 §4: sort-criterion = ["REVERSE" SP] sort-key; one REVERSE, then a key.
          if (pending_reverse) return Status::invalid("REVERSE must be followed by a sort key");
          pending_reverse = true;
          return Status::ok();
        }
        for (const KeyName& k : kKeys) {
          if (k.name == u) {
            if (out.size() >= kMaxSortCriteria) return Status::invalid("Too many sort criteria");
            out.push_back({k.key, pending_reverse});
            pending_reverse = false;
            return Status::ok();
          }
        }
        return Status::invalid("Unknown sort criterion " + clip(*a));
      },
      proto::ListOptions{.allow_empty = false, .max_items = 2 * kMaxSortCriteria});
  if (!s.isOk()) {
    if (s.message() == "Empty list") return Status::invalid("Missing sort criteria");
    return Status::invalid(s.message());
  }
  if (pending_reverse) return Status::invalid("REVERSE must be followed by a sort key");
  return Status::ok();
}

// The atom at the parser's position, if it is `word`; the position is left unchanged.
bool nextWordIs(ArgParser& p, std::string_view word) {
  size_t at = p.position();
  auto a = p.atom();
  bool is = a.ok() && proto::equalsIgnoreCase(*a, word);
  p.rewind(at);
  return is;
}

}  // namespace

Result<SortArgs> parseSortArgs(ArgParser& p, bool by_uid, const search::SearchLimits& limits) {
  SortArgs out;
  DARIUS_RETURN_IF_ERROR(p.space());
  search::ReturnOptions ret;
  bool has_return = false;
  if (nextWordIs(p, "RETURN")) {
    (void)p.atom();
    DARIUS_RETURN_IF_ERROR(p.space());
    // RFC 5267 §3.1, §4; RFC 9394: the ESEARCH options, PARTIAL, CONTEXT and UPDATE.
    DARIUS_RETURN_IF_ERROR(search::parseReturnOptions(p, ret));
    has_return = true;
    DARIUS_RETURN_IF_ERROR(p.space());
  }
  if (!p.peek('(')) return Status::invalid("Missing sort criteria");
  DARIUS_RETURN_IF_ERROR(parseCriteria(p, out.criteria));
  if (!p.skipIf(' ')) return Status::invalid("Missing charset");
  // charset = atom / quoted (RFC 9051 §9); mandatory in SORT (RFC 5256 §3).
  std::string charset;
  if (p.peek('"')) {
    auto q = p.quoted();
    if (!q.ok()) return Status::invalid("Invalid charset");
    charset = std::move(*q);
  } else {
    auto a = p.atom();
    if (!a.ok()) return Status::invalid("Missing charset");
    charset = std::string(*a);
  }
  if (!p.peek(' ')) return Status::invalid("Missing search criteria");
  // parseSearchArgs() reads a SEARCH program, which may open with RETURN and CHARSET; SORT's
  // has both before the criteria, so the words here would be search keys, which they are not.
  {
    size_t at = p.position();
    p.skipIf(' ');
    bool stray = nextWordIs(p, "RETURN") || nextWordIs(p, "CHARSET");
    p.rewind(at);
    if (stray) return Status::invalid("Unknown search key");
  }
  DARIUS_ASSIGN_OR_RETURN(out.search, search::parseSearchArgs(p, by_uid, limits));
  out.search.charset = std::move(charset);
  out.search.ret = ret;
  out.search.has_return = has_return;
  return out;
}

std::string describeCriteria(const std::vector<SortCriterion>& criteria) {
  std::string out;
  for (const SortCriterion& c : criteria) {
    if (!out.empty()) out += ' ';
    if (c.reverse) out += "REVERSE ";
    for (const KeyName& k : kKeys) {
      if (k.key == c.key) out += k.name;
    }
  }
  return out;
}

}  // namespace darius::imapd::sort
