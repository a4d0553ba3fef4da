// DotStuffer: RETR and TOP bodies, whatever the chunking of the input.
#include "pop3d/dot_stuff.h"

#include <gtest/gtest.h>

namespace darius::pop3d {
namespace {

// Runs `in` through a stuffer in chunks of `chunk` bytes.
std::string stuff(std::string_view in, std::optional<uint32_t> lines, size_t chunk) {
  DotStuffer s(lines);
  std::string out;
  for (size_t i = 0; i < in.size(); i += chunk) {
    if (!s.feed(in.substr(i, chunk), out)) break;
  }
  s.finish(out);
  return out;
}

void expectAllChunkings(std::string_view in, std::optional<uint32_t> lines,
                        std::string_view want) {
  for (size_t chunk : {size_t{1}, size_t{2}, size_t{3}, size_t{7}, in.size() + 1}) {
    EXPECT_EQ(stuff(in, lines, chunk), want) << "chunk " << chunk;
  }
}

TEST(DotStufferTest, Retr) {
  expectAllChunkings("A: b\r\n\r\n.x\r\n..\r\n.\r\nend\r\n", std::nullopt,
                     "A: b\r\n\r\n..x\r\n...\r\n..\r\nend\r\n.\r\n");
  expectAllChunkings("", std::nullopt, ".\r\n");
  expectAllChunkings("no line end", std::nullopt, "no line end\r\n.\r\n");
  expectAllChunkings("bare\nlf\rcr\r", std::nullopt, "bare\r\nlf\r\ncr\r\n.\r\n");
  expectAllChunkings("a.b\r\n .c\r\n", std::nullopt, "a.b\r\n .c\r\n.\r\n");
}

TEST(DotStufferTest, Top) {
  const std::string m = "H: 1\r\nI: 2\r\n\r\nl1\r\n.l2\r\nl3\r\n";
  expectAllChunkings(m, 0, "H: 1\r\nI: 2\r\n\r\n.\r\n");
  expectAllChunkings(m, 1, "H: 1\r\nI: 2\r\n\r\nl1\r\n.\r\n");
  expectAllChunkings(m, 2, "H: 1\r\nI: 2\r\n\r\nl1\r\n..l2\r\n.\r\n");
  expectAllChunkings(m, 9, "H: 1\r\nI: 2\r\n\r\nl1\r\n..l2\r\nl3\r\n.\r\n");
  expectAllChunkings("H: only\r\n", 0, "H: only\r\n.\r\n");  // no body at all
  expectAllChunkings("\r\nbody\r\n", 0, "\r\n.\r\n");         // empty header
}

TEST(DotStufferTest, TopTellsTheReaderToStop) {
  DotStuffer s(0);
  std::string out;
  EXPECT_FALSE(s.feed("H: 1\r\n\r\nbody", out));
  EXPECT_FALSE(s.feed("more", out));
  s.finish(out);
  EXPECT_EQ(out, "H: 1\r\n\r\n.\r\n");
}

}  // namespace
}  // namespace darius::pop3d
