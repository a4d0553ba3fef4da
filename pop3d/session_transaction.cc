// The TRANSACTION state of a POP3 session (RFC 1939 §5, §7): the commands that read and mark
// the maildrop, and RETR/TOP streaming. Split from session.cc, which has the session loop,
// AUTHORIZATION and the move into TRANSACTION.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "lib/io/fd.h"
#include "pop3d/dot_stuff.h"
#include "pop3d/session.h"

namespace darius::pop3d {

namespace {

// RETR reads the message file in pieces of this size (one blocking-pool hop each) and flushes
// the reply whenever this much is queued, so a message of any size costs bounded memory.
constexpr size_t kReadPiece = 256 * 1024;

// Up to `n` bytes of `fd` at `offset`; fewer only at the end of the file.
base::Result<std::string> readPiece(int fd, uint64_t offset, size_t n) {
  std::string buf(n, '\0');
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::pread(fd, buf.data() + got, n - got, static_cast<off_t>(offset + got));
    if (r < 0) {
      if (errno == EINTR) continue;
      return base::Status::fromErrno(errno, "read message file");
    }
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  buf.resize(got);
  return buf;
}

}  // namespace

const Maildrop::Message* Session::messageOrError(uint32_t msgno) {
  const Maildrop::Message* m = maildrop_->message(msgno);
  if (m == nullptr) {
    reply("-ERR No such message");
  } else if (m->deleted) {
    reply("-ERR Message " + std::to_string(msgno) + " is deleted");
    return nullptr;
  }
  return m;
}

// RFC 1939 §5 STAT: "+OK nn mm", deleted messages not counted.
asio::awaitable<Session::Next> Session::cmdStat(const Command&) {
  reply("+OK " + std::to_string(maildrop_->liveCount()) + " " +
        std::to_string(maildrop_->liveSize()));
  co_return Next::kContinue;
}

// RFC 1939 §5 LIST [msg].
asio::awaitable<Session::Next> Session::cmdList(const Command& cmd) {
  if (cmd.msg) {
    const Maildrop::Message* m = messageOrError(*cmd.msg);
    if (m != nullptr) reply("+OK " + std::to_string(*cmd.msg) + " " + std::to_string(m->size));
    co_return Next::kContinue;
  }
  reply("+OK " + std::to_string(maildrop_->liveCount()) + " messages (" +
        std::to_string(maildrop_->liveSize()) + " octets)");
  for (uint32_t i = 1; i <= maildrop_->count(); ++i) {
    const Maildrop::Message* m = maildrop_->message(i);
    if (!m->deleted) reply(std::to_string(i) + " " + std::to_string(m->size));
  }
  reply(".");
  co_return Next::kContinue;
}

// RFC 1939 §7 UIDL [msg].
asio::awaitable<Session::Next> Session::cmdUidl(const Command& cmd) {
  if (cmd.msg) {
    const Maildrop::Message* m = messageOrError(*cmd.msg);
    if (m != nullptr) reply("+OK " + std::to_string(*cmd.msg) + " " + maildrop_->uidl(*m));
    co_return Next::kContinue;
  }
  reply("+OK Unique-ID listing follows");
  for (uint32_t i = 1; i <= maildrop_->count(); ++i) {
    const Maildrop::Message* m = maildrop_->message(i);
    if (!m->deleted) reply(std::to_string(i) + " " + maildrop_->uidl(*m));
  }
  reply(".");
  co_return Next::kContinue;
}

// RFC 1939 §5 RETR msg.
asio::awaitable<Session::Next> Session::cmdRetr(const Command& cmd) {
  const Maildrop::Message* m = messageOrError(*cmd.msg);
  if (m == nullptr) co_return Next::kContinue;
  co_return co_await sendMessage(*m, std::nullopt);
}

// RFC 1939 §7 TOP msg n.
asio::awaitable<Session::Next> Session::cmdTop(const Command& cmd) {
  const Maildrop::Message* m = messageOrError(*cmd.msg);
  if (m == nullptr) co_return Next::kContinue;
  co_return co_await sendMessage(*m, cmd.lines);
}

asio::awaitable<Session::Next> Session::sendMessage(const Maildrop::Message& m,
                                                    std::optional<uint32_t> body_lines) {
  const std::string path = maildrop_->path(m);
  // One blocking-pool hop opens the file and reads its first piece (all of most messages);
  // each read asks for no more than the message's size, so a small message costs a small
  // buffer. Opened before the +OK, so a message whose file is gone gets a -ERR.
  auto pieceAt = [&m](int fd, uint64_t offset) {
    return readPiece(fd, offset, static_cast<size_t>(std::min<uint64_t>(
                                     kReadPiece, m.size > offset ? m.size - offset : 0)));
  };
  struct Opened {
    io::UniqueFd fd;
    std::string first;
  };
  auto opened = co_await conn_->offload([&]() -> base::Result<Opened> {
    DARIUS_ASSIGN_OR_RETURN(io::UniqueFd fd, io::openFile(path, O_RDONLY | O_CLOEXEC));
    DARIUS_ASSIGN_OR_RETURN(std::string first, pieceAt(fd.get(), 0));
    return Opened{std::move(fd), std::move(first)};
  });
  if (!opened.ok()) {
    log::error(log_, "message file {}: {}", path, opened.status().toString());
    reply(opened.status().isNotFound() ? "-ERR Message is no longer available"
                                       : "-ERR [SYS/TEMP] Cannot read the message now");
    co_return Next::kContinue;
  }
  reply(body_lines ? std::string("+OK Top of message follows")
                   : "+OK " + std::to_string(m.size) + " octets");
  DotStuffer stuffer(body_lines);
  uint64_t offset = 0;
  std::string out;
  base::Result<std::string> piece = std::move(opened->first);
  for (bool more = true; more;) {
    if (offset > 0) {
      piece = co_await conn_->offload([&] { return pieceAt(opened->fd.get(), offset); });
    }
    if (!piece.ok()) {
      log::error(log_, "reading {} failed mid-reply: {}", path, piece.status().toString());
      co_return Next::kClose;  // the +OK is out: only dropping the connection is honest now
    }
    if (piece->empty()) break;
    offset += piece->size();
    out.clear();
    more = stuffer.feed(*piece, out) && offset < m.size;
    conn_->write(out);
    if (conn_->pendingOutput() >= kReadPiece) {
      if (!(co_await conn_->flush()).isOk()) co_return Next::kClose;
    }
  }
  out.clear();
  stuffer.finish(out);
  conn_->write(out);
  co_return Next::kContinue;
}

// RFC 1939 §5 DELE msg: marked now, removed at QUIT. It is an expunge, so it needs "t" and
// "e" on the INBOX (RFC 4314 §4); without them -ERR, and nothing is marked.
asio::awaitable<Session::Next> Session::cmdDele(const Command& cmd) {
  if (messageOrError(*cmd.msg) == nullptr) co_return Next::kContinue;
  constexpr mailbox::Rights kNeed = mailbox::right::kDeleteMessage | mailbox::right::kExpunge;
  if ((maildrop_->rights() & kNeed) != kNeed) {
    reply("-ERR [SYS/PERM] Permission denied: no right to delete messages");
    co_return Next::kContinue;
  }
  maildrop_->dele(*cmd.msg);
  reply("+OK Message " + std::to_string(*cmd.msg) + " deleted");
  co_return Next::kContinue;
}

// RFC 1939 §5 RSET: unmark every deleted message.
asio::awaitable<Session::Next> Session::cmdRset(const Command&) {
  maildrop_->rset();
  reply("+OK Maildrop has " + std::to_string(maildrop_->liveCount()) + " messages (" +
        std::to_string(maildrop_->liveSize()) + " octets)");
  co_return Next::kContinue;
}

}  // namespace darius::pop3d
