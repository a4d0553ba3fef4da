// Status: the outcome of an operation that can fail, as a value (no exceptions cross module
// boundaries). An OK status carries no message and does not allocate. Codes are the mail
// domain's (DESIGN.md §5); each service maps them to protocol replies in one place, and the
// message is for logs and operators, never sent verbatim to an unauthenticated client.
//
// Ownership: a Status owns its message string. Thread-safety: a value type; distinct objects
// may be used from distinct threads freely, one object is not synchronised.
#pragma once

#include <string>
#include <string_view>

namespace darius::base {

enum class Code : unsigned char {
  kOk = 0,
  kNotFound,      // no such user, mailbox, message, key
  kExists,        // already exists (CREATE of an existing mailbox, a duplicate key)
  kPermission,    // not allowed: ACL, authentication failure, file permissions
  kOverQuota,     // a mail quota would be exceeded
  kLocked,        // held by someone else (POP3 maildrop, a lock that could not be taken)
  kExpunged,      // the message was expunged meanwhile
  kTooBig,        // over a configured size limit (line, literal, message)
  kInvalid,       // malformed input or argument
  kNotSupported,  // valid but not implemented or disabled by configuration
  kCorruption,    // on-disk data is damaged
  kIoError,       // the operating system refused (disk full, EIO)
  kTemporary,     // try again later (resource exhaustion, shutdown in progress)
};

// Stable lower-case name of a code ("not_found"), for logs and metrics labels.
std::string_view codeName(Code code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status ok() { return Status(); }
  static Status notFound(std::string m) { return {Code::kNotFound, std::move(m)}; }
  static Status exists(std::string m) { return {Code::kExists, std::move(m)}; }
  static Status permission(std::string m) { return {Code::kPermission, std::move(m)}; }
  static Status overQuota(std::string m) { return {Code::kOverQuota, std::move(m)}; }
  static Status locked(std::string m) { return {Code::kLocked, std::move(m)}; }
  static Status expunged(std::string m) { return {Code::kExpunged, std::move(m)}; }
  static Status tooBig(std::string m) { return {Code::kTooBig, std::move(m)}; }
  static Status invalid(std::string m) { return {Code::kInvalid, std::move(m)}; }
  static Status notSupported(std::string m) { return {Code::kNotSupported, std::move(m)}; }
  static Status corruption(std::string m) { return {Code::kCorruption, std::move(m)}; }
  static Status ioError(std::string m) { return {Code::kIoError, std::move(m)}; }
  static Status temporary(std::string m) { return {Code::kTemporary, std::move(m)}; }

  // Maps an errno value to the closest code; the message becomes "<what>: <strerror>".
  static Status fromErrno(int err, std::string_view what);

  bool isOk() const { return code_ == Code::kOk; }
  explicit operator bool() const { return isOk(); }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

  bool isNotFound() const { return code_ == Code::kNotFound; }
  bool isCorruption() const { return code_ == Code::kCorruption; }

  // "not_found: no such user" or "ok".
  std::string toString() const;

  // Returns a copy whose message is prefixed with context ("open index: ...").
  Status withContext(std::string_view context) const;

 private:
  Code code_ = Code::kOk;
  std::string message_;
};

inline bool operator==(const Status& a, const Status& b) {
  return a.code() == b.code() && a.message() == b.message();
}

}  // namespace darius::base

// Propagates a non-OK Status (or the status of a non-OK Result) to the caller.
#define DARIUS_RETURN_IF_ERROR(expr)                              \
  do {                                                            \
    ::darius::base::Status darius_status_ = (expr);               \
    if (!darius_status_.isOk()) return darius_status_;            \
  } while (0)
