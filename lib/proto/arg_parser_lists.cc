// The structured elements of ArgParser: lists, flags, sequence sets and dates. The scanning
// here only finds each element's extent; the element types (sequence_set.h, imap_date.h,
// flag.h) validate the text, so they can be used (and fuzzed) on their own.
#include <algorithm>

#include "lib/proto/arg_parser.h"

namespace darius::proto {

using base::Result;
using base::Status;

namespace {

// Values are destroyed recursively; whatever ListLimits says, lists never nest deeper than
// this, which keeps that recursion (and the parser's stack of open lists) small.
constexpr int kMaxListDepthCap = 1000;

bool isWideAtomChar(unsigned char c) { return isAstringChar(c) || c == '*'; }
bool isSeqSetChar(unsigned char c) {
  return isDigit(c) || c == ':' || c == ',' || c == '*' || c == '$';
}
bool isDateChar(unsigned char c) {
  return isDigit(c) || c == '-' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

// Why nothing of the wanted element starts at rest.
Status nothingAt(std::string_view rest, std::string_view wanted) {
  if (rest.empty()) return Status::invalid("Missing " + std::string(wanted));
  auto c = static_cast<unsigned char>(rest[0]);
  if (c == 0) return Status::invalid("NUL byte in command");
  if (c >= 0x80) {
    return Status::invalid("8-bit character where " + std::string(wanted) + " was expected");
  }
  if (c < 0x20 || c == 0x7F) return Status::invalid("Control character in command");
  if (c == ' ') {
    return Status::invalid("Unexpected SP where " + std::string(wanted) + " was expected");
  }
  return Status::invalid("Unexpected '" + std::string(1, static_cast<char>(c)) + "' where " +
                         std::string(wanted) + " was expected");
}

// A token ends at SP, ")", or the end of the command; anything else is glued to it.
bool endsToken(std::string_view rest) { return rest.empty() || rest[0] == ' ' || rest[0] == ')'; }

}  // namespace

// Iterative on purpose: a stack of the open lists instead of recursion, so the depth limit
// is the only thing between the client and our stack, and it is checked before each "(".
Result<Value> ArgParser::value(const ListLimits& limits) {
  const size_t start = pos_;
  auto fail = [&](Status s) -> Result<Value> {
    pos_ = start;
    return s;
  };
  const size_t max_depth = static_cast<size_t>(std::clamp(limits.max_depth, 0, kMaxListDepthCap));
  Value root;
  std::vector<Value*> open;  // the lists not yet closed, outermost first
  size_t items = 0;
  bool want_element = true;
  for (;;) {
    if (want_element) {
      if (++items > limits.max_items) return fail(Status::tooBig("Too many items in list"));
      if (peek('(')) {
        if (open.size() >= max_depth) return fail(Status::invalid("Lists nested too deeply"));
        ++pos_;
        Value list;
        list.kind = Value::Kind::kList;
        Value& slot = open.empty() ? (root = std::move(list))
                                   : open.back()->items.emplace_back(std::move(list));
        open.push_back(&slot);
        if (!skipIf(')')) continue;  // the first element of the new list comes next
        open.pop_back();             // "()"
      } else {
        Value v;
        if (skipNil()) {
          v.kind = Value::Kind::kNil;
        } else if (peek('"') || peek('{')) {
          auto s = string();
          if (!s.ok()) return fail(s.status());
          v.kind = Value::Kind::kString;
          v.text = std::move(*s);
        } else {
          // A wide atom: ASTRING-CHARs and "*", after an optional "\" (flags, "\*").
          size_t lead = peek('\\') ? 1 : 0;
          pos_ += lead;
          std::string_view a = run(isWideAtomChar);
          pos_ -= lead;
          if (a.empty()) return fail(nothingAt(rest(), "a value"));
          v.kind = Value::Kind::kAtom;
          v.text = std::string(text_.substr(pos_, lead + a.size()));
          pos_ += lead + a.size();
        }
        if (open.empty()) return v;
        open.back()->items.push_back(std::move(v));
      }
    }
    // After a complete element: SP and the next, ")" closing the innermost list, or done.
    if (open.empty()) return root;
    if (skipIf(')')) {
      open.pop_back();
      want_element = false;
    } else if (skipIf(' ')) {
      want_element = true;
    } else {
      return fail(Status::invalid(atEnd() ? "Unterminated list" : "Expected SP or \")\" in list"));
    }
  }
}

Result<std::vector<Value>> ArgParser::list(const ListLimits& limits) {
  if (!peek('(')) return nothingAt(rest(), "a list");
  auto v = value(limits);
  if (!v.ok()) return v.status();
  return std::move(v->items);
}

Result<std::vector<std::string>> ArgParser::atomList(const ListOptions& options) {
  std::vector<std::string> out;
  Status s = listOf(
      [&out](ArgParser& p) {
        auto a = p.atom();
        if (!a.ok()) return a.status();
        out.emplace_back(*a);
        return Status::ok();
      },
      options);
  if (!s.isOk()) return s;
  return out;
}

Result<std::vector<std::string>> ArgParser::astringList(const ListOptions& options) {
  std::vector<std::string> out;
  Status s = listOf(
      [&out](ArgParser& p) {
        auto a = p.astring();
        if (!a.ok()) return a.status();
        out.push_back(std::move(*a));
        return Status::ok();
      },
      options);
  if (!s.isOk()) return s;
  return out;
}

Result<Flag> ArgParser::flag(const FlagOptions& options) {
  std::string_view token;
  if (rest().substr(0, 2) == "\\*") {
    token = rest().substr(0, 2);
  } else {
    size_t lead = peek('\\') ? 1 : 0;
    pos_ += lead;
    std::string_view a = run(isAtomChar);
    pos_ -= lead;
    if (a.empty()) {
      if (lead) return Status::invalid("Invalid flag");
      return nothingAt(rest(), "a flag");
    }
    token = rest().substr(0, lead + a.size());
  }
  auto f = parseFlag(token, options);
  if (f.ok()) pos_ += token.size();
  return f;
}

Result<std::vector<Flag>> ArgParser::flagList(const FlagOptions& options) {
  std::vector<Flag> out;
  Status s = listOf(
      [&](ArgParser& p) {
        auto f = p.flag(options);
        if (!f.ok()) return f.status();
        out.push_back(std::move(*f));
        return Status::ok();
      },
      ListOptions{.allow_empty = true, .max_items = options.max_flags});
  if (!s.isOk()) return s;
  return out;
}

Result<std::vector<Flag>> ArgParser::flagListOrFlags(const FlagOptions& options) {
  if (peek('(')) return flagList(options);
  const size_t start = pos_;
  std::vector<Flag> out;
  for (;;) {
    if (out.size() >= options.max_flags) {
      pos_ = start;
      return Status::tooBig("Too many flags");
    }
    auto f = flag(options);
    if (!f.ok()) {
      pos_ = start;
      return f.status();
    }
    out.push_back(std::move(*f));
    // Flags run to the end of the command (store-att-flags is STORE's last argument).
    if (!skipIf(' ')) return out;
  }
}

Result<SequenceSet> ArgParser::sequenceSet(const SequenceSetOptions& options) {
  std::string_view token = run(isSeqSetChar);
  if (token.empty()) return nothingAt(rest(), "a sequence set");
  if (!endsToken(rest().substr(token.size()))) return Status::invalid("Invalid sequence set");
  auto set = SequenceSet::parse(token, options);
  if (set.ok()) pos_ += token.size();
  return set;
}

Result<CivilDate> ArgParser::date() {
  std::string_view token;
  if (peek('"')) {
    // date-text is at most "dd-Mmm-yyyy": the closing quote is within 12 bytes.
    size_t close = rest().find('"', 1);
    if (close == std::string_view::npos || close > 12) return Status::invalid("Invalid date");
    token = rest().substr(0, close + 1);
  } else {
    token = run(isDateChar);
    if (token.empty()) return nothingAt(rest(), "a date");
  }
  if (!endsToken(rest().substr(token.size()))) return Status::invalid("Invalid date");
  auto d = parseDate(token);
  if (d.ok()) pos_ += token.size();
  return d;
}

Result<DateTime> ArgParser::dateTime() {
  if (!peek('"')) return nothingAt(rest(), "a date-time");
  // "dd-Mmm-yyyy hh:mm:ss +zzzz" with its quotes is always 28 bytes.
  std::string_view token = rest().substr(0, 28);
  auto dt = parseDateTime(token);
  if (dt.ok()) pos_ += token.size();
  return dt;
}

}  // namespace darius::proto
