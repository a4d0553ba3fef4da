#include "lib/mime/address.h"

#include <algorithm>
#include <array>

#include "lib/mime/lexer.h"

namespace darius::mime {
namespace {

enum class Tok { kWord, kQuoted, kLiteral, kComment, kSpecial };

struct Token {
  Tok kind;
  std::string text;  // word, quoted content, literal with brackets, comment text, or the special
  bool space_before = false;
  char special() const { return kind == Tok::kSpecial ? text[0] : '\0'; }
};

bool isAddressSpecial(char c) {
  switch (c) {
    case '<': case '>': case '@': case ',': case ';': case ':': case '.':
      return true;
    default:
      return false;
  }
}

std::vector<Token> tokenize(std::string_view value) {
  std::vector<Token> out;
  Lexer lx(value);
  bool space = false;
  while (!lx.atEnd()) {
    char c = lx.peek();
    Token t;
    if (isFws(c)) {
      lx.advance();
      space = true;
      continue;
    }
    if (c == '(') {
      t = Token{Tok::kComment, lx.comment()};
    } else if (c == '"') {
      t = Token{Tok::kQuoted, lx.quotedString()};
    } else if (c == '[') {
      t = Token{Tok::kLiteral, lx.domainLiteral()};
    } else if (isAddressSpecial(c)) {
      lx.advance();
      t = Token{Tok::kSpecial, std::string(1, c)};
    } else {
      // A word: anything up to white space or a special (")" "]" "\" and other stray bytes
      // included, so junk never stalls the parser).
      size_t start = lx.pos();
      while (!lx.atEnd()) {
        char d = lx.peek();
        if (isFws(d) || isAddressSpecial(d) || d == '(' || d == '"' || d == '[') break;
        lx.advance();
      }
      if (lx.pos() == start) lx.advance();  // cannot happen, but never loop forever
      t = Token{Tok::kWord, std::string(lx.text().substr(start, lx.pos() - start))};
    }
    t.space_before = space;
    space = false;
    out.push_back(std::move(t));
  }
  return out;
}

// Every loop below calls tick() once per token it looks at, so that a test can hold the
// parse to linear work (parseAddressList's `steps`) without timing it.
class Parser {
 public:
  explicit Parser(std::vector<Token> toks) : t_(std::move(toks)) {}

  size_t steps() const { return steps_; }

  std::vector<Address> run() {
    while (i_ < t_.size()) {
      tick();
      if (isSpecial(',') || isSpecial(';') || isSpecial('>')) {
        ++i_;
        continue;
      }
      element(/*in_group=*/false);
    }
    return std::move(out_);
  }

 private:
  bool isSpecial(char c) const { return i_ < t_.size() && t_[i_].special() == c; }
  void tick() const { ++steps_; }

  // Joins tokens [from, to) that are not comments. A phrase (display name, group name) keeps
  // one space wherever the input had white space; a local part or domain has none around
  // its dots (obs-local-part allows CFWS there: "a . b").
  std::string join(size_t from, size_t to, bool phrase) const {
    std::string s;
    for (size_t k = from; k < to; ++k) {
      tick();
      const Token& t = t_[k];
      if (t.kind == Tok::kComment) continue;
      bool dot_adjacent = t.special() == '.' || (!s.empty() && s.back() == '.');
      if (!s.empty() && t.space_before && (phrase || !dot_adjacent)) s.push_back(' ');
      s += t.text;
    }
    return s;
  }

  // Whether [from, to) holds more than one word separated by white space (not by dots).
  bool severalWords(size_t from, size_t to) const {
    size_t first = from;
    while (first < to && t_[first].kind == Tok::kComment) {
      tick();
      ++first;
    }
    return localStart(from, to) > first;
  }

  // The first token of the local part that ends at `to`: the last white-space-separated
  // word, with the words dot-joined to it ("Big Bug bb" -> "bb", "a . b" -> "a . b").
  size_t localStart(size_t from, size_t to) const {
    size_t k = to;
    while (k > from) {
      tick();
      --k;
      if (k == from) break;
      const Token& t = t_[k];
      const Token& prev = t_[k - 1];
      bool linked = t.kind == Tok::kComment || prev.kind == Tok::kComment ||
                    t.special() == '.' || prev.special() == '.' || !t.space_before;
      if (!linked) break;
    }
    return k;
  }

