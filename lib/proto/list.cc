#include "lib/proto/list.h"

#include "lib/proto/chars.h"

namespace darius::proto {

namespace {

void append(std::string& out, const Value& v) {
  switch (v.kind) {
    case Value::Kind::kNil:
      out += "NIL";
      return;
    case Value::Kind::kAtom:
      out += v.text;
      return;
    case Value::Kind::kString:
      out += quoteString(v.text);
      return;
    case Value::Kind::kList:
      out += '(';
      for (size_t i = 0; i < v.items.size(); ++i) {
        if (i > 0) out += ' ';
        append(out, v.items[i]);  // depth is bounded by the parser's cap (arg_parser_lists.cc)
      }
      out += ')';
      return;
  }
}

}  // namespace

std::string formatValue(const Value& v) {
  std::string out;
  append(out, v);
  return out;
}

}  // namespace darius::proto
