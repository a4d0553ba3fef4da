// Builds the part tree of message.h in one pass over the bytes: each line is looked at once by
// the header scan or the boundary scan, whatever the nesting, so the cost is linear in the
// message size times the number of boundaries active at that point (at most max_depth).
#include <algorithm>
#include <cstring>

#include "lib/base/byte_scan.h"
#include "lib/mime/lexer.h"
#include "lib/mime/message.h"

namespace darius::mime {
namespace {

struct BodyLine {
  size_t start = 0;
  size_t content_end = 0;  // line end excluded
  size_t next = 0;         // start of the next line
};

// A boundary delimiter line (RFC 2046 §5.1.1): "--" boundary at a line start, "--" after it for
// the close delimiter; the rest of the line is ignored (the RFC's note to implementors:
// comparing the beginning of the line is enough).
struct Delimiter {
  BodyLine line;
  size_t level = 0;  // index of the boundary in the active stack
  bool close = false;
};

}  // namespace

class TreeBuilder {
 public:
  TreeBuilder(std::string_view data, const ParseOptions& opt, Message* msg)
      : d_(data), opt_(opt), msg_(msg) {
    opt_.max_depth = std::min(opt_.max_depth, kMaxDepthCeiling);
    opt_.max_parts = std::max<uint32_t>(opt_.max_parts, 1);
  }

  void run() { entity(kNoPart, 0, 0, /*is_message=*/true, /*in_digest=*/false); }

 private:
  BodyLine lineAt(size_t pos) const {
    BodyLine l;
    l.start = pos;
    size_t nl = d_.find('\n', pos);
    if (nl == std::string_view::npos) {
      l.content_end = l.next = d_.size();
    } else {
      l.content_end = (nl > pos && d_[nl - 1] == '\r') ? nl - 1 : nl;
      l.next = nl + 1;
    }
    return l;
  }

  // Whether `l` is a delimiter of an active boundary; the longest match wins, the innermost
  // among equals (a boundary reused by a nested multipart then closes the inner one first).
  bool delimiterAt(const BodyLine& l, Delimiter* out) const {
    if (bounds_.empty() || l.content_end - l.start < 2 || d_[l.start] != '-' ||
        d_[l.start + 1] != '-') {
      return false;
    }
    std::string_view text = d_.substr(l.start + 2, l.content_end - l.start - 2);
    bool found = false;
    size_t best_len = 0;
    for (size_t k = bounds_.size(); k-- > 0;) {
      const std::string& b = bounds_[k];
      if (text.size() >= b.size() && text.compare(0, b.size(), b) == 0 &&
          (!found || b.size() > best_len)) {
        found = true;
        best_len = b.size();
        out->level = k;
      }
    }
    if (!found) return false;
    out->line = l;
    out->close = text.size() >= best_len + 2 && text[best_len] == '-' && text[best_len + 1] == '-';
    return true;
  }

  std::optional<Delimiter> nextDelimiter(size_t pos) const {
    if (bounds_.empty()) return std::nullopt;
    Delimiter delim;
    pos = nextDashLine(pos);
    while (pos < d_.size()) {
      BodyLine l = lineAt(pos);
      if (delimiterAt(l, &delim)) return delim;
      pos = nextDashLine(l.next);
    }
    return std::nullopt;
  }

  // The first line at or after the line that starts at `line_start` that begins with "--",
  // or the end. Only such a line can be a delimiter, and a memchr for '-' passes over a
  // base64 attachment (whose alphabet has none) and most text in one call, where looking at
  // each line in turn would stop every 76 bytes.
  size_t nextDashLine(size_t line_start) const {
    const size_t n = d_.size();
    if (line_start >= n) return n;
    if (d_[line_start] == '-' && line_start + 1 < n && d_[line_start + 1] == '-') return line_start;
    size_t from = line_start + 1;
    while (from < n) {
      const void* hit = std::memchr(d_.data() + from, '-', n - from);
      if (hit == nullptr) return n;
      const size_t q = static_cast<size_t>(static_cast<const char*>(hit) - d_.data());
      if (d_[q - 1] == '\n' && q + 1 < n && d_[q + 1] == '-') return q;  // q >= 1: from >= 1
      from = q + 1;
    }
    return n;
  }

  // Where a body that runs up to `delim` ends: before the line end that precedes the
  // delimiter, which belongs to it, but never before `body_start`.
  size_t bodyEnd(size_t body_start, const std::optional<Delimiter>& delim) const {
    if (!delim) return d_.size();
    size_t end = delim->line.start;
    if (end > 0 && d_[end - 1] == '\n') {
      --end;
      if (end > 0 && d_[end - 1] == '\r') --end;
    }
    return std::max(end, body_start);
  }

