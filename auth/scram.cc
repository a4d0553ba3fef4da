#include "auth/scram.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <unicode/usprep.h>
#include <unicode/ustring.h>

#include <climits>
#include <memory>
#include <vector>

namespace darius::auth {
namespace {

const EVP_MD* evpOf(ScramDigest digest) {
  return digest == ScramDigest::kSha1 ? EVP_sha1() : EVP_sha256();
}

const char* nameOf(ScramDigest digest) { return digest == ScramDigest::kSha1 ? "SHA1" : "SHA256"; }

// ICU caches profiles and hands the same immutable object to every opener in every thread,
// so one shared profile is safe to use concurrently. It is opened once for the life of the
// process and never closed (closing would race with late callers at exit).
const UStringPrepProfile* saslPrepProfile(UErrorCode* err) {
  static UErrorCode open_err = U_ZERO_ERROR;
  static UStringPrepProfile* profile = usprep_openByType(USPREP_RFC4013_SASLPREP, &open_err);
  *err = open_err;
  return profile;
}

bool isPrintableAscii(std::string_view s) {
  for (char c : s) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

}  // namespace

size_t scramDigestSize(ScramDigest digest) { return digest == ScramDigest::kSha1 ? 20 : 32; }

base::Result<std::string> saslPrep(std::string_view utf8) {
  // Fast path: SASLprep maps no printable ASCII character, and NFKC leaves ASCII alone.
  if (isPrintableAscii(utf8)) {
    if (utf8.empty()) return base::Status::invalid("SASLprep: empty string");
    return std::string(utf8);
  }
  if (utf8.size() > 64 * 1024) return base::Status::invalid("SASLprep: string too long");
  UErrorCode err = U_ZERO_ERROR;
  int32_t n16 = 0;
  u_strFromUTF8(nullptr, 0, &n16, utf8.data(), static_cast<int32_t>(utf8.size()), &err);
  if (err != U_BUFFER_OVERFLOW_ERROR && U_FAILURE(err)) {
    return base::Status::invalid("SASLprep: invalid UTF-8");
  }
  err = U_ZERO_ERROR;
  std::vector<UChar> src(static_cast<size_t>(n16) + 1);
  u_strFromUTF8(src.data(), n16 + 1, &n16, utf8.data(), static_cast<int32_t>(utf8.size()), &err);
  if (U_FAILURE(err)) return base::Status::invalid("SASLprep: invalid UTF-8");

  const UStringPrepProfile* profile = saslPrepProfile(&err);
  if (profile == nullptr || U_FAILURE(err)) {
    return base::Status::temporary(std::string("SASLprep: ICU profile unavailable: ") +
                                   u_errorName(err));
  }
  // NFKC can expand a code point many times over (U+FDFA becomes 18), hence the retry.
  std::vector<UChar> dst(src.size() * 4 + 16);
  int32_t n = 0;
  for (int attempt = 0; attempt < 2; ++attempt) {
    err = U_ZERO_ERROR;
    UParseError perr;
    n = usprep_prepare(profile, src.data(), n16, dst.data(), static_cast<int32_t>(dst.size()),
                       USPREP_ALLOW_UNASSIGNED, &perr, &err);
    if (err == U_BUFFER_OVERFLOW_ERROR) {
      dst.resize(static_cast<size_t>(n) + 1);
      continue;
    }
    break;
  }
  if (err == U_STRINGPREP_PROHIBITED_ERROR) {
    return base::Status::invalid("SASLprep: prohibited character");
  }
  if (err == U_STRINGPREP_CHECK_BIDI_ERROR) {
    return base::Status::invalid("SASLprep: mixed right-to-left and left-to-right text");
  }
  if (U_FAILURE(err)) {
    return base::Status::invalid(std::string("SASLprep failed: ") + u_errorName(err));
  }
  if (n == 0) return base::Status::invalid("SASLprep: string is empty after mapping");
  std::string out;
  int32_t n8 = 0;
  err = U_ZERO_ERROR;
  u_strToUTF8(nullptr, 0, &n8, dst.data(), n, &err);
  err = U_ZERO_ERROR;
  out.resize(static_cast<size_t>(n8));
  u_strToUTF8(out.data(), n8, &n8, dst.data(), n, &err);
  if (U_FAILURE(err)) return base::Status::invalid("SASLprep: cannot convert back to UTF-8");
  return out;
}

base::Result<std::string> scramHash(ScramDigest digest, std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), md, &len, evpOf(digest), nullptr) != 1) {
    return base::Status::temporary("EVP_Digest failed");
  }
  return std::string(reinterpret_cast<char*>(md), len);
}

