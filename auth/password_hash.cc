#include "auth/password_hash.h"

#include <crypt.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <cstring>
#include <memory>

namespace darius::auth {
namespace {

// struct crypt_data is ~32 KiB: too big for a coroutine or thread stack, so it lives on the
// heap. It holds the password-derived state, so it is wiped before it is freed.
struct CryptDataDeleter {
  void operator()(crypt_data* d) const {
    OPENSSL_cleanse(d, sizeof *d);
    delete d;
  }
};
using CryptData = std::unique_ptr<crypt_data, CryptDataDeleter>;

CryptData newCryptData() {
  // Value-initialised: crypt_r requires `initialized` (and the rest) to start zeroed.
  return CryptData(new crypt_data());
}

constexpr int kSaltBytes = 16;

static_assert(kMaxPasswordBytes + 1 == CRYPT_MAX_PASSPHRASE_SIZE);

}  // namespace

bool isSupportedHash(std::string_view hash) {
  if (hash.empty() || hash.find('\0') != std::string_view::npos) return false;
  std::string h(hash);
  int r = crypt_checksalt(h.c_str());
  // TOO_CHEAP means "fewer rounds than libxcrypt now recommends", still a sound method.
  return r == CRYPT_SALT_OK || r == CRYPT_SALT_TOO_CHEAP;
}

base::Result<std::string> hashPassword(std::string_view password) {
  if (password.find('\0') != std::string_view::npos) {
    return base::Status::invalid("password contains a NUL byte");
  }
  if (password.size() > kMaxPasswordBytes) {
    return base::Status::invalid("password longer than " + std::to_string(kMaxPasswordBytes) +
                                 " bytes");
  }
  unsigned char rbytes[kSaltBytes];
  if (RAND_bytes(rbytes, sizeof rbytes) != 1) {
    return base::Status::temporary("RAND_bytes failed while making a password salt");
  }
  char setting[CRYPT_GENSALT_OUTPUT_SIZE];
  if (crypt_gensalt_rn("$y$", 0, reinterpret_cast<const char*>(rbytes), sizeof rbytes, setting,
                       sizeof setting) == nullptr) {
    return base::Status::temporary("crypt_gensalt_rn($y$) failed: yescrypt unavailable?");
  }
  CryptData data = newCryptData();
  std::string pw(password);
  const char* out = crypt_r(pw.c_str(), setting, data.get());
  OPENSSL_cleanse(pw.data(), pw.size());
  // libxcrypt returns a "*"-prefixed failure token (or NULL) instead of a hash on error.
  if (out == nullptr || out[0] == '*') {
    return base::Status::temporary("crypt_r(yescrypt) failed");
  }
  return std::string(out);
}

bool verifyPassword(std::string_view password, std::string_view hash) {
  if (password.find('\0') != std::string_view::npos) return false;
  if (password.size() > kMaxPasswordBytes) return false;
  if (!isSupportedHash(hash)) return false;
  CryptData data = newCryptData();
  std::string pw(password);
  std::string setting(hash);
  const char* out = crypt_r(pw.c_str(), setting.c_str(), data.get());
  OPENSSL_cleanse(pw.data(), pw.size());
  if (out == nullptr || out[0] == '*') return false;
  size_t n = std::strlen(out);
  // The length of a hash is public (it is fixed by the method); only the bytes are compared
  // in constant time.
  return n == hash.size() && CRYPTO_memcmp(out, hash.data(), n) == 0;
}

}  // namespace darius::auth
