// LOGIN (draft-murchison-sasl-login-00): the server prompts "Username:" then "Password:" and
// the client answers each with the bare value. Obsolete but still what some clients (older
// Outlook, many devices) use; offered only where PLAIN is.

#include "auth/sasl_mechanisms.h"
#include "auth/user_store.h"

namespace darius::auth::internal {
namespace {

class LoginServer final : public SaslServer {
 public:
  explicit LoginServer(UserStore* users) : users_(users) {}

  Step start(std::optional<std::string_view> initial_response) override {
    if (phase_ != Phase::kNew) return fail(base::Status::invalid("exchange already started"));
    phase_ = Phase::kUser;
    // The draft lets a client put the user name in the initial response; an empty one is
    // treated as none (a user name cannot be empty).
    if (initial_response && !initial_response->empty()) return next(*initial_response);
    return continueWith("Username:");
  }

  Step next(std::string_view response) override {
    // A call out of turn fails without disturbing the outcome of the exchange.
    if (phase_ != Phase::kUser && phase_ != Phase::kPassword) {
      return fail(base::Status::invalid("exchange is not waiting"));
    }
    if (auto s = checkResponseSize(response); !s.isOk()) return finish(fail(std::move(s)));
    switch (phase_) {
      case Phase::kUser:
        if (response.empty()) return finish(fail(base::Status::invalid("LOGIN: empty user name")));
        if (response.find('\0') != std::string_view::npos || !isValidUtf8(response)) {
          return finish(fail(base::Status::invalid("LOGIN: user name is not UTF-8 text")));
        }
        user_ = std::string(response);
        phase_ = Phase::kPassword;
        return continueWith("Password:");
      case Phase::kPassword: {
        if (response.empty()) return finish(fail(base::Status::invalid("LOGIN: empty password")));
        if (response.find('\0') != std::string_view::npos) {
          return finish(fail(base::Status::invalid("LOGIN: NUL in password")));
        }
        auto ok = users_->checkPassword(user_, response);
        if (!ok.ok()) {
          return finish(fail(base::Status::temporary("user store: " + ok.status().toString())));
        }
        if (!*ok) return finish(fail(authenticationFailed()));
        phase_ = Phase::kDone;
        authenticated_ = user_;
        return succeed();
      }
      case Phase::kNew:
      case Phase::kDone:
        break;
    }
    return fail(base::Status::invalid("exchange is not waiting"));
  }

  const std::string& authenticatedUser() const override { return authenticated_; }

 private:
  enum class Phase { kNew, kUser, kPassword, kDone };

  Step finish(Step s) {
    phase_ = Phase::kDone;
    return s;
  }

  UserStore* users_;
  Phase phase_ = Phase::kNew;
  std::string user_;           // the name given, before it is verified
  std::string authenticated_;  // set only on success
};

}  // namespace

std::unique_ptr<SaslServer> makeLoginServer(const SaslContext& ctx) {
  return std::make_unique<LoginServer>(ctx.users);
}

}  // namespace darius::auth::internal
