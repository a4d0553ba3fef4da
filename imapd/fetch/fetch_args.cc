#include "imapd/fetch/fetch_args.h"

#include <algorithm>

#include "lib/proto/chars.h"

namespace darius::imapd::fetch {

using base::Result;
using base::Status;
using proto::ArgParser;
using Text = mime::SectionSpec::Text;

namespace {

bool isNameChar(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || proto::isDigit(c) || c == '.';
}

bool startsWithDigit(const ArgParser& p) {
  return !p.atEnd() && proto::isDigit(static_cast<unsigned char>(p.rest()[0]));
}

// The longest item name is "RFC822.HEADER"; anything much longer is unknown anyway.
constexpr size_t kMaxNameLength = 32;

// An item name or section keyword: letters, digits and dots, upper-cased.
Result<std::string> readName(ArgParser& p, std::string_view what) {
  std::string_view r = p.rest();
  size_t n = 0;
  while (n < r.size() && isNameChar(static_cast<unsigned char>(r[n]))) ++n;
  if (n == 0) {
    if (r.empty()) return Status::invalid("Missing " + std::string(what));
    return Status::invalid("Expected " + std::string(what));
  }
  if (n > kMaxNameLength) return Status::invalid("Unknown " + std::string(what));
  p.advance(n);
  return proto::asciiUpper(r.substr(0, n));
}

// RFC 5322 §3.6.8: field-name = 1*ftext, printable US-ASCII except ":". A name outside it can
// never match a field, and echoing it back would need a literal inside the section.
Status checkFieldName(const std::string& name, const FetchLimits& limits) {
  if (name.empty()) return Status::invalid("Empty header field name");
  if (name.size() > limits.max_field_name) return Status::tooBig("Header field name too long");
  for (char ch : name) {
    auto c = static_cast<unsigned char>(ch);
    if (c < 33 || c > 126 || c == ':') return Status::invalid("Invalid header field name");
  }
  return Status::ok();
}

// section-text / section-msgtext after the part numbers (if any) and their final ".".
Status parseSectionText(ArgParser& p, mime::SectionSpec* s, const FetchLimits& limits) {
  DARIUS_ASSIGN_OR_RETURN(std::string word, readName(p, "section text"));
  if (word == "HEADER") {
    s->text = Text::kHeader;
  } else if (word == "TEXT") {
    s->text = Text::kText;
  } else if (word == "MIME") {
    // RFC 9051 §6.4.5.1: MIME must be prefixed by a part number.
    if (s->path.empty()) return Status::invalid("MIME needs a part number");
    s->text = Text::kMime;
  } else if (word == "HEADER.FIELDS" || word == "HEADER.FIELDS.NOT") {
    s->text = word == "HEADER.FIELDS" ? Text::kHeaderFields : Text::kHeaderFieldsNot;
    DARIUS_RETURN_IF_ERROR(p.space());
    DARIUS_ASSIGN_OR_RETURN(
        s->fields, p.astringList({.allow_empty = false, .max_items = limits.max_header_fields}));
    for (const std::string& f : s->fields) DARIUS_RETURN_IF_ERROR(checkFieldName(f, limits));
  } else {
    return Status::invalid("Unknown section text " + word);
  }
  return Status::ok();
}

// section = "[" [section-spec] "]", or section-binary = "[" [section-part] "]".
Status parseSection(ArgParser& p, mime::SectionSpec* s, bool binary, const FetchLimits& limits) {
  if (!p.skipIf('[')) return Status::invalid("Expected \"[\"");
  if (p.skipIf(']')) return Status::ok();
  bool text = !startsWithDigit(p);
  while (!text) {
    if (s->path.size() >= limits.max_section_depth) {
      return Status::tooBig("Section nested too deeply");
    }
    auto n = p.nzNumber();
    if (!n.ok()) return Status::invalid("Invalid part number in section");
    s->path.push_back(*n);
    if (!p.skipIf('.')) break;
    text = !startsWithDigit(p);
  }
  if (text) {
    if (binary) return Status::invalid("BINARY takes part numbers only");
    DARIUS_RETURN_IF_ERROR(parseSectionText(p, s, limits));
  }
  if (!p.skipIf(']')) {
    return Status::invalid(p.atEnd() ? "Unterminated section" : "Expected \"]\"");
  }
  return Status::ok();
}

// partial = "<" number64 "." nz-number64 ">"
Status parsePartial(ArgParser& p, std::optional<Partial>* out) {
  if (!p.skipIf('<')) return Status::ok();
  auto offset = p.number64();
  if (!offset.ok()) return Status::invalid("Invalid partial offset");
  if (!p.skipIf('.')) return Status::invalid("Expected \".\" in partial");
  auto count = p.nzNumber64();
  if (!count.ok()) return Status::invalid("Invalid partial length");
  if (!p.skipIf('>')) return Status::invalid("Expected \">\" after partial");
  *out = Partial{*offset, *count};
  return Status::ok();
}

// PREVIEW [SP "(" preview-mod *(SP preview-mod) ")"], preview-mod = "LAZY" (RFC 8970 §6).
// " (" after PREVIEW can also open the fetch modifiers ("FETCH 1 PREVIEW (CHANGEDSINCE 5)"),
// so the list counts as preview modifiers only if it starts with one.
Status parsePreviewModifiers(ArgParser& p, FetchItem* item) {
  if (p.rest().substr(0, 2) != " (") return Status::ok();
  size_t start = p.position();
  p.advance(2);
  auto first = p.atom();
  if (!first.ok() || proto::asciiUpper(*first) != "LAZY") {
    p.rewind(start);
    return Status::ok();
  }
  item->lazy = true;
  while (p.skipIf(' ')) {
    auto mod = p.atom();
    if (!mod.ok() || proto::asciiUpper(*mod) != "LAZY") {
      return Status::invalid("Unknown PREVIEW modifier");
    }
  }
  if (!p.skipIf(')')) return Status::invalid("PREVIEW modifiers not closed");
  return Status::ok();
}

struct SimpleItem {
  std::string_view name;
  ItemKind kind;
};
constexpr SimpleItem kSimpleItems[] = {
    {"FLAGS", ItemKind::kFlags},
    {"INTERNALDATE", ItemKind::kInternalDate},
    {"RFC822.SIZE", ItemKind::kRfc822Size},
    {"ENVELOPE", ItemKind::kEnvelope},
    {"BODYSTRUCTURE", ItemKind::kBodyStructure},
    {"UID", ItemKind::kUid},
    {"RFC822", ItemKind::kRfc822},
    {"RFC822.HEADER", ItemKind::kRfc822Header},
    {"RFC822.TEXT", ItemKind::kRfc822Text},
    {"MODSEQ", ItemKind::kModseq},
    {"SAVEDATE", ItemKind::kSaveDate},
    {"EMAILID", ItemKind::kEmailId},
    {"THREADID", ItemKind::kThreadId},
};

// One fetch-att whose name has been read.
Result<FetchItem> parseItem(ArgParser& p, const std::string& name, const FetchLimits& limits) {
  FetchItem item;
  for (const SimpleItem& s : kSimpleItems) {
    if (s.name == name) {
      item.kind = s.kind;
      return item;
    }
  }
  if (name == "BODY" && !p.peek('[')) {
    item.kind = ItemKind::kBody;
    return item;
  }
  if (name == "BODY" || name == "BODY.PEEK") {
    item.kind = ItemKind::kBodySection;
    item.peek = name == "BODY.PEEK";
    DARIUS_RETURN_IF_ERROR(parseSection(p, &item.section, false, limits));
    DARIUS_RETURN_IF_ERROR(parsePartial(p, &item.partial));
    return item;
  }
  if (name == "BINARY" || name == "BINARY.PEEK" || name == "BINARY.SIZE") {
    item.kind = name == "BINARY.SIZE" ? ItemKind::kBinarySize : ItemKind::kBinary;
    item.peek = name == "BINARY.PEEK";
    DARIUS_RETURN_IF_ERROR(parseSection(p, &item.section, true, limits));
    if (item.kind == ItemKind::kBinary) DARIUS_RETURN_IF_ERROR(parsePartial(p, &item.partial));
    return item;
  }
  if (name == "PREVIEW") {
    item.kind = ItemKind::kPreview;
    DARIUS_RETURN_IF_ERROR(parsePreviewModifiers(p, &item));
    return item;
  }
  if (name == "ALL" || name == "FAST" || name == "FULL") {
    return Status::invalid("ALL, FAST and FULL must be used alone");
  }
  return Status::invalid("Unknown FETCH item " + name);
}

// RFC 9051 §6.4.5: the macros.
std::vector<FetchItem> expandMacro(const std::string& name) {
  std::vector<ItemKind> kinds = {ItemKind::kFlags, ItemKind::kInternalDate, ItemKind::kRfc822Size};
  if (name == "ALL" || name == "FULL") kinds.push_back(ItemKind::kEnvelope);
  if (name == "FULL") kinds.push_back(ItemKind::kBody);
  std::vector<FetchItem> out(kinds.size());
  for (size_t i = 0; i < kinds.size(); ++i) out[i].kind = kinds[i];
  return out;
}

// fetch-modifiers (RFC 4466 §2.4) after the items.
Status parseModifiers(ArgParser& p, FetchArgs* a) {
  bool changed_since = false;
  auto modifier = [&](ArgParser& q) -> Status {
    DARIUS_ASSIGN_OR_RETURN(std::string word, readName(q, "FETCH modifier"));
    if (word == "CHANGEDSINCE") {
      if (changed_since) return Status::invalid("CHANGEDSINCE given twice");
      changed_since = true;
      DARIUS_RETURN_IF_ERROR(q.space());
      // mod-sequence-value (RFC 7162 §7) is at most 2^63-1, as number64 is.
      auto n = q.number64();
      if (!n.ok()) return Status::invalid("Invalid CHANGEDSINCE value");
      a->changed_since = *n;
      return Status::ok();
    }
    if (word == "VANISHED") {
      // RFC 7162 §3.2.6: only UID FETCH takes VANISHED.
      if (!a->by_uid) return Status::invalid("VANISHED is only allowed with UID FETCH");
      if (a->vanished) return Status::invalid("VANISHED given twice");
      a->vanished = true;
      return Status::ok();
    }
    if (word == "PARTIAL") {
      // RFC 9394 §3.3: a UID FETCH modifier.
      if (!a->by_uid) return Status::invalid("PARTIAL is only allowed with UID FETCH");
      if (a->partial) return Status::invalid("PARTIAL given twice");
      DARIUS_RETURN_IF_ERROR(q.space());
      auto range = q.atom();
      if (!range.ok()) return Status::invalid("Invalid PARTIAL range");
      DARIUS_ASSIGN_OR_RETURN(a->partial, search::parsePartialRange(*range));
      return Status::ok();
    }
    return Status::invalid("Unknown FETCH modifier " + word);
  };
  DARIUS_RETURN_IF_ERROR(p.listOf(modifier, {.allow_empty = false, .max_items = 8}));
  if (a->vanished && !a->changed_since) {
    return Status::invalid("VANISHED needs CHANGEDSINCE");
  }
  return Status::ok();
}

std::string formatFieldName(const std::string& name) {
  bool atom = !name.empty();
  for (char c : name) atom = atom && proto::isAtomChar(static_cast<unsigned char>(c));
  return atom ? name : proto::quoteString(name);
}

}  // namespace

bool FetchItem::setsSeen() const {
  switch (kind) {
    case ItemKind::kBodySection:
    case ItemKind::kBinary:
      return !peek;
    case ItemKind::kRfc822:
    case ItemKind::kRfc822Text:
      return true;
    default:
      return false;
  }
}

std::string FetchItem::responseName() const {
  switch (kind) {
    case ItemKind::kFlags:
      return "FLAGS";
    case ItemKind::kInternalDate:
      return "INTERNALDATE";
    case ItemKind::kRfc822Size:
      return "RFC822.SIZE";
    case ItemKind::kEnvelope:
      return "ENVELOPE";
    case ItemKind::kBody:
      return "BODY";
    case ItemKind::kBodyStructure:
      return "BODYSTRUCTURE";
    case ItemKind::kUid:
      return "UID";
    case ItemKind::kBodySection:
      return "BODY[" + formatSection(section) + "]";
    case ItemKind::kBinary:
      return "BINARY[" + formatSection(section) + "]";
    case ItemKind::kBinarySize:
      return "BINARY.SIZE[" + formatSection(section) + "]";
    case ItemKind::kRfc822:
      return "RFC822";
    case ItemKind::kRfc822Header:
      return "RFC822.HEADER";
    case ItemKind::kRfc822Text:
      return "RFC822.TEXT";
    case ItemKind::kModseq:
      return "MODSEQ";
    case ItemKind::kSaveDate:
      return "SAVEDATE";
    case ItemKind::kEmailId:
      return "EMAILID";
    case ItemKind::kThreadId:
      return "THREADID";
    case ItemKind::kPreview:
      return "PREVIEW";
  }
  return "?";
}

bool FetchArgs::has(ItemKind kind) const {
  return std::any_of(items.begin(), items.end(),
                     [&](const FetchItem& i) { return i.kind == kind; });
}

std::string formatSection(const mime::SectionSpec& s) {
  std::string out;
  for (uint32_t n : s.path) {
    if (!out.empty()) out += '.';
    out += std::to_string(n);
  }
  std::string_view word;
  switch (s.text) {
    case Text::kNone:
      return out;
    case Text::kHeader:
      word = "HEADER";
      break;
    case Text::kHeaderFields:
      word = "HEADER.FIELDS";
      break;
    case Text::kHeaderFieldsNot:
      word = "HEADER.FIELDS.NOT";
      break;
    case Text::kText:
      word = "TEXT";
      break;
    case Text::kMime:
      word = "MIME";
      break;
  }
  if (!out.empty()) out += '.';
  out += word;
  if (s.text == Text::kHeaderFields || s.text == Text::kHeaderFieldsNot) {
    out += " (";
    for (size_t i = 0; i < s.fields.size(); ++i) {
      if (i > 0) out += ' ';
      out += formatFieldName(s.fields[i]);
    }
    out += ')';
  }
  return out;
}

Result<FetchArgs> parseFetchArgs(ArgParser& p, bool by_uid, const FetchLimits& limits) {
  FetchArgs a;
  a.by_uid = by_uid;
  DARIUS_RETURN_IF_ERROR(p.space());
  DARIUS_ASSIGN_OR_RETURN(a.set, p.sequenceSet({}));
  DARIUS_RETURN_IF_ERROR(p.space());
  if (p.peek('(')) {
    auto element = [&](ArgParser& q) -> Status {
      DARIUS_ASSIGN_OR_RETURN(std::string name, readName(q, "FETCH item"));
      DARIUS_ASSIGN_OR_RETURN(FetchItem item, parseItem(q, name, limits));
      a.items.push_back(std::move(item));
      return Status::ok();
    };
    Status s = p.listOf(element, {.allow_empty = false, .max_items = limits.max_items});
    if (!s.isOk()) {
      if (s.code() == base::Code::kTooBig) return Status::tooBig("Too many FETCH items");
      return s;
    }
  } else {
    DARIUS_ASSIGN_OR_RETURN(std::string name, readName(p, "FETCH item"));
    if (name == "ALL" || name == "FAST" || name == "FULL") {
      a.items = expandMacro(name);
    } else {
      DARIUS_ASSIGN_OR_RETURN(FetchItem item, parseItem(p, name, limits));
      a.items.push_back(std::move(item));
    }
  }
  if (p.peek(' ')) {
    DARIUS_RETURN_IF_ERROR(p.space());
    DARIUS_RETURN_IF_ERROR(parseModifiers(p, &a));
  }
  return a;
}

}  // namespace darius::imapd::fetch
