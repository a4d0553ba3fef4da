#include "lib/net/tls.h"

#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include "lib/config/config.h"

namespace darius::net {

using base::Result;
using base::Status;

namespace {

// ECDHE with AEAD ciphers only, for TLS 1.2 (Mozilla "intermediate").
constexpr const char* kDefaultCiphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

std::string opensslError() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out.empty() ? "unknown OpenSSL error" : out;
}

struct X509Free { void operator()(X509* x) const { X509_free(x); } };
struct PkeyFree { void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); } };
struct FileClose { void operator()(FILE* f) const { std::fclose(f); } };

}  // namespace

TlsOptions tlsOptionsFromConfig(const config::Config& config) {
  TlsOptions o;
  o.cert_file = config.getPath("tls_cert_file");
  o.key_file = config.getPath("tls_key_file");
  o.min_version = config.getString("tls_min_version");
  o.ciphers = config.getString("tls_ciphers");
  o.ciphersuites = config.getString("tls_ciphersuites");
  return o;
}

Result<TlsContextPtr> makeServerTlsContext(const TlsOptions& options) {
  if (options.cert_file.empty() || options.key_file.empty()) {
    return Status::invalid("TLS needs tls_cert_file and tls_key_file");
  }
  ERR_clear_error();
  auto ctx = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_server);
  SSL_CTX* c = ctx->native_handle();
  int min = options.min_version == "TLSv1.3" ? TLS1_3_VERSION : TLS1_2_VERSION;
  SSL_CTX_set_min_proto_version(c, min);
  SSL_CTX_set_options(c, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION |
                             SSL_OP_CIPHER_SERVER_PREFERENCE);
  SSL_CTX_set_mode(c, SSL_MODE_RELEASE_BUFFERS);  // idle sessions should cost little memory
  const std::string ciphers = options.ciphers.empty() ? kDefaultCiphers : options.ciphers;
  if (SSL_CTX_set_cipher_list(c, ciphers.c_str()) != 1) {
    return Status::invalid("tls_ciphers: " + opensslError());
  }
  if (!options.ciphersuites.empty() &&
      SSL_CTX_set_ciphersuites(c, options.ciphersuites.c_str()) != 1) {
    return Status::invalid("tls_ciphersuites: " + opensslError());
  }
  if (SSL_CTX_use_certificate_chain_file(c, options.cert_file.c_str()) != 1) {
    return Status::invalid("cannot load certificate " + options.cert_file + ": " + opensslError());
  }
  if (SSL_CTX_use_PrivateKey_file(c, options.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    return Status::invalid("cannot load key " + options.key_file + ": " + opensslError());
  }
  if (SSL_CTX_check_private_key(c) != 1) {
    return Status::invalid("key " + options.key_file + " does not match certificate " +
                           options.cert_file);
  }
  return ctx;
}

TlsBinding channelBinding(SSL* ssl) {
  TlsBinding b;
  if (!ssl) return b;
  if (SSL_version(ssl) >= TLS1_3_VERSION) {
    unsigned char out[32];
    static const char kLabel[] = "EXPORTER-Channel-Binding";
    if (SSL_export_keying_material(ssl, out, sizeof out, kLabel, sizeof kLabel - 1, nullptr, 0,
                                   0) == 1) {
      b.type = "tls-exporter";
      b.data.assign(reinterpret_cast<char*>(out), sizeof out);
    }
    return b;
  }
  // RFC 5929 §4.1: hash of the server certificate with its signature hash, SHA-256 for MD5/SHA-1.
  X509* cert = SSL_get_certificate(ssl);
  if (!cert) return b;
  int md_nid = NID_undef;
  if (X509_get_signature_info(cert, &md_nid, nullptr, nullptr, nullptr) != 1) return b;
  const EVP_MD* md = (md_nid == NID_md5 || md_nid == NID_sha1 || md_nid == NID_undef)
                         ? EVP_sha256()
                         : EVP_get_digestbynid(md_nid);
  if (!md) return b;
  unsigned char der_hash[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (X509_digest(cert, md, der_hash, &n) != 1) return b;
  b.type = "tls-server-end-point";
  b.data.assign(reinterpret_cast<char*>(der_hash), n);
  return b;
}

Status writeSelfSignedCertificate(const std::string& cert_path, const std::string& key_path,
                                  const std::string& host, int days) {
  ERR_clear_error();
  std::unique_ptr<EVP_PKEY, PkeyFree> key(EVP_EC_gen("P-256"));
  if (!key) return Status::ioError("key generation failed: " + opensslError());
  std::unique_ptr<X509, X509Free> x(X509_new());
  if (!x) return Status::ioError("X509_new failed");
  X509_set_version(x.get(), 2);  // v3
  unsigned char serial[16];
  RAND_bytes(serial, sizeof serial);
  serial[0] &= 0x7f;  // positive
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x.get()));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(x.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(x.get()), static_cast<long>(days) * 86400);
  X509_set_pubkey(x.get(), key.get());
  X509_NAME* name = X509_get_subject_name(x.get());
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>("Darius"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>(host.c_str()), -1, -1, 0);
  X509_set_issuer_name(x.get(), name);

  // The same extensions `openssl req -x509` gives, so clients that pin this certificate as
  // their trust anchor (mbsync CertificateFile, Python cafile=) accept it.
  std::string san = "DNS:localhost,IP:127.0.0.1,IP:::1";
  if (!host.empty() && host != "localhost") san = "DNS:" + host + "," + san;
  X509V3_CTX v3;
  X509V3_set_ctx_nodb(&v3);
  X509V3_set_ctx(&v3, x.get(), x.get(), nullptr, nullptr, 0);
  const std::pair<int, std::string> exts[] = {
      {NID_basic_constraints, "critical,CA:TRUE"},
      {NID_subject_key_identifier, "hash"},
      {NID_authority_key_identifier, "keyid:always"},
      {NID_key_usage, "critical,digitalSignature,keyCertSign"},
      {NID_ext_key_usage, "serverAuth"},
      {NID_subject_alt_name, san},
  };
  for (const auto& [nid, value] : exts) {
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &v3, nid, value.c_str());
    if (!ext) return Status::ioError("certificate extension: " + opensslError());
    X509_add_ext(x.get(), ext, -1);
    X509_EXTENSION_free(ext);
  }
  if (X509_sign(x.get(), key.get(), EVP_sha256()) == 0) {
    return Status::ioError("certificate signing failed: " + opensslError());
  }

  int kfd = ::open(key_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (kfd < 0) return Status::fromErrno(errno, "create " + key_path);
  std::unique_ptr<FILE, FileClose> kf(fdopen(kfd, "w"));
  if (!kf) {
    ::close(kfd);
    return Status::fromErrno(errno, "fdopen " + key_path);
  }
  if (PEM_write_PrivateKey(kf.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1 ||
      std::fflush(kf.get()) != 0 || fsync(fileno(kf.get())) != 0) {
    return Status::ioError("write " + key_path + ": " + opensslError());
  }
  std::unique_ptr<FILE, FileClose> cf(std::fopen(cert_path.c_str(), "we"));
  if (!cf) return Status::fromErrno(errno, "create " + cert_path);
  if (PEM_write_X509(cf.get(), x.get()) != 1 || std::fflush(cf.get()) != 0 ||
      fsync(fileno(cf.get())) != 0) {
    return Status::ioError("write " + cert_path + ": " + opensslError());
  }
  return Status::ok();
}

}  // namespace darius::net