  uint32_t newPart(uint32_t parent, uint32_t depth) {
    auto idx = static_cast<uint32_t>(msg_->parts_.size());
    Part p;
    p.parent = parent;
    p.depth = depth;
    msg_->parts_.push_back(std::move(p));
    if (parent != kNoPart) {
      Part& par = msg_->parts_[parent];
      if (par.first_child == kNoPart) {
        par.first_child = idx;
      } else {
        msg_->parts_[last_child_[parent]].next_sibling = idx;
      }
      ++par.child_count;
    }
    last_child_.push_back(kNoPart);
    if (parent != kNoPart) last_child_[parent] = idx;
    return idx;
  }

  bool budgetLeft() const { return msg_->parts_.size() < opt_.max_parts; }

  void readContentFields(Part& p, const Header& h, bool in_digest);

  // Parses the entity whose header starts at `start`; returns the delimiter that ended it, or
  // nullopt when it ran to the end of the data.
  std::optional<Delimiter> entity(uint32_t parent, size_t start, uint32_t depth, bool is_message,
                                  bool in_digest) {
    uint32_t idx = newPart(parent, depth);
    // Header: up to the blank line, a delimiter line, or the end.
    size_t pos = start;
    size_t body_start = d_.size();
    std::optional<Delimiter> delim;
    size_t header_end = d_.size();
    while (pos < d_.size()) {
      BodyLine l = lineAt(pos);
      if (l.content_end == l.start) {
        header_end = body_start = l.next;
        break;
      }
      Delimiter dl;
      if (delimiterAt(l, &dl)) {
        delim = dl;
        header_end = body_start = bodyEnd(start, delim);
        break;
      }
      pos = l.next;
    }
    {
      Part& p = msg_->parts_[idx];
      p.is_message = is_message;
      p.header_offset = start;
      p.header_size = header_end - start;
      p.body_offset = body_start;
      Header h(d_.substr(start, header_end - start), opt_.max_header_size);
      readContentFields(p, h, in_digest);
      if (is_message && opt_.lines_and_envelopes) p.envelope = buildEnvelope(h);
    }
    if (delim) {
      emptyBody(idx, body_start, depth);
    } else {
      delim = body(idx, body_start, depth);
    }
    Part& p = msg_->parts_[idx];
    size_t end = bodyEnd(start, delim);
    if (body_start > end) {
      // The blank line was followed at once by the delimiter, whose line end it is (RFC 2046
      // §5.1.1): the header has no blank line and the body is empty.
      p.header_size = end - start;
      p.body_offset = body_start = end;
    }
    // A descendant that starts past `end` is an empty entity that began right after a
    // delimiter line whose line end is also the one before this closing delimiter (an empty
    // encapsulated message, or a last body part after "--inner\r\n--outer"); it sits at `end`.
    for (size_t k = idx + 1; k < msg_->parts_.size(); ++k) {
      Part& d = msg_->parts_[k];
      if (d.header_offset > end) {
        d.header_offset = d.body_offset = end;
        d.header_size = d.body_size = d.body_lines = 0;
      }
    }
    p.body_size = end - body_start;
    // Every enclosing multipart counts its whole body again: word at a time (byte_scan.h).
    if (opt_.lines_and_envelopes) p.body_lines = base::countByte(d_.substr(body_start, end - body_start), '\n');
    return delim;
  }

  enum class Descend { kNone, kLimited, kMultipart, kMessage };

  // Whether the entity parts_[idx] contains parts, and whether a limit stops that.
  Descend decide(uint32_t idx, uint32_t depth) {
    Part& p = msg_->parts_[idx];
    bool multipart = equalsNoCase(p.type, "multipart");
    bool message = equalsNoCase(p.type, "message") &&
                   (equalsNoCase(p.subtype, "rfc822") || equalsNoCase(p.subtype, "global"));
    if (!multipart && !message) return Descend::kNone;
    if (depth + 1 >= opt_.max_depth || !budgetLeft()) {
      p.limited = true;
      return Descend::kLimited;
    }
    p.kind = multipart ? PartKind::kMultipart : PartKind::kMessage;
    return multipart ? Descend::kMultipart : Descend::kMessage;
  }

