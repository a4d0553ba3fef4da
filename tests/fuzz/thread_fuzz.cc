// Fuzzes the THREAD algorithms (imapd/thread/thread_algorithms.h) with random message-id and
// reference graphs, and the msg-id parser (message_ids.h) and header reader (thread_inputs.h)
// with the raw bytes.
//
// The bytes are read as a list of messages, 5 bytes each plus references:
//   [id step] [message id] [subject|reply flag] [date] [n refs] n x [reference]
// Message ids and references come from a small name space (32 names, the top bit of the
// byte meaning "none"), so duplicates, self references, loops and missing parents are common.
// For each algorithm it checks what the THREAD response promises:
//   - every message appears exactly once in the tree, and no node is reachable twice;
//   - a dummy is never a leaf, and below the top level never a node at all (REFERENCES/REFS);
//   - ORDEREDSUBJECT has no grandchildren;
//   - formatThreads() is balanced, names every message once and nothing else.
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "imapd/thread/message_ids.h"
#include "imapd/thread/thread_algorithms.h"
#include "imapd/thread/thread_inputs.h"

namespace {

using namespace darius::imapd::thread;  // NOLINT: a fuzz driver

void check(bool ok) {
  if (!ok) std::abort();
}

std::string name(uint8_t b) { return "<m" + std::to_string(b & 31) + "@fuzz>"; }

std::vector<ThreadMessage> decode(const uint8_t* data, size_t size) {
  std::vector<ThreadMessage> out;
  size_t i = 0;
  uint32_t id = 0;
  while (i + 5 <= size && out.size() < 4096) {
    ThreadMessage m;
    id += 1 + data[i] % 4;  // ids grow, with gaps, as UIDs do
    m.id = id;
    if ((data[i + 1] & 0x80) == 0) m.message_id = name(data[i + 1]);
    m.base_subject = std::string(1, static_cast<char>('a' + (data[i + 2] & 7)));
    if ((data[i + 2] & 0x40) != 0) m.base_subject.clear();
    m.reply_or_fwd = (data[i + 2] & 0x80) != 0;
    m.sent_date = static_cast<int64_t>(data[i + 3] % 16) * 1000;
    size_t n = data[i + 4] % 8;
    i += 5;
    for (size_t k = 0; k < n && i < size; ++k, ++i) {
      if ((data[i] & 0x80) == 0) m.references.push_back(name(data[i]));
    }
    out.push_back(std::move(m));
  }
  return out;
}

void checkTree(const ThreadTree& t, const std::vector<ThreadMessage>& messages, bool flat) {
  std::set<uint32_t> ids;
  for (const ThreadMessage& m : messages) ids.insert(m.id);
  std::vector<bool> seen(t.nodes.size(), false);
  std::set<uint32_t> found;
  struct Item {
    uint32_t node;
    int depth;
  };
  std::vector<Item> stack;
  for (uint32_t r : t.roots) stack.push_back({r, 0});
  while (!stack.empty()) {
    Item it = stack.back();
    stack.pop_back();
    check(it.node < t.nodes.size() && !seen[it.node]);
    seen[it.node] = true;
    const ThreadNode& n = t.nodes[it.node];
    if (n.dummy()) {
      check(it.depth == 0 && n.children.size() >= 2);
    } else {
      check(found.insert(n.id).second);
    }
    if (flat) check(it.depth <= 1);
    for (uint32_t c : n.children) stack.push_back({c, it.depth + 1});
  }
  check(found == ids);
  check(t.messageCount() == ids.size());

  // The response: balanced, each id once.
  std::string s = formatThreads(t);
  int depth = 0;
  std::set<uint32_t> listed;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '(') {
      ++depth;
    } else if (c == ')') {
      check(--depth >= 0);
      check(s[i - 1] != '(');  // never "()"
    } else if (c >= '1' && c <= '9') {
      uint32_t v = 0;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') v = v * 10 + static_cast<uint32_t>(s[i++] - '0');
      --i;
      check(depth > 0 && listed.insert(v).second);
    } else {
      check(c == ' ' && depth > 0);
    }
    if (depth == 0) check(c == ')');
  }
  check(depth == 0);
  check(listed == ids);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<ThreadMessage> messages = decode(data, size);
  checkTree(threadReferences(messages), messages, false);
  checkTree(threadRefs(messages), messages, false);
  checkTree(threadOrderedSubject(messages), messages, true);

  // The same bytes as header text.
  std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const std::string& id : parseMessageIds(text, 50)) {
    // "<", a non-empty left part, "@", a non-empty right part, ">". (Not idempotent: a quoted
    // local part may keep spaces that a second pass would drop as obsolete CFWS.)
    check(id.size() >= 5 && id.front() == '<' && id.back() == '>');
    size_t at = id.find('@', 2);
    check(at != std::string::npos && at + 2 < id.size());
  }
  ThreadMessage m = threadMessageFromHeader(1, text, 0);
  check(m.references.size() <= kMaxReferences);
  return 0;
}
