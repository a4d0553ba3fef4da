// Base64 (RFC 4648 §4, the standard alphabet with "=" padding), for SASL exchanges and the
// user store. The decoder is strict on purpose: SASL (RFC 4422 §3.3 via the protocol
// profiles) and SCRAM (RFC 5802 §7) want exactly one encoding of each value, so anything
// other than the canonical form — characters outside the alphabet, whitespace or line
// breaks, missing or excess padding, data after padding, non-zero pad bits — is rejected
// rather than guessed at.
//
// Ownership: pure functions on caller-owned bytes; results are returned by value.
// Thread-safety: no shared state; safe from any thread.
#pragma once

#include <string>
#include <string_view>

#include "lib/base/result.h"

namespace darius::base {

// Encodes bytes as padded base64. The empty input encodes to the empty string.
std::string base64Encode(std::string_view bytes);

// Decodes canonical padded base64; kInvalid (with the offending offset) otherwise.
// The empty string decodes to the empty string.
Result<std::string> base64Decode(std::string_view text);

}  // namespace darius::base
