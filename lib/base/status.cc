#include "lib/base/status.h"

#include <cerrno>
#include <cstring>

namespace darius::base {

std::string_view codeName(Code code) {
  switch (code) {
    case Code::kOk: return "ok";
    case Code::kNotFound: return "not_found";
    case Code::kExists: return "exists";
    case Code::kPermission: return "permission";
    case Code::kOverQuota: return "over_quota";
    case Code::kLocked: return "locked";
    case Code::kExpunged: return "expunged";
    case Code::kTooBig: return "too_big";
    case Code::kInvalid: return "invalid";
    case Code::kNotSupported: return "not_supported";
    case Code::kCorruption: return "corruption";
    case Code::kIoError: return "io_error";
    case Code::kTemporary: return "temporary";
  }
  return "unknown";
}

Status Status::fromErrno(int err, std::string_view what) {
  std::string msg(what);
  msg += ": ";
  char buf[128];
  // GNU strerror_r returns a pointer that may or may not be buf.
  msg += strerror_r(err, buf, sizeof buf);
  Code code = Code::kIoError;
  switch (err) {
    case ENOENT: case ENOTDIR: code = Code::kNotFound; break;
    case EEXIST: case ENOTEMPTY: code = Code::kExists; break;
    case EACCES: case EPERM: case EROFS: code = Code::kPermission; break;
    case EWOULDBLOCK: code = Code::kLocked; break;
    case EINVAL: case ENAMETOOLONG: case ELOOP: code = Code::kInvalid; break;
    case EFBIG: code = Code::kTooBig; break;
    case EMFILE: case ENFILE: case ENOMEM: case EINTR: case ENOBUFS: case ETIMEDOUT:
      code = Code::kTemporary; break;
    case EDQUOT: code = Code::kOverQuota; break;
    default: break;
  }
  return Status(code, std::move(msg));
}

std::string Status::toString() const {
  if (isOk()) return "ok";
  std::string s(codeName(code_));
  if (!message_.empty()) {
    s += ": ";
    s += message_;
  }
  return s;
}

Status Status::withContext(std::string_view context) const {
  if (isOk()) return *this;
  std::string m(context);
  if (!message_.empty()) {
    m += ": ";
    m += message_;
  }
  return Status(code_, std::move(m));
}

}  // namespace darius::base
