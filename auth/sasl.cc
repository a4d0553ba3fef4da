#include "auth/sasl.h"

#include "lib/base/utf8.h"

#include <cctype>

#include "auth/sasl_mechanisms.h"

namespace darius::auth {
namespace internal {

SaslServer::Step continueWith(std::string challenge) {
  return {SaslServer::State::kContinue, std::move(challenge), base::Status::ok()};
}

SaslServer::Step succeed(std::string additional_data) {
  return {SaslServer::State::kSuccess, std::move(additional_data), base::Status::ok()};
}

SaslServer::Step fail(base::Status error, std::string server_error) {
  return {SaslServer::State::kFailure, std::move(server_error), std::move(error)};
}

base::Status authenticationFailed() { return base::Status::permission("authentication failed"); }

base::Status checkResponseSize(std::string_view response) {
  if (response.size() > kMaxSaslResponseBytes) {
    return base::Status::tooBig("SASL response longer than " +
                                std::to_string(kMaxSaslResponseBytes) + " bytes");
  }
  return base::Status::ok();
}

bool channelBindingUsable(const ChannelBinding& b) {
  return (b.type == "tls-exporter" || b.type == "tls-server-end-point") && !b.data.empty();
}

bool isValidUtf8(std::string_view s) { return base::isValidUtf8(s); }

}  // namespace internal

namespace {

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(a[i])) !=
        std::toupper(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

bool plaintextAllowed(const SaslContext& ctx) { return ctx.tls_active || ctx.allow_plaintext; }

}  // namespace

std::vector<std::string> offeredMechanisms(const SaslContext& ctx) {
  std::vector<std::string> out;
  if (internal::channelBindingUsable(ctx.binding)) out.emplace_back("SCRAM-SHA-256-PLUS");
  out.emplace_back("SCRAM-SHA-256");
  if (plaintextAllowed(ctx)) {
    out.emplace_back("PLAIN");
    out.emplace_back("LOGIN");
  }
  return out;
}

base::Result<std::unique_ptr<SaslServer>> makeSaslServer(std::string_view mechanism,
                                                         const SaslContext& ctx) {
  if (ctx.users == nullptr) return base::Status::invalid("SASL context without a user store");
  const std::string shown(mechanism.substr(0, 64));
  if (equalsIgnoreCase(mechanism, "PLAIN") || equalsIgnoreCase(mechanism, "LOGIN")) {
    if (!plaintextAllowed(ctx)) {
      return base::Status::permission("mechanism " + shown +
                                      " requires TLS (plaintext passwords not allowed)");
    }
    return equalsIgnoreCase(mechanism, "PLAIN") ? internal::makePlainServer(ctx)
                                                : internal::makeLoginServer(ctx);
  }
  if (equalsIgnoreCase(mechanism, "SCRAM-SHA-256")) {
    return internal::makeScramServer(ctx, internal::ScramOptions{});
  }
  if (equalsIgnoreCase(mechanism, "SCRAM-SHA-256-PLUS")) {
    if (!internal::channelBindingUsable(ctx.binding)) {
      return base::Status::notSupported("SCRAM-SHA-256-PLUS requires TLS channel binding");
    }
    internal::ScramOptions options;
    options.plus = true;
    return internal::makeScramServer(ctx, std::move(options));
  }
  return base::Status::notSupported("unknown SASL mechanism " + shown);
}

}  // namespace darius::auth
