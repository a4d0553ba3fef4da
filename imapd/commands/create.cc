// CREATE (RFC 9051 §6.3.4) with CREATE-SPECIAL-USE (RFC 6154 §3): "CREATE name [(USE (\Sent))]".
//
// A trailing separator only says the client wants to create children later; it is dropped
// (§6.3.4). A personal mailbox below the user's own INBOX needs no right; anywhere else the
// "k" right on the nearest existing parent (RFC 4314 §4); an admin needs none in their scope,
// and only an admin may create a top-level shared mailbox. The new mailbox inherits its
// parent's ACL (RFC 4314 §4 SHOULD, as Cyrus's does), or gets the owner's full ACL at the top
// of a user's hierarchy, the creating admin's at the top of a shared one.
#include "imapd/commands/commands.h"
#include "imapd/mailbox_access.h"
#include "imapd/session.h"
#include "lib/proto/chars.h"

namespace darius::imapd {
namespace {

constexpr std::string_view kSpecialUses[] = {"\\All",    "\\Archive", "\\Drafts", "\\Flagged",
                                             "\\Junk",   "\\Sent",    "\\Trash",  "\\Important"};

struct CreateArgs {
  std::string mailbox;
  std::string special_use;  // space-separated, canonical spelling
};

base::Result<CreateArgs> parseCreate(ArgParser& p) {
  CreateArgs a;
  DARIUS_RETURN_IF_ERROR(p.space());
  DARIUS_ASSIGN_OR_RETURN(a.mailbox, p.mailbox());
  if (!p.skipIf(' ')) return a;
  // create-param list; the only one we know is USE (RFC 6154 §3).
  if (!p.skipIf('(')) return base::Status::invalid("CREATE parameters must be a list");
  DARIUS_ASSIGN_OR_RETURN(std::string_view name, p.atom());
  if (proto::asciiUpper(name) != "USE") return base::Status::invalid("Unknown CREATE parameter");
  DARIUS_RETURN_IF_ERROR(p.space());
  proto::FlagOptions fo;
  fo.allow_extension = true;  // use-attr = "\All" / "\Archive" / ... (backslash names)
  DARIUS_ASSIGN_OR_RETURN(std::vector<proto::Flag> uses, p.flagList(fo));
  for (const proto::Flag& f : uses) {
    bool known = false;
    for (std::string_view u : kSpecialUses) {
      if (proto::equalsIgnoreCase(f.name, u)) {
        if (!a.special_use.empty()) a.special_use += ' ';
        a.special_use += u;
        known = true;
      }
    }
    if (!known) {
      a.special_use = "?";  // RFC 6154 §3: an unknown use is NO [USEATTR], in execute
      break;
    }
  }
  if (!p.skipIf(')')) return base::Status::invalid("CREATE parameters not closed");
  return a;
}

asio::awaitable<Reply> executeCreate(Session& session, CreateArgs args) {
  if (args.special_use == "?") co_return Reply::no("Unsupported special use", "USEATTR");
  std::string wire = args.mailbox;
  char sep = session.ns().separator();
  while (!wire.empty() && wire.back() == sep) wire.pop_back();
  if (proto::equalsIgnoreCase(wire, "INBOX")) {
    co_return Reply::no("INBOX always exists", "ALREADYEXISTS");
  }
  auto name = internalName(session, wire);
  if (!name.ok()) {
    if (name.status().code() == base::Code::kTooBig) {
      co_return Reply::no("Mailbox name too long", "TOOBIG");
    }
    co_return Reply::no(name.status().message(), "CANNOT");
  }
  // Who may create it, and with which ACL: the nearest listed ancestor decides (its "k"), the
  // owner always in their own hierarchy, an admin anywhere in their scope; so a top-level
  // shared mailbox, which has no ancestor, only an admin.
  std::string acl;
  bool allowed = isOwner(session, *name) || mayAdminister(session, *name);
  for (auto up = name->parent(); up; up = up->parent()) {
    auto e = session.store().list().lookup(*up);
    if (!e.ok()) continue;
    mailbox::Rights r = rightsOn(session, *up, *e);
    allowed = allowed || (r & mailbox::right::kCreate);
    acl = e->acl;
    break;
  }
  if (acl.empty() && session.userName() != nullptr) {
    acl = mailbox::Acl::ownerDefault(name->isPersonal() ? name->userId()
                                                        : session.userName()->userId())
              .toString();
  }
  if (!allowed) co_return Reply::no("Permission denied", "NOPERM");
  // An existing mailbox the user may not know of answers as a refusal, not ALREADYEXISTS
  // (RFC 4314 §6; Cyrus does the same).
  if (auto there = session.store().list().lookup(*name); there.ok()) {
    bool hidden = (there->flags & mailbox::MailboxEntry::kDeleted) == 0 &&
                  (rightsOn(session, *name, *there) & mailbox::kRevealingRights) == 0;
    if (hidden) co_return Reply::no("Permission denied", "NOPERM");
  }
  mailbox::CreateOptions o;
  o.acl = acl;
  o.special_use = args.special_use;
  auto made = co_await session.blocking([&] { return session.store().create(*name, o); });
  if (!made.ok()) {
    if (made.status().code() == base::Code::kExists) {
      co_return Reply::no("Mailbox already exists", "ALREADYEXISTS");
    }
    co_return replyFor(session, made.status(), "CREATE");
  }
  co_return Reply::ok("CREATE completed");
}

}  // namespace

CommandSpec createCommand() {
  return makeCommand<CreateArgs, parseCreate, executeCreate>("CREATE", kAfterLogin);
}

}  // namespace darius::imapd