  // An entity whose header was cut short by a delimiter has an empty body; a message entity
  // still gets its (empty) encapsulated message, so every message part has one child.
  void emptyBody(uint32_t idx, size_t pos, uint32_t depth) {
    if (decide(idx, depth) != Descend::kMessage) return;
    uint32_t child = newPart(idx, depth + 1);
    Part& c = msg_->parts_[child];
    c.is_message = true;
    c.header_offset = c.body_offset = pos;
    c.type = "text";
    c.subtype = "plain";
    c.content_type_defaulted = true;
    c.params.push_back(Param{"charset", "US-ASCII", false, "", "", ""});
    c.envelope = Envelope{};
  }

  // The body of parts_[idx] from `start`; returns the delimiter that ends it.
  std::optional<Delimiter> body(uint32_t idx, size_t start, uint32_t depth) {
    Descend what = decide(idx, depth);
    if (what == Descend::kNone || what == Descend::kLimited) return nextDelimiter(start);
    if (what == Descend::kMessage) {
      return entity(idx, start, depth + 1, /*is_message=*/true, /*in_digest=*/false);
    }
    const Part& p = msg_->parts_[idx];
    const Param* bp = findParam(p.params, "boundary");
    if (bp == nullptr || bp->value.empty()) return nextDelimiter(start);  // no parts at all
    bool digest = equalsNoCase(p.subtype, "digest");
    size_t level = bounds_.size();
    bounds_.push_back(bp->value);
    std::optional<Delimiter> delim = nextDelimiter(start);  // skips the preamble
    while (delim && delim->level == level && !delim->close) {
      if (!budgetLeft()) {
        // Out of parts: the rest of this multipart is not split any further.
        msg_->parts_[idx].limited = true;
        delim = nextDelimiter(delim->line.next);
        while (delim && delim->level == level && !delim->close) {
          delim = nextDelimiter(delim->line.next);
        }
        break;
      }
      delim = entity(idx, delim->line.next, depth + 1, /*is_message=*/false, digest);
    }
    bounds_.pop_back();
    if (delim && delim->level == level) {
      // The close delimiter: the epilogue runs to the next outer delimiter.
      delim = nextDelimiter(delim->line.next);
    }
    return delim;
  }

  std::string_view d_;
  ParseOptions opt_;
  Message* msg_;
  std::vector<std::string> bounds_;      // active boundaries, outermost first
  std::vector<uint32_t> last_child_;     // per part: its last child so far
};

void TreeBuilder::readContentFields(Part& p, const Header& h, bool in_digest) {
  auto value = [&](std::string_view name) -> std::optional<std::string> {
    const HeaderField* f = h.first(name);
    if (f == nullptr) return std::nullopt;
    return unfoldValue(f->value);
  };
  std::optional<ContentType> ct;
  if (std::optional<std::string> v = value("Content-Type")) ct = parseContentType(*v);
  if (ct) {
    p.type = std::move(ct->type);
    p.subtype = std::move(ct->subtype);
    p.params = std::move(ct->params);
  } else {
    p.content_type_defaulted = true;
    p.type = in_digest ? "message" : "text";
    p.subtype = in_digest ? "rfc822" : "plain";
  }
  if (equalsNoCase(p.type, "text") && findParam(p.params, "charset") == nullptr) {
    p.params.push_back(Param{"charset", "US-ASCII", false, "", "", ""});
  }
  p.id = value("Content-ID");
  p.description = value("Content-Description");
  if (std::optional<std::string> v = value("Content-Transfer-Encoding")) {
    p.encoding = parseTransferEncoding(*v);
  }
  p.md5 = value("Content-MD5");
  if (std::optional<std::string> v = value("Content-Disposition")) p.disposition = parseDisposition(*v);
  if (std::optional<std::string> v = value("Content-Language")) p.languages = parseLanguageList(*v);
  p.location = value("Content-Location");
}

bool Part::isType(std::string_view t, std::string_view st) const {
  return equalsNoCase(type, t) && equalsNoCase(subtype, st);
}

Message Message::parse(std::string_view data, const ParseOptions& options) {
  Message m;
  m.data_ = data;
  m.max_header_size_ = options.max_header_size;
  TreeBuilder(data, options, &m).run();
  return m;
}

std::vector<uint32_t> Message::children(uint32_t index) const {
  std::vector<uint32_t> out;
  for (uint32_t c = parts_[index].first_child; c != kNoPart; c = parts_[c].next_sibling) {
    out.push_back(c);
  }
  return out;
}

}  // namespace darius::mime
