// SCRAM-SHA-256 and SCRAM-SHA-256-PLUS (RFC 5802, RFC 7677), server side:
//
//   C: gs2-header client-first-message-bare     (gs2-header = "n,," / "y,," / "p=<cb>,," + authzid)
//   S: r=<cnonce+snonce>,s=<salt>,i=<iterations>
//   C: c=<base64(gs2-header + cb-data)>,r=<cnonce+snonce>[,ext],p=<proof>
//   S: v=<ServerSignature>                          (or e=<error>, RFC 5802 §7)
//
// An unknown user gets a plausible server-first message (a salt derived from the name and a
// per-process secret, the store's iteration count) and fails at the proof like a wrong
// password, so the exchange does not reveal which users exist. The fake salt changes when the
// process restarts and the iteration count is the store's current default, so a patient
// observer comparing across restarts or against old records could still tell; a persistent
// secret belongs with the db/ migration.

#include "auth/sasl_mechanisms.h"
#include "auth/user_store.h"
#include "lib/base/base64.h"
#include "lib/base/split.h"

namespace darius::auth::internal {
namespace {

constexpr size_t kServerNonceBytes = 18;  // RFC 5802 §5.1 wants it unpredictable; 144 bits
constexpr size_t kFakeSaltBytes = 16;

bool isAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// printable = %x21-2B / %x2D-7E (RFC 5802 §7)
bool isPrintableNonce(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < 0x21 || c > 0x7e || c == ',') return false;
  }
  return true;
}

bool isCbName(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!isAlpha(c) && !(c >= '0' && c <= '9') && c != '.' && c != '-') return false;
  }
  return true;
}

// attr-val = ALPHA "=" value, value = 1*value-char (any UTF-8 but NUL and ',').
bool isAttrVal(std::string_view s) { return s.size() >= 3 && isAlpha(s[0]) && s[1] == '='; }

// saslname: "=2C" stands for ',' and "=3D" for '='; any other '=' is an encoding error.
std::optional<std::string> decodeSaslName(std::string_view s) {
  if (s.empty()) return std::nullopt;
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '=') {
      out += s[i];
      continue;
    }
    std::string_view esc = s.substr(i + 1, 2);
    if (esc == "2C") {
      out += ',';
    } else if (esc == "3D") {
      out += '=';
    } else {
      return std::nullopt;
    }
    i += 2;
  }
  if (!isValidUtf8(out)) return std::nullopt;
  return out;
}

const std::string& processSecret() {
  static const std::string secret = [] {
    auto r = randomBytes(32);
    return r.ok() ? *r : std::string();
  }();
  return secret;
}

class ScramServer final : public SaslServer {
 public:
  ScramServer(const SaslContext& ctx, ScramOptions options)
      : users_(ctx.users), binding_(ctx.binding), options_(std::move(options)) {}

  Step start(std::optional<std::string_view> initial_response) override {
    if (phase_ != Phase::kNew) return fail(base::Status::invalid("exchange already started"));
    phase_ = Phase::kClientFirst;
    // SCRAM is client-first: without an initial response, ask for one with an empty challenge.
    if (!initial_response) return continueWith("");
    return next(*initial_response);
  }

  Step next(std::string_view response) override {
    if (phase_ != Phase::kClientFirst && phase_ != Phase::kClientFinal) {
      // Out of turn: fail without disturbing the outcome of the exchange.
      return fail(base::Status::invalid("exchange is not waiting"));
    }
    if (auto s = checkResponseSize(response); !s.isOk()) return finish(fail(std::move(s)));
    if (response.find('\0') != std::string_view::npos) {
      return finish(fail(base::Status::invalid("SCRAM: NUL in message"), "e=invalid-encoding"));
    }
    return phase_ == Phase::kClientFirst ? clientFirst(response) : clientFinal(response);
  }

  const std::string& authenticatedUser() const override { return authenticated_; }

 private:
  enum class Phase { kNew, kClientFirst, kClientFinal, kDone };

  Step finish(Step s) {
    phase_ = Phase::kDone;
    return s;
  }
  Step invalid(std::string what, std::string_view e = "e=other-error") {
    return finish(fail(base::Status::invalid("SCRAM: " + what), std::string(e)));
  }

  std::string mechanismName() const {
    std::string m = options_.digest == ScramDigest::kSha1 ? "SCRAM-SHA-1" : "SCRAM-SHA-256";
    return options_.plus ? m + "-PLUS" : m;
  }

