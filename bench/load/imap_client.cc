// bench/load: IMAP client and response parser (see imap_client.h). RFC 3501 §4 (data
// formats), §7 (responses); RFC 7888 (LITERAL+).
#include "bench/load/imap_client.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <cstring>

#include "bench/load/common.h"

namespace darius::bench {

namespace {

std::string upper(std::string_view s) {
  std::string o(s);
  for (auto& c : o) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return o;
}

// If the line ends in a literal marker "{n}" or "{n+}" (or "~{n}"), returns n.
bool literalSuffix(std::string_view line, size_t& n) {
  if (line.empty() || line.back() != '}') return false;
  size_t open = line.rfind('{');
  if (open == std::string_view::npos) return false;
  std::string_view digits = line.substr(open + 1, line.size() - open - 2);
  if (!digits.empty() && digits.back() == '+') digits.remove_suffix(1);
  if (digits.empty() || digits.size() > 12) return false;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  return ec == std::errc() && p == digits.data() + digits.size();
}

class Parser {
 public:
  Parser(const ImapResponse& r, size_t pos) : r_(r), t_(r.text), i_(pos) {}

  std::vector<ImapValue> values(bool inList) {
    std::vector<ImapValue> out;
    for (;;) {
      while (i_ < t_.size() && t_[i_] == ' ') ++i_;
      if (i_ >= t_.size()) {
        if (inList) throw WorkloadError("unterminated list in: " + snippet());
        return out;
      }
      if (t_[i_] == ')') {
        if (!inList) throw WorkloadError("unbalanced ')' in: " + snippet());
        ++i_;
        return out;
      }
      out.push_back(value());
    }
  }

 private:
  std::string snippet() const { return std::string(t_.substr(0, 200)); }

  ImapValue value() {
    ImapValue v;
    char c = t_[i_];
    if (c == '(') {
      ++i_;
      v.kind = ImapValue::Kind::List;
      v.list = values(true);
      return v;
    }
    if (c == '"') {
      v.kind = ImapValue::Kind::String;
      ++i_;
      while (i_ < t_.size() && t_[i_] != '"') {
        if (t_[i_] == '\\' && i_ + 1 < t_.size()) ++i_;
        v.s += t_[i_++];
      }
      if (i_ >= t_.size()) throw WorkloadError("unterminated quoted string in: " + snippet());
      ++i_;
      return v;
    }
    if (c == '{' || (c == '~' && i_ + 1 < t_.size() && t_[i_ + 1] == '{')) {
      size_t close = t_.find('}', i_);
      if (close == std::string_view::npos) throw WorkloadError("bad literal marker in: " + snippet());
      if (lit_ >= r_.literal_sizes.size()) throw WorkloadError("literal marker without literal");
      v.kind = ImapValue::Kind::String;
      v.literal_size = r_.literal_sizes[lit_];
      if (lit_ < r_.literals.size()) v.s = r_.literals[lit_];
      ++lit_;
      i_ = close + 1;
      return v;
    }
    // Atom; a section "[...]" (BODY[HEADER.FIELDS (A B)]) and a partial "<n>" belong to it.
    size_t start = i_;
    int depth = 0;
    while (i_ < t_.size()) {
      char d = t_[i_];
      if (d == '[') ++depth;
      else if (d == ']') --depth;
      else if (depth == 0 && (d == ' ' || d == '(' || d == ')')) break;
      ++i_;
    }
    v.s = std::string(t_.substr(start, i_ - start));
    return v;
  }