base::Result<std::string> scramHmac(ScramDigest digest, std::string_view key,
                                    std::string_view data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  size_t len = 0;
  // EVP_Q_mac: a one-shot HMAC that owns no object we would have to free.
  if (EVP_Q_mac(nullptr, "HMAC", nullptr, nameOf(digest), nullptr, key.data(), key.size(),
                reinterpret_cast<const unsigned char*>(data.data()), data.size(), mac, sizeof mac,
                &len) == nullptr) {
    return base::Status::temporary("HMAC failed");
  }
  return std::string(reinterpret_cast<char*>(mac), len);
}

base::Result<std::string> scramSaltedPassword(ScramDigest digest, std::string_view prepared,
                                              std::string_view salt, uint32_t iterations) {
  if (iterations == 0 || iterations > static_cast<uint32_t>(INT_MAX)) {
    return base::Status::invalid("SCRAM iteration count out of range");
  }
  std::string out(scramDigestSize(digest), '\0');
  if (PKCS5_PBKDF2_HMAC(prepared.data(), static_cast<int>(prepared.size()),
                        reinterpret_cast<const unsigned char*>(salt.data()),
                        static_cast<int>(salt.size()), static_cast<int>(iterations), evpOf(digest),
                        static_cast<int>(out.size()),
                        reinterpret_cast<unsigned char*>(out.data())) != 1) {
    return base::Status::temporary("PKCS5_PBKDF2_HMAC failed");
  }
  return out;
}

base::Result<ScramSecrets> deriveScramSecrets(ScramDigest digest, std::string_view password,
                                              std::string_view salt, uint32_t iterations) {
  DARIUS_ASSIGN_OR_RETURN(std::string prepared, saslPrep(password));
  DARIUS_ASSIGN_OR_RETURN(std::string salted,
                          scramSaltedPassword(digest, prepared, salt, iterations));
  OPENSSL_cleanse(prepared.data(), prepared.size());
  auto client_key = scramHmac(digest, salted, "Client Key");
  auto server_key = scramHmac(digest, salted, "Server Key");
  OPENSSL_cleanse(salted.data(), salted.size());
  if (!client_key.ok()) return client_key.status();
  if (!server_key.ok()) return server_key.status();
  auto stored_key = scramHash(digest, *client_key);
  OPENSSL_cleanse(client_key->data(), client_key->size());
  if (!stored_key.ok()) return stored_key.status();
  ScramSecrets s;
  s.salt = std::string(salt);
  s.iterations = iterations;
  s.stored_key = std::move(*stored_key);
  s.server_key = std::move(*server_key);
  return s;
}

bool scramVerifyClientProof(ScramDigest digest, std::string_view stored_key,
                            std::string_view auth_message, std::string_view proof) {
  const size_t n = scramDigestSize(digest);
  if (proof.size() != n || stored_key.size() != n) return false;
  auto signature = scramHmac(digest, stored_key, auth_message);
  if (!signature.ok()) return false;
  std::string client_key(n, '\0');
  for (size_t i = 0; i < n; ++i) client_key[i] = static_cast<char>(proof[i] ^ (*signature)[i]);
  auto computed = scramHash(digest, client_key);
  OPENSSL_cleanse(client_key.data(), client_key.size());
  if (!computed.ok()) return false;
  return CRYPTO_memcmp(computed->data(), stored_key.data(), n) == 0;
}

base::Result<std::string> scramServerSignature(ScramDigest digest, std::string_view server_key,
                                               std::string_view auth_message) {
  return scramHmac(digest, server_key, auth_message);
}

base::Result<std::string> scramClientProof(ScramDigest digest, std::string_view salted_password,
                                           std::string_view auth_message) {
  DARIUS_ASSIGN_OR_RETURN(std::string client_key, scramHmac(digest, salted_password, "Client Key"));
  DARIUS_ASSIGN_OR_RETURN(std::string stored_key, scramHash(digest, client_key));
  DARIUS_ASSIGN_OR_RETURN(std::string signature, scramHmac(digest, stored_key, auth_message));
  for (size_t i = 0; i < client_key.size(); ++i) client_key[i] ^= signature[i];
  return client_key;
}

base::Result<std::string> randomBytes(size_t n) {
  std::string out(n, '\0');
  if (n > static_cast<size_t>(INT_MAX) ||
      RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1) {
    return base::Status::temporary("RAND_bytes failed");
  }
  return out;
}

}  // namespace darius::auth
