#include "imapd/search/search_eval.h"

#include <algorithm>
#include <atomic>
#include <ctime>
#include <memory>
#include <system_error>
#include <thread>

#include "imapd/search/message_state.h"
#include "mailbox/search_text.h"
#include "mailbox/sent_date.h"
#include "lib/io/fd.h"
#include "lib/mime/header.h"
#include "lib/mime/message.h"
#include "mailbox/cache_fill.h"
#include "mailbox/message_stage.h"

namespace darius::imapd::search {

using base::Result;
using base::Status;
using mailbox::IndexRecord;
using mailbox::TextMatcher;
using mailbox::convertSearchString;
using mailbox::decodeHeaderValue;
using mailbox::decodedAddressText;
using mailbox::isSearchCharset;
using mailbox::parseSentDate;
using mailbox::visitSearchTextsOf;

namespace {

constexpr int kCostIndex = 0, kCostCache = 1, kCostFile = 2;

const char* headerNameOf(KeyKind k) {
  switch (k) {
    case KeyKind::kFrom: return "From";
    case KeyKind::kTo: return "To";
    case KeyKind::kCc: return "Cc";
    case KeyKind::kBcc: return "Bcc";
    case KeyKind::kSubject: return "Subject";
    default: return nullptr;
  }
}

bool isStringKey(KeyKind k) {
  return headerNameOf(k) != nullptr || k == KeyKind::kHeader || k == KeyKind::kBody ||
         k == KeyKind::kText;
}

bool isDateKey(KeyKind k) {
  switch (k) {
    case KeyKind::kBefore: case KeyKind::kOn: case KeyKind::kSince:
    case KeyKind::kSentBefore: case KeyKind::kSentOn: case KeyKind::kSentSince:
    case KeyKind::kSavedBefore: case KeyKind::kSavedOn: case KeyKind::kSavedSince:
      return true;
    default:
      return false;
  }
}

// Compares `day` with the key's: BEFORE is earlier, ON the same day, SINCE the same or later.
bool compareDay(KeyKind k, int64_t day, int64_t key_day) {
  switch (k) {
    case KeyKind::kBefore: case KeyKind::kSentBefore: case KeyKind::kSavedBefore:
      return day < key_day;
    case KeyKind::kOn: case KeyKind::kSentOn: case KeyKind::kSavedOn:
      return day == key_day;
    default:
      return day >= key_day;
  }
}

// One run: the program's nodes, the scope, and what run() worked out about the mailbox.
class Evaluator {
 public:
  Evaluator(const std::vector<SearchProgram::Node>& nodes, const SearchScope& scope)
      : nodes_(nodes), scope_(scope), keyword_bits_(nodes.size(), -1) {
    for (size_t i = 0; i < nodes.size(); ++i) {
      const SearchProgram::Node& n = nodes[i];
      if (n.kind == KeyKind::kKeyword || n.kind == KeyKind::kNoKeyword) {
        keyword_bits_[i] = scope.mailbox->header().findUserFlag(n.text);
      }
    }
    // One filter per TEXT/BODY key with a needle, made once per run from the index; a TEXT
    // key also gets BODY's, which tells where in a candidate to look first.
    filters_.resize(nodes.size());
    body_filters_.resize(nodes.size());
    if (scope.index != nullptr) {
      for (size_t i = 0; i < nodes.size(); ++i) {
        const SearchProgram::Node& n = nodes[i];
        if ((n.kind == KeyKind::kText || n.kind == KeyKind::kBody) && n.matcher &&
            !n.matcher->folded().empty()) {
          filters_[i] = scope.index->filter(n.matcher->folded(), n.kind == KeyKind::kBody);
          if (n.kind == KeyKind::kText && !filters_[i]->passesAll()) {
            body_filters_[i] = scope.index->filter(n.matcher->folded(), true);
          }
        }
      }
    }
    for (const SearchProgram::Node& n : nodes) {
      bool boolean = n.kind == KeyKind::kAnd || n.kind == KeyKind::kOr || n.kind == KeyKind::kNot;
      if (!boolean && n.cost == kCostCache) uses_cache_ = true;
    }
    max_msn_ = static_cast<uint32_t>(scope.view.size());
    max_uid_ = scope.view.empty() ? 0 : scope.view.back();
    now_ = scope.now != 0 ? scope.now : static_cast<int64_t>(::time(nullptr));
  }

