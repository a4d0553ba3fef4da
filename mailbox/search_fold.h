// Case-insensitive substring matching for SEARCH (RFC 9051 §6.4.4: "a message matches the key
// if the string is a substring of the associated text"; "consider using [IMAP-I18N] for
// language-sensitive, case-insensitive searching"), and the conversion of the client's search
// strings from the command's CHARSET to UTF-8.
//
// Both sides are brought to one form with ICU's NFKC_Casefold (Unicode full case folding
// plus compatibility normalisation, the mapping Unicode recommends for caseless matching,
// UAX #31 / UTS #46): "STRASSE" matches "straße", a decomposed "é" matches a precomposed one,
// "ＡＢＣ" matches "abc". ASCII text, the common case, never goes through ICU: its folded form
// is its lower-case form, so it is lowered in place. The needle is folded once per search; a
// haystack is folded in chunks of kFoldChunk bytes (split at code point boundaries), with the
// last needle-length bytes of one chunk carried into the next, so memory stays bounded by the
// chunk size whatever the size of the text, and a match across a chunk boundary is found.
// Folding changes byte lengths, and the needle is valid UTF-8, so a byte match of the folded
// needle is a match of whole characters (UTF-8 is self-synchronising).
//
// Ownership: a TextMatcher owns its folded needle. Thread-safety: a TextMatcher is immutable
// after construction and may be used from any thread (ICU's normaliser instance is shared and
// thread-safe).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace darius::mailbox {

inline constexpr size_t kFoldChunk = 64 * 1024;

// `text` (UTF-8; invalid sequences are matched as U+FFFD) in its NFKC_Casefold form.
std::string foldForSearch(std::string_view text);

class TextMatcher {
 public:
  // `needle` is UTF-8 (as convertSearchString() returns it).
  explicit TextMatcher(std::string_view needle);

  // The empty needle matches every text, the empty one included (RFC 9051 §6.4.4: "the
  // empty string is a substring").
  bool matches(std::string_view haystack) const;
  const std::string& folded() const { return folded_; }

 private:
  // Horspool search of folded_ (ASCII) in ASCII text, case-insensitively.
  bool asciiFind(std::string_view haystack) const;

  std::string folded_;
  bool ascii_ = true;  // folded_ is all ASCII
  std::array<uint32_t, 256> shift_{};
};

// The client's search string, sent in `charset` (nullopt: none given, which RFC 9051 says is
// UTF-8), as UTF-8. nullopt when the charset is unknown (the caller answers NO [BADCHARSET]).
// Bytes invalid in the charset become U+FFFD, which matches nothing but itself.
std::optional<std::string> convertSearchString(std::string_view bytes,
                                               const std::optional<std::string>& charset);

// Whether `charset` may be named in SEARCH CHARSET: UTF-8 and US-ASCII always, others when ICU
// has a converter for them.
bool isSearchCharset(std::string_view charset);

// The charsets listed in BADCHARSET (RFC 9051 §7.1: "MAY list the charsets supported"): the
// two required ones and the common ones ICU converts, "UTF-8 US-ASCII ISO-8859-1 ...".
const std::string& advertisedCharsets();

}  // namespace darius::mailbox
