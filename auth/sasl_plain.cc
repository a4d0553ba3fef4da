// PLAIN (RFC 4616): one message, [authzid] NUL authcid NUL passwd.

#include "auth/sasl_mechanisms.h"
#include "auth/user_store.h"

namespace darius::auth::internal {
namespace {

class PlainServer final : public SaslServer {
 public:
  explicit PlainServer(const SaslContext& ctx) : users_(ctx.users), may_act_as_(ctx.may_act_as) {}

  Step start(std::optional<std::string_view> initial_response) override {
    if (state_ != Phase::kNew) return fail(base::Status::invalid("exchange already started"));
    state_ = Phase::kWaiting;
    // PLAIN is client-first: without an initial response, ask for it with an empty challenge.
    if (!initial_response) return continueWith("");
    return next(*initial_response);
  }

  Step next(std::string_view response) override {
    // A call out of turn fails without disturbing the outcome of the exchange.
    if (state_ != Phase::kWaiting) return fail(base::Status::invalid("exchange is not waiting"));
    if (auto s = checkResponseSize(response); !s.isOk()) return finish(fail(std::move(s)));
    size_t nul1 = response.find('\0');
    size_t nul2 = nul1 == std::string_view::npos ? nul1 : response.find('\0', nul1 + 1);
    if (nul2 == std::string_view::npos) {
      return finish(
          fail(base::Status::invalid("PLAIN: expected authzid NUL authcid NUL password")));
    }
    if (response.find('\0', nul2 + 1) != std::string_view::npos) {
      return finish(fail(base::Status::invalid("PLAIN: NUL in password")));
    }
    std::string_view authzid = response.substr(0, nul1);
    std::string_view authcid = response.substr(nul1 + 1, nul2 - nul1 - 1);
    std::string_view password = response.substr(nul2 + 1);
    if (authcid.empty()) return finish(fail(base::Status::invalid("PLAIN: empty user name")));
    if (password.empty()) return finish(fail(base::Status::invalid("PLAIN: empty password")));
    if (!isValidUtf8(authzid) || !isValidUtf8(authcid) || !isValidUtf8(password)) {
      return finish(fail(base::Status::invalid("PLAIN: not UTF-8")));
    }
    auto ok = users_->checkPassword(authcid, password);
    if (!ok.ok()) {
      return finish(fail(base::Status::temporary("user store: " + ok.status().toString())));
    }
    if (!*ok) return finish(fail(authenticationFailed()));
    authcid_ = std::string(authcid);
    user_ = authcid_;
    if (!authzid.empty() && authzid != authcid) {
      // Proxy authorization: only whom the protocol's policy lets act as `authzid` (admins),
      // and only as a user that exists.
      if (!may_act_as_ || !may_act_as_(authcid, authzid) || !users_->lookup(authzid).ok()) {
        user_.clear();
        return finish(fail(base::Status::permission("authorization identity not allowed")));
      }
      user_ = std::string(authzid);
    }
    return finish(succeed());
  }

  const std::string& authenticatedUser() const override { return user_; }
  const std::string& authenticationId() const override { return authcid_; }

 private:
  enum class Phase { kNew, kWaiting, kDone };

  Step finish(Step s) {
    state_ = Phase::kDone;
    return s;
  }

  UserStore* users_;
  std::function<bool(std::string_view, std::string_view)> may_act_as_;
  Phase state_ = Phase::kNew;
  std::string user_;    // the authorization identity
  std::string authcid_;
};

}  // namespace

std::unique_ptr<SaslServer> makePlainServer(const SaslContext& ctx) {
  return std::make_unique<PlainServer>(ctx);
}

}  // namespace darius::auth::internal
