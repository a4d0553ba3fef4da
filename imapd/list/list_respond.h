// The execution shared by LIST and LSUB (imapd/commands/list.cc, lsub.cc): turns the parsed
// arguments into canonical patterns in the session's view (reference applied, modified UTF-7
// decoded unless UTF8=ACCEPT is on), runs the walk (list_walk.h) on the blocking pool, and
// writes the untagged LIST/LSUB responses, each followed by its STATUS response when LIST-STATUS
// (RFC 5819) asked for one. Long listings stream: output is flushed as it grows.
//
// A pattern that does not decode is ignored, as RFC 9051 §6.3.9 requires for any pattern the
// server does not accept ("MUST be silently ignored").
//
// Ownership: none kept. Thread-safety: a session's strand.
#pragma once

#include <asio.hpp>

#include "imapd/command_table.h"
#include "imapd/list/list_args.h"
#include "imapd/list/list_walk.h"

namespace darius::imapd {

class Session;

asio::awaitable<Reply> respondList(Session& session, ListArgs args, ListMode mode);

// The root returned for the basic LIST's empty pattern (RFC 9051 §6.3.9): the namespace
// prefix the (UTF-8) reference lies in ("Other Users/"), or "" — our hierarchy has no other
// root.
std::string listRoot(const mailbox::Namespace& ns, std::string_view reference);

}  // namespace darius::imapd
