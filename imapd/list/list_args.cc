#include "imapd/list/list_args.h"

#include <algorithm>

#include "lib/proto/chars.h"

namespace darius::imapd {

using base::Result;
using base::Status;

namespace {

bool isListChar(unsigned char c) { return proto::isAstringChar(c) || c == '%' || c == '*'; }

// STATUS items a client could name: every StatusItem once, so a longer list repeats itself.
constexpr size_t kMaxStatusItems = 32;

Status parseSelectOption(ArgParser& p, ListArgs& a) {
  DARIUS_ASSIGN_OR_RETURN(std::string_view name, p.atom());
  std::string u = proto::asciiUpper(name);
  if (u == "SUBSCRIBED") {
    a.select_subscribed = true;
  } else if (u == "REMOTE") {
    a.select_remote = true;
  } else if (u == "RECURSIVEMATCH") {
    a.select_recursive = true;
  } else if (u == "SPECIAL-USE") {
    a.select_special_use = true;
  } else {
    return Status::invalid("Unknown LIST selection option " + u);
  }
  return Status::ok();
}

Status parseStatusOption(ArgParser& p, ListArgs& a) {
  DARIUS_RETURN_IF_ERROR(p.space());
  proto::ListOptions lo;
  lo.allow_empty = false;  // status-option = "STATUS" SP "(" status-att *(SP status-att) ")"
  lo.max_items = kMaxStatusItems;
  DARIUS_ASSIGN_OR_RETURN(std::vector<std::string> names, p.atomList(lo));
  for (const std::string& n : names) {
    DARIUS_ASSIGN_OR_RETURN(StatusItem item, parseStatusItem(n));
    if (std::find(a.status_items.begin(), a.status_items.end(), item) == a.status_items.end()) {
      a.status_items.push_back(item);
    }
  }
  a.return_status = true;
  return Status::ok();
}

Status parseReturnOption(ArgParser& p, ListArgs& a) {
  DARIUS_ASSIGN_OR_RETURN(std::string_view name, p.atom());
  std::string u = proto::asciiUpper(name);
  if (u == "SUBSCRIBED") {
    a.return_subscribed = true;
  } else if (u == "CHILDREN") {
    a.return_children = true;
  } else if (u == "SPECIAL-USE") {
    a.return_special_use = true;
  } else if (u == "STATUS") {
    return parseStatusOption(p, a);
  } else if (u == "MYRIGHTS") {
    a.return_myrights = true;  // RFC 8440 §3
  } else {
    return Status::invalid("Unknown LIST return option " + u);
  }
  return Status::ok();
}

}  // namespace

Result<std::string> parseListMailbox(ArgParser& p) {
  if (p.peek('"') || p.peek('{')) return p.string();
  std::string_view rest = p.rest();
  size_t n = 0;
  while (n < rest.size() && isListChar(static_cast<unsigned char>(rest[n]))) ++n;
  if (n < rest.size()) {
    auto c = static_cast<unsigned char>(rest[n]);
    if (c == 0) return Status::invalid("NUL byte in mailbox pattern");
    if (c >= 0x80) return Status::invalid("8-bit character outside a string in mailbox pattern");
    if (c < 0x20 || c == 0x7f) return Status::invalid("Control character in mailbox pattern");
  }
  if (n == 0) {
    if (rest.empty()) return Status::invalid("Missing mailbox pattern");
    return Status::invalid("Invalid mailbox pattern");
  }
  std::string out(rest.substr(0, n));
  p.advance(n);
  return out;
}

Result<ListArgs> parseListArgs(ArgParser& p) {
  ListArgs a;
  DARIUS_RETURN_IF_ERROR(p.space());
  if (p.peek('(')) {
    // list-select-opts. A mailbox (astring) never starts with "(", so this is unambiguous.
    a.extended = true;
    DARIUS_RETURN_IF_ERROR(p.listOf([&](ArgParser& q) { return parseSelectOption(q, a); }));
    DARIUS_RETURN_IF_ERROR(p.space());
  }
  DARIUS_ASSIGN_OR_RETURN(a.reference, p.mailbox());
  DARIUS_RETURN_IF_ERROR(p.space());
  if (p.peek('(')) {
    // patterns = "(" list-mailbox *(SP list-mailbox) ")" (RFC 5258 §6).
    a.extended = true;
    proto::ListOptions lo;
    lo.allow_empty = false;
    lo.max_items = kMaxListPatterns;
    DARIUS_RETURN_IF_ERROR(p.listOf(
        [&](ArgParser& q) -> Status {
          DARIUS_ASSIGN_OR_RETURN(std::string pattern, parseListMailbox(q));
          a.patterns.push_back(std::move(pattern));
          return Status::ok();
        },
        lo));
  } else {
    DARIUS_ASSIGN_OR_RETURN(std::string pattern, parseListMailbox(p));
    a.patterns.push_back(std::move(pattern));
  }
  if (!p.atEnd()) {
    DARIUS_RETURN_IF_ERROR(p.space());
    DARIUS_ASSIGN_OR_RETURN(std::string_view word, p.atom());
    if (!proto::equalsIgnoreCase(word, "RETURN")) {
      return Status::invalid("Expected RETURN after the mailbox patterns");
    }
    DARIUS_RETURN_IF_ERROR(p.space());
    a.extended = true;
    DARIUS_RETURN_IF_ERROR(p.listOf([&](ArgParser& q) { return parseReturnOption(q, a); }));
  }
  // RFC 5258 §3.1 (and the list-select-opts ABNF): RECURSIVEMATCH modifies a base option;
  // alone, or with REMOTE only, it is BAD. SPECIAL-USE is an independent option (RFC 6154
  // §6), so SUBSCRIBED is the only base option there is.
  if (a.select_recursive && !a.select_subscribed) {
    return Status::invalid("RECURSIVEMATCH needs the SUBSCRIBED selection option");
  }
  // RFC 5258 §3.1 / RFC 6154 §2: these selection options imply their return options.
  if (a.select_subscribed) a.return_subscribed = true;
  if (a.select_special_use) a.return_special_use = true;
  return a;
}

Result<ListArgs> parseLsubArgs(ArgParser& p) {
  ListArgs a;
  DARIUS_RETURN_IF_ERROR(p.space());
  DARIUS_ASSIGN_OR_RETURN(a.reference, p.mailbox());
  DARIUS_RETURN_IF_ERROR(p.space());
  DARIUS_ASSIGN_OR_RETURN(std::string pattern, parseListMailbox(p));
  a.patterns.push_back(std::move(pattern));
  a.select_subscribed = true;
  a.return_subscribed = true;
  return a;
}

}  // namespace darius::imapd
