// FsModel: the in-memory picture of the filesystem that FaultyEnv (faulty_env.h) keeps so it
// can roll the disk back after a simulated power loss. Internal to the crash-test machinery:
// FaultyEnv, and db/berkeley's test-only BdbPowerCut, which feeds it Berkeley DB's own system
// calls (BDB bypasses io::Env).
//
// The model is a tree of nodes (files and directories) mirroring the parts of the real tree
// that FaultyEnv has touched, learnt lazily from the base Env. Every node has two views:
//   - current: what is on disk now (file bytes; a directory's known entries `children`);
//   - durable: what survives a crash (file `durable` bytes; a directory's entries are its
//     children except for the names in `undo`, which map a name changed since the last
//     syncDir to what the name durably refers to, nullptr meaning "absent").
// A name the model has never seen is unchanged, hence durable. Node identity stands for the
// inode, so hard links are one node under several names.
//
// Invariant that makes rebuilding possible: any directory that may have to be recreated from
// memory (it was created, removed or renamed through the env, or sits inside one that was
// renamed) is `complete` — all its entries, and all file bytes beneath it, are in memory.
//
// Ownership: the model owns every node in an arena (nodes are referred to by raw pointers,
// and durable and current views may form cycles); nodes live until reset(). It borrows the
// base Env. Thread-safety: none; FaultyEnv serialises all calls with its mutex.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "lib/io/env.h"

namespace darius::io::internal {

struct FsNode {
  bool is_dir = false;
  // Files: the bytes on disk now, and those a crash would leave.
  std::string current;
  std::string durable;
  // Directories.
  bool complete = false;  // children lists every entry (else: only the ones seen so far)
  std::map<std::string, FsNode*> children;
  std::map<std::string, FsNode*> undo;
};

// Where an entry lives: its directory node, its name there, and its full (normalised) path.
struct FsLocation {
  FsNode* dir = nullptr;
  std::string name;
  std::string path;
};

class FsModel {
 public:
  explicit FsModel(Env* base);

  // Forgets everything: what is on disk now is taken as durable.
  void reset();

  // The directory holding absolute path `path`, loading the chain of directories from the
  // base Env. kNotFound if a component is missing or not a directory.
  Result<FsLocation> locate(const std::string& path);
  // The directory node for `path` itself (root allowed).
  Result<FsNode*> directory(const std::string& path);
  // The node at `loc`, nullptr if absent. A file seen for the first time is read into memory.
  Result<FsNode*> entry(const FsLocation& loc);
  // Reads the whole subtree of directory `node` at `path` into memory and marks it complete.
  Status loadTree(FsNode* node, const std::string& path);

  // Record a change that the base Env has already carried out. Each remembers the durable
  // target of the names it changes before changing them.
  FsNode* created(const FsLocation& loc, bool is_dir);  // new, empty file or directory
  void truncated(FsNode* file);
  void renamed(const FsLocation& from, const FsLocation& to);
  void linked(FsNode* file, const FsLocation& to);
  void removed(const FsLocation& loc);  // unlink or rmdir
  void dirSynced(FsNode* dir) { dir->undo.clear(); }
  static void written(FsNode* file, uint64_t offset, std::string_view data);
  static void fileSynced(FsNode* file) { file->durable = file->current; }
  // syncfs: every file's bytes and every directory's entries become durable, node by node
  // (in the order the model met them, or reversed), each after `before_each` returned ok;
  // its first error stops the sync there and is returned (a power cut in mid-syncfs).
  Status allSynced(const std::function<Status()>& before_each, bool reverse);

  // Rewrites the disk through the base Env into the durable state. `rng` non-null enables
  // torn appends. Call reset() afterwards.
  Status rebuild(std::mt19937_64* rng);

 private:
  FsNode* newNode(bool is_dir);
  void remember(FsNode* dir, const std::string& name);
  std::map<std::string, FsNode*> durableChildren(const FsNode* dir) const;
  const std::string& recovered(FsNode* file);
  Status restoreDir(FsNode* dir, const std::string& path);
  Status restoreFile(FsNode* file, const std::string& path);
  Status materialize(FsNode* node, const std::string& path);
  Status writeNew(const std::string& path, std::string_view data, Env::OpenMode mode);

  Env* const base_;
  std::vector<std::unique_ptr<FsNode>> arena_;
  FsNode* root_ = nullptr;

  // Rebuild state.
  std::mt19937_64* rng_ = nullptr;
  std::map<FsNode*, std::string> recovered_;     // file -> the bytes it comes back with
  std::map<FsNode*, std::string> materialized_;  // file -> a path where it now exists
  std::set<FsNode*> building_;                   // directories being materialised (cycles)
};

}  // namespace darius::io::internal
