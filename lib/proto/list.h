// Parenthesised lists of the IMAP formal syntax (RFC 9051 §9), as a generic value tree for the
// arguments whose shape is only known to the command (ID parameters, RFC 4466 tagged-ext-val,
// LIST select and return options) and limits for the typed lists that commands parse
// element by element (flag-list, fetch-att lists, header-list).
//
// A Value is NIL, a string (quoted or literal), an atom in the wide sense (ASTRING-CHAR and
// "*", so that "1:*" of a tagged-ext-simple sequence-set or "\Seen" is one token; the command
// interprets it), or a list of Values. Nesting is explicit and bounded: ListLimits::max_depth
// is checked before each descent, so "((((...))))" from a client is kInvalid at that depth,
// never a recursion deep enough to overflow the stack; ListLimits::max_items bounds the
// number of values (kTooBig), so a list of a million "{0}" literals cannot grow memory
// without bound. The limits are configurable because DESIGN.md §5 wants every limit so.
//
// Ownership: a Value owns its text and its items. Thread-safety: a value type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace darius::proto {

struct ListLimits {
  // Lists inside lists: "(a)" is depth 1, "((a))" depth 2. At most this deep; 0 refuses
  // every list. Values above 1000 count as 1000, which bounds the recursion of ~Value().
  int max_depth = 16;
  // Values of all kinds in the whole tree, lists included.
  size_t max_items = 10000;
};

struct Value {
  enum class Kind : uint8_t { kNil, kAtom, kString, kList };

  Kind kind = Kind::kNil;
  std::string text;          // kAtom and kString
  std::vector<Value> items;  // kList

  bool isNil() const { return kind == Kind::kNil; }
  bool isAtom() const { return kind == Kind::kAtom; }
  bool isString() const { return kind == Kind::kString; }
  bool isList() const { return kind == Kind::kList; }
  // An astring: an atom or a string (what most commands accept where a name goes).
  bool isAstring() const { return kind == Kind::kAtom || kind == Kind::kString; }

  friend bool operator==(const Value&, const Value&) = default;
};

// The value in wire form (server output and tests): atoms as they are, strings through
// quoteString(), NIL, lists in parentheses separated by SP.
std::string formatValue(const Value& v);

}  // namespace darius::proto
