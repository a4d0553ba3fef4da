// bench/load: one blocking TCP client connection with a read buffer — the transport under
// the LMTP, IMAP and POP3 clients of the load generator.
//
// Plain POSIX sockets: TCP_NODELAY is always set (Cyrus leaves Nagle on at its end, and a
// client with Nagle waits ~40 ms on many replies: DESIGN.md §8), and every read and write
// has a timeout (SO_RCVTIMEO/SO_SNDTIMEO), so a stuck server fails the workload instead of
// hanging the run. Network errors, timeouts and EOF throw WorkloadError.
//
// Ownership: a Conn owns its socket (closed in the destructor) and its buffer. Not
// thread-safe: one thread uses a connection at a time. A Conn can also wrap an existing fd
// (a socketpair end in the self-test).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace darius::bench {

class Conn {
 public:
  // Connects to host:port (IPv4 dotted quad), timeout_s for connect and for each I/O.
  static Conn connectTcp(const std::string& host, int port, double timeout_s);
  explicit Conn(int fd, double timeout_s);
  Conn(Conn&& o) noexcept;
  Conn& operator=(Conn&& o) noexcept;
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;
  ~Conn();

  bool isOpen() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  void close();

  void writeAll(std::string_view data);
  // One writev of several pieces (a command and its literal, or a message in parts).
  void writeParts(std::span<const std::string_view> parts);

  // Reads one line; returns it without the CRLF (a bare LF is accepted too).
  std::string readLine();
  // Reads exactly n bytes into out (appended).
  void readExact(size_t n, std::string& out);
  // Reads and drops exactly n bytes; returns how many of them were '\n' (to check CRLF
  // form cheaply) — used for big FETCH literals that need not be kept.
  size_t skipExact(size_t n);

  uint64_t bytesRead() const { return bytes_read_; }

 private:
  void fill();  // at least one more byte into the buffer, or throw

  int fd_ = -1;
  std::vector<char> buf_;
  size_t begin_ = 0, end_ = 0;
  uint64_t bytes_read_ = 0;
};

}  // namespace darius::bench
