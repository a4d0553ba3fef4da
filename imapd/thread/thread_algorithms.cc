#include "imapd/thread/thread_algorithms.h"

#include <algorithm>
#include <limits>
#include <string_view>
#include <unordered_map>

namespace darius::imapd::thread {
namespace {

constexpr uint32_t kNoParent = std::numeric_limits<uint32_t>::max();

// The order of RFC 5256 §2.2: sent date, then mailbox order.
struct Key {
  int64_t date = 0;
  uint32_t id = 0;
  friend bool operator<(const Key& a, const Key& b) {
    if (a.date != b.date) return a.date < b.date;
    return a.id < b.id;
  }
};

// The messages in mailbox order, one per id.
std::vector<const ThreadMessage*> inMailboxOrder(const std::vector<ThreadMessage>& messages) {
  std::vector<const ThreadMessage*> out;
  out.reserve(messages.size());
  for (const ThreadMessage& m : messages) {
    if (m.id != 0) out.push_back(&m);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const ThreadMessage* a, const ThreadMessage* b) { return a->id < b->id; });
  out.erase(std::unique(out.begin(), out.end(),
                        [](const ThreadMessage* a, const ThreadMessage* b) { return a->id == b->id; }),
            out.end());
  return out;
}

// The tree being built, with what the algorithms need beside it: each node's message (null
// for a dummy) and, while linking, its parent.
class Forest {
 public:
  uint32_t add(const ThreadMessage* m) {
    tree_.nodes.push_back(ThreadNode{m != nullptr ? m->id : 0, {}});
    message_.push_back(m);
    parent_.push_back(kNoParent);
    return static_cast<uint32_t>(tree_.nodes.size() - 1);
  }

  ThreadTree& tree() { return tree_; }
  std::vector<uint32_t>& kids(uint32_t n) { return tree_.nodes[n].children; }
  const ThreadMessage* message(uint32_t n) const { return message_[n]; }
  void setMessage(uint32_t n, const ThreadMessage* m) {
    message_[n] = m;
    tree_.nodes[n].id = m->id;
  }
  uint32_t parent(uint32_t n) const { return parent_[n]; }

  // RFC 5256 §3 1.A: "before making message A the parent of B, make sure that A is not a
  // descendent of B". The walk is bounded by the depth, and the links never form a cycle.
  // A child without children of its own (the usual case: a message just met) needs no walk.
  bool wouldLoop(uint32_t parent, uint32_t child) const {
    if (tree_.nodes[child].children.empty()) return parent == child;
    for (uint32_t x = parent; x != kNoParent; x = parent_[x]) {
      if (x == child) return true;
    }
    return false;
  }
  void link(uint32_t parent, uint32_t child) {
    kids(parent).push_back(child);
    parent_[child] = parent;
  }
  void unlink(uint32_t child) {
    uint32_t p = parent_[child];
    if (p == kNoParent) return;
    auto& k = kids(p);
    k.erase(std::find(k.begin(), k.end(), child));
    parent_[child] = kNoParent;
  }

  // The sort key of a node: its message's, or for a dummy its first child's (§3 steps 4, 6).
  // A dummy without children (none survive pruning) sorts first.
  Key key(uint32_t n) const {
    while (message_[n] == nullptr) {
      const auto& k = tree_.nodes[n].children;
      if (k.empty()) return Key{std::numeric_limits<int64_t>::min(), 0};
      n = k.front();
    }
    return Key{message_[n]->sent_date, message_[n]->id};
  }
  void sortByKey(std::vector<uint32_t>& list) const {
    std::vector<std::pair<Key, uint32_t>> keyed;
    keyed.reserve(list.size());
    for (uint32_t n : list) keyed.emplace_back(key(n), n);
    std::stable_sort(keyed.begin(), keyed.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t i = 0; i < list.size(); ++i) list[i] = keyed[i].second;
  }

