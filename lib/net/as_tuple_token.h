// The completion token of the net layer's coroutines: co_await yields (error_code, results...)
// instead of throwing, so a closed or reset socket is an ordinary return, not an exception.
//
// Ownership: a stateless token. Thread-safety: immutable; safe from any thread.
#pragma once

#include <asio/experimental/as_tuple.hpp>
#include <asio/use_awaitable.hpp>

namespace darius::net {

inline constexpr auto kAsTuple = asio::experimental::as_tuple(asio::use_awaitable);

}  // namespace darius::net
