// The structured MIME header fields that shape BODYSTRUCTURE: Content-Type (RFC 2045 §5),
// Content-Disposition (RFC 2183), Content-Language (RFC 3282), Content-Transfer-Encoding
// (RFC 2045 §6), and the parameter lists they share, with RFC 2231 continuations ("name*0",
// "name*1*") joined and charset/language ("name*=utf-8'en'%E2%82%AC") decoded.
//
// Parameters keep two faces: the IMAP one (RFC 9051 §7.5.2: continuations joined, an extended
// value returned as parameter "name*" in its charset'language'percent form, as sent) and the
// decoded UTF-8 one for SEARCH and display (paramText).
//
// Leniency for real mail: comments anywhere, a missing ';' between parameters, an unquoted
// value with spaces ("name=My File.pdf") taken up to the next ';', junk skipped. A
// Content-Type without a valid type "/" subtype is invalid as a whole (nullopt), and the
// caller applies RFC 2045 §5.2's default.
//
// Thread-safety: pure functions; results own their strings.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace darius::mime {

struct Param {
  std::string name;       // attribute as written, without the RFC 2231 "*" / "*N" suffixes
  std::string value;      // plain: the unquoted value; extended: the percent-decoded octets
  bool extended = false;  // RFC 2231 charset'language'value form (the name had a final "*")
  std::string charset;    // extended only; may be empty
  std::string language;   // extended only; may be empty
  // Extended only: the value in RFC 2231 form as the message has it, sections joined, which
  // is what BODYSTRUCTURE passes on (imapParamValue).
  std::string sent;
};

struct ContentType {
  std::string type;     // as written ("text", "Multipart")
  std::string subtype;  // as written
  std::vector<Param> params;
};

struct Disposition {
  std::string type;  // as written ("attachment")
  std::vector<Param> params;
};

// nullopt when the value has no valid type "/" subtype.
std::optional<ContentType> parseContentType(std::string_view value);
// nullopt when the value has no disposition type token.
std::optional<Disposition> parseDisposition(std::string_view value);
// A parameter list: "; a=b; c*0=d; c*1=e" (leading ';' optional).
std::vector<Param> parseParams(std::string_view text);
// The mechanism of a Content-Transfer-Encoding value (RFC 2045 §6.1), as written: one token
// with only comments and white space around it. nullopt for anything else ("8 bit",
// "text/html", "quoted-printable;", "base64; x=y"): no encoding a client could rely on, so
// the part counts as having none (7BIT), as Dovecot and Cyrus both treat it. Everything that
// undoes an encoding must use this, so that BODYSTRUCTURE and decoding never disagree.
std::optional<std::string> parseTransferEncoding(std::string_view value);
// Language tags of a Content-Language value, comments and white space removed.
std::vector<std::string> parseLanguageList(std::string_view value);

// The first parameter called `name` (case-insensitive), plain or extended.
const Param* findParam(const std::vector<Param>& params, std::string_view name);

// The IMAP rendering of a parameter: name (with a final "*" when extended) and value. An
// extended value is passed on as sent, not decoded and encoded again (what Dovecot and Cyrus
// do): an unsectioned "name*" value exactly as written; sections joined in order, extended
// ones as written, plain ones percent-encoded (RFC 2231 §7 attribute-chars stay) so that the
// whole is still one RFC 2231 value, with "''" in front when the first section is plain.
std::string imapParamName(const Param& p);
std::string imapParamValue(const Param& p);

// The parameter's text as UTF-8: an extended value converted from its charset (as it is when
// the charset is unknown or absent), a plain value with RFC 2047 encoded words decoded (many
// mailers put them there, against RFC 2047 §5).
std::string paramText(const Param& p);

}  // namespace darius::mime
