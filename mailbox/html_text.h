// The text a reader sees in an HTML body, for SEARCH (issue 19: "HTML reduced to its text")
// and the PREVIEW of a message (RFC 8970 §4.1: "the preview text MUST NOT contain markup").
//
// Not an HTML parser: a single pass that is enough for mail. Tags and comments are dropped,
// the content of <script>, <style>, <head> and <title> is dropped (a reader does not see it),
// block-level tags and <br> become a line break so words on either side stay apart, and
// character references are decoded (the named ones mail uses, and every numeric one; an
// unknown name is left as written, as browsers do). Runs of white space are kept as they
// are: collapsing is the caller's business (PREVIEW collapses, SEARCH does not need to).
// A tag left open at the end of the text drops what follows, as a browser would.
//
// Cost: linear in the input; the output is never longer than the input (every reference is
// at least as long as its UTF-8 encoding).
//
// Ownership: returns a new string. Thread-safety: a pure function.
#pragma once

#include <string>
#include <string_view>

namespace darius::mailbox {

// `html` is UTF-8 (as partTextUtf8() returns bodies); the result is UTF-8.
std::string htmlToText(std::string_view html);

}  // namespace darius::mailbox
