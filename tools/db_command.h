// `darius db dump|load|check|convert|repack|checksum`: offline and online maintenance of any
// database file of any backend, like Cyrus's cvt_cyrusdb and friends. Every command that
// reads all records prints the record checksum (db/dump.h), so a conversion chain can be
// verified by comparing one line.
//
// Thread-safety: single-threaded CLI code.
#pragma once

#include <string>

namespace darius::tools {

struct DbCommand {
  std::string action;           // dump, load, check, convert, repack, checksum
  std::string path;             // the database (source for convert)
  std::string backend = "skiplist";
  std::string to_path;          // convert: destination
  std::string to_backend;       // convert: destination backend
  std::string file;             // dump: output, load: input; empty or "-" = stdout/stdin
  size_t batch = 10000;         // records per transaction when writing
  bool batch_set = false;       // --batch given explicitly
};

int runDbCommand(const DbCommand& cmd);

}  // namespace darius::tools
