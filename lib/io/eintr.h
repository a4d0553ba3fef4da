// retryOnEintr(): repeats a syscall that failed with EINTR, the one rule every wrapper in
// lib/io follows (a signal handler installed by any part of the process makes any blocking
// syscall liable to return EINTR). Internal to lib/io and its tests.
//
// Ownership: none. Thread-safety: reentrant; errno is thread-local.
#pragma once

#include <cerrno>

namespace darius::io {

template <typename F>
auto retryOnEintr(F&& call) {
  decltype(call()) rc;
  do {
    rc = call();
  } while (rc == -1 && errno == EINTR);
  return rc;
}

}  // namespace darius::io
