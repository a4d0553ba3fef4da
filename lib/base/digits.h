// The value of one hex or base64 digit: the lenient per-character lookups that the MIME
// decoders (quoted-printable, RFC 2047 encoded words, RFC 2231 percent-encoding, base64
// bodies) and the store's cache and quota files share. Strict whole-string decoding lives in
// base64.h.
//
// Ownership: pure functions on a char; nothing is kept.
// Thread-safety: no shared state; safe from any thread.
#pragma once

namespace darius::base {

// 0-15 for 0-9, a-f, A-F; -1 for any other character.
constexpr int hexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// 0-63 for a digit of the standard base64 alphabet (RFC 4648 §4); -1 for anything else,
// padding included.
constexpr int base64DigitValue(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace darius::base
