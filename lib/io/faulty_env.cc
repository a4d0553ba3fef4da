#include "lib/io/faulty_env.h"

#include <cerrno>

#include "lib/io/faulty_env_model.h"
#include "lib/io/path.h"

namespace darius::io {

using internal::FsLocation;
using internal::FsModel;
using internal::FsNode;

namespace {

Status powerLostStatus() { return Status::ioError("power lost"); }

}  // namespace

// A WritableFile of the base Env that reports every change to the model, under the env's
// mutex, so the model's bytes always match the disk's.
class FaultyWritableFile final : public WritableFile {
 public:
  FaultyWritableFile(FaultyEnv* env, FsNode* node, uint64_t epoch,
                     std::unique_ptr<WritableFile> base, bool fail_close)
      : env_(env), node_(node), epoch_(epoch), base_(std::move(base)), fail_close_(fail_close) {}

  Status append(std::string_view data) override {
    std::lock_guard<std::mutex> lock(env_->mu_);
    DARIUS_RETURN_IF_ERROR(usable());
    DARIUS_RETURN_IF_ERROR(env_->admit(FaultyEnv::OpKind::kWrite));
    uint64_t offset = base_->size();
    DARIUS_RETURN_IF_ERROR(base_->append(data));
    FsModel::written(node_, offset, data);
    return Status::ok();
  }

  Status pwrite(uint64_t offset, std::string_view data) override {
    std::lock_guard<std::mutex> lock(env_->mu_);
    DARIUS_RETURN_IF_ERROR(usable());
    DARIUS_RETURN_IF_ERROR(env_->admit(FaultyEnv::OpKind::kWrite));
    DARIUS_RETURN_IF_ERROR(base_->pwrite(offset, data));
    FsModel::written(node_, offset, data);
    return Status::ok();
  }

  // The base file holds what the model calls current, so reading it is what a reader sees.
  Result<std::string> pread(uint64_t offset, size_t length) override {
    std::lock_guard<std::mutex> lock(env_->mu_);
    DARIUS_RETURN_IF_ERROR(usable());
    return base_->pread(offset, length);
  }

  Status sync() override {
    std::lock_guard<std::mutex> lock(env_->mu_);
    DARIUS_RETURN_IF_ERROR(usable());
    DARIUS_RETURN_IF_ERROR(env_->admit(FaultyEnv::OpKind::kSync));
    // Not passed to the base file: the model alone decides what a power loss keeps, and a
    // real fsync per operation made the crash suites spend most of their time waiting on the
    // disk (20,000 of them in one store test).
    FsModel::fileSynced(node_);
    return Status::ok();
  }

  // Always releases the base file (no fd leaks in tests), but reports a dead machine.
  Status close() override {
    std::lock_guard<std::mutex> lock(env_->mu_);
    if (closed_) return Status::ok();
    closed_ = true;
    Status s = base_->close();
    if (epoch_ != env_->epoch_) return staleStatus();
    if (env_->power_lost_) return powerLostStatus();
    if (fail_close_ && s.isOk()) return Status::ioError("injected close fault");
    return s;
  }

  uint64_t size() const override { return base_->size(); }

 private:
  static Status staleStatus() { return Status::ioError("file handle from before power loss"); }

  Status usable() const {
    // The epoch first: after a rollback node_ may point into a discarded model.
    if (epoch_ != env_->epoch_) return staleStatus();
    if (env_->power_lost_) return powerLostStatus();
    if (closed_) return Status::invalid("file already closed");
    return Status::ok();
  }

