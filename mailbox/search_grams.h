// What the search index (search_index.h, docs/formats/search-index.md) records of a message:
// the set of byte trigrams of the text SEARCH compares, after folding.
//
// Why trigrams of the folded UTF-8 bytes: SEARCH is a substring match of the folded needle in
// the folded text (search_fold.h; RFC 9051 §6.4.4), so every trigram of the needle's folded
// bytes is a trigram of any text that contains it. The set of a message's trigrams is a
// necessary condition, never a sufficient one: the index narrows, and each candidate is then
// checked against the message. Three bytes rather than Cyrus's four: needles of three bytes
// ("ell") still narrow, and a trigram table is smaller (at most 2^24 keys). Needles shorter
// than three bytes do not narrow at all (every message is a candidate).
//
// A message's grams come from the texts TEXT searches (search_text.h,
// visitTaggedSearchTexts), each folded with foldForSearch exactly as the matcher folds a
// haystack; a gram is tagged "body" when it occurs in a text BODY searches as well.
//
// Ownership: plain values. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace darius::mailbox {

// A gram (three bytes, big-endian in the low 24 bits) shifted left by one, with the low bit
// set when the gram occurs in a body text.
using TaggedGram = uint32_t;
inline constexpr uint32_t gramOf(TaggedGram t) { return t >> 1; }
inline constexpr bool inBody(TaggedGram t) { return (t & 1) != 0; }

// The distinct grams of a message (its bytes, CRLF canonical or not), ascending by gram.
// Unparseable structure is not an error: lib/mime parses anything, and what it cannot decode
// is indexed as the matcher would see it.
std::vector<TaggedGram> messageGrams(std::string_view message);

// The distinct grams of a folded needle, ascending; empty when it is shorter than a gram.
std::vector<uint32_t> needleGrams(std::string_view folded);

}  // namespace darius::mailbox
