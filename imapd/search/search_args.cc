#include "imapd/search/search_args.h"

#include <string_view>

#include "lib/proto/chars.h"
#include "mailbox/index_format.h"

namespace darius::imapd::search {

using base::Result;
using base::Status;
using proto::ArgParser;

// RFC 9394 §4: partial-range = nz-number ":" nz-number / "-" nz-number ":" "-" nz-number.
// Both ends fit in 32 bits (they count messages) and have the same sign.
Result<PartialRange> parsePartialRange(std::string_view s) {
  auto bad = [] { return Status::invalid("Invalid PARTIAL range"); };
  size_t colon = s.find(':');
  if (colon == std::string_view::npos) return bad();
  auto end = [](std::string_view e, bool& neg, uint32_t& out) {
    neg = !e.empty() && e[0] == '-';
    if (neg) e.remove_prefix(1);
    if (e.empty() || e.size() > 10 || e[0] == '0') return false;
    uint64_t v = 0;
    for (char c : e) {
      if (c < '0' || c > '9') return false;
      v = v * 10 + static_cast<uint64_t>(c - '0');
    }
    if (v > UINT32_MAX) return false;
    out = static_cast<uint32_t>(v);
    return true;
  };
  bool neg1 = false, neg2 = false;
  PartialRange r;
  if (!end(s.substr(0, colon), neg1, r.first) || !end(s.substr(colon + 1), neg2, r.last) ||
      neg1 != neg2) {
    return bad();
  }
  r.from_end = neg1;
  return r;
}

namespace {

// A key's argument must end where a key may end: SP, ")" or the end of the command.
bool atKeyEnd(const ArgParser& p) { return p.atEnd() || p.peek(' ') || p.peek(')'); }

SearchKey keyOf(KeyKind kind, uint32_t flag = 0) {
  SearchKey k;
  k.kind = kind;
  k.flag = flag;
  return k;
}

Status expectKeyEnd(const ArgParser& p, std::string_view what) {
  if (atKeyEnd(p)) return Status::ok();
  return Status::invalid("Invalid " + std::string(what));
}

// RFC 8474 §7: objectid = 1*255(ALPHA / DIGIT / "_" / "-").
bool isObjectId(std::string_view s) {
  if (s.empty() || s.size() > 255) return false;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// The keys that take no argument, or a fixed kind of argument.
enum class Arg : uint8_t { kNone, kString, kDate, kNumber, kNzNumber, kKeyword, kObjectId };

struct Simple {
  std::string_view name;
  KeyKind kind;
  Arg arg;
  uint32_t flag = 0;
};

constexpr Simple kSimple[] = {
    {"ALL", KeyKind::kAll, Arg::kNone},
    {"ANSWERED", KeyKind::kFlag, Arg::kNone, mailbox::kFlagAnswered},
    {"DELETED", KeyKind::kFlag, Arg::kNone, mailbox::kFlagDeleted},
    {"DRAFT", KeyKind::kFlag, Arg::kNone, mailbox::kFlagDraft},
    {"FLAGGED", KeyKind::kFlag, Arg::kNone, mailbox::kFlagFlagged},
    {"SEEN", KeyKind::kFlag, Arg::kNone, mailbox::kFlagSeen},
    {"UNANSWERED", KeyKind::kNoFlag, Arg::kNone, mailbox::kFlagAnswered},
    {"UNDELETED", KeyKind::kNoFlag, Arg::kNone, mailbox::kFlagDeleted},
    {"UNDRAFT", KeyKind::kNoFlag, Arg::kNone, mailbox::kFlagDraft},
    {"UNFLAGGED", KeyKind::kNoFlag, Arg::kNone, mailbox::kFlagFlagged},
    {"UNSEEN", KeyKind::kNoFlag, Arg::kNone, mailbox::kFlagSeen},
    {"RECENT", KeyKind::kRecent, Arg::kNone},
    {"SAVEDATESUPPORTED", KeyKind::kSaveDateSupported, Arg::kNone},
    {"BCC", KeyKind::kBcc, Arg::kString},
    {"BODY", KeyKind::kBody, Arg::kString},
    {"CC", KeyKind::kCc, Arg::kString},
    {"FROM", KeyKind::kFrom, Arg::kString},
    {"SUBJECT", KeyKind::kSubject, Arg::kString},
    {"TEXT", KeyKind::kText, Arg::kString},
    {"TO", KeyKind::kTo, Arg::kString},
    {"BEFORE", KeyKind::kBefore, Arg::kDate},
    {"ON", KeyKind::kOn, Arg::kDate},
    {"SINCE", KeyKind::kSince, Arg::kDate},
    {"SENTBEFORE", KeyKind::kSentBefore, Arg::kDate},
    {"SENTON", KeyKind::kSentOn, Arg::kDate},
    {"SENTSINCE", KeyKind::kSentSince, Arg::kDate},
    {"SAVEDBEFORE", KeyKind::kSavedBefore, Arg::kDate},
    {"SAVEDON", KeyKind::kSavedOn, Arg::kDate},
    {"SAVEDSINCE", KeyKind::kSavedSince, Arg::kDate},
    {"LARGER", KeyKind::kLarger, Arg::kNumber},
    {"SMALLER", KeyKind::kSmaller, Arg::kNumber},
    {"OLDER", KeyKind::kOlder, Arg::kNzNumber},
    {"YOUNGER", KeyKind::kYounger, Arg::kNzNumber},
    {"KEYWORD", KeyKind::kKeyword, Arg::kKeyword},
    {"UNKEYWORD", KeyKind::kNoKeyword, Arg::kKeyword},
    {"EMAILID", KeyKind::kEmailId, Arg::kObjectId},
    {"THREADID", KeyKind::kThreadId, Arg::kObjectId},
};

// Recursive descent over search-key. The recursion is bounded by limits.max_depth, checked
// before each descent, so the stack cannot be exhausted by the client.
class Parser {
 public:
  Parser(ArgParser& p, SearchArgs& out, const SearchLimits& limits)
      : p_(p), out_(out), limits_(limits) {}

  // Parses one search-key at nesting `depth` (top-level keys are at depth 1); returns its
  // index in out_.keys.
  Result<uint32_t> key(int depth) {
    if (depth > limits_.max_depth) return Status::invalid("Search keys nested too deeply");
    if (p_.peek('(')) return list(depth);
    if (p_.atEnd()) return Status::invalid("Missing search key");
    char c = p_.rest()[0];
    if ((c >= '0' && c <= '9') || c == '*' || c == '$') {
      DARIUS_ASSIGN_OR_RETURN(proto::SequenceSet set, p_.sequenceSet({}));
      SearchKey k;
      k.kind = KeyKind::kSequence;
      k.set = std::move(set);
      return add(std::move(k));
    }
    auto name = p_.atom();
    if (!name.ok()) return Status::invalid("Invalid search key");
    std::string upper = proto::asciiUpper(*name);
    for (const Simple& s : kSimple) {
      if (s.name == upper) return simple(s);
    }
    if (upper == "NOT") {
      DARIUS_RETURN_IF_ERROR(p_.space());
      DARIUS_ASSIGN_OR_RETURN(uint32_t child, key(depth + 1));
      return node(KeyKind::kNot, {child});
    }
    if (upper == "OR") {
      DARIUS_RETURN_IF_ERROR(p_.space());
      DARIUS_ASSIGN_OR_RETURN(uint32_t a, key(depth + 1));
      DARIUS_RETURN_IF_ERROR(p_.space());
      DARIUS_ASSIGN_OR_RETURN(uint32_t b, key(depth + 1));
      return node(KeyKind::kOr, {a, b});
    }
    if (upper == "NEW") {  // RFC 9051 §6.4.4 (RFC 3501): RECENT and UNSEEN
      DARIUS_ASSIGN_OR_RETURN(uint32_t recent, add(keyOf(KeyKind::kRecent)));
      DARIUS_ASSIGN_OR_RETURN(uint32_t unseen, add(keyOf(KeyKind::kNoFlag, mailbox::kFlagSeen)));
      return node(KeyKind::kAnd, {recent, unseen});
    }
    if (upper == "OLD") {  // NOT RECENT
      DARIUS_ASSIGN_OR_RETURN(uint32_t recent, add(keyOf(KeyKind::kRecent)));
      return node(KeyKind::kNot, {recent});
    }
    if (upper == "UID") {
      DARIUS_RETURN_IF_ERROR(p_.space());
      DARIUS_ASSIGN_OR_RETURN(proto::SequenceSet set, p_.sequenceSet({}));
      SearchKey k;
      k.kind = KeyKind::kUid;
      k.set = std::move(set);
      return add(std::move(k));
    }
    if (upper == "HEADER") {
      SearchKey k;
      k.kind = KeyKind::kHeader;
      DARIUS_RETURN_IF_ERROR(p_.space());
      DARIUS_ASSIGN_OR_RETURN(k.field, p_.astring());
      DARIUS_RETURN_IF_ERROR(p_.space());
      DARIUS_ASSIGN_OR_RETURN(k.text, p_.astring());
      return add(std::move(k));
    }
    if (upper == "MODSEQ") return modseq();
    return Status::invalid("Unknown search key " + std::string(name->substr(0, 32)));
  }

  Result<uint32_t> add(SearchKey k) {
    if (out_.keys.size() >= limits_.max_keys) return Status::tooBig("Too many search keys");
    out_.keys.push_back(std::move(k));
    return static_cast<uint32_t>(out_.keys.size() - 1);
  }

 private:
  Result<uint32_t> node(KeyKind kind, std::vector<uint32_t> children) {
    SearchKey k;
    k.kind = kind;
    k.children = std::move(children);
    return add(std::move(k));
  }

  // "(" search-key *(SP search-key) ")"
  Result<uint32_t> list(int depth) {
    p_.skipIf('(');
    std::vector<uint32_t> children;
    while (true) {
      DARIUS_ASSIGN_OR_RETURN(uint32_t child, key(depth + 1));
      children.push_back(child);
      if (p_.skipIf(')')) break;
      if (!p_.skipIf(' ')) {
        return Status::invalid(p_.atEnd() ? "Unterminated search key list"
                                          : "Expected SP or \")\" in search key list");
      }
    }
    return node(KeyKind::kAnd, std::move(children));
  }

  Result<uint32_t> simple(const Simple& s) {
    SearchKey k;
    k.kind = s.kind;
    k.flag = s.flag;
    switch (s.arg) {
      case Arg::kNone:
        break;
      case Arg::kString: {
        DARIUS_RETURN_IF_ERROR(p_.space());
        DARIUS_ASSIGN_OR_RETURN(k.text, p_.astring());
        break;
      }
      case Arg::kDate: {
        DARIUS_RETURN_IF_ERROR(p_.space());
        DARIUS_ASSIGN_OR_RETURN(k.date, p_.date());
        break;
      }
      case Arg::kNumber: {
        DARIUS_RETURN_IF_ERROR(p_.space());
        DARIUS_ASSIGN_OR_RETURN(k.number, p_.number64());
        DARIUS_RETURN_IF_ERROR(expectKeyEnd(p_, "number"));
        break;
      }
      case Arg::kNzNumber: {
        // RFC 5032 §3: OLDER / YOUNGER SP nz-number (seconds).
        DARIUS_RETURN_IF_ERROR(p_.space());
        auto n = p_.nzNumber();
        if (!n.ok()) return Status::invalid("Invalid interval");
        k.number = *n;
        DARIUS_RETURN_IF_ERROR(expectKeyEnd(p_, "interval"));
        break;
      }
      case Arg::kKeyword: {
        // flag-keyword = "$MDNSent" / ... / atom: system flags have their own keys.
        DARIUS_RETURN_IF_ERROR(p_.space());
        auto a = p_.atom();
        if (!a.ok()) return Status::invalid("Invalid keyword");
        k.text = std::string(*a);
        break;
      }
      case Arg::kObjectId: {
        DARIUS_RETURN_IF_ERROR(p_.space());
        auto a = p_.atom();
        if (!a.ok() || !isObjectId(*a)) return Status::invalid("Invalid object id");
        k.text = std::string(*a);
        break;
      }
    }
    return add(std::move(k));
  }

  // RFC 7162 §3.1.5: MODSEQ [entry-name SP entry-type-req] SP mod-sequence-valzer, with
  // entry-name = DQUOTE "/flags/" attr-flag DQUOTE and entry-type-req = "priv" / "shared" /
  // "all". The server keeps one modseq per message, so the entry is checked, then ignored.
  Result<uint32_t> modseq() {
    SearchKey k;
    k.kind = KeyKind::kModseq;
    DARIUS_RETURN_IF_ERROR(p_.space());
    if (p_.peek('"')) {
      DARIUS_ASSIGN_OR_RETURN(k.field, p_.quoted());
      if (k.field.size() <= 7 || !proto::equalsIgnoreCase(k.field.substr(0, 7), "/flags/")) {
        return Status::invalid("Invalid MODSEQ entry name");
      }
      DARIUS_RETURN_IF_ERROR(p_.space());
      auto type = p_.atom();
      if (!type.ok()) return Status::invalid("Invalid MODSEQ entry type");
      std::string t = proto::asciiUpper(*type);
      if (t != "PRIV" && t != "SHARED" && t != "ALL") {
        return Status::invalid("Invalid MODSEQ entry type");
      }
      k.text = std::string(*type);
      DARIUS_RETURN_IF_ERROR(p_.space());
    }
    DARIUS_ASSIGN_OR_RETURN(k.number, p_.number64());
    DARIUS_RETURN_IF_ERROR(expectKeyEnd(p_, "mod-sequence"));
    out_.uses_modseq = true;
    return add(std::move(k));
  }

  ArgParser& p_;
  SearchArgs& out_;
  const SearchLimits& limits_;
};

}  // namespace

// search-return-opts = SP "RETURN" SP "(" [search-return-opt *(SP search-return-opt)] ")"
Status parseReturnOptions(ArgParser& p, ReturnOptions& ret) {
  Status st = p.listOf(
      [&](ArgParser& q) -> Status {
        auto a = q.atom();
        if (!a.ok()) return Status::invalid("Invalid search return option");
        std::string u = proto::asciiUpper(*a);
        if (u == "MIN") {
          ret.min = true;
        } else if (u == "MAX") {
          ret.max = true;
        } else if (u == "ALL") {
          ret.all = true;
        } else if (u == "COUNT") {
          ret.count = true;
        } else if (u == "SAVE") {
          ret.save = true;
        } else if (u == "CONTEXT") {
          ret.context = true;
        } else if (u == "UPDATE") {
          ret.update = true;
        } else if (u == "PARTIAL") {
          // RFC 9394 §3.1 (RFC 5267 §4.4): at most one PARTIAL, never with ALL.
          if (ret.partial) return Status::invalid("PARTIAL given twice");
          DARIUS_RETURN_IF_ERROR(q.space());
          auto range = q.atom();
          if (!range.ok()) return Status::invalid("Invalid PARTIAL range");
          DARIUS_ASSIGN_OR_RETURN(ret.partial, parsePartialRange(*range));
        } else {
          // RFC 9051 §6.4.4: options the server does not support MUST be rejected with BAD.
          return Status::invalid("Unknown search return option " + std::string(a->substr(0, 32)));
        }
        return Status::ok();
      },
      proto::ListOptions{.allow_empty = true, .max_items = 16});
  if (!st.isOk()) return st;
  if (ret.partial && ret.all) return Status::invalid("PARTIAL and ALL together");
  return Status::ok();
}

namespace {

// The atom at the parser's position, if it is `word` followed by SP; consumed only then.
bool skipWord(ArgParser& p, std::string_view word) {
  size_t at = p.position();
  auto a = p.atom();
  if (a.ok() && proto::equalsIgnoreCase(*a, word) && p.peek(' ')) return true;
  p.rewind(at);
  return false;
}

}  // namespace

Result<SearchArgs> parseSearchArgs(ArgParser& p, bool by_uid, const SearchLimits& limits) {
  SearchArgs args;
  args.by_uid = by_uid;
  DARIUS_RETURN_IF_ERROR(p.space());
  if (skipWord(p, "RETURN")) {
    DARIUS_RETURN_IF_ERROR(p.space());
    DARIUS_RETURN_IF_ERROR(parseReturnOptions(p, args.ret));
    args.has_return = true;
    DARIUS_RETURN_IF_ERROR(p.space());
  }
  if (skipWord(p, "CHARSET")) {
    DARIUS_RETURN_IF_ERROR(p.space());
    // charset = atom / quoted
    if (p.peek('"')) {
      DARIUS_ASSIGN_OR_RETURN(std::string cs, p.quoted());
      args.charset = std::move(cs);
    } else {
      auto a = p.atom();
      if (!a.ok()) return Status::invalid("Invalid charset");
      args.charset = std::string(*a);
    }
    DARIUS_RETURN_IF_ERROR(p.space());
  }
  Parser parser(p, args, limits);
  DARIUS_ASSIGN_OR_RETURN(uint32_t root, parser.add(keyOf(KeyKind::kAnd)));
  std::vector<uint32_t> top;
  while (true) {
    DARIUS_ASSIGN_OR_RETURN(uint32_t k, parser.key(1));
    top.push_back(k);
    if (!p.peek(' ')) break;
    p.skipIf(' ');
  }
  args.keys[root].children = std::move(top);
  return args;
}

namespace {

std::string_view flagName(uint32_t bit) {
  switch (bit) {
    case mailbox::kFlagAnswered: return "ANSWERED";
    case mailbox::kFlagDeleted: return "DELETED";
    case mailbox::kFlagDraft: return "DRAFT";
    case mailbox::kFlagFlagged: return "FLAGGED";
    case mailbox::kFlagSeen: return "SEEN";
  }
  return "?";
}

std::string_view kindName(KeyKind kind) {
  for (const Simple& s : kSimple) {
    if (s.kind == kind && s.arg != Arg::kNone) return s.name;
  }
  switch (kind) {
    case KeyKind::kAll: return "ALL";
    case KeyKind::kRecent: return "RECENT";
    case KeyKind::kSaveDateSupported: return "SAVEDATESUPPORTED";
    default: return "?";
  }
}

void describeKey(const SearchArgs& args, uint32_t index, std::string& out) {
  const SearchKey& k = args.keys[index];
  auto children = [&](std::string_view sep) {
    for (size_t i = 0; i < k.children.size(); ++i) {
      if (i > 0) out += sep;
      describeKey(args, k.children[i], out);
    }
  };
  switch (k.kind) {
    case KeyKind::kAnd:
      out += "(";
      children(" ");
      out += ")";
      return;
    case KeyKind::kOr:
      out += "OR ";
      children(" ");
      return;
    case KeyKind::kNot:
      out += "NOT ";
      children(" ");
      return;
    case KeyKind::kSequence:
      out += k.set.format();
      return;
    case KeyKind::kUid:
      out += "UID " + k.set.format();
      return;
    case KeyKind::kFlag:
      out += flagName(k.flag);
      return;
    case KeyKind::kNoFlag:
      out += "UN";
      out += flagName(k.flag);
      return;
    case KeyKind::kHeader:
      out += "HEADER " + proto::quoteString(k.field) + " " + proto::quoteString(k.text);
      return;
    case KeyKind::kModseq:
      out += "MODSEQ ";
      if (!k.field.empty()) out += proto::quoteString(k.field) + " " + k.text + " ";
      out += std::to_string(k.number);
      return;
    case KeyKind::kLarger:
    case KeyKind::kSmaller:
    case KeyKind::kOlder:
    case KeyKind::kYounger:
      out += std::string(kindName(k.kind)) + " " + std::to_string(k.number);
      return;
    case KeyKind::kBefore:
    case KeyKind::kOn:
    case KeyKind::kSince:
    case KeyKind::kSentBefore:
    case KeyKind::kSentOn:
    case KeyKind::kSentSince:
    case KeyKind::kSavedBefore:
    case KeyKind::kSavedOn:
    case KeyKind::kSavedSince:
      out += std::string(kindName(k.kind)) + " " + proto::formatDate(k.date);
      return;
    case KeyKind::kKeyword:
    case KeyKind::kNoKeyword:
    case KeyKind::kEmailId:
    case KeyKind::kThreadId:
      out += std::string(kindName(k.kind)) + " " + k.text;
      return;
    case KeyKind::kFrom:
    case KeyKind::kTo:
    case KeyKind::kCc:
    case KeyKind::kBcc:
    case KeyKind::kSubject:
    case KeyKind::kBody:
    case KeyKind::kText:
      out += std::string(kindName(k.kind)) + " " + proto::quoteString(k.text);
      return;
    case KeyKind::kAll:
    case KeyKind::kRecent:
    case KeyKind::kSaveDateSupported:
      out += kindName(k.kind);
      return;
  }
}

}  // namespace

std::string describe(const SearchArgs& args) {
  std::string out;
  if (args.keys.empty()) return out;
  const SearchKey& root = args.keys[0];
  for (size_t i = 0; i < root.children.size(); ++i) {
    if (i > 0) out += " ";
    describeKey(args, root.children[i], out);
  }
  return out;
}

}  // namespace darius::imapd::search
