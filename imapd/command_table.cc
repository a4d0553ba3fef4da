#include "imapd/command_table.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "imapd/commands/commands.h"

namespace darius::imapd {

std::string_view stateName(State s) {
  switch (s) {
    case State::kNotAuthenticated:
      return "not authenticated";
    case State::kAuthenticated:
      return "authenticated";
    case State::kSelected:
      return "selected";
    case State::kLogout:
      return "logout";
  }
  return "?";
}

Reply Reply::ok(std::string text, std::string code) {
  return Reply{Kind::kOk, std::move(code), std::move(text)};
}
Reply Reply::no(std::string text, std::string code) {
  return Reply{Kind::kNo, std::move(code), std::move(text)};
}
Reply Reply::bad(std::string text, std::string code) {
  return Reply{Kind::kBad, std::move(code), std::move(text)};
}
Reply Reply::none() { return Reply{Kind::kNone, {}, {}}; }

std::string Reply::format() const {
  std::string out;
  switch (kind) {
    case Kind::kOk:
      out = "OK";
      break;
    case Kind::kNo:
      out = "NO";
      break;
    case Kind::kBad:
      out = "BAD";
      break;
    case Kind::kNone:
      return {};
  }
  if (!code.empty()) out += " [" + code + "]";
  out += " ";
  out += text;
  return out;
}

CommandTable::CommandTable(std::vector<CommandSpec> specs) : specs_(std::move(specs)) {
  std::sort(specs_.begin(), specs_.end(),
            [](const CommandSpec& a, const CommandSpec& b) { return a.name < b.name; });
  for (size_t i = 0; i < specs_.size(); ++i) {
    const CommandSpec& s = specs_[i];
    bool bad = s.name.empty() || s.parse == nullptr || proto::asciiUpper(s.name) != s.name ||
               (i > 0 && specs_[i - 1].name == s.name);
    if (bad) {
      std::fprintf(stderr, "darius: bad IMAP command table entry '%.*s'\n",
                   static_cast<int>(s.name.size()), s.name.data());
      std::abort();
    }
  }
}

CommandTable CommandTable::standard() {
  return CommandTable({
      capabilityCommand(),
      noopCommand(),
      logoutCommand(),
      starttlsCommand(),
      authenticateCommand(),
      loginCommand(),
      idCommand(),
      enableCommand(),
      selectCommand(),
      examineCommand(),
      createCommand(),
      deleteCommand(),
      renameCommand(),
      subscribeCommand(),
      unsubscribeCommand(),
      namespaceCommand(),
      listCommand(), lsubCommand(),
      statusCommand(),
      appendCommand(),
      idleCommand(),
      getquotaCommand(), getquotarootCommand(), setquotaCommand(),
      setaclCommand(), deleteaclCommand(), getaclCommand(), listrightsCommand(), myrightsCommand(),
      closeCommand(),
      unselectCommand(),
      checkCommand(),
      expungeCommand(),
      searchCommand(),
      sortCommand(),
      cancelupdateCommand(),
      storeCommand(),
      fetchCommand(),
      copyCommand(),
      moveCommand(),
      uidCommand(),
      threadCommand(),
  });
}

const CommandSpec* CommandTable::find(std::string_view name) const {
  // Command names are short; anything longer than the longest known name is unknown anyway.
  if (name.size() > 32) return nullptr;
  std::string upper = proto::asciiUpper(name);
  auto it = std::lower_bound(specs_.begin(), specs_.end(), upper,
                             [](const CommandSpec& s, const std::string& n) { return s.name < n; });
  if (it == specs_.end() || it->name != upper) return nullptr;
  return &*it;
}

}  // namespace darius::imapd