  FaultyEnv* const env_;
  FsNode* const node_;
  const uint64_t epoch_;
  std::unique_ptr<WritableFile> base_;
  const bool fail_close_;
  bool closed_ = false;
};

FaultyEnv::FaultyEnv(Env* base) : base_(base), model_(std::make_unique<FsModel>(base)) {}

FaultyEnv::~FaultyEnv() = default;

Status FaultyEnv::admit(OpKind kind) {
  if (power_lost_) return powerLostStatus();
  ++ops_;
  if (kind == OpKind::kWrite) ++writes_;
  if (kind == OpKind::kSync) ++syncs_;
  if (power_ops_.fires(ops_) || (kind == OpKind::kWrite && power_writes_.fires(writes_)) ||
      (kind == OpKind::kSync && power_syncs_.fires(syncs_))) {
    power_lost_ = true;
    return powerLostStatus();
  }
  if (fail_ops_.fires(ops_) || (kind == OpKind::kWrite && fail_writes_.fires(writes_)) ||
      (kind == OpKind::kSync && fail_syncs_.fires(syncs_))) {
    return Status::ioError("injected fault");
  }
  return Status::ok();
}

Status FaultyEnv::admitRead() const {
  return power_lost_ ? powerLostStatus() : Status::ok();
}

Result<std::unique_ptr<WritableFile>> FaultyEnv::openWritable(const std::string& path,
                                                              OpenMode mode) {
  std::lock_guard<std::mutex> lock(mu_);
  DARIUS_RETURN_IF_ERROR(admit(OpKind::kOther));
  DARIUS_ASSIGN_OR_RETURN(std::string p, absolutePath(path));
  DARIUS_ASSIGN_OR_RETURN(FsLocation loc, model_->locate(p));
  DARIUS_ASSIGN_OR_RETURN(FsNode* node, model_->entry(loc));
  DARIUS_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file, base_->openWritable(p, mode));
  if (node == nullptr) {
    node = model_->created(loc, /*is_dir=*/false);
  } else if (mode == OpenMode::kTruncate) {
    model_->truncated(node);
  }
  return std::unique_ptr<WritableFile>(
      std::make_unique<FaultyWritableFile>(this, node, epoch_, std::move(file),
                                           !fail_close_path_.empty() && p == fail_close_path_));
}

void FaultyEnv::failClosesOf(const std::string& path) {
  std::string p;
  if (!path.empty()) {
    auto a = absolutePath(path);
    p = a.ok() ? *a : path;
  }
  std::lock_guard<std::mutex> lock(mu_);
  fail_close_path_ = std::move(p);
}

Status FaultyEnv::renameFile(const std::string& from, const std::string& to) {
  std::lock_guard<std::mutex> lock(mu_);
  DARIUS_RETURN_IF_ERROR(admit(OpKind::kOther));
  DARIUS_ASSIGN_OR_RETURN(std::string f, absolutePath(from));
  DARIUS_ASSIGN_OR_RETURN(std::string t, absolutePath(to));
  DARIUS_ASSIGN_OR_RETURN(FsLocation from_loc, model_->locate(f));
  DARIUS_ASSIGN_OR_RETURN(FsNode* moving, model_->entry(from_loc));
  if (moving == nullptr) return Status::fromErrno(ENOENT, "rename " + f);
  // A directory that moves must be rebuildable from memory wherever it durably is.
  DARIUS_RETURN_IF_ERROR(model_->loadTree(moving, f));
  DARIUS_ASSIGN_OR_RETURN(FsLocation to_loc, model_->locate(t));
  DARIUS_ASSIGN_OR_RETURN(FsNode* replaced, model_->entry(to_loc));
  if (replaced != nullptr) DARIUS_RETURN_IF_ERROR(model_->loadTree(replaced, t));
  DARIUS_RETURN_IF_ERROR(base_->renameFile(f, t));
  // Renaming one name of a file onto another name of it changes nothing (POSIX).
  if (moving != replaced) model_->renamed(from_loc, to_loc);
  return Status::ok();
}

Status FaultyEnv::linkFile(const std::string& from, const std::string& to) {
  std::lock_guard<std::mutex> lock(mu_);
  DARIUS_RETURN_IF_ERROR(admit(OpKind::kOther));
  DARIUS_ASSIGN_OR_RETURN(std::string f, absolutePath(from));
  DARIUS_ASSIGN_OR_RETURN(std::string t, absolutePath(to));
  DARIUS_ASSIGN_OR_RETURN(FsLocation from_loc, model_->locate(f));
  DARIUS_ASSIGN_OR_RETURN(FsNode* file, model_->entry(from_loc));
  if (file == nullptr) return Status::fromErrno(ENOENT, "link " + f);
  DARIUS_ASSIGN_OR_RETURN(FsLocation to_loc, model_->locate(t));
  DARIUS_RETURN_IF_ERROR(model_->entry(to_loc).status());
  DARIUS_RETURN_IF_ERROR(base_->linkFile(f, t));
  model_->linked(file, to_loc);
  return Status::ok();
}

