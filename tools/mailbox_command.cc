#include "tools/mailbox_command.h"

#include <strings.h>

#include <cstdio>
#include <ctime>
#include <iostream>
#include <iterator>
#include <sstream>

#include "lib/io/env.h"
#include "mailbox/acl.h"
#include "mailbox/index_format.h"
#include "mailbox/mailbox.h"
#include "mailbox/message_stage.h"
#include "mailbox/store.h"
#include "tools/cli_common.h"

namespace darius::tools {

using base::Result;
using base::Status;
using mailbox::MailboxEntry;
using mailbox::MailboxName;
using mailbox::Store;

namespace {

struct SystemFlag {
  const char* name;
  uint32_t bit;
};
constexpr SystemFlag kSystemFlags[] = {{"\\Seen", mailbox::kFlagSeen},
                                       {"\\Answered", mailbox::kFlagAnswered},
                                       {"\\Flagged", mailbox::kFlagFlagged},
                                       {"\\Deleted", mailbox::kFlagDeleted},
                                       {"\\Draft", mailbox::kFlagDraft}};

// "id rights id rights" (spaces or TABs) -> the stored form "id\trights\tid\trights".
Result<std::string> parseAcl(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words{std::istream_iterator<std::string>(in), {}};
  if (words.size() % 2 != 0) return Status::invalid("--acl wants identifier/rights pairs");
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : "\t") + w;
  DARIUS_ASSIGN_OR_RETURN(mailbox::Acl acl, mailbox::Acl::parse(out));  // rights letters checked
  return acl.toString();
}

// A keyword is an IMAP atom (RFC 9051 §4): no space, controls, ( ) { % * " \ ].
bool isAtom(const std::string& k) {
  if (k.empty()) return false;
  for (unsigned char c : k) {
    if (c <= 0x20 || c >= 0x7f ||
        std::string_view("(){%*\"\\]").find(static_cast<char>(c)) != std::string_view::npos) {
      return false;
    }
  }
  return true;
}

// Messages are stored in canonical CRLF form; files on a Unix disk usually end lines in LF.
std::string canonicalCrlf(std::string_view in) {
  std::string out;
  out.reserve(in.size() + in.size() / 32);
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '\n' && (i == 0 || in[i - 1] != '\r')) out += '\r';
    out += in[i];
  }
  return out;
}

std::string flagText(const mailbox::IndexRecord& r, const mailbox::MailboxHeader& h) {
  std::string out;
  for (const SystemFlag& f : kSystemFlags) {
    if (r.system_flags & f.bit) out += (out.empty() ? "" : " ") + std::string(f.name);
  }
  for (size_t b = 0; b < h.user_flags.size(); ++b) {
    if (r.hasUserFlag(static_cast<int>(b))) out += (out.empty() ? "" : " ") + h.user_flags[b];
  }
  return out;
}

int list(Store& store, const MailboxCommand& cmd) {
  auto print = [&](const MailboxName& n, const MailboxEntry& e) {
    std::string messages = "-";
    if ((e.flags & (MailboxEntry::kDeleted | MailboxEntry::kNoSelect)) == 0) {
      // Mailbox::open, not Store::openMailbox: listing must not start a reconstruct.
      auto dir = store.directoryOf(n, e);
      auto m = dir.ok() ? mailbox::Mailbox::open(store.env(), *dir)
                        : Result<std::unique_ptr<mailbox::Mailbox>>(dir.status());
      if (m.ok()) {
        messages = std::to_string((*m)->index().num_records - (*m)->index().num_expunged);
      } else {
        messages = "?";
        std::fprintf(stderr, "darius: %s: %s\n", n.toString().c_str(),
                     m.status().toString().c_str());
      }
    }
    std::printf("%s\t%s\t%s\t%s\t%u\n", n.toString().c_str(), e.partition.c_str(),
                e.unique_id.c_str(), messages.c_str(), e.uidvalidity);
    return true;
  };
  Status s;
  if (cmd.prefix.empty()) {
    s = store.list().forEach(print);
  } else if (cmd.prefix.back() == '!') {
    s = store.list().forEachInDomain(cmd.prefix.substr(0, cmd.prefix.size() - 1), print);
  } else {
    auto root = MailboxName::parse(cmd.prefix);
    if (!root.ok()) return reportFailure("mailbox list", root.status());
    s = store.list().listSubtree(*root, print);
  }
  return s.isOk() ? 0 : reportFailure("mailbox list", s);
}

int show(Store& store, const MailboxName& name, bool expunged) {
  const std::string what = "mailbox show " + name.toString();
  auto e = store.list().lookup(name);
  if (!e.ok()) return reportFailure(what, e.status());
  auto dir = store.directoryOf(name, *e);
  if (!dir.ok()) return reportFailure(what, dir.status());
  auto m = mailbox::Mailbox::open(store.env(), *dir);
  if (!m.ok()) return reportFailure(what, m.status());
  const mailbox::IndexHeader& h = (*m)->index();
  std::printf("# %s uniqueid %s uidvalidity %u uidnext %u highestmodseq %llu messages %u\n",
              name.toString().c_str(), (*m)->header().unique_id.c_str(), h.uidvalidity, h.uidnext,
              static_cast<unsigned long long>(h.highest_modseq), h.num_records - h.num_expunged);
  for (size_t i = 0; i < (*m)->recordCount(); ++i) {
    auto r = (*m)->record(i);
    if (!r.ok()) return reportFailure(what, r.status());
    if (!r->live()) continue;
    std::printf("%u\t%s\t%llu\t%s\t%lld\n", r->uid, flagText(*r, (*m)->header()).c_str(),
                static_cast<unsigned long long>(r->size), mailbox::guidHex(r->guid).c_str(),
                static_cast<long long>(r->internal_date));
  }
  if (!expunged) return 0;
  // Two-phase expunge (docs/design/expunge.md): what the mailbox still holds expunged, as
  // `darius unexpunge` and `.EXPUNGED/<folder>` would find it.
  auto held = (*m)->expungedRecords();
  if (!held.ok()) return reportFailure(what, held.status());
  std::printf("# expunged %zu\n", held->size());
  for (const mailbox::IndexRecord& r : *held) {
    mailbox::IndexRecord shown = r;
    shown.system_flags &= ~mailbox::kFlagExpunged;
    std::printf("%u\t%s\t%llu\t%s\t%lld\texpunged %lld\tmodseq %llu\n", r.uid,
                flagText(shown, (*m)->header()).c_str(), static_cast<unsigned long long>(r.size),
                mailbox::guidHex(r.guid).c_str(), static_cast<long long>(r.internal_date),
                static_cast<long long>(r.expunged_at), static_cast<unsigned long long>(r.modseq));
  }
  return 0;
}

