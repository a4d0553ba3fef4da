#include "imapd/list/list_respond.h"

#include "imapd/list/list_expunged.h"

#include <utility>

#include "imapd/acl_reply.h"
#include "imapd/mailbox_access.h"
#include "imapd/session.h"
#include "imapd/status_items.h"
#include "imapd/user_seen.h"
#include "lib/proto/chars.h"
#include "lib/proto/mutf7.h"

namespace darius::imapd {

using base::Result;
using base::Status;

namespace {

// Names listed per trip to the blocking pool when STATUS is asked: each STATUS opens a
// mailbox, so a batch bounds both the latency of the first line and the memory held.
constexpr size_t kStatusBatch = 64;

// The client's spelling of a name or pattern -> UTF-8; nullopt if it does not decode.
std::optional<std::string> decodeName(const Session& session, std::string_view wire) {
  if (utf8Names(session)) return std::string(wire);
  auto utf8 = proto::decodeMutf7(wire);
  if (!utf8.ok()) return std::nullopt;
  return std::move(*utf8);
}

// UTF-8 -> the name as it goes on the wire: mUTF-7 unless UTF8=ACCEPT, quoted or a literal.
std::optional<std::string> encodeName(const Session& session, std::string_view utf8) {
  if (utf8Names(session)) return proto::quoteString(utf8);
  auto mutf7 = proto::encodeMutf7(utf8);
  if (!mutf7.ok()) return std::nullopt;
  return proto::quoteString(*mutf7);
}

// mailbox_access.cc's view of the login: its own user, or a stand-in owning nothing.
ListViewer viewerOf(const Session& session) {
  ListViewer v;
  v.ns = &session.ns();
  if (session.userName() != nullptr) {
    v.user = *session.userName();
    v.owns_mailboxes = true;
    v.acl_id = v.user.userId();
    if (session.isAdmin()) {
      v.global_admin = session.administers("") && v.user.domain.empty();
      if (!v.global_admin) v.admin_domain = v.user.domain;
    }
  } else {
    v.user = mailbox::UserName{"anonymous", ""};
    v.owns_mailboxes = false;
    v.acl_id = session.user();
  }
  return v;
}

struct Line {
  std::string wire;  // encoded name
  ListedName name;
  std::optional<std::string> status;  // the STATUS values, when one follows
};

// Computes the STATUS values of the batch's mailboxes (on the blocking pool). A mailbox gone
// since the walk is listed \Noselect without STATUS (RFC 9051 §6.3.9.2); any other failure
// only drops the STATUS response, which RFC 5819 §2 allows.
void addStatus(Session& session, std::vector<Line>& lines, const std::vector<StatusItem>& items) {
  for (Line& l : lines) {
    if (!l.name.status_mailbox) continue;
    auto values = statusValues(session.store(), *l.name.status_mailbox, items,
                               session.settings().max_append_size,
                               seenUser(session, *l.name.status_mailbox));
    if (values.ok()) {
      l.status = std::move(*values);
    } else if (values.status().code() == base::Code::kNotFound) {
      l.name.select = ListedName::Select::kNoselect;
    } else {
      log::warning(session.logContext(), "LIST-STATUS {}: {}",
                   l.name.status_mailbox->toString(), values.status().toString());
    }
  }
}

void writeLine(Session& session, const Line& l, ListMode mode, char sep) {
  std::string out = mode == ListMode::kLsub ? "LSUB (" : "LIST (";
  out += l.name.attributes();
  out += ") \"";
  out += sep;
  out += "\" ";
  out += l.wire;
  if (l.name.childinfo_subscribed) out += " (\"CHILDINFO\" (\"SUBSCRIBED\"))";
  session.writeUntagged(out);
  if (l.status) session.writeUntagged("STATUS " + l.wire + " (" + *l.status + ")");
  if (l.name.myrights) {
    session.writeUntagged("MYRIGHTS " + l.wire + " " +
                          astringOut(mailbox::rightsToWire(*l.name.myrights)));
  }
}

}  // namespace

std::string listRoot(const mailbox::Namespace& ns, std::string_view reference) {
  mailbox::NamespaceData d = ns.namespaceData();
  for (const auto* list : {&d.other_users, &d.shared, &d.personal}) {
    for (const mailbox::NamespacePrefix& p : *list) {
      if (p.prefix.empty()) continue;
      std::string_view bare = std::string_view(p.prefix).substr(0, p.prefix.size() - 1);
      if (reference.substr(0, p.prefix.size()) == p.prefix || reference == bare) return p.prefix;
    }
  }
  return "";
}

asio::awaitable<Reply> respondList(Session& session, ListArgs args, ListMode mode) {
  const std::string_view verb = mode == ListMode::kLsub ? "LSUB" : "LIST";
  const char sep = session.ns().separator();
  const std::string done = std::string(verb) + " completed";
  if (!session.hasStore()) co_return Reply::no("No mailboxes here", "UNAVAILABLE");

  std::optional<std::string> reference = decodeName(session, args.reference);
  // RFC 9051 §6.3.9: in the basic syntax, an empty pattern asks for the delimiter and root.
  if (mode == ListMode::kList && !args.extended && args.patterns.size() == 1 &&
      args.patterns[0].empty()) {
    std::optional<std::string> root =
        encodeName(session, listRoot(session.ns(), reference ? *reference : ""));
    session.writeUntagged("LIST (\\Noselect) \"" + std::string(1, sep) + "\" " +
                          (root ? *root : "\"\""));
    co_return Reply::ok(done);
  }
  if (!reference) co_return Reply::ok(done);  // a reference that names nothing matches nothing

  ListQuery q;
  q.mode = mode;
  q.select_subscribed = args.select_subscribed;
  q.select_special_use = args.select_special_use;
  q.recursive_match = args.select_recursive;
  q.return_subscribed = args.return_subscribed;
  // RFC 6154 §2: special uses MAY go out on the basic LIST, and clients that never heard of
  // LIST-EXTENDED find their Sent and Trash folders that way; the extended LIST shows them
  // when asked.
  q.return_special_use = args.return_special_use || !args.extended;
  q.return_status = args.return_status;
  q.return_myrights = args.return_myrights;
  q.nonexistent_attr = args.extended || session.isEnabled("IMAP4REV2");
  const size_t max_name = mailbox::kMaxMailboxNameLength + 64;  // plus a namespace prefix
  for (const std::string& p : args.patterns) {
    if (p.empty()) continue;  // RFC 9051 §6.3.9: ignored in the extended syntax
    std::optional<std::string> utf8 = decodeName(session, p);
    if (!utf8) continue;
    q.patterns.emplace_back(canonicalPattern(*reference, *utf8, sep), sep, max_name);
  }
  if (q.patterns.empty()) co_return Reply::ok(done);
  for (StatusItem i : args.status_items) {
    if (i == StatusItem::kHighestModseq) session.useCondstore();
  }

  ListViewer viewer = viewerOf(session);
  auto listed = co_await session.blocking([&] { return walkList(session.store(), viewer, q); });
  if (!listed.ok()) co_return replyFor(session, listed.status(), std::string(verb));
  // The expunged and deleted areas, for patterns that name them (list_expunged.h); never "*".
  auto bin = co_await session.blocking([&] { return listReservedAreas(session.store(), viewer, q); });
  if (!bin.ok()) co_return replyFor(session, bin.status(), std::string(verb));
  for (ListedName& n : *bin) listed->push_back(std::move(n));

  std::vector<Line> batch;
  auto emit = [&]() -> asio::awaitable<Status> {
    if (q.return_status) {
      co_await session.blocking([&] {
        addStatus(session, batch, args.status_items);
        return 0;
      });
    }
    for (const Line& l : batch) writeLine(session, l, mode, sep);
    batch.clear();
    co_return co_await session.flushIfLarge();
  };
  for (ListedName& n : *listed) {
    std::optional<std::string> wire = encodeName(session, n.external);
    if (!wire) continue;
    batch.push_back(Line{std::move(*wire), std::move(n), std::nullopt});
    if (batch.size() >= kStatusBatch) {
      Status s = co_await emit();
      if (!s.isOk()) co_return Reply::none();  // the connection is gone
    }
  }
  Status s = co_await emit();
  if (!s.isOk()) co_return Reply::none();
  co_return Reply::ok(done);
}

}  // namespace darius::imapd