  Step clientFirst(std::string_view msg) {
    // gs2-header = gs2-cbind-flag "," [authzid] ","
    size_t c1 = msg.find(',');
    size_t c2 = c1 == std::string_view::npos ? c1 : msg.find(',', c1 + 1);
    if (c2 == std::string_view::npos) return invalid("missing GS2 header");
    std::string_view flag = msg.substr(0, c1);
    std::string_view authz = msg.substr(c1 + 1, c2 - c1 - 1);
    gs2_header_ = std::string(msg.substr(0, c2 + 1));
    std::string_view bare = msg.substr(c2 + 1);

    if (flag == "n" || flag == "y") {
      cb_flag_ = flag[0];
    } else if (flag.substr(0, 2) == "p=" && isCbName(flag.substr(2))) {
      cb_flag_ = 'p';
    } else {
      return invalid("bad channel binding flag in GS2 header");
    }
    if (!authz.empty()) {
      auto a = authz.substr(0, 2) == "a=" ? decodeSaslName(authz.substr(2)) : std::nullopt;
      if (!a) return invalid("bad authorization identity in GS2 header");
      authzid_ = std::move(*a);
    }
    if (auto step = checkChannelBindingFlag(flag)) return std::move(*step);

    // client-first-message-bare = [reserved-mext ","] username "," nonce ["," extensions]
    auto attrs = base::split(bare, ',');
    if (attrs[0].substr(0, 2) == "m=") {
      return finish(fail(base::Status::notSupported("SCRAM: mandatory extension not supported"),
                         "e=extensions-not-supported"));
    }
    if (attrs.size() < 2 || attrs[0].substr(0, 2) != "n=" || attrs[1].substr(0, 2) != "r=") {
      return invalid("client-first message must start n=<user>,r=<nonce>");
    }
    auto user = decodeSaslName(attrs[0].substr(2));
    if (!user) return invalid("bad user name encoding", "e=invalid-username-encoding");
    std::string_view cnonce = attrs[1].substr(2);
    if (!isPrintableNonce(cnonce)) return invalid("client nonce is not printable ASCII");
    for (size_t i = 2; i < attrs.size(); ++i) {
      if (!isAttrVal(attrs[i])) return invalid("malformed extension attribute");
    }
    user_ = std::move(*user);
    client_first_bare_ = std::string(bare);

    if (auto step = loadSecrets()) return std::move(*step);

    std::string snonce = options_.server_nonce;
    if (snonce.empty()) {
      auto r = randomBytes(kServerNonceBytes);
      if (!r.ok()) {
        return finish(fail(base::Status::temporary("SCRAM: no random nonce"), "e=other-error"));
      }
      snonce = base::base64Encode(*r);
    }
    nonce_ = std::string(cnonce) + snonce;
    server_first_ = "r=" + nonce_ + ",s=" + base::base64Encode(secrets_.salt) +
                    ",i=" + std::to_string(secrets_.iterations);
    phase_ = Phase::kClientFinal;
    return continueWith(server_first_);
  }

  // RFC 5802 §6 (and RFC 5801 §5 for which flags go with -PLUS).
  std::optional<Step> checkChannelBindingFlag(std::string_view flag) {
    const bool server_binds = channelBindingUsable(binding_);
    if (options_.plus) {
      if (cb_flag_ != 'p') {
        return invalid(mechanismName() + " requires channel binding (GS2 flag p=)");
      }
      if (!server_binds) {
        return finish(
            fail(base::Status::notSupported("SCRAM: no channel binding on this connection"),
                 "e=channel-binding-not-supported"));
      }
      if (flag.substr(2) != binding_.type) {
        return finish(fail(base::Status::notSupported(
                               "SCRAM: channel binding type " + std::string(flag.substr(2, 64)) +
                               " not supported (have " + binding_.type + ")"),
                           "e=unsupported-channel-binding-type"));
      }
      return std::nullopt;
    }
    if (cb_flag_ == 'p') return invalid("channel binding requested without -PLUS mechanism");
    if (cb_flag_ == 'y' && server_binds) {
      // The client could bind but believes we cannot: someone stripped -PLUS from our list.
      return finish(fail(base::Status::permission(
                             "SCRAM: channel binding downgrade detected (client sent \"y\" but "
                             "the server offers -PLUS)"),
                         "e=server-does-support-channel-binding"));
    }
    return std::nullopt;
  }