  // The last comment in [from, to), or nullopt.
  std::optional<std::string> lastComment(size_t from, size_t to) const {
    std::optional<std::string> c;
    for (size_t k = from; k < to && k < t_.size(); ++k) {
      tick();
      if (t_[k].kind == Tok::kComment) c = t_[k].text;
    }
    return c;
  }

  // The index of the first token from i_ that is one of the specials `stops` (all from
  // kLookahead), or t_.size().
  size_t scanTo(std::string_view stops) {
    size_t k = t_.size();
    for (char c : stops) k = std::min(k, nextSpecial(c));
    return k;
  }

  // The first `c` at or after i_. A scan starts at i_ and i_ never moves back, so each
  // special keeps where it was last found and is only looked for again once i_ has passed
  // it: every token is looked at once per special, whatever the shape of the field. Looking
  // afresh each time was quadratic, because an element may look further ahead than it
  // consumes: after a bare addr-spec element() looks for a '<' before the next ',', and for
  // "a@b a@b ... a@b <x@y>" that '<' is at the end while the next element starts just after
  // the addr-spec.
  size_t nextSpecial(char c) {
    tick();
    Ahead& a = ahead_[kLookahead.find(c)];
    if (!a.known || i_ < a.from || i_ > a.at) {  // i_ < a.from never happens; start afresh
      size_t k = i_;
      while (k < t_.size() && t_[k].special() != c) {
        tick();
        ++k;
      }
      a = Ahead{true, i_, k};
    }
    return a.at;
  }

  // One mailbox or group, starting at i_.
  void element(bool in_group) {
    size_t start = i_;
    std::string_view ends = in_group ? ",;" : ",";
    size_t stop = scanTo(in_group ? "<@:,;" : "<@:,");
    char s = stop < t_.size() ? t_[stop].special() : '\0';
    if (s == ':' && !in_group) {
      group(start, stop);
      return;
    }
    if (s == '<') {
      i_ = stop + 1;
      angle(start, stop);
    } else if (s == '@') {
      i_ = stop;
      addrSpec(start, stop);
      // "Mikel@Lindsaar <m@l.net>": a display name cannot hold an unquoted '@', so what came
      // before the '<' was an address of its own and the angle address is the next one
      // (Dovecot and Cyrus read Mikel@Lindsaar so; Cyrus, like us, goes on with the rest).
      size_t next = scanTo(in_group ? "<,;" : "<,");
      if (next < t_.size() && t_[next].special() == '<') return;
      // A bare addr-spec without a name takes a comment after it as its name ("a@b (Ann)").
      size_t end = scanTo(ends);
      if (!out_.back().name) out_.back().name = lastComment(i_, end);
      i_ = end;
      return;
    } else {
      // No address: one word is a local part without a domain ("To: root"), several are a
      // display name without an address ("To: Mary Smith"); only comments give nothing.
      i_ = stop;
      if (!join(start, stop, true).empty()) {
        Address a;
        if (severalWords(start, stop)) {
          a.name = join(start, stop, true);
          a.mailbox = std::string(kMissingMailbox);
        } else {
          a.name = lastComment(start, stop);
          a.mailbox = join(start, stop, false);
        }
        a.host = std::string(kMissingDomain);
        out_.push_back(std::move(a));
      }
    }
    // Junk up to the end of this element.
    i_ = scanTo(ends);
  }

  void group(size_t start, size_t colon) {
    Address g;
    g.mailbox = join(start, colon, true);
    out_.push_back(std::move(g));
    i_ = colon + 1;
    while (i_ < t_.size()) {
      tick();
      if (isSpecial(';')) {
        ++i_;
        break;
      }
      if (isSpecial(',') || isSpecial(':') || isSpecial('>')) {
        ++i_;
        continue;
      }
      element(/*in_group=*/true);
    }
    out_.push_back(Address{});  // end of group, also when the ';' is missing
  }