Status FaultyEnv::setPermissions(const std::string& path, mode_t mode) {
  std::lock_guard<std::mutex> lock(mu_);
  DARIUS_RETURN_IF_ERROR(admit(OpKind::kOther));
  DARIUS_ASSIGN_OR_RETURN(std::string p, absolutePath(path));
  return base_->setPermissions(p, mode);
}

Status FaultyEnv::removeFile(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  DARIUS_RETURN_IF_ERROR(admit(OpKind::kOther));
  DARIUS_ASSIGN_OR_RETURN(std::string p, absolutePath(path));
  DARIUS_ASSIGN_OR_RETURN(FsLocation loc, model_->locate(p));
  DARIUS_RETURN_IF_ERROR(model_->entry(loc).status());
  DARIUS_RETURN_IF_ERROR(base_->removeFile(p));
  model_->removed(loc);
  return Status::ok();
}

Status FaultyEnv::createDir(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  DARIUS_RETURN_IF_ERROR(admit(OpKind::kOther));
  DARIUS_ASSIGN_OR_RETURN(std::string p, absolutePath(path));
  DARIUS_ASSIGN_OR_RETURN(FsLocation loc, model_->locate(p));
  DARIUS_RETURN_IF_ERROR(model_->entry(loc).status());
  DARIUS_RETURN_IF_ERROR(base_->createDir(p));
  model_->created(loc, /*is_dir=*/true);
  return Status::ok();
}

Status FaultyEnv::removeDir(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  DARIUS_RETURN_IF_ERROR(admit(OpKind::kOther));
  DARIUS_ASSIGN_OR_RETURN(std::string p, absolutePath(path));
  DARIUS_ASSIGN_OR_RETURN(FsLocation loc, model_->locate(p));
  DARIUS_RETURN_IF_ERROR(model_->entry(loc).status());
  DARIUS_RETURN_IF_ERROR(base_->removeDir(p));
  model_->removed(loc);
  return Status::ok();
}

Status FaultyEnv::syncDir(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  DARIUS_RETURN_IF_ERROR(admit(OpKind::kSync));
  DARIUS_ASSIGN_OR_RETURN(std::string p, absolutePath(path));
  DARIUS_ASSIGN_OR_RETURN(FsNode* dir, model_->directory(p));
  // Not passed to the base either (see File::sync): the model is the durability oracle.
  model_->dirSynced(dir);
  return Status::ok();
}

Status FaultyEnv::runConcurrently(std::span<const std::function<Status()>> tasks) {
  // Not under mu_: the tasks call back into this env.
  if (!reverse_concurrent_) return Env::runConcurrently(tasks);
  std::vector<Status> results(tasks.size());
  for (size_t i = tasks.size(); i-- > 0;) results[i] = tasks[i]();
  for (Status& s : results) {
    if (!s.isOk()) return s;
  }
  return Status::ok();
}

class FaultyFilesystemSync final : public FilesystemSync {
 public:
  FaultyFilesystemSync(FaultyEnv* env, uint64_t epoch) : env_(env), epoch_(epoch) {}

  Status sync() override {
    std::lock_guard<std::mutex> lock(env_->mu_);
    if (env_->power_lost_) return powerLostStatus();
    if (epoch_ != env_->epoch_) return Status::ioError("filesystem handle from before power loss");
    // One counted step even with nothing dirty, so that a sync can always fail or cut power.
    DARIUS_RETURN_IF_ERROR(env_->admit(FaultyEnv::OpKind::kSync));
    return env_->model_->allSynced([this] { return env_->admit(FaultyEnv::OpKind::kSync); },
                                   env_->reverse_concurrent_.load());
  }

  Result<bool> covers(const std::string& path) override {
    std::lock_guard<std::mutex> lock(env_->mu_);
    DARIUS_RETURN_IF_ERROR(env_->admitRead());
    return env_->base_->fileExists(path);
  }

