#include "lib/io/faulty_env_model.h"

#include <cerrno>

#include "lib/io/path.h"

namespace darius::io::internal {

FsModel::FsModel(Env* base) : base_(base) { reset(); }

void FsModel::reset() {
  arena_.clear();
  root_ = newNode(true);
}

Status FsModel::allSynced(const std::function<Status()>& before_each, bool reverse) {
  const size_t n = arena_.size();
  for (size_t k = 0; k < n; ++k) {
    FsNode* node = arena_[reverse ? n - 1 - k : k].get();
    const bool dirty = node->is_dir ? !node->undo.empty() : node->durable != node->current;
    if (!dirty) continue;
    DARIUS_RETURN_IF_ERROR(before_each());
    if (node->is_dir) {
      node->undo.clear();
    } else {
      node->durable = node->current;
    }
  }
  return Status::ok();
}

FsNode* FsModel::newNode(bool is_dir) {
  arena_.push_back(std::make_unique<FsNode>());
  arena_.back()->is_dir = is_dir;
  return arena_.back().get();
}

Result<FsNode*> FsModel::entry(const FsLocation& loc) {
  auto it = loc.dir->children.find(loc.name);
  if (it != loc.dir->children.end()) return it->second;
  if (loc.dir->complete) return nullptr;
  Result<bool> is_dir = base_->isDirectory(loc.path);
  if (!is_dir.ok()) {
    if (is_dir.status().isNotFound()) return nullptr;
    return is_dir.status();
  }
  FsNode* node = newNode(*is_dir);
  if (!node->is_dir) {
    // First sight of a file: whatever it holds now is taken as durable.
    DARIUS_ASSIGN_OR_RETURN(node->current, base_->readFile(loc.path));
    node->durable = node->current;
  }
  loc.dir->children[loc.name] = node;
  return node;
}

Result<FsLocation> FsModel::locate(const std::string& path) {
  std::vector<std::string> parts = splitPath(path);
  if (parts.empty()) return Status::invalid("no entry name in \"" + path + "\"");
  FsNode* dir = root_;
  std::string prefix = "/";
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    FsLocation loc{dir, parts[i], joinPath(prefix, parts[i])};
    DARIUS_ASSIGN_OR_RETURN(FsNode* node, entry(loc));
    if (node == nullptr) return Status::fromErrno(ENOENT, loc.path);
    if (!node->is_dir) return Status::fromErrno(ENOTDIR, loc.path);
    dir = node;
    prefix = loc.path;
  }
  return FsLocation{dir, parts.back(), joinPath(prefix, parts.back())};
}

Result<FsNode*> FsModel::directory(const std::string& path) {
  if (splitPath(path).empty()) return root_;
  DARIUS_ASSIGN_OR_RETURN(FsLocation loc, locate(path));
  DARIUS_ASSIGN_OR_RETURN(FsNode* node, entry(loc));
  if (node == nullptr) return Status::fromErrno(ENOENT, path);
  if (!node->is_dir) return Status::fromErrno(ENOTDIR, path);
  return node;
}

Status FsModel::loadTree(FsNode* node, const std::string& path) {
  if (!node->is_dir) return Status::ok();
  if (!node->complete) {
    DARIUS_ASSIGN_OR_RETURN(std::vector<std::string> names, base_->listDir(path));
    for (const std::string& name : names) {
      DARIUS_RETURN_IF_ERROR(entry(FsLocation{node, name, joinPath(path, name)}).status());
    }
    node->complete = true;
  }
  for (auto& [name, child] : node->children) {
    DARIUS_RETURN_IF_ERROR(loadTree(child, joinPath(path, name)));
  }
  return Status::ok();
}

// Called before the first change of a name since its directory's last sync: what the name
// refers to now is what it durably refers to.
void FsModel::remember(FsNode* dir, const std::string& name) {
  if (dir->undo.count(name) != 0) return;
  auto it = dir->children.find(name);
  dir->undo[name] = it == dir->children.end() ? nullptr : it->second;
}

FsNode* FsModel::created(const FsLocation& loc, bool is_dir) {
  remember(loc.dir, loc.name);
  FsNode* node = newNode(is_dir);
  node->complete = is_dir;  // a new directory is empty, so fully known
  loc.dir->children[loc.name] = node;
  return node;
}

void FsModel::truncated(FsNode* file) {
  file->current.clear();
  file->durable.clear();  // see faulty_env.h: the truncation is taken as already on disk
}

void FsModel::renamed(const FsLocation& from, const FsLocation& to) {
  FsNode* node = from.dir->children[from.name];
  remember(from.dir, from.name);
  remember(to.dir, to.name);
  from.dir->children.erase(from.name);
  to.dir->children[to.name] = node;
}

void FsModel::linked(FsNode* file, const FsLocation& to) {
  remember(to.dir, to.name);
  to.dir->children[to.name] = file;
}

