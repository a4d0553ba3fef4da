// Fuzzes the MIME parser (lib/mime): arbitrary bytes as a message. Invariants: no crash, hang
// or sanitizer report; the part tree keeps its invariants (offsets within the message, parts
// inside their parents, part numbers that resolve back); ENVELOPE, BODYSTRUCTURE and BODY
// are balanced IMAP; sections resolve to ranges inside the message; header decoding returns
// valid UTF-8. The first byte picks small limits now and then, so the limit paths run too.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "lib/base/utf8.h"
#include "lib/mime/content_fields.h"
#include "lib/mime/header.h"
#include "lib/mime/mime_test_util.h"
#include "lib/mime/rfc2047.h"
#include "lib/mime/section.h"

using namespace darius::mime;

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

void checkImap(const std::string& s) {
  std::string err;
  check(testing::isBalancedImap(s, &err));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  ParseOptions opt;
  if (!input.empty() && (static_cast<uint8_t>(input[0]) & 0xe0) == 0xe0) {
    opt.max_depth = 1 + (static_cast<uint8_t>(input[0]) & 7);
    opt.max_parts = 1 + (static_cast<uint8_t>(input[0]) & 15);
    opt.max_header_size = 64;
  }
  Message m = Message::parse(input, opt);
  check(testing::checkInvariants(m).empty());
  checkImap(renderEnvelope(m));
  checkImap(renderBodyStructure(m, true));
  checkImap(renderBodyStructure(m, false));
  RenderOptions rev2;
  rev2.imap4rev2 = true;
  checkImap(renderBodyStructure(m, true, rev2));

  for (const char* spec : {"", "1", "2", "1.1", "1.2.1", "2.MIME", "1.HEADER", "TEXT",
                           "HEADER.FIELDS (From To)", "1.HEADER.FIELDS.NOT (Subject)"}) {
    darius::base::Result<SectionSpec> s = parseSectionSpec(spec);
    check(s.ok());
    darius::base::Result<ByteRange> r = locateSection(m, *s);
    if (!r.ok()) continue;
    check(r->offset + r->size <= size);
    if (!s->fields.empty()) {
      std::string sub = filterHeaderFields(input.substr(r->offset, r->size), s->fields,
                                           s->text == SectionSpec::Text::kHeaderFieldsNot);
      check(sub.size() <= r->size);
    }
  }

  for (const Part& p : m.parts()) {
    Header h = m.header(p);
    for (const HeaderField& f : h.fields()) {
      check(f.offset + f.size <= h.block().size());
      check(darius::base::isValidUtf8(decodeHeaderText(f.value)));
    }
    for (const Param& param : p.params) check(darius::base::isValidUtf8(paramText(param)));
  }
  return 0;
}
