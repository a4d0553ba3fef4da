// Parsers for the value syntaxes of config options (sizes, durations, booleans, listen
// addresses, ...). Config uses them while loading; they are public so that tools and tests can
// parse the same syntax (e.g. a command-line `--max-size 10M`) with the same error messages.
//
// Each parser returns kInvalid with a message that describes only the value ("'12Q' is not a
// size (examples: ...)"); the caller adds file, line and option name. Hostile values are quoted
// in messages escaped and truncated, so a message is always one short line.
//
// Ownership: plain values in, plain values out. Thread-safety: pure functions, reentrant.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/base/result.h"

namespace darius::config {

// One place a service listens: a TCP address/port or a unix-domain socket.
struct ListenAddress {
  enum Kind { kTcp, kUnix };
  Kind kind = kTcp;
  std::string host;  // kTcp: IPv4/IPv6 literal (no brackets) or host name; "" means any
  uint16_t port = 0;
  std::string path;  // kUnix: absolute socket path
  // The config syntax back: "*:143", "127.0.0.1:24", "[::1]:143", "unix:/run/darius/lmtp".
  std::string toString() const;
};

bool operator==(const ListenAddress& a, const ListenAddress& b);

// `text` quoted for an error message: control and non-ASCII bytes as \xNN, cut to a readable
// length ("'abc'", "'aaaa…' (10485760 bytes)").
std::string quoteForMessage(std::string_view text);

// True if `text` is valid UTF-8 without C0/C1 control characters or DEL (tab excepted).
bool isCleanText(std::string_view text);

// yes/no, true/false, on/off, 1/0, any case.
base::Result<bool> parseBool(std::string_view text);

// Decimal, optional leading '-', within [min, max].
base::Result<int64_t> parseInt(std::string_view text, int64_t min, int64_t max);

// Bytes: "65536", "64K", "10M", "2G" (K = 1024); suffix in either case, optional trailing
// "B" ("64KB").
base::Result<uint64_t> parseSize(std::string_view text);

// "250ms", "30s", "5m", "2h", "1d"; a bare number is seconds.
base::Result<std::chrono::milliseconds> parseDuration(std::string_view text);

// Whitespace-separated words (space or tab).
std::vector<std::string> splitWords(std::string_view text);

// One address: "host:port", "[v6addr]:port", "*:port", or "unix:/path". A relative unix
// socket path is resolved against base_dir (absolute).
base::Result<ListenAddress> parseListenAddress(std::string_view text, std::string_view base_dir);

// Whitespace-separated addresses; empty text gives an empty list (the service listens nowhere).
base::Result<std::vector<ListenAddress>> parseAddressList(std::string_view text,
                                                          std::string_view base_dir);

// `path` made absolute against base_dir (itself absolute) and lexically normalised; empty
// stays empty.
std::string resolvePath(std::string_view path, std::string_view base_dir);

}  // namespace darius::config
