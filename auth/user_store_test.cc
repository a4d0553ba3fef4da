#include "auth/user_store.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "auth/password_hash.h"
#include "lib/base/base64.h"

namespace darius::auth {
namespace {

constexpr int kIterations = 16;  // fast for tests; production uses >= 4096

class TempDir {
 public:
  TempDir() {
    const char* base = getenv("TMPDIR");
    std::string tmpl =
        std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/darius-auth-XXXXXX";
    char* p = mkdtemp(tmpl.data());
    EXPECT_NE(p, nullptr);
    path_ = tmpl;
  }
  ~TempDir() { (void)!system(("rm -rf '" + path_ + "'").c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void writeAll(const std::string& path, const std::string& text) {
  // Replace by rename, as any sane editor or tool would; the store notices the new inode.
  std::string tmp = path + ".new";
  std::ofstream(tmp, std::ios::binary) << text;
  ASSERT_EQ(::rename(tmp.c_str(), path.c_str()), 0);
}

std::unique_ptr<UserStore> openStore(const std::string& path) {
  auto s = UserStore::open(path, kIterations);
  EXPECT_TRUE(s.ok()) << s.status().toString();
  return s.ok() ? std::move(*s) : nullptr;
}

TEST(UserStore, MissingFileIsEmptyAndIsCreatedOnFirstWrite) {
  TempDir dir;
  const std::string path = dir.path() + "/users";
  auto store = openStore(path);
  ASSERT_TRUE(store);
  auto names = store->list();
  ASSERT_TRUE(names.ok());
  EXPECT_TRUE(names->empty());
  EXPECT_NE(::access(path.c_str(), F_OK), 0);
  EXPECT_TRUE(store->lookup("alice").status().isNotFound());

  ASSERT_TRUE(store->add("alice", "wonderland").isOk());
  std::string text = readAll(path);
  EXPECT_EQ(text.rfind("# darius-users 1\nalice:$y$", 0), 0u) << text;
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0007, 0u) << "users file must not be world-readable";
}

TEST(UserStore, AddLookupCheckSetRemove) {
  TempDir dir;
  auto store = openStore(dir.path() + "/users");
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->add("bob@example.com", "s3cret").isOk());
  ASSERT_TRUE(store->add("alice", "wonderland").isOk());

  auto rec = store->lookup("bob@example.com");
  ASSERT_TRUE(rec.ok());
  EXPECT_EQ(rec->name, "bob@example.com");
  EXPECT_TRUE(verifyPassword("s3cret", rec->password_hash));
  EXPECT_EQ(rec->scram_sha256.iterations, static_cast<uint32_t>(kIterations));
  EXPECT_EQ(rec->scram_sha256.salt.size(), 16u);
  auto derived = deriveScramSecrets(ScramDigest::kSha256, "s3cret", rec->scram_sha256.salt,
                                    rec->scram_sha256.iterations);
  ASSERT_TRUE(derived.ok());
  EXPECT_EQ(derived->stored_key, rec->scram_sha256.stored_key);
  EXPECT_EQ(derived->server_key, rec->scram_sha256.server_key);

  EXPECT_EQ(*store->list(), (std::vector<std::string>{"alice", "bob@example.com"}));
  EXPECT_TRUE(*store->checkPassword("alice", "wonderland"));
  EXPECT_FALSE(*store->checkPassword("alice", "Wonderland"));
  EXPECT_FALSE(*store->checkPassword("nobody", "wonderland"));
  EXPECT_FALSE(*store->checkPassword("not a name!", "wonderland"));

  EXPECT_EQ(store->add("alice", "other").code(), base::Code::kExists);
  EXPECT_EQ(store->setPassword("carol", "x").code(), base::Code::kNotFound);
  EXPECT_EQ(store->remove("carol").code(), base::Code::kNotFound);

  ASSERT_TRUE(store->setPassword("alice", "looking-glass").isOk());
  EXPECT_FALSE(*store->checkPassword("alice", "wonderland"));
  EXPECT_TRUE(*store->checkPassword("alice", "looking-glass"));

  ASSERT_TRUE(store->remove("alice").isOk());
  EXPECT_TRUE(store->lookup("alice").status().isNotFound());
  EXPECT_EQ(*store->list(), (std::vector<std::string>{"bob@example.com"}));

  // Reopening reads the same state back from disk.
  auto again = openStore(dir.path() + "/users");
  ASSERT_TRUE(again);
  EXPECT_EQ(*again->list(), (std::vector<std::string>{"bob@example.com"}));
  EXPECT_TRUE(*again->checkPassword("bob@example.com", "s3cret"));
}

// Domains are case-insensitive (docs/design/naming.md): one user however the domain is
// spelled; the local part keeps its case. A name stored with capitals in its domain by an
// older build stays reachable as written.
TEST(UserStore, DomainsAreCaseInsensitive) {
  TempDir dir;
  const std::string path = dir.path() + "/users";
  auto store = openStore(path);
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->add("alice@Example.COM", "pw").isOk());
  EXPECT_EQ(*store->list(), (std::vector<std::string>{"alice@example.com"}));
  EXPECT_EQ(store->add("alice@example.com", "pw").code(), base::Code::kExists);
  EXPECT_TRUE(*store->checkPassword("alice@EXAMPLE.com", "pw"));
  EXPECT_EQ(store->lookup("alice@example.COM")->name, "alice@example.com");
  EXPECT_TRUE(store->lookup("Alice@example.com").status().isNotFound());
  ASSERT_TRUE(store->setPassword("alice@EXAMPLE.COM", "pw2").isOk());
  EXPECT_TRUE(*store->checkPassword("alice@example.com", "pw2"));
  EXPECT_TRUE(*store->hostsDomain("example.com"));
  EXPECT_FALSE(*store->hostsDomain("example.org"));
  EXPECT_FALSE(*store->hostsDomain("com"));
  ASSERT_TRUE(store->remove("alice@Example.Com").isOk());
  EXPECT_FALSE(*store->hostsDomain("example.com"));

