// bench/load: blocking TCP connection with a read buffer (see conn.h).
#include "bench/load/conn.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cerrno>
#include <cmath>
#include <cstring>

#include "bench/load/common.h"

namespace darius::bench {

namespace {

constexpr size_t kBufSize = 256 * 1024;

[[noreturn]] void sysFail(const std::string& what) {
  throw WorkloadError(what + ": " + std::strerror(errno));
}

void setTimeouts(int fd, double timeout_s) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout_s);
  tv.tv_usec = static_cast<suseconds_t>((timeout_s - std::floor(timeout_s)) * 1e6);
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

}  // namespace

Conn Conn::connectTcp(const std::string& host, int port, double timeout_s) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) sysFail("socket");
  Conn c(fd, timeout_s);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, host.c_str(), &sa.sin_addr) != 1) {
    throw HarnessError("bad IPv4 address " + host);
  }
  if (::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
    sysFail("connect " + host + ":" + std::to_string(port));
  }
  return c;
}

Conn::Conn(int fd, double timeout_s) : fd_(fd), buf_(kBufSize) { setTimeouts(fd, timeout_s); }

Conn::Conn(Conn&& o) noexcept
    : fd_(o.fd_), buf_(std::move(o.buf_)), begin_(o.begin_), end_(o.end_), bytes_read_(o.bytes_read_) {
  o.fd_ = -1;
}

Conn& Conn::operator=(Conn&& o) noexcept {
  if (this != &o) {
    close();
    fd_ = o.fd_;
    buf_ = std::move(o.buf_);
    begin_ = o.begin_;
    end_ = o.end_;
    bytes_read_ = o.bytes_read_;
    o.fd_ = -1;
  }
  return *this;
}

Conn::~Conn() { close(); }

void Conn::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void Conn::writeAll(std::string_view data) {
  std::string_view parts[] = {data};
  writeParts(parts);
}

void Conn::writeParts(std::span<const std::string_view> parts) {
  std::vector<iovec> iov;
  iov.reserve(parts.size());
  for (auto p : parts) {
    if (!p.empty()) iov.push_back({const_cast<char*>(p.data()), p.size()});
  }
  size_t i = 0;
  while (i < iov.size()) {
    ssize_t n = ::writev(fd_, iov.data() + i, static_cast<int>(std::min<size_t>(iov.size() - i, IOV_MAX)));
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) throw WorkloadError("write timed out");
      sysFail("write");
    }
    auto left = static_cast<size_t>(n);
    while (i < iov.size() && left >= iov[i].iov_len) left -= iov[i++].iov_len;
    if (i < iov.size()) {
      iov[i].iov_base = static_cast<char*>(iov[i].iov_base) + left;
      iov[i].iov_len -= left;
    }
  }
}

void Conn::fill() {
  if (begin_ == end_) begin_ = end_ = 0;
  if (end_ == buf_.size()) {
    if (begin_ > 0) {
      std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    } else {
      buf_.resize(buf_.size() * 2);  // a line longer than the buffer
    }
  }
  for (;;) {
    ssize_t n = ::read(fd_, buf_.data() + end_, buf_.size() - end_);
    if (n > 0) {
      end_ += static_cast<size_t>(n);
      bytes_read_ += static_cast<uint64_t>(n);
      return;
    }
    if (n == 0) throw WorkloadError("connection closed by server");
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) throw WorkloadError("read timed out");
    sysFail("read");
  }
}

std::string Conn::readLine() {
  size_t scanned = begin_;
  for (;;) {
    auto* nl = static_cast<char*>(std::memchr(buf_.data() + scanned, '\n', end_ - scanned));
    if (nl) {
      size_t stop = static_cast<size_t>(nl - buf_.data());
      size_t len = stop - begin_;
      if (len > 0 && buf_[stop - 1] == '\r') --len;
      std::string line(buf_.data() + begin_, len);
      begin_ = stop + 1;
      return line;
    }
    size_t have = end_ - begin_;
    fill();
    scanned = begin_ + have;  // fill may have moved the data to the front
  }
}

void Conn::readExact(size_t n, std::string& out) {
  while (n > 0) {
    if (begin_ == end_) fill();
    size_t k = std::min(n, end_ - begin_);
    out.append(buf_.data() + begin_, k);
    begin_ += k;
    n -= k;
  }
}

size_t Conn::skipExact(size_t n) {
  size_t lfs = 0;
  while (n > 0) {
    if (begin_ == end_) fill();
    size_t k = std::min(n, end_ - begin_);
    lfs += static_cast<size_t>(std::count(buf_.data() + begin_, buf_.data() + begin_ + k, '\n'));
    begin_ += k;
    n -= k;
  }
  return lfs;
}

}  // namespace darius::bench
