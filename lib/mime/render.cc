#include "lib/mime/render.h"

#include "lib/mime/imap_string.h"
#include "lib/mime/lexer.h"

namespace darius::mime {
namespace {

void appendAddresses(std::string& out, const std::vector<Address>& list) {
  if (list.empty()) {
    out.append("NIL");
    return;
  }
  out.push_back('(');
  for (const Address& a : list) {
    out.push_back('(');
    appendImapNString(out, a.name);
    out.push_back(' ');
    appendImapNString(out, a.adl);
    out.push_back(' ');
    appendImapNString(out, a.mailbox);
    out.push_back(' ');
    appendImapNString(out, a.host);
    out.push_back(')');
  }
  out.push_back(')');
}

void appendParams(std::string& out, const std::vector<Param>& params) {
  if (params.empty()) {
    out.append("NIL");
    return;
  }
  out.push_back('(');
  bool first = true;
  for (const Param& p : params) {
    if (!first) out.push_back(' ');
    first = false;
    appendImapString(out, imapParamName(p));
    out.push_back(' ');
    appendImapString(out, imapParamValue(p));
  }
  out.push_back(')');
}

// body-fld-dsp SP body-fld-lang SP body-fld-loc
void appendDispLangLoc(std::string& out, const Part& p) {
  if (p.disposition) {
    out.push_back('(');
    appendImapString(out, toUpperAscii(p.disposition->type));
    out.push_back(' ');
    appendParams(out, p.disposition->params);
    out.push_back(')');
  } else {
    out.append("NIL");
  }
  out.push_back(' ');
  if (p.languages && !p.languages->empty()) {
    out.push_back('(');
    bool first = true;
    for (const std::string& l : *p.languages) {
      if (!first) out.push_back(' ');
      first = false;
      appendImapString(out, l);
    }
    out.push_back(')');
  } else {
    out.append("NIL");
  }
  out.push_back(' ');
  appendImapNString(out, p.location);
}

class Renderer {
 public:
  Renderer(const Message& m, bool ext, const RenderOptions& opt) : m_(m), ext_(ext), opt_(opt) {}

  void entity(std::string& out, uint32_t idx) const {
    const Part& p = m_.part(idx);
    if (p.kind == PartKind::kMultipart) {
      multipart(out, p);
    } else {
      single(out, p);
    }
  }

 private:
  void multipart(std::string& out, const Part& p) const {
    out.push_back('(');
    if (p.first_child == kNoPart) {
      out.append("(\"TEXT\" \"PLAIN\" (\"CHARSET\" \"US-ASCII\") NIL NIL \"7BIT\" 0 0");
      if (ext_) out.append(" NIL NIL NIL NIL");
      out.push_back(')');
    }
    for (uint32_t c = p.first_child; c != kNoPart; c = m_.part(c).next_sibling) entity(out, c);
    out.push_back(' ');
    appendImapString(out, toUpperAscii(p.subtype));
    if (ext_) {
      out.push_back(' ');
      appendParams(out, p.params);
      out.push_back(' ');
      appendDispLangLoc(out, p);
    }
    out.push_back(')');
  }

  void single(std::string& out, const Part& p) const {
    bool message = p.kind == PartKind::kMessage && p.first_child != kNoPart &&
                   (equalsNoCase(p.subtype, "rfc822") || opt_.imap4rev2);
    bool opaque = p.limited || (!message && (equalsNoCase(p.type, "multipart") ||
                                             p.isType("message", "rfc822")));
    out.push_back('(');
    appendImapString(out, opaque ? "APPLICATION" : toUpperAscii(p.type));
    out.push_back(' ');
    appendImapString(out, opaque ? "OCTET-STREAM" : toUpperAscii(p.subtype));
    out.push_back(' ');
    appendParams(out, p.params);
    out.push_back(' ');
    appendImapNString(out, p.id);
    out.push_back(' ');
    appendImapNString(out, p.description);
    out.push_back(' ');
    appendImapString(out, p.encoding && !p.encoding->empty() ? toUpperAscii(*p.encoding) : "7BIT");
    out.push_back(' ');
    out.append(std::to_string(p.body_size));
    if (message) {
      const Part& inner = m_.part(p.first_child);
      out.push_back(' ');
      out.append(renderEnvelope(inner.envelope ? *inner.envelope : Envelope{}));
      out.push_back(' ');
      entity(out, p.first_child);
      out.push_back(' ');
      out.append(std::to_string(p.body_lines));
    } else if (!opaque && equalsNoCase(p.type, "text")) {
      out.push_back(' ');
      out.append(std::to_string(p.body_lines));
    }
    if (ext_) {
      out.push_back(' ');
      appendImapNString(out, p.md5);
      out.push_back(' ');
      appendDispLangLoc(out, p);
    }
    out.push_back(')');
  }

  const Message& m_;
  bool ext_;
  const RenderOptions& opt_;
};

}  // namespace

std::string renderEnvelope(const Envelope& e) {
  std::string out;
  out.push_back('(');
  appendImapNString(out, e.date);
  out.push_back(' ');
  appendImapNString(out, e.subject);
  out.push_back(' ');
  appendAddresses(out, e.from);
  out.push_back(' ');
  appendAddresses(out, e.sender.empty() ? e.from : e.sender);
  out.push_back(' ');
  appendAddresses(out, e.reply_to.empty() ? e.from : e.reply_to);
  out.push_back(' ');
  appendAddresses(out, e.to);
  out.push_back(' ');
  appendAddresses(out, e.cc);
  out.push_back(' ');
  appendAddresses(out, e.bcc);
  out.push_back(' ');
  appendImapNString(out, e.in_reply_to);
  out.push_back(' ');
  appendImapNString(out, e.message_id);
  out.push_back(')');
  return out;
}

std::string renderEnvelope(const Message& message) {
  const Part& root = message.root();
  return renderEnvelope(root.envelope ? *root.envelope : Envelope{});
}

std::string renderBodyStructure(const Message& message, bool extensible,
                                const RenderOptions& options) {
  return renderBodyStructure(message, 0, extensible, options);
}

std::string renderBodyStructure(const Message& message, uint32_t index, bool extensible,
                                const RenderOptions& options) {
  std::string out;
  Renderer(message, extensible, options).entity(out, index);
  return out;
}

}  // namespace darius::mime