  ASSERT_TRUE(store->add("bob@Example.NET", "pw").isOk());  // canonical: example.net
  std::string legacy = readAll(path);
  size_t at = legacy.find("bob@example.net");
  ASSERT_NE(at, std::string::npos);
  legacy.replace(at, 15, "bob@Example.NET");
  writeAll(path, legacy);
  EXPECT_TRUE(*store->checkPassword("bob@Example.NET", "pw"));
}

TEST(UserStore, RejectsBadNamesAndPasswords) {
  TempDir dir;
  auto store = openStore(dir.path() + "/users");
  ASSERT_TRUE(store);
  for (const char* name : {"", "a+b", "a:b", "a b", "@x", "a@", "caf\u00e9"}) {
    EXPECT_EQ(store->add(name, "pw").code(), base::Code::kInvalid) << name;
  }
  EXPECT_EQ(store->add(std::string(256, 'a'), "pw").code(), base::Code::kInvalid);
  EXPECT_EQ(store->add("u", "").code(), base::Code::kInvalid);
  EXPECT_EQ(store->add("u", std::string("a\0b", 3)).code(), base::Code::kInvalid);
  EXPECT_EQ(store->add("u", "tab\there").code(), base::Code::kInvalid);  // SASLprep refuses
  EXPECT_EQ(store->add("u", std::string(kMaxPasswordBytes + 1, 'x')).code(), base::Code::kInvalid);
  EXPECT_EQ(store->add("u", "\xff\xfe").code(), base::Code::kInvalid);
  EXPECT_TRUE(store->list()->empty());
  EXPECT_EQ(UserStore::open(dir.path() + "/users", 0).status().code(), base::Code::kInvalid);
}

TEST(UserStore, CorruptFileIsReportedNotCrashed) {
  TempDir dir;
  const std::string path = dir.path() + "/users";
  writeAll(path, "# darius-users 7\n");
  auto s = UserStore::open(path, kIterations);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), base::Code::kCorruption);
  EXPECT_NE(s.status().message().find(path + ":1:"), std::string::npos) << s.status().message();

  writeAll(path, "# darius-users 1\n");
  auto store = openStore(path);
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->add("alice", "pw").isOk());
  // Damaged behind the store's back: lookups report it, and writes refuse to build on it.
  writeAll(path, readAll(path) + "garbage\n");
  auto r = store->lookup("alice");
  EXPECT_EQ(r.status().code(), base::Code::kCorruption);
  EXPECT_NE(r.status().message().find(path + ":3:"), std::string::npos) << r.status().message();
  EXPECT_EQ(store->checkPassword("alice", "pw").status().code(), base::Code::kCorruption);
  EXPECT_EQ(store->add("bob", "pw").code(), base::Code::kCorruption);
}

TEST(UserStore, TwoStoresOnOneFileSeeEachOther) {
  TempDir dir;
  const std::string path = dir.path() + "/users";
  auto a = openStore(path);
  auto b = openStore(path);
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(a->add("alice", "one").isOk());
  EXPECT_TRUE(*b->checkPassword("alice", "one"));
  ASSERT_TRUE(b->add("bob", "two").isOk());
  EXPECT_EQ(*a->list(), (std::vector<std::string>{"alice", "bob"}));
  EXPECT_EQ(b->add("alice", "x").code(), base::Code::kExists);
  ASSERT_TRUE(b->setPassword("alice", "three").isOk());
  EXPECT_TRUE(*a->checkPassword("alice", "three"));
  ASSERT_TRUE(a->remove("bob").isOk());
  EXPECT_TRUE(b->lookup("bob").status().isNotFound());

  // A file replaced by someone else entirely (a restore, a hand edit) is picked up too.
  writeAll(path, "# darius-users 1\n");
  EXPECT_TRUE(a->list()->empty());
  EXPECT_TRUE(b->lookup("alice").status().isNotFound());
  // And so is a file that disappeared.
  ASSERT_TRUE(b->add("carol", "four").isOk());
  ASSERT_EQ(::unlink(path.c_str()), 0);
  EXPECT_TRUE(a->list()->empty());
}