  std::optional<Step> loadSecrets() {
    base::Result<ScramSecrets> found = base::Status::notFound("no such user");
    if (options_.secrets) {
      found = options_.secrets(user_);
    } else if (users_ != nullptr) {
      auto r = users_->lookup(user_);
      found = r.ok() ? base::Result<ScramSecrets>(r->scram_sha256) : r.status();
    } else {
      found = base::Status::temporary("no user store");
    }
    const size_t n = scramDigestSize(options_.digest);
    if (found.ok()) {
      secrets_ = std::move(*found);
      if (secrets_.stored_key.size() != n || secrets_.server_key.size() != n ||
          secrets_.iterations == 0 || secrets_.salt.empty()) {
        return finish(fail(base::Status::temporary("SCRAM: stored secrets of " + user_ +
                                                   " do not fit " + mechanismName()),
                           "e=other-error"));
      }
      return std::nullopt;
    }
    if (!found.status().isNotFound()) {
      return finish(fail(base::Status::temporary("SCRAM: user store: " + found.status().toString()),
                         "e=other-error"));
    }
    // Unknown user: carry on with secrets no proof can match (see the file comment).
    unknown_user_ = true;
    const std::string& secret = processSecret();
    auto salt = scramHmac(ScramDigest::kSha256, secret, "salt\n" + user_);
    auto keys = randomBytes(2 * n);
    if (secret.empty() || !salt.ok() || !keys.ok()) {
      return finish(fail(base::Status::temporary("SCRAM: no randomness"), "e=other-error"));
    }
    secrets_.salt = salt->substr(0, kFakeSaltBytes);
    secrets_.iterations = users_ != nullptr ? users_->scramIterations() : 4096;
    secrets_.stored_key = keys->substr(0, n);
    secrets_.server_key = keys->substr(n);
    return std::nullopt;
  }

  Step clientFinal(std::string_view msg) {
    // client-final-message = c=...,r=...[,extensions],p=...   (the proof comes last)
    size_t pp = msg.rfind(",p=");
    if (pp == std::string_view::npos) return invalid("client-final message has no proof (p=)");
    std::string_view without_proof = msg.substr(0, pp);
    std::string_view proof_b64 = msg.substr(pp + 3);
    if (proof_b64.find(',') != std::string_view::npos) {
      return invalid("the proof (p=) must be the last attribute");
    }
    auto attrs = base::split(without_proof, ',');
    if (attrs.size() < 2 || attrs[0].substr(0, 2) != "c=" || attrs[1].substr(0, 2) != "r=") {
      return invalid("client-final message must start c=<binding>,r=<nonce>");
    }
    for (size_t i = 2; i < attrs.size(); ++i) {
      if (!isAttrVal(attrs[i])) return invalid("malformed extension attribute");
    }
    auto cbind = base::base64Decode(attrs[0].substr(2));
    if (!cbind.ok()) {
      return invalid("channel binding (c=) is not valid base64", "e=invalid-encoding");
    }
    auto proof = base::base64Decode(proof_b64);
    if (!proof.ok()) return invalid("proof (p=) is not valid base64", "e=invalid-encoding");
    if (proof->size() != scramDigestSize(options_.digest)) {
      return invalid("proof (p=) has the wrong length", "e=invalid-encoding");
    }
    if (attrs[1].substr(2) != nonce_) return invalid("nonce (r=) does not match");
    std::string expected = gs2_header_;
    if (cb_flag_ == 'p') expected += binding_.data;
    if (*cbind != expected) {
      return finish(fail(base::Status::permission("SCRAM: channel bindings don't match"),
                         "e=channel-bindings-dont-match"));
    }

    const std::string auth_message =
        client_first_bare_ + "," + server_first_ + "," + std::string(without_proof);
    bool ok = scramVerifyClientProof(options_.digest, secrets_.stored_key, auth_message, *proof);
    if (!ok || unknown_user_) return finish(fail(authenticationFailed(), "e=invalid-proof"));
    // Proxy authorization (acting as someone else) is not offered.
    if (!authzid_.empty() && authzid_ != user_) {
      return finish(
          fail(base::Status::permission("authorization identity not allowed"), "e=other-error"));
    }
    auto signature = scramServerSignature(options_.digest, secrets_.server_key, auth_message);
    if (!signature.ok()) {
      return finish(fail(base::Status::temporary("SCRAM: " + signature.status().toString()),
                         "e=other-error"));
    }
    authenticated_ = user_;
    return finish(succeed("v=" + base::base64Encode(*signature)));
  }

  UserStore* users_;
  const ChannelBinding binding_;
  const ScramOptions options_;
  Phase phase_ = Phase::kNew;

  char cb_flag_ = 'n';
  std::string gs2_header_;
  std::string authzid_;
  std::string user_;
  std::string client_first_bare_;
  std::string nonce_;
  std::string server_first_;
  ScramSecrets secrets_;
  bool unknown_user_ = false;
  std::string authenticated_;
};

}  // namespace

std::unique_ptr<SaslServer> makeScramServer(const SaslContext& ctx, ScramOptions options) {
  return std::make_unique<ScramServer>(ctx, std::move(options));
}

}  // namespace darius::auth::internal
