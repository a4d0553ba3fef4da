// ArgParser: reads the grammar elements of one framed IMAP command (see command_buffer.h)
// left to right, following RFC 9051 §9 (formal syntax), RFC 7888 (non-synchronising
// literals), RFC 5182 ("$") and RFC 3501 §5.1.3 (via mutf7.h, for the commands that decode
// names). Command parsers in imapd/commands/ are written in its terms: space(), tag(), atom(),
// astring(), mailbox(), sequenceSet(), flagList(), dateTime(), ...
//
// Contract: each method consumes its element on success and leaves the position unchanged on
// failure, so a caller can try alternatives. Every error is kInvalid with a short message
// meant for the client's BAD reply, except where a configured limit is exceeded (literal size
// over number64, too many ranges or list items), which is kTooBig. Nothing here throws or
// recurses without a bound. The methods live in arg_parser.cc (strings and numbers) and
// arg_parser_lists.cc (lists, flags, sequence sets, dates).
//
// Ownership: an ArgParser borrows the text it reads, which must outlive it; returned
// string_views point into that text. Thread-safety: none; each parser belongs to one command.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/result.h"
#include "lib/proto/chars.h"
#include "lib/proto/command_buffer.h"
#include "lib/proto/flag.h"
#include "lib/proto/imap_date.h"
#include "lib/proto/list.h"
#include "lib/proto/sequence_set.h"

namespace darius::proto {

// For the typed list helpers ("(" elem *(SP elem) ")").
struct ListOptions {
  bool allow_empty = true;  // "()" (flag-list allows it; header-list does not)
  size_t max_items = 1000;  // kTooBig past it
};

class ArgParser {
 public:
  explicit ArgParser(std::string_view text) : text_(text) {}

  // --- tokens (arg_parser.cc) ---

  // tag = 1*<any ASTRING-CHAR except "+">
  base::Result<std::string_view> tag();
  // atom = 1*ATOM-CHAR (7-bit, no atom-specials). Command names and capability names.
  base::Result<std::string_view> atom();
  // Exactly one SP.
  base::Status space();
  // quoted = DQUOTE *QUOTED-CHAR DQUOTE, unescaped; UTF-8 is accepted (RFC 9051).
  base::Result<std::string> quoted();
  // literal = "{" number64 ["+"] "}" CRLF *CHAR8 (the framing put the bytes after the CRLF).
  base::Result<std::string> literal();
  // literal8 = "~{" number64 ["+"] "}" CRLF *OCTET (RFC 3516 §4.4, RFC 9051 §9): a literal
  // whose bytes may include NUL. Only APPEND takes one.
  base::Result<std::string> literal8();
  // string = quoted / literal
  base::Result<std::string> string();
  // astring = 1*ASTRING-CHAR / string
  base::Result<std::string> astring();
  // nstring = string / NIL; nullopt for NIL.
  base::Result<std::optional<std::string>> nstring();
  // mailbox = "INBOX" / astring. Any case of "INBOX" comes back as "INBOX" (RFC 9051 §5.1,
  // §9: it MUST be interpreted as INBOX); other names are returned as sent, still in the
  // client's encoding (mUTF-7 or UTF-8, which the command decides; see mutf7.h).
  base::Result<std::string> mailbox();
  // A base64 token up to the next SP or the end (RFC 4648 alphabet and "="); the caller
  // decodes it. AUTHENTICATE's initial response (RFC 4959) is one.
  base::Result<std::string_view> base64Token();
  // The atom NIL (any case).
  bool skipNil();

  // number (u32), nz-number, number64, nz-number64 (see number.h). The digits are consumed
  // up to the first non-digit, which the caller checks ("<0.100>" has a "." after one).
  base::Result<uint32_t> number();
  base::Result<uint32_t> nzNumber();
  base::Result<uint64_t> number64();
  base::Result<uint64_t> nzNumber64();

  // --- structures (arg_parser_lists.cc) ---

