// Server-side SASL (RFC 4422) for IMAP, POP3 and ManageSieve: PLAIN (RFC 4616), LOGIN
// (draft-murchison-sasl-login), SCRAM-SHA-256 and SCRAM-SHA-256-PLUS (RFC 5802, RFC 7677).
// This layer sees raw bytes only: the protocol layers do the base64 and their framing
// (continuation lines, SASL-IR, "*" to cancel), and turn a failed Step into their reply.
//
// A SaslServer is one exchange: start(), then next() for each client response while the
// state is kContinue. After kSuccess, authenticatedUser() is the user the session acts as
// (PLAIN lets an admin act as another user, SaslContext::may_act_as);
// after kSuccess or kFailure the exchange is over and further calls fail with kInvalid.
//
// Failures carry a Status: kPermission "authentication failed" for a wrong password or an
// unknown user (the same text for both, so a client cannot tell them apart); kInvalid for a
// malformed message (the text says what is wrong); kTooBig for a response over
// kMaxSaslResponseBytes; kNotSupported for an unknown mechanism or an unsupported SCRAM
// extension or channel-binding type; kPermission for a mechanism not allowed without TLS and
// for a refused authorization identity; kTemporary if the user store could not be read.
//
// Ownership: a SaslServer copies the SaslContext except `users`, which must outlive it.
// Thread-safety: one SaslServer belongs to one session and is not synchronised; any number
// of them may run concurrently on one UserStore.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/result.h"

namespace darius::auth {

class UserStore;

// Channel binding data of the TLS connection (RFC 5056): "tls-exporter" (RFC 9266; the one
// TLS 1.3 supports) or "tls-server-end-point" (RFC 5929). An empty type means none, and then
// no -PLUS mechanism is offered.
struct ChannelBinding {
  std::string type;
  std::string data;
};

struct SaslContext {
  UserStore* users = nullptr;
  bool tls_active = false;
  bool allow_plaintext = false;  // allow PLAIN/LOGIN without TLS (configuration)
  ChannelBinding binding;
  // Proxy authentication (PLAIN's authorization identity, RFC 4616 §2): whether the
  // authenticated `authcid` may act as `authzid` (the protocol asks its Admins). Null: nobody
  // may. The authzid must also be a user of the store.
  std::function<bool(std::string_view authcid, std::string_view authzid)> may_act_as;
};

// Longest single client response accepted (RFC 4422 leaves the limit to the server).
inline constexpr size_t kMaxSaslResponseBytes = 16 * 1024;

class SaslServer {
 public:
  enum class State { kContinue, kSuccess, kFailure };
  struct Step {
    State state = State::kFailure;
    // kContinue: the challenge to send. kSuccess: additional data with success (the SCRAM
    // server-final message "v=..."), empty if none. kFailure: for SCRAM, the server-error
    // message ("e=...", RFC 5802 §7) when the RFC has a code for the failure; a protocol
    // that can send data with a failure may send it, IMAP and POP3 just fail.
    std::string challenge;
    base::Status error;  // set for kFailure
  };

  virtual ~SaslServer() = default;
  // `initial_response` is the SASL-IR initial response; nullopt when the client sent none
  // (an empty one is a zero-length response, which some mechanisms reject).
  virtual Step start(std::optional<std::string_view> initial_response) = 0;
  virtual Step next(std::string_view response) = 0;
  // The user the session acts as (the authorization identity); valid after kSuccess, empty
  // before.
  virtual const std::string& authenticatedUser() const = 0;
  // Whose credentials were checked: authenticatedUser() unless an admin acts as another user.
  virtual const std::string& authenticationId() const { return authenticatedUser(); }
};

// What to advertise, strongest first: SCRAM-SHA-256-PLUS (only with a supported channel
// binding), SCRAM-SHA-256, then PLAIN and LOGIN only when tls_active || allow_plaintext.
std::vector<std::string> offeredMechanisms(const SaslContext& ctx);

// A server for `mechanism` (case-insensitive). kNotSupported for an unknown mechanism or
// -PLUS without channel binding; kPermission for PLAIN/LOGIN without TLS when plaintext is
// not allowed; kInvalid without a user store.
base::Result<std::unique_ptr<SaslServer>> makeSaslServer(std::string_view mechanism,
                                                         const SaslContext& ctx);

}  // namespace darius::auth
