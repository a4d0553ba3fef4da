// THREAD and UID THREAD (RFC 5256 §3 "BASE.6.4.THREAD", §4 "BASE.7.2.THREAD", §5):
//
//   thread = ["UID" SP] "THREAD" SP thread-alg SP search-criteria
//   search-criteria = charset 1*(SP search-key)
//
// The algorithms are ORDEREDSUBJECT and REFERENCES (RFC 5256) and REFS
// (draft-ietf-morg-inthread); imapd/thread/ has them as pure functions. The charset is
// required here (unlike SEARCH's optional CHARSET); the keys are SEARCH's (search_args.h) and
// run through the same SearchProgram, so every key SEARCH knows works. The inputs of the
// threading come from the cache (thread_inputs.h), never from message files, unless a search
// key itself needs the body.
//
// An unknown algorithm is BAD (§3: "BAD - command unknown or arguments invalid"); an unknown
// charset is NO [BADCHARSET (...)] (§3 "can't thread that charset", RFC 9051 §7.1). Untagged
// EXPUNGEs are held back during THREAD but not UID THREAD (§3).
#include <memory>
#include <string>
#include <string_view>

#include "imapd/commands/commands.h"
#include "imapd/mailbox_access.h"
#include "imapd/search/search_args.h"
#include "imapd/search/search_eval.h"
#include "imapd/search_session.h"
#include "imapd/session.h"
#include "imapd/thread/thread_algorithms.h"
#include "imapd/thread/thread_inputs.h"
#include "lib/log/log.h"
#include "lib/proto/chars.h"

namespace darius::imapd {
namespace {

struct ThreadCommandArgs {
  thread::ThreadAlgorithm algorithm = thread::ThreadAlgorithm::kReferences;
  search::SearchArgs search;
};

template <bool kUid>
base::Result<ThreadCommandArgs> parseThreadCommand(ArgParser& p) {
  ThreadCommandArgs a;
  DARIUS_RETURN_IF_ERROR(p.space());
  auto alg = p.atom();
  if (!alg.ok()) return base::Status::invalid("Missing threading algorithm");
  std::string name = proto::asciiUpper(*alg);
  if (name == "ORDEREDSUBJECT") {
    a.algorithm = thread::ThreadAlgorithm::kOrderedSubject;
  } else if (name == "REFERENCES") {
    a.algorithm = thread::ThreadAlgorithm::kReferences;
  } else if (name == "REFS") {
    a.algorithm = thread::ThreadAlgorithm::kRefs;
  } else {
    return base::Status::invalid("Unknown threading algorithm");
  }
  // charset = atom / quoted (§5), and it is not optional.
  DARIUS_RETURN_IF_ERROR(p.space());
  std::string charset;
  if (p.peek('"')) {
    DARIUS_ASSIGN_OR_RETURN(charset, p.quoted());
  } else {
    auto cs = p.atom();
    if (!cs.ok()) return base::Status::invalid("Missing charset");
    charset = std::string(*cs);
  }
  DARIUS_ASSIGN_OR_RETURN(a.search, search::parseSearchArgs(p, kUid));
  // SEARCH's own prefixes are not part of search-criteria here.
  if (a.search.has_return || a.search.charset) {
    return base::Status::invalid("THREAD takes its charset before the search keys");
  }
  a.search.charset = std::move(charset);
  return a;
}

asio::awaitable<Reply> executeThread(Session& session, ThreadCommandArgs command) {
  SelectedMailbox& sel = *session.selected();
  const search::SearchArgs& args = command.search;
  auto finish = [&](Reply r) {
    r.hold_expunges = !args.by_uid;
    return r;
  };
  if (args.uses_modseq) session.useCondstore();  // RFC 7162 §3.1: MODSEQ enables CONDSTORE

  auto program = search::SearchProgram::compile(args);
  if (!program.ok()) co_return finish(compileFailure(program.status()));
  // A text key asks the search index first, as SEARCH does (search_session.h).
  std::unique_ptr<PreparedScope> prepared = co_await prepareScope(session, *program);
  const search::SearchScope& scope = prepared->scope;

  struct Outcome {
    std::string threads;
    size_t unreadable = 0;
  };
  const thread::ThreadAlgorithm algorithm = command.algorithm;
  auto outcome = co_await session.blocking([&]() -> base::Result<Outcome> {
    DARIUS_ASSIGN_OR_RETURN(search::SearchOutcome found, program->run(scope));
    DARIUS_ASSIGN_OR_RETURN(thread::ThreadInputs inputs,
                            thread::readThreadInputs(sel.mailbox(), found.matches, args.by_uid,
                                                     session.sortKeys()));
    Outcome o;
    o.unreadable = found.unreadable + inputs.unreadable;
    o.threads = thread::formatThreads(thread::threadMessages(algorithm, inputs.messages));
    return o;
  });
  co_await dropIfDamaged(session, *prepared);
  if (!outcome.ok()) co_return finish(replyFor(session, outcome.status(), "THREAD"));
  if (outcome->unreadable > 0) {
    log::warning(session.logContext(), "THREAD: {} message(s) of {} could not be read",
                 outcome->unreadable, sel.name().toString());
  }
  std::string line = "* THREAD";
  if (!outcome->threads.empty()) {
    line.push_back(' ');
    line += outcome->threads;
  }
  line += "\r\n";
  session.connection().write(line);
  (void)co_await session.flushIfLarge();
  co_return finish(Reply::ok(args.by_uid ? "UID THREAD completed" : "THREAD completed"));
}

}  // namespace

CommandSpec threadCommand() {
  return makeCommand<ThreadCommandArgs, parseThreadCommand<false>, executeThread>("THREAD",
                                                              stateBit(State::kSelected));
}

base::Result<std::unique_ptr<PreparedCommand>> parseUidThread(ArgParser& p) {
  return internal::parseAndBind<ThreadCommandArgs, parseThreadCommand<true>, executeThread>(p);
}

}  // namespace darius::imapd