  const ImapResponse& r_;
  std::string_view t_;
  size_t i_;
  size_t lit_ = 0;
};

}  // namespace

std::vector<ImapValue> parseImapValues(const ImapResponse& r, size_t pos) {
  return Parser(r, pos).values(false);
}

const ImapValue* FetchItems::find(std::string_view name) const {
  for (auto& [k, v] : items) {
    if (k == name) return &v;
  }
  return nullptr;
}

bool parseFetch(const ImapResponse& r, FetchItems& out) {
  // "* <n> FETCH (" ...
  std::string_view t = r.text;
  if (t.size() < 4 || t.substr(0, 2) != "* ") return false;
  size_t sp = t.find(' ', 2);
  if (sp == std::string_view::npos) return false;
  uint32_t seq = 0;
  auto [p, ec] = std::from_chars(t.data() + 2, t.data() + sp, seq);
  if (ec != std::errc() || p != t.data() + sp) return false;
  if (upper(t.substr(sp + 1, 6)) != "FETCH ") return false;
  auto vals = parseImapValues(r, sp + 7);
  if (vals.size() != 1 || vals[0].kind != ImapValue::Kind::List) {
    throw WorkloadError("malformed FETCH response: " + std::string(t.substr(0, 200)));
  }
  auto& l = vals[0].list;
  if (l.size() % 2 != 0) throw WorkloadError("odd FETCH item list: " + std::string(t.substr(0, 200)));
  out.seq = seq;
  out.items.clear();
  for (size_t i = 0; i < l.size(); i += 2) out.items.emplace_back(upper(l[i].s), std::move(l[i + 1]));
  return true;
}

std::string imapQuote(std::string_view s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o + "\"";
}

ImapClient ImapClient::connect(const std::string& host, int port, double timeout_s) {
  return ImapClient(Conn::connectTcp(host, port, timeout_s));
}

ImapClient::ImapClient(Conn c) : conn_(std::move(c)) {
  std::string g = conn_.readLine();
  if (g.rfind("* OK", 0) != 0 && g.rfind("* PREAUTH", 0) != 0) {
    throw WorkloadError("IMAP greeting: " + g.substr(0, 200));
  }
  size_t cap = upper(g).find("[CAPABILITY ");
  if (cap != std::string::npos) parseCapabilities(std::string_view(g).substr(cap + 12));
}

std::string ImapClient::nextTag() { return "b" + std::to_string(++tag_); }

ImapResponse ImapClient::readResponse(LiteralMode mode) {
  ImapResponse r;
  for (;;) {
    std::string line = conn_.readLine();
    r.text += line;
    size_t n = 0;
    if (!literalSuffix(line, n)) return r;
    r.literal_sizes.push_back(n);
    if (mode == LiteralMode::Keep) {
      std::string lit;
      lit.reserve(n);
      conn_.readExact(n, lit);
      r.literals.push_back(std::move(lit));
    } else {
      r.literal_lfs += conn_.skipExact(n);
      r.literals.emplace_back();
    }
  }
}

std::string ImapClient::command(std::string_view cmd, const Untagged& onUntagged, LiteralMode mode) {
  std::string tag = nextTag();
  std::string line = tag + " " + std::string(cmd) + "\r\n";
  conn_.writeAll(line);
  for (;;) {
    ImapResponse r = readResponse(mode);
    if (r.text.rfind(tag + " ", 0) == 0) {
      std::string rest = r.text.substr(tag.size() + 1);
      if (upper(rest.substr(0, 3)) != "OK ") {
        std::string verb(cmd.substr(0, cmd.find(' ')));
        throw WorkloadError(verb + ": " + rest.substr(0, 200));
      }
      return rest;
    }
    if (r.text.rfind("* BYE", 0) == 0 && upper(std::string(cmd)) != "LOGOUT") {
      throw WorkloadError("server said " + r.text.substr(0, 200));
    }
    if (onUntagged) onUntagged(r);
  }
}

ImapClient::PipelineResult ImapClient::pipeline(const std::vector<std::string>& cmds, size_t window,
                                                const Untagged& onUntagged, size_t keep_errors) {
  PipelineResult out;
  if (window == 0) window = 1;
  for (size_t start = 0; start < cmds.size(); start += window) {
    size_t end = std::min(cmds.size(), start + window);
    uint64_t first_tag = tag_ + 1;
    std::string batch;
    for (size_t i = start; i < end; ++i) batch += nextTag() + " " + cmds[i] + "\r\n";
    conn_.writeAll(batch);
    size_t pending = end - start;
    while (pending > 0) {
      ImapResponse r = readResponse(LiteralMode::Keep);
      if (r.text.rfind("* BYE", 0) == 0) throw WorkloadError("server said " + r.text.substr(0, 200));
      if (r.text.rfind("* ", 0) == 0 || r.text.rfind("+", 0) == 0) {
        if (onUntagged && r.text[0] == '*') onUntagged(r);
        continue;
      }
      // "b<n> OK ...": which of this batch's commands it answers.
      uint64_t n = 0;
      size_t sp = r.text.find(' ');
      auto [p, ec] = std::from_chars(r.text.data() + 1, r.text.data() + (sp == std::string::npos ? 1 : sp), n);
      if (r.text[0] != 'b' || ec != std::errc() || n < first_tag || n >= first_tag + (end - start)) {
        throw WorkloadError("unexpected line in a pipeline: " + r.text.substr(0, 200));
      }
      --pending;
      std::string rest = r.text.substr(sp + 1);
      if (upper(rest.substr(0, 3)) != "OK ") {
        ++out.failed;
        if (out.errors.size() < keep_errors) out.errors.push_back(cmds[start + (n - first_tag)] + ": " + rest.substr(0, 160));
      }
    }
  }
  return out;
}

void ImapClient::parseCapabilities(std::string_view text) {
  caps_.clear();
  size_t end = text.find(']');
  text = text.substr(0, end);
  size_t i = 0;
  while (i < text.size()) {
    size_t sp = text.find(' ', i);
    if (sp == std::string_view::npos) sp = text.size();
    if (sp > i) caps_.insert(upper(text.substr(i, sp - i)));
    i = sp + 1;
  }
  caps_known_ = true;
}

void ImapClient::login(const std::string& user, const std::string& password) {
  std::string ok = command("LOGIN " + imapQuote(user) + " " + imapQuote(password));
  caps_known_ = false;  // capabilities change after login
  size_t cap = upper(ok).find("[CAPABILITY ");
  if (cap != std::string::npos) parseCapabilities(std::string_view(ok).substr(cap + 12));
}

void ImapClient::logout() {
  try {
    command("LOGOUT");
  } catch (const WorkloadError&) {
  }
  conn_.close();
}

const std::set<std::string>& ImapClient::capabilities() {
  if (!caps_known_) {
    command("CAPABILITY", [&](ImapResponse& r) {
      if (upper(r.text.substr(0, 13)) == "* CAPABILITY ") parseCapabilities(std::string_view(r.text).substr(13));
    });
    caps_known_ = true;
  }
  return caps_;
}

SelectInfo ImapClient::select(const std::string& mailbox) {
  SelectInfo si;
  bool saw_exists = false;
  auto code = [](const std::string& t, const char* name, uint32_t& v) {
    size_t p = t.find(name);
    if (p != std::string::npos) v = static_cast<uint32_t>(std::strtoul(t.c_str() + p + std::strlen(name), nullptr, 10));
  };
  command("SELECT " + imapQuote(mailbox), [&](ImapResponse& r) {
    std::string u = upper(r.text);
    if (u.size() > 9 && u.compare(u.size() - 7, 7, " EXISTS") == 0) {
      si.exists = static_cast<uint32_t>(std::strtoul(u.c_str() + 2, nullptr, 10));
      saw_exists = true;
    }
    code(u, "[UIDVALIDITY ", si.uidvalidity);
    code(u, "[UIDNEXT ", si.uidnext);
  });
  if (!saw_exists) throw WorkloadError("SELECT without EXISTS");
  return si;
}

std::string ImapClient::append(const std::string& mailbox, std::string_view message, std::string_view flags) {
  bool literal_plus = capabilities().count("LITERAL+") > 0;
  std::string tag = nextTag();
  std::string head = tag + " APPEND " + imapQuote(mailbox) + " " +
                     (flags.empty() ? "" : "(" + std::string(flags) + ") ") + "{" +
                     std::to_string(message.size()) + (literal_plus ? "+}\r\n" : "}\r\n");
  if (literal_plus) {
    std::string_view parts[] = {head, message, "\r\n"};
    conn_.writeParts(parts);
  } else {
    conn_.writeAll(head);
    for (;;) {
      ImapResponse r = readResponse(LiteralMode::Keep);
      if (r.text.rfind("+", 0) == 0) break;
      if (r.text.rfind(tag + " ", 0) == 0) throw WorkloadError("APPEND: " + r.text.substr(0, 200));
    }
    std::string_view parts[] = {message, "\r\n"};
    conn_.writeParts(parts);
  }
  for (;;) {
    ImapResponse r = readResponse(LiteralMode::Keep);
    if (r.text.rfind(tag + " ", 0) == 0) {
      std::string rest = r.text.substr(tag.size() + 1);
      if (upper(rest.substr(0, 3)) != "OK ") throw WorkloadError("APPEND: " + rest.substr(0, 200));
      return rest;
    }
  }
}

std::vector<uint32_t> ImapClient::search(std::string_view criteria, bool uid) {
  std::vector<uint32_t> hits;
  command(std::string(uid ? "UID SEARCH " : "SEARCH ") + std::string(criteria), [&](ImapResponse& r) {
    if (upper(r.text.substr(0, 8)) != "* SEARCH") return;
    const char* p = r.text.c_str() + 8;
    const char* end = r.text.c_str() + r.text.size();
    while (p < end) {
      while (p < end && *p == ' ') ++p;
      if (p >= end || *p == '(') break;  // "(MODSEQ n)" of CONDSTORE
      uint32_t v = 0;
      auto [q, ec] = std::from_chars(p, end, v);
      if (ec != std::errc()) throw WorkloadError("bad SEARCH response: " + r.text.substr(0, 200));
      hits.push_back(v);
      p = q;
    }
  });
  return hits;
}

}  // namespace darius::bench
