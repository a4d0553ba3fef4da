#include "db/dump.h"

#include <openssl/evp.h>

#include <cstring>
#include <vector>

namespace darius::db {

using base::Result;
using base::Status;

namespace {
constexpr std::string_view kDumpMagic = "# darius-dump 1";
constexpr uint64_t kProgressEvery = 4096;

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

struct RecordChecksum::Impl {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  bool finished = false;
};

RecordChecksum::RecordChecksum() : impl_(new Impl) {
  EVP_DigestInit_ex(impl_->ctx, EVP_sha256(), nullptr);
}

RecordChecksum::~RecordChecksum() {
  EVP_MD_CTX_free(impl_->ctx);
  delete impl_;
}

void RecordChecksum::add(std::string_view key, std::string_view value) {
  ++records_;
  for (std::string_view part : {key, value}) {
    unsigned char len[8];
    uint64_t n = part.size();
    for (int i = 7; i >= 0; --i, n >>= 8) len[i] = static_cast<unsigned char>(n & 0xff);
    EVP_DigestUpdate(impl_->ctx, len, sizeof len);
    EVP_DigestUpdate(impl_->ctx, part.data(), part.size());
  }
}

std::string RecordChecksum::hex() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (!impl_->finished) {
    EVP_DigestFinal_ex(impl_->ctx, md, &n);
    impl_->finished = true;
  }
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < n; ++i) {
    out += kHex[md[i] >> 4];
    out += kHex[md[i] & 0xf];
  }
  return out;
}

std::string escapeField(std::string_view raw) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(raw.size());
  for (unsigned char c : raw) {
    if (c >= 0x20 && c <= 0x7e && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    }
  }
  return out;
}

Result<std::string> unescapeField(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c != '\\') {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
        return Status::invalid("raw control byte at column " + std::to_string(i + 1));
      }
      out += c;
      continue;
    }
    if (i + 3 >= text.size()) {
      return Status::invalid("truncated escape at column " + std::to_string(i + 1));
    }
    if (text[i + 1] != 'x' || hexValue(text[i + 2]) < 0 || hexValue(text[i + 3]) < 0) {
      return Status::invalid("bad escape at column " + std::to_string(i + 1));
    }
    out += static_cast<char>(hexValue(text[i + 2]) * 16 + hexValue(text[i + 3]));
    i += 3;
  }
  return out;
}

Result<uint64_t> countRecords(Database& db) {
  uint64_t n = 0;
  Status s = db.scan(Range::all(), [&](std::string_view, std::string_view) {
    ++n;
    return true;
  });
  if (!s.isOk()) return s;
  return n;
}

Status dumpDatabase(Database& db, std::FILE* out, RecordChecksum* sum, const Progress& progress,
                    uint64_t total) {
  if (std::fprintf(out, "%.*s\n", static_cast<int>(kDumpMagic.size()), kDumpMagic.data()) < 0) {
    return Status::ioError("write dump header");
  }
  uint64_t done = 0;
  bool write_failed = false;
  Status s = db.scan(Range::all(), [&](std::string_view k, std::string_view v) {
    std::string line = escapeField(k) + "\t" + escapeField(v) + "\n";
    if (std::fwrite(line.data(), 1, line.size(), out) != line.size()) {
      write_failed = true;
      return false;
    }
    if (sum) sum->add(k, v);
    if (progress && ++done % kProgressEvery == 0) progress(done, total);
    return true;
  });
  if (!s.isOk()) return s;
  if (write_failed || std::fflush(out) != 0) return Status::ioError("write dump");
  if (progress) progress(done, total);
  return Status::ok();
}

Status loadDump(std::FILE* in, Database& db, size_t batch, RecordChecksum* sum,
                const Progress& progress) {
  char* buf = nullptr;
  size_t cap = 0;
  ssize_t len;
  uint64_t lineno = 0, done = 0;
  std::unique_ptr<Txn> txn;
  size_t in_txn = 0;
  std::string last_key;
  Status result;
  while ((len = getline(&buf, &cap, in)) >= 0) {
    ++lineno;
    std::string_view line(buf, static_cast<size_t>(len));
    if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
    if (lineno == 1) {
      if (line != kDumpMagic) {
        result = Status::invalid("line 1: not a darius dump (expected '" +
                                 std::string(kDumpMagic) + "')");
        break;
      }
      continue;
    }
    size_t tab = line.find('\t');
    if (tab == std::string_view::npos) {
      result = Status::invalid("line " + std::to_string(lineno) + ": no TAB between key and value");
      break;
    }
    auto key = unescapeField(line.substr(0, tab));
    auto value = unescapeField(line.substr(tab + 1));
    if (!key.ok() || !value.ok()) {
      result = (key.ok() ? value.status() : key.status())
                   .withContext("line " + std::to_string(lineno));
      break;
    }
    if (done > 0 && *key <= last_key) {
      result = Status::invalid("line " + std::to_string(lineno) + ": keys out of order");
      break;
    }
    if (!txn) {
      auto t = db.begin();
      if (!t.ok()) {
        result = t.status();
        break;
      }
      txn = std::move(*t);
    }
    if (Status s = txn->put(*key, *value); !s.isOk()) {
      result = s.withContext("line " + std::to_string(lineno));
      break;
    }
    if (sum) sum->add(*key, *value);
    last_key = std::move(*key);
    ++done;
    if (++in_txn >= batch) {
      if (Status s = txn->commit(); !s.isOk()) {
        result = s;
        break;
      }
      txn.reset();
      in_txn = 0;
    }
    if (progress && done % kProgressEvery == 0) progress(done, 0);
  }
  std::free(buf);
  if (result.isOk() && lineno == 0) result = Status::invalid("empty input: not a darius dump");
  if (result.isOk() && txn) result = txn->commit();
  if (result.isOk() && progress) progress(done, done);
  return result;
}

Status copyDatabase(Database& src, Database& dst, size_t batch, RecordChecksum* sum,
                    const Progress& progress, uint64_t total) {
  std::unique_ptr<Txn> txn;
  size_t in_txn = 0;
  uint64_t done = 0;
  Status inner;
  Status s = src.scan(Range::all(), [&](std::string_view k, std::string_view v) {
    if (!txn) {
      auto t = dst.begin();
      if (!t.ok()) {
        inner = t.status();
        return false;
      }
      txn = std::move(*t);
    }
    inner = txn->put(k, v);
    if (!inner.isOk()) return false;
    if (sum) sum->add(k, v);
    ++done;
    if (++in_txn >= batch) {
      inner = txn->commit();
      txn.reset();
      in_txn = 0;
      if (!inner.isOk()) return false;
    }
    if (progress && done % kProgressEvery == 0) progress(done, total);
    return true;
  });
  if (!s.isOk()) return s;
  if (!inner.isOk()) return inner;
  if (txn) DARIUS_RETURN_IF_ERROR(txn->commit());
  if (progress) progress(done, total);
  return Status::ok();
}

}  // namespace darius::db
