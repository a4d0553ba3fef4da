// Dump format and record streaming shared by `darius db dump|load|convert|checksum`: a
// backend-independent text form of a database (docs/formats/dump.md), and a checksum over the
// records themselves, so a conversion skiplist -> berkeley -> flat -> skiplist can be verified
// by comparing one line.
//
// Ownership: functions borrow the databases and streams they are given.
// Thread-safety: none needed; one call per database at a time.
#pragma once

#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

#include "db/db.h"

namespace darius::db {

// SHA-256 over every (key, value) in order, each as 8-byte big-endian lengths then bytes.
// Independent of backend and of how the records were written.
class RecordChecksum {
 public:
  RecordChecksum();
  ~RecordChecksum();
  RecordChecksum(const RecordChecksum&) = delete;
  RecordChecksum& operator=(const RecordChecksum&) = delete;
  void add(std::string_view key, std::string_view value);
  uint64_t records() const { return records_; }
  std::string hex();  // finishes the digest; call once

 private:
  struct Impl;
  Impl* impl_;
  uint64_t records_ = 0;
};

// Called every so often with (records done, records total or 0 when unknown).
using Progress = std::function<void(uint64_t done, uint64_t total)>;

// Escaping of one field for the dump: bytes outside 0x21..0x7e other than space, and '\',
// become \xNN, so keys and values may hold any byte and a record is one line.
std::string escapeField(std::string_view raw);
base::Result<std::string> unescapeField(std::string_view text);

// Writes "# darius-dump 1" then one "key<TAB>value" line per record, in key order.
base::Status dumpDatabase(Database& db, std::FILE* out, RecordChecksum* sum,
                          const Progress& progress = {}, uint64_t total = 0);

// Reads a dump into db in transactions of batch records. Errors name the input line.
base::Status loadDump(std::FILE* in, Database& db, size_t batch, RecordChecksum* sum,
                      const Progress& progress = {});

// Copies every record of src into dst (which should be empty) in transactions of batch.
base::Status copyDatabase(Database& src, Database& dst, size_t batch, RecordChecksum* sum,
                          const Progress& progress = {}, uint64_t total = 0);

// Number of records (a full scan).
base::Result<uint64_t> countRecords(Database& db);

}  // namespace darius::db
