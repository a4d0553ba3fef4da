// TLS for every service: the server context built from the config (certificate chain and key,
// TLS 1.2 minimum, modern ciphers, no compression or renegotiation), the channel-binding data
// that SCRAM-*-PLUS needs, and the self-signed certificate that `darius init` writes.
//
// Ownership: TlsContext owns the asio::ssl::context; connections hold a shared_ptr to it, so a
// context replaced at runtime stays alive for connections that use it. Thread-safety: a built
// context is read-only and shared by all threads.
#pragma once

#include <memory>
#include <string>

#include <asio/ssl.hpp>

#include "lib/base/result.h"

namespace darius::config {
class Config;
}

namespace darius::net {

struct TlsOptions {
  std::string cert_file;     // PEM: the certificate followed by its chain
  std::string key_file;      // PEM private key
  std::string min_version = "TLSv1.2";
  std::string ciphers;       // TLS 1.2 cipher list; empty = built-in modern list
  std::string ciphersuites;  // TLS 1.3 suites; empty = OpenSSL's default
};

TlsOptions tlsOptionsFromConfig(const config::Config& config);

using TlsContextPtr = std::shared_ptr<asio::ssl::context>;

// Fails with a clear message when the files are missing, unreadable or do not match.
base::Result<TlsContextPtr> makeServerTlsContext(const TlsOptions& options);

// Channel binding of an established TLS connection (RFC 9266 tls-exporter on TLS 1.3,
// RFC 5929 tls-server-end-point before it). type is empty if none can be given.
struct TlsBinding {
  std::string type;
  std::string data;
};
TlsBinding channelBinding(SSL* ssl);

// Writes a new P-256 key (mode 0600) and a self-signed certificate for host (plus localhost,
// 127.0.0.1 and ::1 as subjectAltNames), valid for `days`.
base::Status writeSelfSignedCertificate(const std::string& cert_path, const std::string& key_path,
                                        const std::string& host, int days);

}  // namespace darius::net