  // Whether a key reads the cache entry (a deferred message then preloads it).
  bool usesCache() const { return uses_cache_; }

  // A search index filter that every match must pass, or null: the node's own when it is a
  // TEXT or BODY the index narrows, else one of an AND's children's.
  const mailbox::SearchFilter* requiredFilter(uint32_t index = 0) const {
    const SearchProgram::Node& n = nodes_[index];
    if ((n.kind == KeyKind::kText || n.kind == KeyKind::kBody) && filters_[index] &&
        !filters_[index]->passesAll()) {
      return &*filters_[index];
    }
    if (n.kind == KeyKind::kAnd) {
      for (uint32_t c : n.children) {
        if (const mailbox::SearchFilter* f = requiredFilter(c)) return f;
      }
    }
    return nullptr;
  }

  bool eval(uint32_t index, MessageState& m) const {
    const SearchProgram::Node& n = nodes_[index];
    const IndexRecord& r = m.record();
    switch (n.kind) {
      case KeyKind::kAnd:
        for (uint32_t c : n.children) {
          if (!eval(c, m)) return false;
        }
        return true;
      case KeyKind::kOr:
        return eval(n.children[0], m) || eval(n.children[1], m);
      case KeyKind::kNot:
        return !eval(n.children[0], m);
      case KeyKind::kAll:
      case KeyKind::kSaveDateSupported:  // the index keeps a save date for every message
        return true;
      case KeyKind::kSequence:
        return inSet(n.set, m.msn(), max_msn_, r.uid);
      case KeyKind::kUid:
        return inSet(n.set, r.uid, max_uid_, r.uid);
      case KeyKind::kFlag:
        return (r.system_flags & n.flag) != 0;
      case KeyKind::kNoFlag:
        return (r.system_flags & n.flag) == 0;
      case KeyKind::kKeyword:
        return keyword_bits_[index] >= 0 && r.hasUserFlag(keyword_bits_[index]);
      case KeyKind::kNoKeyword:
        return keyword_bits_[index] < 0 || !r.hasUserFlag(keyword_bits_[index]);
      case KeyKind::kRecent:
        return scope_.is_recent && scope_.is_recent(r.uid);
      case KeyKind::kLarger:
        return r.size > n.number;
      case KeyKind::kSmaller:
        return r.size < n.number;
      case KeyKind::kBefore: case KeyKind::kOn: case KeyKind::kSince:
        return compareDay(n.kind, internalDay(r), n.day);
      case KeyKind::kSavedBefore: case KeyKind::kSavedOn: case KeyKind::kSavedSince:
        return compareDay(n.kind, r.save_date != 0 ? floorDiv(r.save_date, kSecondsPerDay) : internalDay(r),
                          n.day);
      case KeyKind::kSentBefore: case KeyKind::kSentOn: case KeyKind::kSentSince:
        return compareDay(n.kind, m.sentDay(), n.day);
      case KeyKind::kModseq:
        return r.modseq >= n.number;
      // RFC 5032 §2: OLDER matches at or before now - interval, YOUNGER at or after it.
      case KeyKind::kOlder:
        return r.internal_date <= now_ - static_cast<int64_t>(n.number);
      case KeyKind::kYounger:
        return r.internal_date >= now_ - static_cast<int64_t>(n.number);
      case KeyKind::kEmailId:
        return emailIdOf(r) == n.text;
      case KeyKind::kThreadId: {
        auto t = threadIdOf(r);
        return t && *t == n.text;
      }
      case KeyKind::kFrom: case KeyKind::kTo: case KeyKind::kCc: case KeyKind::kBcc:
      case KeyKind::kSubject: case KeyKind::kHeader:
        return headerMatches(n, m);
      case KeyKind::kBody: case KeyKind::kText: {
        if (n.matcher->folded().empty()) return true;
        if (filters_[index] && !filters_[index]->mayMatch(r.uid)) return false;
        const mime::Message* msg = m.message();
        if (msg == nullptr) return false;
        auto match = [&](std::string_view text, bool) { return n.matcher->matches(text); };
        if (n.kind == KeyKind::kBody) return visitSearchTextsOf(*msg, mailbox::kBodyTexts, match);
        if (!body_filters_[index]) return visitSearchTextsOf(*msg, mailbox::kAllSearchTexts, match);
        // TEXT with the index: a message that is no BODY candidate cannot have the needle in
        // a body text (each of them would hold all its grams, tagged body), so only its own
        // headers are read; one that is, most often has it there, so its bodies come first.
        if (!body_filters_[index]->mayMatch(r.uid)) {
          return visitSearchTextsOf(*msg, mailbox::kOwnHeaders, match);
        }
        return visitSearchTextsOf(*msg, mailbox::kBodyTexts, match) ||
               visitSearchTextsOf(*msg, mailbox::kOwnHeaders, match);
      }
    }
    return false;
  }

