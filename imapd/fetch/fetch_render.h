// MessageFetcher: writes the FETCH response of one message (RFC 9051 §7.5.2) for the items of
// one command, streaming body literals from the message file.
//
// Each message goes in two steps. First everything that can fail is done — the cache entry
// loaded, the file opened if an item needs it, header subsets and BINARY decodings computed —
// and the response laid out as pieces of text and references to byte ranges of the file.
// Only then is anything written, so a message that cannot be served (its file gone, an
// unknown Content-Transfer-Encoding) leaves no half response behind. Body ranges are then
// copied from the file in chunks, flushing as the output passes the session's threshold, so
// a FETCH 1:* BODY.PEEK[] holds at most about one message's decoded parts plus the threshold.
//
// Hostile item lists (up to FetchLimits::max_items, e.g. forty BINARY[1]<n.huge> with
// different origins) must not multiply that: BINARY of an identity-encoded range streams from
// the file like BODY[] (a chunked scan for NUL decides literal8 first), each decoded part and
// each header subset is computed once per message and every item's window refers to that one
// copy, and what a message holds in memory is capped (kTooBig, the command's NO [LIMIT]).
//
// What opens the file: BODY[...] sections and RFC822* (their bytes), HEADER.FIELDS of a trace
// field or of an encapsulated message, HEADER.FIELDS.NOT, BINARY. FLAGS, INTERNALDATE, sizes,
// ENVELOPE, BODY, BODYSTRUCTURE, PREVIEW and HEADER.FIELDS of the message's cached fields come
// from the index record and the cache (mailbox/cache_format.h). A message whose cache entry
// is missing or damaged is parsed from its file instead, and that is logged.
//
// Response layout: UID first when the command is UID FETCH or QRESYNC is on, or under
// CONDSTORE when the FETCH asks for MODSEQ (CHANGEDSINCE included) or sets \Seen (RFC 7162
// §3.2.4: "both UID and mod-sequence data" in those responses), then the items in the order asked (repeats once), then MODSEQ for CHANGEDSINCE (RFC 7162
// §3.1.4.1), then FLAGS (and MODSEQ under CONDSTORE) when this FETCH set \Seen
// (RFC 9051 §6.4.5).
//
// Ownership: borrows the session, its selected mailbox and the arguments for one command.
// Thread-safety: belongs to the session's strand; file reads of large ranges run on the
// blocking pool while the coroutine waits.
#pragma once

#include <asio.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "imapd/fetch/fetch_args.h"
#include "imapd/fetch/fetch_body.h"
#include "imapd/selected.h"
#include "mailbox/cache_format.h"
#include "mailbox/index_format.h"

namespace darius::imapd {
class Session;
}

namespace darius::imapd::fetch {

// One message to answer for, as the command found it.
struct MessageRef {
  uint32_t msn = 0;
  mailbox::IndexRecord record;
  bool flags_changed = false;  // this FETCH set \Seen: FLAGS (and MODSEQ) go out unasked
  // False for a record read from darius.expunged: its cache offset may belong to an older
  // cache generation (a rewrite drops expunged entries), so the file is parsed instead.
  bool cache_usable = true;
};

enum class Outcome : uint8_t {
  kSent,
  kSkipped,     // expunged meanwhile and no longer readable: nothing sent
  kFailed,      // the server could not read it (logged): nothing sent, or a damaged literal
  kUnknownCte,  // a BINARY item met an encoding it cannot decode: nothing sent
  kTooBig,      // the items would hold more than the message's memory cap: nothing sent
  kLost,        // writing to the client failed: the command must stop
};

class MessageFetcher {
 public:
  MessageFetcher(Session& session, SelectedMailbox& selected, const FetchArgs& args,
                 const UpdateStyle& style);

  asio::awaitable<Outcome> fetch(const MessageRef& message);

 private:
  // A run of response text, then (when size > 0) a literal of the bytes [offset, offset +
  // size) of `mem` if set, else of the file; "~{n}" (literal8) when `literal8`.
  struct Piece {
    std::string text;
    uint64_t offset = 0;
    uint64_t size = 0;
    bool literal8 = false;
    std::shared_ptr<const std::string> mem;
  };
  // What one message's items have loaded so far.
  struct Loaded {
    const MessageRef* ref = nullptr;
    std::optional<mailbox::CacheEntry> cache;
    Parts parts;
    std::optional<MessageFile> file;
    // Computed literal data (a decoded part, a header subset) by what it is, shared by every
    // item that windows it; `held` is their total size.
    std::map<std::string, std::shared_ptr<const std::string>> blobs;
    uint64_t held = 0;
  };

  // `label` is the item's name in the response, origin included ("BODY[1]<0>").
  asio::awaitable<base::Status> prepareItem(Loaded& m, const FetchItem& item,
                                            std::string_view label);
  asio::awaitable<base::Status> prepareSection(Loaded& m, std::string_view label,
                                               const mime::SectionSpec& spec,
                                               const std::optional<Partial>& partial);
  asio::awaitable<base::Status> prepareBinary(Loaded& m, const FetchItem& item,
                                              std::string_view label);
  asio::awaitable<base::Status> loadCache(Loaded& m);
  base::Status openFile(Loaded& m);
  // Bytes of the open file; on the blocking pool when the range is large.
  asio::awaitable<base::Result<std::string>> read(Loaded& m, uint64_t offset, uint64_t size);
  asio::awaitable<Outcome> write(Loaded& m);

  // Keeps `data` as the blob `key` unless that would pass the message's cap (kTooBig).
  base::Result<std::shared_ptr<const std::string>> keep(Loaded& m, const std::string& key,
                                                        std::string data);
  // Whether the file's bytes [offset, offset + size) hold a NUL (read in chunks).
  asio::awaitable<base::Result<bool>> fileHasNul(Loaded& m, uint64_t offset, uint64_t size);

  // Layout helpers.
  void emit(std::string_view text);
  void emitFileLiteral(uint64_t offset, uint64_t size, bool literal8 = false);
  // The window `partial` selects of `data`, as a literal (a literal8 for BINARY with a NUL).
  void emitLiteral(std::shared_ptr<const std::string> data, const std::optional<Partial>& partial,
                   bool binary);
  std::string recordItem(const FetchItem& item, const mailbox::IndexRecord& r) const;

  Session& session_;
  SelectedMailbox& selected_;
  const FetchArgs& args_;
  UpdateStyle style_;
  bool uid_first_ = false;
  std::vector<std::string> labels_;  // per item of args_: its name in responses
  std::vector<Piece> pieces_;
};

}  // namespace darius::imapd::fetch
