// The commands of imapd, one file each under imapd/commands/, and the capability list they
// share. Each function returns the command's entry for the CommandTable; command_table.cc
// lists them all, so adding a command means one new file and one line there.
//
// Ownership: specs are plain values. Thread-safety: the functions are pure.
#pragma once

#include <string>

#include "imapd/command_table.h"

namespace darius::imapd {

class Session;

// Not-authenticated and any-state commands (RFC 9051 §6.1, §6.2) and extensions.
CommandSpec capabilityCommand();    // capability.cc, RFC 9051 §6.1.1
CommandSpec noopCommand();          // noop.cc, RFC 9051 §6.1.2
CommandSpec logoutCommand();        // logout.cc, RFC 9051 §6.1.3
CommandSpec starttlsCommand();      // starttls.cc, RFC 9051 §6.2.1, RFC 8314
CommandSpec authenticateCommand();  // authenticate.cc, RFC 9051 §6.2.2, RFC 4959
CommandSpec loginCommand();         // login.cc, RFC 9051 §6.2.3
CommandSpec idCommand();            // id.cc, RFC 2971
CommandSpec enableCommand();        // enable.cc, RFC 5161, RFC 9051 §6.3.1

// The capability list (without "CAPABILITY") for the session's current state: the untagged
// CAPABILITY response, the greeting and the tagged OK of LOGIN/AUTHENTICATE all use it.
// Defined in capability.cc.
std::string capabilityList(const Session& session);

}  // namespace darius::imapd