 private:
  // A sequence-set key: `n` in the set once "*" is `max`; "$" stands for the saved UIDs
  // (RFC 5182), whatever the key, so it is tested against the UID.
  bool inSet(const proto::SequenceSet& set, uint32_t n, uint32_t max, uint32_t uid) const {
    if (set.hasLastResult() && scope_.saved != nullptr && scope_.saved->contains(uid, UINT32_MAX)) {
      return true;
    }
    return set.contains(n, max);
  }

  bool headerMatches(const SearchProgram::Node& n, MessageState& m) const {
    const char* name = headerNameOf(n.kind);
    std::string_view field = name != nullptr ? std::string_view(name) : std::string_view(n.field);
    bool trace = n.kind == KeyKind::kHeader && mailbox::isUncachedHeaderField(field);
    const mime::Header* h = m.header(trace);
    if (h == nullptr) return false;
    // RFC 9051 §6.4.4: FROM, TO, CC and BCC search the envelope's addresses, not the raw field
    // (comments and CFWS inside an addr-spec are not part of an address); SUBJECT and HEADER
    // the field's decoded text.
    bool address = n.kind == KeyKind::kFrom || n.kind == KeyKind::kTo ||
                   n.kind == KeyKind::kCc || n.kind == KeyKind::kBcc;
    for (const mime::HeaderField& f : h->fields()) {
      if (!proto::equalsIgnoreCase(f.name, field)) continue;
      // RFC 9051 §6.4.4: HEADER with an empty string matches every message with the field.
      if (n.matcher->folded().empty()) return true;
      if (n.matcher->matches(address ? decodedAddressText(f.value) : decodeHeaderValue(f.value))) {
        return true;
      }
    }
    return false;
  }

  const std::vector<SearchProgram::Node>& nodes_;
  const SearchScope& scope_;
  std::vector<int> keyword_bits_;  // per node: the user flag bit of KEYWORD/UNKEYWORD, or -1
  std::vector<std::optional<mailbox::SearchFilter>> filters_;  // per node: TEXT/BODY
  std::vector<std::optional<mailbox::SearchFilter>> body_filters_;  // per node: TEXT
  bool uses_cache_ = false;
  uint32_t max_msn_ = 0;
  uint32_t max_uid_ = 0;
  int64_t now_ = 0;  // OLDER / YOUNGER
};

// The messages whose outcome needs their files, found by the first pass (MessageState's
// defer_files) and evaluated here, on up to `threads` threads, the caller's among them: reading
// and decoding the candidates of a TEXT search is nearly all of its time, and each message is
// independent. Each thread takes the next message in turn, so a few large messages do not
// leave the others idle. Matches are added to `out` (the caller sorts them).
constexpr size_t kDeferredPerThread = 8;  // fewer than this per thread: not worth a thread

void settleDeferred(const Evaluator& ev, std::vector<std::unique_ptr<MessageState>>& pending,
                    size_t threads, SearchOutcome& out) {
  if (pending.empty()) return;
  std::vector<char> hit(pending.size(), 0);
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next.fetch_add(1); i < pending.size(); i = next.fetch_add(1)) {
      hit[i] = ev.eval(0, *pending[i]) ? 1 : 0;
      pending[i]->dropFile();
    }
  };
  const size_t want = std::min(threads, pending.size() / kDeferredPerThread);
  std::vector<std::thread> helpers;
  for (size_t i = 1; i < want; ++i) {
    try {
      helpers.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // no thread to be had: the others (and the caller) do the work
    }
  }
  work();
  for (std::thread& h : helpers) h.join();
  for (size_t i = 0; i < pending.size(); ++i) {
    const MessageState& m = *pending[i];
    if (hit[i]) out.matches.push_back({m.msn(), m.record().uid, m.record().modseq});
    if (m.unreadable()) ++out.unreadable;
    if (m.fileOpened()) ++out.files_opened;
  }
  std::sort(out.matches.begin(), out.matches.end(),
            [](const SearchMatch& a, const SearchMatch& b) { return a.uid < b.uid; });
}

