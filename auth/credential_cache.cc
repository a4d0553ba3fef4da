#include "auth/credential_cache.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <algorithm>

namespace darius::auth {

CredentialCache::CredentialCache(std::chrono::seconds ttl, size_t max_entries)
    : ttl_(ttl), max_entries_(max_entries) {
  // Without a secret key the MACs could be recomputed by anyone: rather than weaken the
  // cache, it then caches nothing.
  disabled_ = RAND_bytes(key_.data(), static_cast<int>(key_.size())) != 1;
}

CredentialCache::Mac CredentialCache::macOf(std::string_view user, std::string_view stored_hash,
                                            std::string_view password) const {
  std::string input;
  input.reserve(user.size() + stored_hash.size() + password.size() + 2);
  input.append(user).push_back('\0');
  input.append(stored_hash).push_back('\0');
  input.append(password);
  Mac mac{};
  unsigned int len = 0;
  HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()),
       reinterpret_cast<const unsigned char*>(input.data()), input.size(), mac.data(), &len);
  OPENSSL_cleanse(input.data(), input.size());
  return mac;
}

bool CredentialCache::check(std::string_view user, std::string_view stored_hash,
                            std::string_view password) {
  if (disabled_ || ttl_.count() <= 0 || max_entries_ == 0) return false;
  Mac mac = macOf(user, stored_hash, password);
  std::lock_guard<std::mutex> g(mu_);
  auto it = entries_.find(std::string(user));
  if (it == entries_.end()) return false;
  if (it->second.expires <= now()) {
    entries_.erase(it);
    return false;
  }
  return CRYPTO_memcmp(it->second.mac.data(), mac.data(), mac.size()) == 0;
}

void CredentialCache::remember(std::string_view user, std::string_view stored_hash,
                               std::string_view password) {
  if (disabled_ || ttl_.count() <= 0 || max_entries_ == 0) return;
  Mac mac = macOf(user, stored_hash, password);
  std::lock_guard<std::mutex> g(mu_);
  if (entries_.size() >= max_entries_ && !entries_.count(std::string(user))) {
    // Full: drop expired entries, and if none, the one closest to expiry.
    Clock::time_point t = now();
    for (auto it = entries_.begin(); it != entries_.end();) {
      it = it->second.expires <= t ? entries_.erase(it) : std::next(it);
    }
    if (entries_.size() >= max_entries_) {
      auto oldest = std::min_element(entries_.begin(), entries_.end(), [](const auto& a, const auto& b) {
        return a.second.expires < b.second.expires;
      });
      entries_.erase(oldest);
    }
  }
  entries_[std::string(user)] = Entry{mac, now() + ttl_};
}

void CredentialCache::forget(std::string_view user) {
  std::lock_guard<std::mutex> g(mu_);
  entries_.erase(std::string(user));
}

}  // namespace darius::auth
