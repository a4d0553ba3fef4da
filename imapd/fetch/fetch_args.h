// FetchArgs: the typed arguments of FETCH and UID FETCH, and their parser. The grammar is
// RFC 9051 §9 (fetch, fetch-att, section, partial), extended by RFC 3501 (RFC822,
// RFC822.HEADER, RFC822.TEXT), RFC 3516 (BINARY, BINARY.PEEK, BINARY.SIZE), RFC 4466 §2.4
// (fetch modifiers), RFC 7162 (MODSEQ, CHANGEDSINCE, VANISHED), RFC 8514 (SAVEDATE), RFC 8474
// (EMAILID, THREADID) and RFC 8970 (PREVIEW with LAZY):
//
//   fetch          = "FETCH" SP sequence-set SP ("ALL" / "FULL" / "FAST" /
//                    fetch-att / "(" fetch-att *(SP fetch-att) ")") [fetch-modifiers]
//   fetch-att      = "ENVELOPE" / "FLAGS" / "INTERNALDATE" / "RFC822.SIZE" / "RFC822" /
//                    "RFC822.HEADER" / "RFC822.TEXT" / "BODY" ["STRUCTURE"] / "UID" /
//                    "BODY" [".PEEK"] section [partial] /
//                    "BINARY" [".PEEK"] section-binary [partial] /
//                    "BINARY.SIZE" section-binary / "MODSEQ" / "SAVEDATE" / "EMAILID" /
//                    "THREADID" / "PREVIEW" [SP "(" "LAZY" ")"]
//   section        = "[" [section-spec] "]"        section-binary = "[" [section-part] "]"
//   partial        = "<" number64 "." nz-number64 ">"
//   fetch-modifiers = SP "(" fetch-modifier *(SP fetch-modifier) ")"
//   fetch-modifier = "CHANGEDSINCE" SP mod-sequence-value / "VANISHED"   ; VANISHED: UID only
//                    / "PARTIAL" SP partial-range                       ; RFC 9394, UID only
//
// Item names and section keywords are case-insensitive (RFC 9051 §9 note 1). Hostile input is
// bounded by FetchLimits: the number of items, of header field names and their length, and
// the depth of a section's part path; exceeding one is kTooBig (BAD [TOOBIG]), every other
// error kInvalid (BAD). Nothing recurses.
//
// Ownership: plain values. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "imapd/search/search_args.h"
#include "lib/base/result.h"
#include "lib/mime/section.h"
#include "lib/proto/arg_parser.h"
#include "lib/proto/sequence_set.h"

namespace darius::imapd::fetch {

enum class ItemKind : uint8_t {
  kFlags,
  kInternalDate,
  kRfc822Size,
  kEnvelope,
  kBody,  // BODY alone: the non-extensible BODYSTRUCTURE
  kBodyStructure,
  kUid,
  kBodySection,   // BODY[...] and BODY.PEEK[...]
  kBinary,        // BINARY[...] and BINARY.PEEK[...]
  kBinarySize,    // BINARY.SIZE[...]
  kRfc822,        // = BODY[] (RFC 3501)
  kRfc822Header,  // = BODY.PEEK[HEADER]
  kRfc822Text,    // = BODY[TEXT]
  kModseq,
  kSaveDate,
  kEmailId,
  kThreadId,
  kPreview,
};

// <offset.count>: count is at least 1.
struct Partial {
  uint64_t offset = 0;
  uint64_t count = 1;
  friend bool operator==(const Partial&, const Partial&) = default;
};

struct FetchItem {
  ItemKind kind = ItemKind::kFlags;
  bool peek = false;          // BODY.PEEK / BINARY.PEEK
  mime::SectionSpec section;  // kBodySection, kBinary, kBinarySize (path only for BINARY)
  std::optional<Partial> partial;
  bool lazy = false;  // PREVIEW (LAZY)

  // RFC 9051 §6.4.5: BODY[...], BINARY[...], RFC822 and RFC822.TEXT set \Seen.
  bool setsSeen() const;
  // The item's name in the response: "BODY[1.HEADER.FIELDS (From)]", "BINARY.SIZE[2]",
  // "RFC822.TEXT"; the partial's origin ("<0>") is not part of it.
  std::string responseName() const;
};

struct FetchLimits {
  size_t max_items = 100;          // fetch-atts in one list
  size_t max_header_fields = 256;  // names in one header-list
  size_t max_field_name = 256;     // bytes of one header field name
  size_t max_section_depth = 100;  // part numbers in one section (lib/mime's nesting limit)
};

struct FetchArgs {
  bool by_uid = false;
  proto::SequenceSet set;
  std::vector<FetchItem> items;
  std::optional<uint64_t> changed_since;  // CHANGEDSINCE (RFC 7162 §3.1.4.1)
  bool vanished = false;                  // VANISHED (RFC 7162 §3.2.6)
  // PARTIAL (RFC 9394 §3.3, UID FETCH only): only the messages at these positions of the
  // set's, taken before CHANGEDSINCE filters them.
  std::optional<search::PartialRange> partial;

  bool has(ItemKind kind) const;
};

// Parses what follows "FETCH" or "UID FETCH" (the parser stands on the SP before the set)
// up to the end of the arguments; the caller checks that the command ends there.
base::Result<FetchArgs> parseFetchArgs(proto::ArgParser& p, bool by_uid,
                                       const FetchLimits& limits = {});

// The section text between the brackets, canonical: "1.2.HEADER.FIELDS (From To)".
std::string formatSection(const mime::SectionSpec& section);

}  // namespace darius::imapd::fetch