  // Every node reachable from the roots, parents before children.
  std::vector<uint32_t> topDown() const {
    std::vector<uint32_t> order(tree_.roots.begin(), tree_.roots.end());
    for (size_t i = 0; i < order.size(); ++i) {
      for (uint32_t c : tree_.nodes[order[i]].children) order.push_back(c);
    }
    return order;
  }

  // §3 step 6: every set of siblings by sent date, the youngest generation first so that a
  // dummy's first child is known before the dummy is placed; then the top level.
  void sortAll() {
    std::vector<uint32_t> order = topDown();
    for (auto it = order.rbegin(); it != order.rend(); ++it) sortByKey(kids(*it));
    sortByKey(tree_.roots);
  }

 private:
  ThreadTree tree_;
  std::vector<const ThreadMessage*> message_;
  std::vector<uint32_t> parent_;
};

// RFC 5256 §3 REFERENCES steps 1 to 3, which REFS shares.
void linkAndPrune(Forest& f, const std::vector<const ThreadMessage*>& messages) {
  std::unordered_map<std::string_view, uint32_t> by_id;
  by_id.reserve(messages.size() * 2);
  auto container = [&](std::string_view id) {
    auto [it, inserted] = by_id.try_emplace(id, 0);
    if (inserted) it->second = f.add(nullptr);
    return it->second;
  };
  std::vector<uint32_t> refs;
  for (const ThreadMessage* m : messages) {
    // 1.A: a message without a valid id, and every later message repeating an id, gets a
    // unique one: a container no reference can name.
    uint32_t self;
    if (m->message_id.empty()) {
      self = f.add(m);
    } else {
      self = container(m->message_id);
      if (f.message(self) != nullptr) {
        self = f.add(m);
      } else {
        f.setMessage(self, m);
      }
    }
    refs.clear();
    for (const std::string& r : m->references) {
      if (!r.empty()) refs.push_back(container(r));
    }
    // 1.A: each reference the parent of the next, unless the child already has a parent
    // (References may have been truncated) or the link would make a loop.
    for (size_t i = 0; i + 1 < refs.size(); ++i) {
      uint32_t parent = refs[i], child = refs[i + 1];
      if (f.parent(child) != kNoParent || f.wouldLoop(parent, child)) continue;
      f.link(parent, child);
    }
    // 1.B: the last reference is the parent; an older link (from another message's truncated
    // References) gives way to it, and no references means no parent.
    if (!refs.empty() && f.parent(self) == refs.back()) continue;
    f.unlink(self);
    if (!refs.empty() && !f.wouldLoop(refs.back(), self)) f.link(refs.back(), self);
  }

  // 2: the parentless containers are the threads.
  ThreadTree& t = f.tree();
  for (uint32_t n = 0; n < t.nodes.size(); ++n) {
    if (f.parent(n) == kNoParent) t.roots.push_back(n);
  }

  // 3: dummies go; their children take their place, except that several children do not
  // climb to the top level (they keep their dummy, which becomes "((a)(b))"). Children are
  // pruned before their parents, so a spliced-in list holds no dummies any more.
  std::vector<uint32_t> order = f.topDown();
  std::vector<uint32_t> pruned;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    std::vector<uint32_t>& kids = f.kids(*it);
    pruned.clear();
    for (uint32_t c : kids) {
      if (f.message(c) != nullptr) {
        pruned.push_back(c);
      } else {
        const auto& grand = f.kids(c);
        pruned.insert(pruned.end(), grand.begin(), grand.end());
      }
    }
    kids.swap(pruned);
  }
  std::vector<uint32_t> roots;
  for (uint32_t r : t.roots) {
    if (f.message(r) != nullptr || f.kids(r).size() > 1) {
      roots.push_back(r);
    } else if (f.kids(r).size() == 1) {
      roots.push_back(f.kids(r).front());
    }
  }
  t.roots.swap(roots);
}