int create(Store& store, const MailboxName& name, const MailboxCommand& cmd) {
  mailbox::CreateOptions o;
  o.partition = cmd.partition;
  o.special_use = cmd.special_use;
  if (!cmd.acl.empty()) {
    auto acl = parseAcl(cmd.acl);
    if (!acl.ok()) return reportFailure("mailbox create", acl.status());
    o.acl = *acl;
  } else if (name.isPersonal()) {
    o.acl = mailbox::Acl::ownerDefault(name.userId()).toString();  // as Store::ensureInbox
  }
  if (name.isPersonal()) {
    o.quota_root = MailboxName::personal(name.domain(), name.owner())->toString();
  }
  auto e = store.create(name, o);
  if (!e.ok()) return reportFailure("mailbox create " + name.toString(), e.status());
  std::printf("created %s (partition %s, unique id %s, uidvalidity %u)\n", name.toString().c_str(),
              e->partition.c_str(), e->unique_id.c_str(), e->uidvalidity);
  return 0;
}

int append(Store& store, const MailboxName& name, const MailboxCommand& cmd) {
  const std::string what = "mailbox append " + name.toString();
  mailbox::AppendRequest proto;
  proto.internal_date = cmd.date != 0 ? cmd.date : static_cast<int64_t>(::time(nullptr));
  for (const std::string& f : cmd.flags) {
    bool system = false;
    for (const SystemFlag& s : kSystemFlags) {
      if (strcasecmp(f.c_str(), s.name) == 0) {
        proto.system_flags |= s.bit;
        system = true;
      }
    }
    if (system) continue;
    if (f[0] == '\\' || !isAtom(f)) {
      return reportFailure(what, Status::invalid("not a flag or keyword: " + f));
    }
    proto.keywords.push_back(f);
  }
  auto entry = store.list().lookup(name);
  if (!entry.ok()) return reportFailure(what, entry.status());
  auto partition = store.partition(entry->partition);
  if (!partition.ok()) return reportFailure(what, partition.status());
  for (const std::string& file : cmd.files) {
    Result<std::string> bytes = std::string();
    if (file == "-") {
      bytes = std::string(std::istreambuf_iterator<char>(std::cin), {});
    } else {
      bytes = io::Env::posix()->readFile(file);
    }
    if (!bytes.ok()) return reportFailure(what, bytes.status());
    auto staged = store.stage(**partition, canonicalCrlf(*bytes));
    if (!staged.ok()) return reportFailure(what, staged.status());
    mailbox::AppendRequest q = proto;
    q.message = &*staged;
    auto done = store.append(name, {&q, 1});
    (void)store.unstage(*staged);  // a leftover is cleaned when the store is next opened
    if (!done.ok()) return reportFailure(what + " " + file, done.status());
    std::printf("%s: appended UID %u\n", name.toString().c_str(), done->front().uid);
  }
  return 0;
}

}  // namespace

int runMailboxCommand(const std::string& config_path, const MailboxCommand& cmd) {
  auto config = loadConfig(config_path);
  if (!config.ok()) {
    std::fprintf(stderr, "darius: %s\n", config.status().message().c_str());
    return kExitConfig;
  }
  auto opened = Store::open(*config);
  if (!opened.ok()) return reportFailure("mailbox: cannot open the store", opened.status());
  Store& store = **opened;
  if (cmd.action == "list") return list(store, cmd);

  auto name = MailboxName::parse(cmd.name);
  if (!name.ok()) return reportFailure("mailbox " + cmd.action, name.status());
  if (cmd.action == "show") return show(store, *name, cmd.expunged);
  if (cmd.action == "create") return create(store, *name, cmd);
  if (cmd.action == "append") return append(store, *name, cmd);
  if (cmd.action == "delete") {
    Status s = store.remove(*name);
    if (!s.isOk()) return reportFailure("mailbox delete " + cmd.name, s);
    std::printf("deleted %s\n", cmd.name.c_str());
    return 0;
  }
  if (cmd.action == "rename") {
    auto to = MailboxName::parse(cmd.to);
    if (!to.ok()) return reportFailure("mailbox rename", to.status());
    auto moved = store.rename(*name, *to);
    if (!moved.ok()) return reportFailure("mailbox rename " + cmd.name, moved.status());
    for (const auto& m : *moved) {
      std::printf("renamed %s -> %s\n", m.from.toString().c_str(), m.to.toString().c_str());
    }
    return 0;
  }
  std::fprintf(stderr, "darius: mailbox: unknown action %s\n", cmd.action.c_str());
  return kExitUsage;
}

}  // namespace darius::tools
