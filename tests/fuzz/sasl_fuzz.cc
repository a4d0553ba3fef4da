// Fuzzes the server side of every SASL mechanism with hostile client messages (network
// input). The first byte picks the mechanism and whether an initial response is sent; the rest
// is split at NUL-free '\x1f' bytes into successive client messages. SCRAM gets fixed secrets
// and a fixed nonce so the fuzzer can reach the proof check.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "auth/sasl.h"
#include "auth/sasl_mechanisms.h"
#include "auth/scram.h"

using namespace darius;

namespace {
const auth::ScramSecrets& secrets() {
  static const auth::ScramSecrets s = [] {
    auto r = auth::deriveScramSecrets(auth::ScramDigest::kSha256, "pencil", "saltsalt", 4096);
    return r.ok() ? *r : auth::ScramSecrets{};
  }();
  return s;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const unsigned sel = data[0];
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  auth::SaslContext ctx;
  ctx.tls_active = true;
  ctx.allow_plaintext = true;
  ctx.binding = {"tls-exporter", std::string(32, 'x')};
  std::unique_ptr<auth::SaslServer> server;
  switch (sel % 4) {
    case 0:
    case 1: {
      auth::internal::ScramOptions o;
      o.plus = sel % 4 == 1;
      o.server_nonce = "3rfcNHYJY1ZVvWVs7j";
      o.secrets = [](const std::string& user) -> base::Result<auth::ScramSecrets> {
        if (user == "user") return secrets();
        return base::Status::notFound("no such user");
      };
      server = auth::internal::makeScramServer(ctx, std::move(o));
      break;
    }
    default:
      // PLAIN and LOGIN need a user store only once a complete message arrives; without one
      // makeSaslServer refuses, so parse-level fuzzing goes through SCRAM above.
      return 0;
  }
  std::optional<std::string_view> initial;
  size_t cut = rest.find('\x1f');
  std::string_view first = rest.substr(0, cut);
  if (sel & 0x80) initial = first;
  auto step = server->start(initial);
  size_t pos = (sel & 0x80) ? (cut == std::string_view::npos ? rest.size() : cut + 1) : 0;
  for (int rounds = 0; step.state == auth::SaslServer::State::kContinue && rounds < 8; ++rounds) {
    size_t next = rest.find('\x1f', pos);
    std::string_view msg = pos <= rest.size() ? rest.substr(pos, next - pos) : std::string_view();
    step = server->next(msg);
    if (next == std::string_view::npos) break;
    pos = next + 1;
  }
  return 0;
}