void FsModel::removed(const FsLocation& loc) {
  remember(loc.dir, loc.name);
  auto it = loc.dir->children.find(loc.name);
  if (it == loc.dir->children.end()) return;
  FsNode* node = it->second;
  loc.dir->children.erase(it);
  if (node->is_dir) {
    // rmdir succeeded, so it is empty now; its durable entries stay in `undo`.
    node->children.clear();
    node->complete = true;
  }
}

void FsModel::written(FsNode* file, uint64_t offset, std::string_view data) {
  if (file->current.size() < offset + data.size()) file->current.resize(offset + data.size());
  file->current.replace(offset, data.size(), data);
}

std::map<std::string, FsNode*> FsModel::durableChildren(const FsNode* dir) const {
  std::map<std::string, FsNode*> result = dir->children;
  for (const auto& [name, target] : dir->undo) {
    if (target != nullptr) {
      result[name] = target;
    } else {
      result.erase(name);
    }
  }
  return result;
}

const std::string& FsModel::recovered(FsNode* file) {
  auto it = recovered_.find(file);
  if (it != recovered_.end()) return it->second;
  std::string bytes = file->durable;
  const std::string& now = file->current;
  // Torn append: only when everything unsynced is appended after the durable bytes.
  if (rng_ != nullptr && now.size() > bytes.size() && now.compare(0, bytes.size(), bytes) == 0) {
    uint64_t extra = now.size() - bytes.size();
    uint64_t keep = (*rng_)() % (extra + 1);
    bytes = now.substr(0, bytes.size() + keep);
  }
  return recovered_.emplace(file, std::move(bytes)).first->second;
}

Status FsModel::rebuild(std::mt19937_64* rng) {
  rng_ = rng;
  recovered_.clear();
  materialized_.clear();
  building_.clear();
  Status s = restoreDir(root_, "/");
  rng_ = nullptr;
  return s.withContext("FaultyEnv recovery");
}

// `dir` is on disk at `path` and is durable there. Top-down, so a directory is put right
// before anything beneath it.
Status FsModel::restoreDir(FsNode* dir, const std::string& path) {
  // Names changed since the last sync: throw away what is there now and rebuild the durable
  // target from memory (the invariant in the header guarantees it is all in memory).
  for (const auto& [name, target] : dir->undo) {
    std::string p = joinPath(path, name);
    DARIUS_RETURN_IF_ERROR(removeTree(*base_, p));
    if (target != nullptr) DARIUS_RETURN_IF_ERROR(materialize(target, p));
  }
  // Unchanged names: the same node is physically there; fix what is inside it.
  for (const auto& [name, child] : dir->children) {
    if (dir->undo.count(name) != 0) continue;
    std::string p = joinPath(path, name);
    DARIUS_RETURN_IF_ERROR(child->is_dir ? restoreDir(child, p) : restoreFile(child, p));
  }
  return Status::ok();
}

Status FsModel::restoreFile(FsNode* file, const std::string& path) {
  const std::string& want = recovered(file);
  auto it = materialized_.find(file);
  if (it != materialized_.end()) {
    // Another durable name of this file was restored first: share its inode again.
    DARIUS_RETURN_IF_ERROR(base_->removeFile(path));
    return base_->linkFile(it->second, path);
  }
  materialized_[file] = path;
  if (file->current == want) return Status::ok();
  // In place, so that other names of the same inode see the rollback too.
  return writeNew(path, want, Env::OpenMode::kTruncate);
}

Status FsModel::materialize(FsNode* node, const std::string& path) {
  if (!node->is_dir) {
    auto it = materialized_.find(node);
    if (it != materialized_.end()) return base_->linkFile(it->second, path);
    DARIUS_RETURN_IF_ERROR(writeNew(path, recovered(node), Env::OpenMode::kCreateNew));
    materialized_[node] = path;
    return Status::ok();
  }
  // Directories synced independently can leave a durable cycle (a inside b inside a); a real
  // fsck would cut it too. Drop the inner occurrence.
  if (building_.count(node) != 0) return Status::ok();
  if (!node->complete) {
    return Status::notSupported("cannot rebuild partly known directory " + path);
  }
  building_.insert(node);
  DARIUS_RETURN_IF_ERROR(base_->createDir(path));
  for (const auto& [name, child] : durableChildren(node)) {
    DARIUS_RETURN_IF_ERROR(materialize(child, joinPath(path, name)));
  }
  building_.erase(node);
  return Status::ok();
}

Status FsModel::writeNew(const std::string& path, std::string_view data, Env::OpenMode mode) {
  DARIUS_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file, base_->openWritable(path, mode));
  DARIUS_RETURN_IF_ERROR(file->append(data));
  return file->close();
}

}  // namespace darius::io::internal
