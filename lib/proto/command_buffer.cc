#include "lib/proto/command_buffer.h"

#include "lib/proto/arg_parser.h"
#include "lib/proto/number.h"

namespace darius::proto {

std::optional<LiteralHeader> parseLiteralHeader(std::string_view inside) {
  LiteralHeader h;
  if (!inside.empty() && inside.back() == '+') {
    h.synchronizing = false;
    inside.remove_suffix(1);
  }
  if (inside.empty()) return std::nullopt;
  for (char c : inside) {
    if (!isDigit(static_cast<unsigned char>(c))) return std::nullopt;
  }
  // All digits: the only possible error left is a count over number64.
  auto n = parseNumber64(inside);
  h.size = n.ok() ? *n : kLiteralSizeOverflow;
  return h;
}

std::optional<LiteralHeader> literalAtEnd(std::string_view line) {
  if (line.empty() || line.back() != '}') return std::nullopt;
  size_t open = line.rfind('{');
  if (open == std::string_view::npos) return std::nullopt;
  return parseLiteralHeader(line.substr(open + 1, line.size() - open - 2));
}

std::optional<LiteralHeader> CommandBuffer::addLine(std::string_view line) {
  text_.append(line.data(), line.size());
  auto h = literalAtEnd(line);
  if (h) text_ += "\r\n";
  return h;
}

void CommandBuffer::addLiteral(std::string_view bytes) {
  text_.append(bytes.data(), bytes.size());
  literal_bytes_ += bytes.size();
}

std::string CommandBuffer::replyTag() const {
  ArgParser p(text_);
  auto t = p.tag();
  return t.ok() ? std::string(*t) : std::string("*");
}

void CommandBuffer::clear() {
  text_.clear();
  literal_bytes_ = 0;
}

}  // namespace darius::proto
