#include "lib/mime/envelope.h"

namespace darius::mime {
namespace {

std::optional<std::string> lastValue(const Header& h, std::string_view name) {
  const HeaderField* f = h.last(name);
  if (f == nullptr) return std::nullopt;
  return unfoldValue(f->value);
}

std::vector<Address> allAddresses(const Header& h, std::string_view name) {
  std::vector<Address> out;
  for (const HeaderField* f : h.all(name)) {
    std::vector<Address> more = parseAddressList(unfoldValue(f->value));
    out.insert(out.end(), std::make_move_iterator(more.begin()),
               std::make_move_iterator(more.end()));
  }
  return out;
}

}  // namespace

Envelope buildEnvelope(const Header& header) {
  Envelope e;
  e.date = lastValue(header, "Date");
  e.subject = lastValue(header, "Subject");
  e.from = allAddresses(header, "From");
  e.sender = allAddresses(header, "Sender");
  e.reply_to = allAddresses(header, "Reply-To");
  e.to = allAddresses(header, "To");
  e.cc = allAddresses(header, "Cc");
  e.bcc = allAddresses(header, "Bcc");
  e.in_reply_to = lastValue(header, "In-Reply-To");
  e.message_id = lastValue(header, "Message-ID");
  return e;
}

}  // namespace darius::mime