  Result<bool> isRoot(const std::string&) override { return false; }

 private:
  FaultyEnv* const env_;
  const uint64_t epoch_;
};

Result<std::unique_ptr<FilesystemSync>> FaultyEnv::openFilesystemSync(
    const std::vector<std::string>& paths) {
  std::lock_guard<std::mutex> lock(mu_);
  DARIUS_RETURN_IF_ERROR(admitRead());
  if (paths.empty()) return Status::invalid("openFilesystemSync: no paths");
  for (const std::string& p : paths) {
    DARIUS_ASSIGN_OR_RETURN(bool dir, base_->isDirectory(p));
    if (!dir) return Status::invalid("openFilesystemSync: " + p + " is not a directory");
  }
  return std::unique_ptr<FilesystemSync>(std::make_unique<FaultyFilesystemSync>(this, epoch_));
}

void FaultyEnv::reverseConcurrent(bool enable) { reverse_concurrent_ = enable; }

Result<std::string> FaultyEnv::readFile(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  DARIUS_RETURN_IF_ERROR(admitRead());
  return base_->readFile(path);
}

Result<bool> FaultyEnv::fileExists(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  DARIUS_RETURN_IF_ERROR(admitRead());
  return base_->fileExists(path);
}

Result<uint64_t> FaultyEnv::fileSize(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  DARIUS_RETURN_IF_ERROR(admitRead());
  return base_->fileSize(path);
}

Result<std::vector<std::string>> FaultyEnv::listDir(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  DARIUS_RETURN_IF_ERROR(admitRead());
  return base_->listDir(path);
}

Result<bool> FaultyEnv::isDirectory(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  DARIUS_RETURN_IF_ERROR(admitRead());
  return base_->isDirectory(path);
}

uint64_t FaultyEnv::writeCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return writes_;
}

uint64_t FaultyEnv::syncCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return syncs_;
}

uint64_t FaultyEnv::opCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return ops_;
}

void FaultyEnv::failAfterWrites(uint64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  fail_writes_.at = writes_ + n;
}

void FaultyEnv::failAfterSyncs(uint64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  fail_syncs_.at = syncs_ + n;
}

void FaultyEnv::failAfterOps(uint64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  fail_ops_.at = ops_ + n;
}

void FaultyEnv::losePowerAfterWrites(uint64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  power_writes_.at = writes_ + n;
}

void FaultyEnv::losePowerAfterSyncs(uint64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  power_syncs_.at = syncs_ + n;
}

void FaultyEnv::losePowerAfterOps(uint64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  power_ops_.at = ops_ + n;
}

void FaultyEnv::losePowerNow() {
  std::lock_guard<std::mutex> lock(mu_);
  power_lost_ = true;
}

void FaultyEnv::clearFaults() {
  std::lock_guard<std::mutex> lock(mu_);
  fail_writes_ = fail_syncs_ = fail_ops_ = Trigger{};
  power_writes_ = power_syncs_ = power_ops_ = Trigger{};
}

bool FaultyEnv::powerLost() const {
  std::lock_guard<std::mutex> lock(mu_);
  return power_lost_;
}

void FaultyEnv::tornWrites(bool enable, uint64_t seed) {
  std::lock_guard<std::mutex> lock(mu_);
  torn_ = enable;
  rng_.seed(seed);
}

Status FaultyEnv::rebuild() {
  Status s = model_->rebuild(torn_ ? &rng_ : nullptr);
  // Whatever happened, the old model no longer describes the disk, and handles into it die.
  model_->reset();
  ++epoch_;
  return s;
}

Status FaultyEnv::recoverFromPowerLoss() {
  std::lock_guard<std::mutex> lock(mu_);
  DARIUS_RETURN_IF_ERROR(rebuild());
  fail_writes_ = fail_syncs_ = fail_ops_ = Trigger{};
  power_writes_ = power_syncs_ = power_ops_ = Trigger{};
  power_lost_ = false;
  return Status::ok();
}

Status FaultyEnv::dropUnsyncedData() {
  std::lock_guard<std::mutex> lock(mu_);
  return rebuild();
}

}  // namespace darius::io