// The message a top-level node stands for when its subject is needed (§3 5.B.i).
const ThreadMessage* subjectMessage(Forest& f, uint32_t n) {
  if (f.message(n) != nullptr) return f.message(n);
  const auto& kids = f.kids(n);
  return kids.empty() ? nullptr : f.message(kids.front());
}

// §3 step 5: threads whose subjects agree are gathered.
void groupBySubject(Forest& f) {
  ThreadTree& t = f.tree();
  std::unordered_map<std::string_view, uint32_t> table;
  auto threadSubject = [&](uint32_t n) -> std::string_view {
    const ThreadMessage* m = subjectMessage(f, n);
    return m == nullptr ? std::string_view() : std::string_view(m->base_subject);
  };
  // 5.B: one message per subject; a dummy wins over a message, a message over a reply.
  for (uint32_t r : t.roots) {
    std::string_view subject = threadSubject(r);
    if (subject.empty()) continue;
    auto [it, inserted] = table.try_emplace(subject, r);
    if (inserted) continue;
    uint32_t held = it->second;
    if (f.message(held) == nullptr) continue;
    if (f.message(r) == nullptr || (f.message(held)->reply_or_fwd && !f.message(r)->reply_or_fwd)) {
      it->second = r;
    }
  }
  // 5.C: merge into the table's message. The root list is rewritten in place: a merged thread
  // leaves it, a message that gains a dummy parent gives its place to the dummy.
  std::vector<uint32_t>& roots = t.roots;
  std::unordered_map<uint32_t, size_t> slot;
  for (size_t i = 0; i < roots.size(); ++i) slot[roots[i]] = i;
  for (size_t i = 0; i < roots.size(); ++i) {
    uint32_t cur = roots[i];
    if (cur == kNoParent) continue;
    std::string_view subject = threadSubject(cur);
    if (subject.empty()) continue;
    auto it = table.find(subject);
    uint32_t held = it->second;
    if (held == cur) continue;
    bool cur_dummy = f.message(cur) == nullptr, held_dummy = f.message(held) == nullptr;
    if (cur_dummy && held_dummy) {
      auto& from = f.kids(cur);
      f.kids(held).insert(f.kids(held).end(), from.begin(), from.end());
      from.clear();
    } else if (held_dummy) {
      f.kids(held).push_back(cur);
    } else if (!cur_dummy && f.message(cur)->reply_or_fwd && !f.message(held)->reply_or_fwd) {
      f.kids(held).push_back(cur);
    } else {
      uint32_t dummy = f.add(nullptr);
      f.kids(dummy) = {held, cur};
      size_t at = slot[held];
      roots[at] = dummy;
      slot[dummy] = at;
      it->second = dummy;
      // The string view keys point into messages, which outlive the table; the dummy's
      // subject is its first child's, the same string.
    }
    roots[i] = kNoParent;
  }
  roots.erase(std::remove(roots.begin(), roots.end(), kNoParent), roots.end());
}

}  // namespace

size_t ThreadTree::messageCount() const {
  size_t count = 0;
  std::vector<uint32_t> stack(roots.begin(), roots.end());
  while (!stack.empty()) {
    uint32_t n = stack.back();
    stack.pop_back();
    if (!nodes[n].dummy()) ++count;
    stack.insert(stack.end(), nodes[n].children.begin(), nodes[n].children.end());
  }
  return count;
}