  // One value: NIL, string, wide atom or a parenthesised list of values (see list.h).
  base::Result<Value> value(const ListLimits& limits = {});
  // "(" [value *(SP value)] ")": the items of one list.
  base::Result<std::vector<Value>> list(const ListLimits& limits = {});
  // "(" atom *(SP atom) ")", e.g. STATUS attributes, LIST options. Atoms as sent.
  base::Result<std::vector<std::string>> atomList(const ListOptions& options = {});
  // "(" astring *(SP astring) ")", e.g. header-list (with allow_empty = false).
  base::Result<std::vector<std::string>> astringList(const ListOptions& options = {});

  // flag, flag-list = "(" [flag *(SP flag)] ")", and the STORE form (RFC 9051 §6.4.6:
  // store-att-flags takes a flag-list or flags separated by SP without parentheses).
  base::Result<Flag> flag(const FlagOptions& options = {});
  base::Result<std::vector<Flag>> flagList(const FlagOptions& options = {});
  base::Result<std::vector<Flag>> flagListOrFlags(const FlagOptions& options = {});

  // sequence-set, including "$" if the options allow it. It must be followed by SP, ")" or
  // the end of the command.
  base::Result<SequenceSet> sequenceSet(const SequenceSetOptions& options = {});

  // date (bare or in double quotes) and date-time (always in double quotes).
  base::Result<CivilDate> date();
  base::Result<DateTime> dateTime();

  // Calls `element(*this)` for each element of "(" elem *(SP elem) ")"; the building block
  // of the typed lists above and of command-specific ones (fetch-att lists). `element`
  // returns base::Status and consumes exactly one element on success. On any failure the
  // position is restored to where the list began.
  template <typename ElementFn>
  base::Status listOf(ElementFn&& element, const ListOptions& options = {});

  // --- position ---

  // Consumes `c` if it is next.
  bool skipIf(char c);
  bool peek(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  bool atEnd() const { return pos_ >= text_.size(); }
  // OK at the end of the command, else kInvalid "Unexpected extra arguments".
  base::Status end() const;
  size_t position() const { return pos_; }
  // What is left to read, for command-specific tokens.
  std::string_view rest() const { return text_.substr(pos_); }
  // Consumes n bytes of rest() (n <= rest().size()), after the caller has read them there.
  void advance(size_t n) { pos_ += n < rest().size() ? n : rest().size(); }
  // Goes back to an earlier position(), to retry an alternative after a failure.
  void rewind(size_t position) {
    if (position < pos_) pos_ = position;
  }

 private:
  base::Result<Value> valueAt(const ListLimits& limits, int depth, size_t& items);
  // The bytes of the literal whose "{" is at the position, any octet allowed.
  base::Result<std::string> literalBytes();
  // The run of bytes from the position for which pred holds.
  template <typename Pred>
  std::string_view run(Pred pred) const {
    size_t end = pos_;
    while (end < text_.size() && pred(static_cast<unsigned char>(text_[end]))) ++end;
    return text_.substr(pos_, end - pos_);
  }
  template <typename T>
  base::Result<T> numberOf(base::Result<T> (*parse)(std::string_view));

  std::string_view text_;
  size_t pos_ = 0;
};

template <typename ElementFn>
base::Status ArgParser::listOf(ElementFn&& element, const ListOptions& options) {
  const size_t start = pos_;
  auto fail = [&](base::Status s) {
    pos_ = start;
    return s;
  };
  if (!skipIf('(')) {
    if (atEnd()) return base::Status::invalid("Missing list");
    return base::Status::invalid("Expected \"(\"");
  }
  if (skipIf(')')) {
    if (!options.allow_empty) return fail(base::Status::invalid("Empty list"));
    return base::Status::ok();
  }
  for (size_t n = 1;; ++n) {
    if (n > options.max_items) return fail(base::Status::tooBig("Too many items in list"));
    base::Status s = element(*this);
    if (!s.isOk()) return fail(std::move(s));
    if (skipIf(')')) return base::Status::ok();
    if (!skipIf(' ')) {
      return fail(base::Status::invalid(atEnd() ? "Unterminated list" : "Expected SP or \")\""));
    }
  }
}

}  // namespace darius::proto
