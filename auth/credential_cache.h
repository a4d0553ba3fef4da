// CredentialCache: remembers, for a while, that a user's password was verified, so that a
// client that logs in again with the same password skips the deliberately slow yescrypt
// check (tens of milliseconds of CPU). Dovecot's auth_cache and Cyrus's saslauthd -c do the
// same. Without it a server re-verifies every login of every short-lived client (mail
// checkers that connect once a minute), and logins per second are bounded by yescrypt.
//
// What is kept: per user, HMAC-SHA-256 under a random key made at start-up (never written
// anywhere) of the stored password hash and the password, and an expiry time. The stored hash
// is part of the MAC input, so changing the password (a new hash) invalidates the entry at
// once, across processes too (the user store reloads the file when it changes). Only
// successes are cached; failures always pay the full check (and the failure delay).
//
// Ownership: a value owned by whoever checks passwords (the UserStore). Thread-safety: all
// methods are safe from any thread (one mutex; no I/O under it).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace darius::auth {

class CredentialCache {
 public:
  using Clock = std::chrono::steady_clock;

  // ttl zero disables the cache; at most `max_entries` users are remembered (the oldest
  // entries go first when full).
  CredentialCache(std::chrono::seconds ttl, size_t max_entries);

  // True if `password` was verified for `user` (whose stored hash is `stored_hash`) within
  // the TTL.
  bool check(std::string_view user, std::string_view stored_hash, std::string_view password);
  void remember(std::string_view user, std::string_view stored_hash, std::string_view password);
  void forget(std::string_view user);

  void setTimeForTest(Clock::time_point now) { test_now_ = now; }

 private:
  using Mac = std::array<uint8_t, 32>;
  struct Entry {
    Mac mac;
    Clock::time_point expires;
  };
  Mac macOf(std::string_view user, std::string_view stored_hash, std::string_view password) const;
  Clock::time_point now() const { return test_now_ ? *test_now_ : Clock::now(); }

  const std::chrono::seconds ttl_;
  const size_t max_entries_;
  std::array<uint8_t, 32> key_{};
  bool disabled_ = false;
  std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;  // guarded by mu_
  std::optional<Clock::time_point> test_now_;
};

}  // namespace darius::auth