ThreadTree threadOrderedSubject(const std::vector<ThreadMessage>& messages) {
  std::vector<const ThreadMessage*> sorted = inMailboxOrder(messages);
  // By base subject, then sent date (then mailbox order, §2.2). Only the grouping and the
  // order inside a group matter: the threads are then ordered by their first message.
  std::stable_sort(sorted.begin(), sorted.end(), [](const ThreadMessage* a, const ThreadMessage* b) {
    if (a->base_subject != b->base_subject) return a->base_subject < b->base_subject;
    return Key{a->sent_date, a->id} < Key{b->sent_date, b->id};
  });
  Forest f;
  for (size_t i = 0; i < sorted.size();) {
    uint32_t first = f.add(sorted[i]);
    f.tree().roots.push_back(first);
    size_t j = i + 1;
    // The second message and every later one are children of the first: no grandchildren.
    for (; j < sorted.size() && sorted[j]->base_subject == sorted[i]->base_subject; ++j) {
      uint32_t child = f.add(sorted[j]);  // before kids(): add() may move the nodes
      f.kids(first).push_back(child);
    }
    i = j;
  }
  f.sortByKey(f.tree().roots);
  return std::move(f.tree());
}

ThreadTree threadReferences(const std::vector<ThreadMessage>& messages) {
  Forest f;
  linkAndPrune(f, inMailboxOrder(messages));
  // 4: the top level by sent date, a dummy by its first child once its children are sorted.
  for (uint32_t r : f.tree().roots) {
    if (f.message(r) == nullptr) f.sortByKey(f.kids(r));
  }
  f.sortByKey(f.tree().roots);
  groupBySubject(f);
  f.sortAll();  // 6
  return std::move(f.tree());
}

ThreadTree threadRefs(const std::vector<ThreadMessage>& messages) {
  Forest f;
  linkAndPrune(f, inMailboxOrder(messages));
  f.sortAll();
  // The threads by their newest message, children before parents so that each node's newest
  // descendant is known when its parent is looked at.
  ThreadTree& t = f.tree();
  std::vector<Key> newest(t.nodes.size(), Key{std::numeric_limits<int64_t>::min(), 0});
  std::vector<uint32_t> order = f.topDown();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    uint32_t n = *it;
    if (f.message(n) != nullptr) newest[n] = Key{f.message(n)->sent_date, f.message(n)->id};
    for (uint32_t c : t.nodes[n].children) newest[n] = std::max(newest[n], newest[c]);
  }
  std::stable_sort(t.roots.begin(), t.roots.end(),
                   [&](uint32_t a, uint32_t b) { return newest[a] < newest[b]; });
  return std::move(t);
}

ThreadTree threadMessages(ThreadAlgorithm algorithm, const std::vector<ThreadMessage>& messages) {
  switch (algorithm) {
    case ThreadAlgorithm::kOrderedSubject:
      return threadOrderedSubject(messages);
    case ThreadAlgorithm::kReferences:
      return threadReferences(messages);
    case ThreadAlgorithm::kRefs:
      return threadRefs(messages);
  }
  return {};
}

std::string formatThreads(const ThreadTree& tree) {
  std::string out;
  struct Frame {
    const std::vector<uint32_t>* kids;
    size_t next;
  };
  std::vector<Frame> stack;
  // Writes a chain of single children ("3 6"), then opens the split below it, if any:
  // thread-members = nz-number *(SP nz-number) [SP thread-nested].
  auto descend = [&](uint32_t n) {
    for (;;) {
      const ThreadNode& node = tree.nodes[n];
      if (!node.dummy()) {
        if (out.back() != '(') out.push_back(' ');
        out += std::to_string(node.id);
      }
      if (node.children.size() == 1) {
        n = node.children.front();
        continue;
      }
      if (node.children.empty()) return;
      if (!node.dummy()) out.push_back(' ');
      stack.push_back(Frame{&node.children, 0});
      return;
    }
  };
  for (uint32_t root : tree.roots) {
    out.push_back('(');
    descend(root);
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next > 0) out.push_back(')');
      if (f.next == f.kids->size()) {
        stack.pop_back();
        continue;
      }
      uint32_t kid = (*f.kids)[f.next++];
      out.push_back('(');
      descend(kid);  // may push: `f` is not used after this
    }
    out.push_back(')');
  }
  return out;
}

}  // namespace darius::imapd::thread
