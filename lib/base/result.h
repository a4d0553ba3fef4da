// Result<T>: either a value of type T or a non-OK Status (std::expected is C++23). Accessing the
// value of an error Result is a programming error and aborts, so callers test ok() first or
// use DARIUS_ASSIGN_OR_RETURN.
//
// Ownership: owns the T or the Status. Thread-safety: as for T.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <utility>
#include <variant>

#include "lib/base/status.h"

namespace darius::base {

template <typename T>
class [[nodiscard]] Result {
  static_assert(!std::is_same_v<std::remove_cv_t<T>, Status>, "Result<Status> makes no sense");

 public:
  // Implicit on purpose: `return value;` and `return Status::notFound(...)` both work.
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT
  Result(Status status) : v_(std::in_place_index<1>, std::move(status)) {  // NOLINT
    if (std::get<1>(v_).isOk()) {
      // An OK Status carries no value: turn the mistake into a clear error, not a crash later.
      v_.template emplace<1>(Code::kInvalid, "Result constructed from an OK status");
    }
  }

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  // The error; OK when the Result holds a value.
  Status status() const { return ok() ? Status() : std::get<1>(v_); }

  T& value() & { check(); return std::get<0>(v_); }
  const T& value() const& { check(); return std::get<0>(v_); }
  T&& value() && { check(); return std::get<0>(std::move(v_)); }

  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  template <typename U>
  T valueOr(U&& fallback) const& {
    return ok() ? std::get<0>(v_) : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  void check() const {
    if (!ok()) {
      std::fprintf(stderr, "darius: value() of an error Result: %s\n",
                   std::get<1>(v_).toString().c_str());
      std::abort();
    }
  }

  std::variant<T, Status> v_;
};

}  // namespace darius::base

#define DARIUS_CONCAT_INNER_(a, b) a##b
#define DARIUS_CONCAT_(a, b) DARIUS_CONCAT_INNER_(a, b)

// DARIUS_ASSIGN_OR_RETURN(auto fd, openFile(path)); declares/assigns lhs or returns the error.
#define DARIUS_ASSIGN_OR_RETURN(lhs, expr) \
  DARIUS_ASSIGN_OR_RETURN_IMPL_(DARIUS_CONCAT_(darius_result_, __LINE__), lhs, expr)
#define DARIUS_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(tmp).value()