TEST(UserStore, ConcurrentAddsFromThreadsAndAProcessAllLand) {
  TempDir dir;
  const std::string path = dir.path() + "/users";
  constexpr int kPerWriter = 8;
  auto name = [](const char* who, int i) { return std::string(who) + "-" + std::to_string(i); };

  // Fork before any thread exists, so the child inherits no half-held lock.
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int failures = 0;
    auto s = UserStore::open(path, kIterations);
    if (!s.ok()) _exit(100);
    for (int i = 0; i < kPerWriter; ++i) {
      if (!(*s)->add(name("proc", i), "pw-proc").isOk()) ++failures;
    }
    _exit(failures);
  }

  // One thread with its own store (file locks must exclude threads too), two sharing one.
  auto shared = openStore(path);
  ASSERT_TRUE(shared);
  auto worker = [&](const char* who, UserStore* store) {
    std::unique_ptr<UserStore> own;
    if (store == nullptr) {
      own = openStore(path);
      store = own.get();
    }
    for (int i = 0; i < kPerWriter; ++i) {
      base::Status s = store->add(name(who, i), std::string("pw-") + who);
      EXPECT_TRUE(s.isOk()) << who << i << ": " << s.toString();
    }
  };
  std::thread t1(worker, "own", nullptr);
  std::thread t2(worker, "shared1", shared.get());
  std::thread t3(worker, "shared2", shared.get());
  t1.join();
  t2.join();
  t3.join();
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);

  auto names = shared->list();
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(names->size(), 4u * kPerWriter);
  for (const char* who : {"proc", "own", "shared1", "shared2"}) {
    for (int i = 0; i < kPerWriter; ++i) {
      EXPECT_TRUE(std::binary_search(names->begin(), names->end(), name(who, i))) << name(who, i);
    }
  }
  EXPECT_TRUE(*shared->checkPassword("proc-3", "pw-proc"));
  EXPECT_TRUE(*shared->checkPassword("own-5", "pw-own"));
}

TEST(UserStore, UnknownUserCostsAboutAsMuchAsAKnownOne) {
  TempDir dir;
  auto store = openStore(dir.path() + "/users");
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->add("alice", "pw").isOk());
  auto time = [&](const char* user) {
    auto best = std::chrono::steady_clock::duration::max();
    for (int i = 0; i < 3; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      EXPECT_FALSE(*store->checkPassword(user, "wrong"));
      best = std::min(best, std::chrono::steady_clock::now() - t0);
    }
    return best;
  };
  auto known = time("alice");
  auto unknown = time("mallory");
  // Loose bounds: the point is that the unknown case runs yescrypt too, not how precisely.
  EXPECT_GT(unknown * 4, known);
  EXPECT_GT(known * 4, unknown);
}

// The golden file: a fixed v1 file (passwords in its README). If a format change breaks old
// files, this fails.
TEST(UserStore, GoldenFileV1) {
  const char* src = getenv("DARIUS_SOURCE_DIR");
  ASSERT_NE(src, nullptr) << "DARIUS_SOURCE_DIR is set by ctest";
  const std::string path = std::string(src) + "/tests/data/formats/users/v1/users";
  auto store = UserStore::open(path, 4096);
  ASSERT_TRUE(store.ok()) << store.status().toString();
  EXPECT_EQ(*(*store)->list(), (std::vector<std::string>{"alice", "bob@example.com"}));

  const std::pair<const char*, std::string> users[] = {
      {"alice", "wonderland"},
      {"bob@example.com", "b\u00f6b\u00a0secret"},  // with a NO-BREAK SPACE
  };
  for (const auto& [name, password] : users) {
    EXPECT_TRUE(*(*store)->checkPassword(name, password)) << name;
    EXPECT_FALSE(*(*store)->checkPassword(name, password + "x")) << name;
    auto rec = (*store)->lookup(name);
    ASSERT_TRUE(rec.ok());
    auto derived = deriveScramSecrets(ScramDigest::kSha256, password, rec->scram_sha256.salt,
                                      rec->scram_sha256.iterations);
    ASSERT_TRUE(derived.ok()) << name;
    EXPECT_EQ(derived->stored_key, rec->scram_sha256.stored_key) << name;
    EXPECT_EQ(derived->server_key, rec->scram_sha256.server_key) << name;
  }
  // SCRAM keys come from the SASLprep'ed password, in which NBSP is a space; the crypt hash
  // covers the bytes as given.
  auto bob = (*store)->lookup("bob@example.com");
  ASSERT_TRUE(bob.ok());
  auto prepped = deriveScramSecrets(ScramDigest::kSha256, "b\u00f6b secret", bob->scram_sha256.salt,
                                    bob->scram_sha256.iterations);
  ASSERT_TRUE(prepped.ok());
  EXPECT_EQ(prepped->stored_key, bob->scram_sha256.stored_key);
  EXPECT_FALSE(*(*store)->checkPassword("bob@example.com", "b\u00f6b secret"));
}

}  // namespace
}  // namespace darius::auth