  // Domain tokens from i_: word/literal with dots; stops at anything else.
  std::string domain() {
    std::string d;
    while (i_ < t_.size()) {
      tick();
      const Token& t = t_[i_];
      if (t.kind == Tok::kComment) {
        ++i_;
        continue;
      }
      bool part = t.kind == Tok::kWord || t.kind == Tok::kLiteral || t.special() == '.';
      if (!part || (!d.empty() && t.space_before && d.back() != '.' && t.special() != '.')) break;
      d += t.text;
      ++i_;
    }
    return d;
  }

  Address mailboxOf(std::string local, std::string dom) {
    Address a;
    a.mailbox = local.empty() ? std::string(kMissingMailbox) : std::move(local);
    a.host = dom.empty() ? std::string(kMissingDomain) : std::move(dom);
    return a;
  }

  // "local@domain" without angle brackets. Words before the local part ("Big Bug bb@x",
  // a display name that lost its brackets) become the name.
  void addrSpec(size_t start, size_t at) {
    size_t local_start = localStart(start, at);
    std::string local = join(local_start, at, false);
    i_ = at + 1;
    std::string dom = domain();
    Address a = mailboxOf(std::move(local), std::move(dom));
    if (local_start > start) a.name = join(start, local_start, true);
    if (!a.name) a.name = lastComment(start, i_);
    out_.push_back(std::move(a));
  }

  void angle(size_t start, size_t lt) {
    std::optional<std::string> name;
    std::string phrase = join(start, lt, true);
    if (!phrase.empty()) name = phrase;
    // obs-route: "@a,@b:" before the addr-spec.
    std::optional<std::string> adl;
    size_t colon = scanTo(":>");
    if (isSpecial('@') && colon < t_.size() && t_[colon].special() == ':') {
      std::string route;
      while (i_ < colon) {
        tick();
        if (isSpecial('@')) {
          ++i_;
          std::string d = domain();
          if (!route.empty()) route.push_back(',');
          route += "@" + d;
        } else {
          ++i_;  // ',' between route domains, or junk
        }
      }
      i_ = colon + 1;
      adl = route;
    }
    size_t lstart = i_;
    size_t at = scanTo("@>");
    std::string local = join(lstart, at, false);
    i_ = at;
    std::string dom;
    if (isSpecial('@')) {
      ++i_;
      dom = domain();
    }
    size_t gt = scanTo(">");
    i_ = gt < t_.size() ? gt + 1 : gt;
    Address a = mailboxOf(std::move(local), std::move(dom));
    // Comments inside or beside an angle address are CFWS, not a name (RFC 5322 §3.4):
    // Dovecot and Cyrus both send NIL for "<user (comment)@ (comment) domain.org>".
    a.name = std::move(name);
    a.adl = std::move(adl);
    out_.push_back(std::move(a));
  }

  // The specials scanTo() looks for, and for each the last answer of nextSpecial(): no such
  // special in [from, at), and t_[at] is one (or at is t_.size()).
  static constexpr std::string_view kLookahead = "<>@:,;";
  struct Ahead {
    bool known = false;
    size_t from = 0;
    size_t at = 0;
  };

  std::vector<Token> t_;
  size_t i_ = 0;
  std::vector<Address> out_;
  std::array<Ahead, kLookahead.size()> ahead_{};
  mutable size_t steps_ = 0;  // counted by the const helpers too
};

}  // namespace

bool operator==(const Address& a, const Address& b) {
  return a.name == b.name && a.adl == b.adl && a.mailbox == b.mailbox && a.host == b.host;
}

std::vector<Address> parseAddressList(std::string_view value) {
  return parseAddressList(value, nullptr);
}

std::vector<Address> parseAddressList(std::string_view value, size_t* steps) {
  Parser p(tokenize(value));
  std::vector<Address> out = p.run();
  // The tokenizer's lexer only moves forward: one step a byte.
  if (steps != nullptr) *steps = value.size() + p.steps();
  return out;
}

}  // namespace darius::mime
