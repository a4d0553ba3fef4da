// Fuzzes the IMAP command front end (lib/proto/arg_parser.h, imapd/command_table.h) the way the
// session drives it, without sockets: the input is a client byte stream cut into lines and
// literals by net::LineReader, each command is framed by CommandBuffer (literal sizes limited
// as in the session), then lexed: tag, command name, the command's own parse function from
// the real CommandTable, and a generic walk over every value. Invariants: no crash; a
// failed element consumes nothing; every string the lexer returns survives quoteString()
// and a re-parse unchanged; a command that parsed leaves the parser at the end.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "imapd/command_table.h"
#include "lib/net/line_reader.h"
#include "lib/proto/arg_parser.h"
#include "lib/proto/command_buffer.h"

namespace {

using darius::imapd::CommandTable;
using darius::proto::ArgParser;
using darius::proto::CommandBuffer;

constexpr uint64_t kMaxLiteral = 4096;
constexpr int kMaxDepth = 32;

const CommandTable& table() {
  static const CommandTable* t = new CommandTable(CommandTable::standard());
  return *t;
}

void roundTrip(const std::string& s) {
  std::string quoted = darius::proto::quoteString(s);
  ArgParser p(quoted);
  auto again = p.string();
  if (!again.ok() || *again != s || !p.atEnd()) std::abort();
}

// Lexes values until the first error, checking the invariants on each.
void walk(ArgParser& p) {
  int depth = 0;
  for (int steps = 0; steps < 10000 && !p.atEnd(); ++steps) {
    size_t before = p.position();
    if (p.skipIf(' ')) continue;
    if (p.skipIf('(')) {
      if (++depth > kMaxDepth) return;
      continue;
    }
    if (p.skipIf(')')) {
      if (--depth < 0) return;
      continue;
    }
    if (p.skipNil()) continue;
    auto s = p.astring();
    if (!s.ok()) {
      if (p.position() != before) std::abort();
      return;
    }
    if (p.position() == before) std::abort();
    roundTrip(*s);
  }
}

void lex(const std::string& text) {
  ArgParser p(text);
  auto tag = p.tag();
  if (!tag.ok()) {
    if (p.position() != 0) std::abort();
    return;
  }
  for (char c : *tag) {
    if (!darius::proto::isTagChar(static_cast<unsigned char>(c))) std::abort();
  }
  if (!p.space().isOk()) return;
  auto name = p.atom();
  if (!name.ok()) return;
  const size_t args_at = p.position();
  if (const auto* spec = table().find(*name)) {
    auto prepared = spec->parse(p);
    if (prepared.ok() && !p.atEnd()) std::abort();
  }
  ArgParser rest(std::string_view(text).substr(args_at));
  walk(rest);
  // A lone base64 token, as AUTHENTICATE's initial response.
  ArgParser b(std::string_view(text).substr(args_at));
  if (b.skipIf(' ')) (void)b.base64Token();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  darius::net::LineReader reader({.max_line = 1024, .max_literal = kMaxLiteral});
  reader.feed(std::string_view(reinterpret_cast<const char*>(data), size));
  for (;;) {
    auto line = reader.takeLine();
    if (!line.ok()) continue;  // overlong: reported once, then skipped
    if (!*line) break;
    CommandBuffer cmd;
    std::optional<darius::proto::LiteralHeader> lit = cmd.addLine(**line);
    bool complete = true;
    while (lit) {
      if (lit->size > kMaxLiteral - cmd.literalBytes()) {
        complete = false;  // the session answers BAD [TOOBIG] here
        break;
      }
      auto bytes = reader.takeBytes(lit->size);
      if (!bytes.ok() || !*bytes) return 0;  // input ends inside the literal
      cmd.addLiteral(**bytes);
      auto next = reader.takeLine();
      if (!next.ok() || !*next) return 0;
      lit = cmd.addLine(**next);
    }
    (void)cmd.replyTag();
    if (complete) lex(cmd.text());
  }
  return 0;
}
