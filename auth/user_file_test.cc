#include "auth/user_file.h"

#include <gtest/gtest.h>

#include <random>

#include "lib/base/base64.h"

namespace darius::auth {
namespace {

const std::string kHash =
    "$y$j9T$Y3aQdJrQhEKRhpKShA5Po/$ul0Nx6FfU8aMNYtdrDV.4vJ5SLgumiIVtO6Op9jWvS8";
const std::string kKey = base::base64Encode(std::string(32, 'k'));
const std::string kSalt = base::base64Encode("saltsalt");

std::string line(std::string_view name, std::string_view iterations = "4096") {
  return std::string(name) + ":" + kHash + ":scram-sha-256:" + std::string(iterations) + ":" +
         kSalt + ":" + kKey + ":" + kKey + "\n";
}

const std::string kHeader = "# darius-users 1\n";

void expectCorrupt(const std::string& text, std::string_view where) {
  auto r = parseUsersFile(text, "/etc/darius/users");
  ASSERT_FALSE(r.ok()) << text;
  EXPECT_EQ(r.status().code(), base::Code::kCorruption) << r.status().toString();
  EXPECT_NE(r.status().message().find(where), std::string::npos)
      << r.status().message() << " lacks " << where;
}

TEST(UserName, Rules) {
  for (const char* ok :
       {"a", "alice", "Alice.Smith", "a_b-c.d", "bob@example.com", "x@a-b.c", "0", "a@b"}) {
    EXPECT_TRUE(isValidUserName(ok)) << ok;
  }
  for (const char* bad : {"", "a+b", "a:b", "@example.com", "bob@", "a@b@c", "a b", "a/b", "a@b_c",
                          "bob\n", "caf\u00e9", "a@b+c", "..:"}) {
    EXPECT_FALSE(isValidUserName(bad)) << bad;
  }
  EXPECT_TRUE(isValidUserName(std::string(255, 'a')));
  EXPECT_FALSE(isValidUserName(std::string(256, 'a')));
  EXPECT_FALSE(isValidUserName(std::string("a\0b", 3)));
}

TEST(UserFile, RoundTrip) {
  std::string text = kHeader + line("alice") + line("bob@example.com", "100000");
  auto r = parseUsersFile(text, "users");
  ASSERT_TRUE(r.ok()) << r.status().toString();
  ASSERT_EQ(r->size(), 2u);
  const UserRecord& bob = r->at("bob@example.com");
  EXPECT_EQ(bob.password_hash, kHash);
  EXPECT_EQ(bob.scram_sha256.iterations, 100000u);
  EXPECT_EQ(bob.scram_sha256.salt, "saltsalt");
  EXPECT_EQ(bob.scram_sha256.stored_key, std::string(32, 'k'));
  EXPECT_EQ(serializeUsersFile(*r), text);
  EXPECT_EQ(serializeUsersFile({}), kHeader);
  EXPECT_TRUE(parseUsersFile(kHeader, "users").ok());
}

TEST(UserFile, RefusesOtherVersions) {
  expectCorrupt("# darius-users 2\n", "/etc/darius/users:1: unsupported users file version \"2\"");
  expectCorrupt("# darius-users 10\n" + line("a"), "/etc/darius/users:1:");
  expectCorrupt("# darius-users\n", "/etc/darius/users:1:");
  expectCorrupt("# darius-users 1 \n", "/etc/darius/users:1:");
  expectCorrupt("root:x:0:0:root:/root:/bin/bash\n", "/etc/darius/users:1: not a darius users");
  expectCorrupt("", "/etc/darius/users:1: empty file");
}

TEST(UserFile, MalformedLinesNameFileAndLine) {
  expectCorrupt(kHeader + line("a") + "b:" + kHash + "\n", "users:3: expected 7");
  expectCorrupt(kHeader + line("a") + line("b").substr(0, 20), "users:3: last line has no newline");
  expectCorrupt(kHeader + line("a").substr(0, line("a").size() - 1), "users:2: last line");
  expectCorrupt(kHeader + line("b") + line("a"), "users:3: user a is out of order");
  expectCorrupt(kHeader + line("a") + line("a"), "users:3: duplicate user a");
  expectCorrupt(kHeader + line("a+tag"), "users:2: invalid user name");
  expectCorrupt(kHeader + "\n", "users:2: expected 7");
  expectCorrupt(kHeader + "# comment\n", "users:2:");
  expectCorrupt(kHeader + line("a", "0"), "users:2: bad SCRAM iteration count");
  expectCorrupt(kHeader + line("a", "04096"), "users:2: bad SCRAM iteration count");
  expectCorrupt(kHeader + line("a", "-1"), "users:2: bad SCRAM iteration count");
  expectCorrupt(kHeader + line("a", "99999999999"), "users:2: bad SCRAM iteration count");
  expectCorrupt(kHeader + line("a", ""), "users:2: bad SCRAM iteration count");

  std::string crlf = line("a");
  crlf.insert(crlf.size() - 1, "\r");
  expectCorrupt(kHeader + crlf, "users:2: bad SCRAM ServerKey");

  auto with = [](std::string_view hash, std::string_view tag, std::string_view salt,
                 std::string_view stored, std::string_view server) {
    return kHeader + "a:" + std::string(hash) + ":" + std::string(tag) +
           ":4096:" + std::string(salt) + ":" + std::string(stored) + ":" + std::string(server) +
           "\n";
  };
  expectCorrupt(with("abJ32bJMdTsnY", "scram-sha-256", kSalt, kKey, kKey), "not a supported");
  expectCorrupt(with("", "scram-sha-256", kSalt, kKey, kKey), "not a supported");
  expectCorrupt(with(kHash, "scram-sha-1", kSalt, kKey, kKey), "expected \"scram-sha-256\"");
  expectCorrupt(with(kHash, "scram-sha-256", "", kKey, kKey), "bad SCRAM salt");
  expectCorrupt(with(kHash, "scram-sha-256", "c2Fsd!==", kKey, kKey), "bad SCRAM salt");
  expectCorrupt(with(kHash, "scram-sha-256", kSalt, "a2tr", kKey), "bad SCRAM StoredKey");
  expectCorrupt(with(kHash, "scram-sha-256", kSalt, kKey, kKey + "AAAA"), "bad SCRAM ServerKey");
}

TEST(UserFile, RandomDamageNeverCrashes) {
  const std::string good = kHeader + line("alice") + line("bob") + line("carol@example.org");
  std::mt19937 rng(1234);
  for (int round = 0; round < 5000; ++round) {
    std::string text = good;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t pos = rng() % text.size();
      switch (rng() % 3) {
        case 0:
          text[pos] = static_cast<char>(rng());
          break;
        case 1:
          text.erase(pos, 1 + rng() % 8);
          break;
        default:
          text.insert(pos, 1, static_cast<char>(rng()));
          break;
      }
      if (text.empty()) text = "x";
    }
    auto r = parseUsersFile(text, "users");
    if (r.ok()) {
      // Whatever is accepted must be canonical: the writer would produce the same bytes.
      EXPECT_EQ(serializeUsersFile(*r), text);
    } else {
      EXPECT_EQ(r.status().code(), base::Code::kCorruption);
    }
  }
}

}  // namespace
}  // namespace darius::auth