int costOf(std::vector<SearchProgram::Node>& nodes, uint32_t index) {
  SearchProgram::Node& n = nodes[index];
  int cost = kCostIndex;
  switch (n.kind) {
    case KeyKind::kAnd: case KeyKind::kOr: case KeyKind::kNot:
      for (uint32_t c : n.children) cost = std::max(cost, costOf(nodes, c));
      if (n.kind == KeyKind::kAnd) {
        // Cheapest first: a message the index rejects never has its cache or file read.
        std::stable_sort(n.children.begin(), n.children.end(),
                         [&](uint32_t a, uint32_t b) { return nodes[a].cost < nodes[b].cost; });
      }
      break;
    case KeyKind::kFrom: case KeyKind::kTo: case KeyKind::kCc: case KeyKind::kBcc:
    case KeyKind::kSubject: case KeyKind::kSentBefore: case KeyKind::kSentOn:
    case KeyKind::kSentSince:
      cost = kCostCache;
      break;
    case KeyKind::kHeader:
      cost = mailbox::isUncachedHeaderField(n.field) ? kCostFile : kCostCache;
      break;
    case KeyKind::kBody: case KeyKind::kText:
      cost = n.matcher->folded().empty() ? kCostIndex : kCostFile;
      break;
    default:
      break;
  }
  n.cost = cost;
  return cost;
}

}  // namespace

Result<SearchProgram> SearchProgram::compile(const SearchArgs& args) {
  if (args.charset && !isSearchCharset(*args.charset)) {
    return Status::notSupported("Unknown charset " + args.charset->substr(0, 64));
  }
  if (args.keys.empty()) return Status::invalid("No search keys");
  SearchProgram prog;
  prog.nodes_.reserve(args.keys.size());
  for (const SearchKey& k : args.keys) {
    Node n;
    n.kind = k.kind;
    n.flag = k.flag;
    n.number = k.number;
    n.field = k.field;
    n.set = k.set;
    n.children = k.children;
    for (uint32_t c : n.children) {
      if (c >= args.keys.size()) return Status::invalid("Malformed search key tree");
    }
    if ((k.kind == KeyKind::kOr && k.children.size() != 2) ||
        (k.kind == KeyKind::kNot && k.children.size() != 1)) {
      return Status::invalid("Malformed search key tree");
    }
    if (isDateKey(k.kind)) n.day = proto::daysFromCivil(k.date);
    if (isStringKey(k.kind)) {
      auto utf8 = convertSearchString(k.text, args.charset);
      if (!utf8) return Status::notSupported("Unknown charset");
      n.matcher.emplace(*utf8);
    } else {
      n.text = k.text;  // keywords and object ids are ASCII atoms, compared as they are
    }
    prog.nodes_.push_back(std::move(n));
  }
  costOf(prog.nodes_, 0);
  return prog;
}

int SearchProgram::cost() const { return nodes_.empty() ? 0 : nodes_[0].cost; }

std::vector<int64_t> SearchProgram::ages() const {
  std::vector<int64_t> out;
  for (const Node& n : nodes_) {
    if (n.kind == KeyKind::kOlder || n.kind == KeyKind::kYounger) {
      out.push_back(static_cast<int64_t>(n.number));
    }
  }
  return out;
}

