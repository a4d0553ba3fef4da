#include "imapd/thread/message_ids.h"

namespace darius::imapd::thread {
namespace {

constexpr int kMaxCommentDepth = 32;

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// `v[i]` is "(": the index just past the comment (nested comments and quoted-pairs allowed),
// or v.size() when it never ends.
size_t skipComment(std::string_view v, size_t i) {
  int depth = 0;
  for (; i < v.size(); ++i) {
    char c = v[i];
    if (c == '\\') {
      ++i;
    } else if (c == '(') {
      if (++depth > kMaxCommentDepth) return v.size();
    } else if (c == ')') {
      if (--depth == 0) return i + 1;
    }
  }
  return v.size();
}

// `v[i]` is '"': the index just past the quoted string; `out`, if given, receives its content
// without the quoting. v.size() + 1 when it never ends.
size_t skipQuoted(std::string_view v, size_t i, std::string* out) {
  for (++i; i < v.size(); ++i) {
    char c = v[i];
    if (c == '"') return i + 1;
    if (c == '\\') {
      if (++i >= v.size()) break;
      c = v[i];
    }
    if (out != nullptr) out->push_back(c);
  }
  return v.size() + 1;
}

// `v[i]` is "<": the normalised id and the index just past its ">", or nullopt and the index
// to go on scanning from.
std::optional<std::string> readId(std::string_view v, size_t& i) {
  std::string id = "<";
  size_t j = i + 1;
  while (j < v.size()) {
    char c = v[j];
    if (c == '>') break;
    if (c == '<') {
      i = j;  // a new "<" starts over
      return std::nullopt;
    }
    if (c == '"') {
      j = skipQuoted(v, j, &id);
      if (j > v.size()) break;
      continue;
    }
    if (c == '(') {
      j = skipComment(v, j);
      continue;
    }
    if (isSpace(c)) {
      ++j;
      continue;
    }
    auto u = static_cast<unsigned char>(c);
    if (u < 0x21 || u == 0x7f || c == '\\') {
      i = j + 1;
      return std::nullopt;
    }
    id.push_back(c);
    ++j;
  }
  if (j >= v.size()) {  // no ">"
    i = v.size();
    return std::nullopt;
  }
  i = j + 1;
  size_t at = id.find('@');
  if (at == std::string::npos || at == 1 || at + 1 == id.size()) return std::nullopt;
  id.push_back('>');
  return id;
}

// Calls `emit(id)` for each valid id in order until it returns false.
template <typename Emit>
void scanIds(std::string_view v, Emit emit) {
  size_t i = 0;
  while (i < v.size()) {
    char c = v[i];
    if (c == '(') {
      i = skipComment(v, i);
    } else if (c == '"') {
      i = skipQuoted(v, i, nullptr);
    } else if (c == '<') {
      if (auto id = readId(v, i)) {
        if (!emit(std::move(*id))) return;
      }
    } else {
      ++i;
    }
  }
}

}  // namespace

std::vector<std::string> parseMessageIds(std::string_view value, size_t max) {
  std::vector<std::string> out;
  if (max == 0) return out;
  // A ring of the last `max` ids, unrolled at the end.
  size_t seen = 0;
  scanIds(value, [&](std::string id) {
    if (out.size() < max) {
      out.push_back(std::move(id));
    } else {
      out[seen % max] = std::move(id);
    }
    ++seen;
    return true;
  });
  if (seen > max) {
    std::vector<std::string> ordered;
    ordered.reserve(max);
    for (size_t k = 0; k < max; ++k) ordered.push_back(std::move(out[(seen + k) % max]));
    out.swap(ordered);
  }
  return out;
}

std::string firstMessageId(std::string_view value) {
  std::string first;
  scanIds(value, [&](std::string id) {
    first = std::move(id);
    return false;
  });
  return first;
}

std::vector<std::string> threadReferences(std::optional<std::string_view> references,
                                          std::optional<std::string_view> in_reply_to) {
  if (references) {
    std::vector<std::string> ids = parseMessageIds(*references);
    if (!ids.empty()) return ids;
  }
  if (in_reply_to) {
    std::string id = firstMessageId(*in_reply_to);
    if (!id.empty()) return {std::move(id)};
  }
  return {};
}

}  // namespace darius::imapd::thread
