// The SASL mechanisms behind makeSaslServer() (sasl.h), one .cc file each, and the helpers
// they share. Protocol code uses sasl.h; this header is for sasl.cc and for tests, which
// need the SCRAM knobs (a fixed server nonce, SHA-1 for the RFC 5802 vector, and secrets
// that do not come from a UserStore).
//
// Ownership and thread-safety: as in sasl.h.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "auth/sasl.h"
#include "auth/scram.h"
#include "lib/base/result.h"

namespace darius::auth::internal {

SaslServer::Step continueWith(std::string challenge);
SaslServer::Step succeed(std::string additional_data = {});
SaslServer::Step fail(base::Status error, std::string server_error = {});
// The one failure text for wrong passwords and unknown users alike.
base::Status authenticationFailed();
// kTooBig for a response over kMaxSaslResponseBytes, else OK.
base::Status checkResponseSize(std::string_view response);
// True if `b` is a channel binding the server can offer -PLUS with (a known type, some data).
bool channelBindingUsable(const ChannelBinding& b);
// Strict UTF-8 (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF).
bool isValidUtf8(std::string_view s);

std::unique_ptr<SaslServer> makePlainServer(const SaslContext& ctx);
std::unique_ptr<SaslServer> makeLoginServer(const SaslContext& ctx);

struct ScramOptions {
  ScramDigest digest = ScramDigest::kSha256;
  bool plus = false;  // SCRAM-...-PLUS: channel binding required
  // The server's part of the nonce; empty means 18 fresh random bytes, base64-encoded.
  // Tests fix it to replay the RFC vectors; it must be printable ASCII without ','.
  std::string server_nonce;
  // Where a user's secrets come from; empty means ctx.users->lookup(user)->scram_sha256.
  // kNotFound means "unknown user"; any other error fails the exchange with kTemporary.
  std::function<base::Result<ScramSecrets>(const std::string& user)> secrets;
};
std::unique_ptr<SaslServer> makeScramServer(const SaslContext& ctx, ScramOptions options);

}  // namespace darius::auth::internal