Result<SearchOutcome> SearchProgram::run(const SearchScope& scope) const {
  SearchOutcome out;
  if (scope.mailbox == nullptr || scope.view.empty()) return out;
  const mailbox::Mailbox& mb = *scope.mailbox;
  Evaluator ev(nodes_, scope);
  const bool defer = scope.threads > 1 && cost() == kCostFile;
  std::vector<std::unique_ptr<MessageState>> pending;
  auto visit = [&](const IndexRecord& rec, uint32_t msn) {
    MessageState m(mb, rec, msn, defer);
    const bool hit = ev.eval(0, m);
    if (m.deferred()) {
      pending.push_back(std::make_unique<MessageState>(mb, rec, msn));
      if (ev.usesCache()) pending.back()->preloadCache();
      return;
    }
    if (hit) out.matches.push_back({msn, rec.uid, rec.modseq});
    if (m.unreadable()) ++out.unreadable;
    if (m.fileOpened()) ++out.files_opened;
  };

  if (const mailbox::SearchFilter* f = ev.requiredFilter()) {
    // Every match passes this filter: visit its candidates alone, each record found by UID.
    for (size_t i : f->candidatesAmong(scope.view)) {
      DARIUS_ASSIGN_OR_RETURN(int64_t pos, mb.findUid(scope.view[i]));
      if (pos < 0) continue;  // left the index: nothing to match (as below)
      DARIUS_ASSIGN_OR_RETURN(IndexRecord r, mb.record(static_cast<size_t>(pos)));
      if (scope.seen != nullptr) scope.seen->apply(r);
      visit(r, static_cast<uint32_t>(i + 1));
    }
  } else {
    // Where the view's first UID is among the records; from there both ascend together.
    DARIUS_ASSIGN_OR_RETURN(int64_t start, mb.findUid(scope.view.front()));
    size_t ri = start >= 0 ? static_cast<size_t>(start) : 0;
    std::optional<IndexRecord> rec;
    for (size_t i = 0; i < scope.view.size(); ++i) {
      const uint32_t uid = scope.view[i];
      while ((!rec || rec->uid < uid) && ri < mb.recordCount()) {
        DARIUS_ASSIGN_OR_RETURN(IndexRecord r, mb.record(ri));
        ++ri;
        if (scope.seen != nullptr) scope.seen->apply(r);
        rec = r;
      }
      // A message of the view that has left the index (expunged and compacted meanwhile, not
      // yet reported) has nothing left to match.
      if (!rec || rec->uid != uid) continue;
      visit(*rec, static_cast<uint32_t>(i + 1));
    }
  }
  settleDeferred(ev, pending, scope.threads, out);
  return out;
}

Result<SearchOutcome> SearchProgram::runOn(const SearchScope& scope,
                                           std::span<const uint32_t> uids) const {
  SearchOutcome out;
  if (scope.mailbox == nullptr) return out;
  const mailbox::Mailbox& mb = *scope.mailbox;
  Evaluator ev(nodes_, scope);
  for (uint32_t uid : uids) {
    DARIUS_ASSIGN_OR_RETURN(int64_t pos, mb.findUid(uid));
    if (pos < 0) continue;  // left the index: matches nothing
    DARIUS_ASSIGN_OR_RETURN(IndexRecord rec, mb.record(static_cast<size_t>(pos)));
    if (!rec.live()) continue;
    if (scope.seen != nullptr) scope.seen->apply(rec);
    auto at = std::lower_bound(scope.view.begin(), scope.view.end(), uid);
    uint32_t msn = at != scope.view.end() && *at == uid
                       ? static_cast<uint32_t>(at - scope.view.begin()) + 1
                       : 0;
    MessageState m(mb, rec, msn);
    if (ev.eval(0, m)) out.matches.push_back({msn, uid, rec.modseq});
    if (m.unreadable()) ++out.unreadable;
    if (m.fileOpened()) ++out.files_opened;
  }
  return out;
}

std::string emailIdOf(const IndexRecord& record) {
  // The same spelling as FETCH EMAILID (imapd/fetch/fetch_render.cc).
  return "M" + mailbox::guidHex(record.guid).substr(0, 24);
}

std::optional<std::string> threadIdOf(const IndexRecord& record) {
  if (record.thread_id == 0) return std::nullopt;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "T";
  for (int shift = 60; shift >= 0; shift -= 4) out.push_back(kHex[(record.thread_id >> shift) & 0xf]);
  return out;
}

}  // namespace darius::imapd::search
