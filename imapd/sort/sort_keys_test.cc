// The SORT keys of a message from a cached header block, and the order they give.
#include "imapd/sort/sort_keys.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace darius::imapd::sort {
namespace {

const std::vector<SortCriterion> kAllKeys = {
    {SortKey::kArrival}, {SortKey::kCc},      {SortKey::kDate},        {SortKey::kFrom},
    {SortKey::kSize},    {SortKey::kSubject}, {SortKey::kTo},          {SortKey::kDisplayFrom},
    {SortKey::kDisplayTo}};

MessageKeys keys(std::string_view header, uint32_t msn = 1, int64_t internal = 1000,
                 uint64_t size = 10) {
  mailbox::IndexRecord r;
  r.uid = msn + 100;
  r.internal_date = internal;
  r.size = size;
  return keysOf(kAllKeys, search::SearchMatch{msn, r.uid, 0}, r, header);
}

TEST(SortKeys, FromTheHeaderBlock) {
  MessageKeys k = keys(
      "Date: Thu, 04 Jan 2024 11:30:00 +0130\r\n"
      "Subject: Re: [list] =?UTF-8?Q?H=C3=A9llo?= (fwd)\r\n"
      "From: \"Smith, John\" <JSmith@Example.COM>\r\n"
      "To: =?ISO-8859-1?Q?J=F6rg?= <joerg@example.org>, b@example.org\r\n"
      "Cc: carol@example.net\r\n"
      "\r\n",
      3, 5, 77);
  EXPECT_EQ(k.match.msn, 3u);
  EXPECT_EQ(k.arrival, 5);
  EXPECT_EQ(k.size, 77u);
  EXPECT_EQ(k.sent, 1704362400);
  EXPECT_EQ(k.text[0], "h\xC3\xA9llo");        // SUBJECT: base subject, folded
  EXPECT_EQ(k.text[1], "jsmith");                // FROM: addr-mailbox, folded
  EXPECT_EQ(k.text[2], "joerg");                 // TO
  EXPECT_EQ(k.text[3], "carol");                 // CC
  EXPECT_EQ(k.text[4], "smith, john");           // DISPLAYFROM: the name
  EXPECT_EQ(k.text[5], "j\xC3\xB6rg");           // DISPLAYTO: the decoded name
}

TEST(SortKeys, MissingFieldsAreEmptyAndDateFallsBack) {
  MessageKeys k = keys("X-Other: 1\r\n\r\n", 1, 4242);
  EXPECT_EQ(k.sent, 4242);
  for (const std::string& t : k.text) EXPECT_EQ(t, "");
  EXPECT_EQ(keys("", 1, 7).sent, 7);  // unreadable cache: no header at all
  EXPECT_EQ(keys("Date: not a date\r\n\r\n", 1, 9).sent, 9);
}

TEST(SortKeys, AddressForms) {
  // A bare addr-spec: DISPLAY is mailbox@host.
  EXPECT_EQ(displayAddressKey({"Bob@Example.org"}), "bob@example.org");
  EXPECT_EQ(displayAddressKey({"<bob@example.org>"}), "bob@example.org");
  // An empty name is no name.
  EXPECT_EQ(displayAddressKey({"\"\" <bob@example.org>"}), "bob@example.org");
  // A comment after a bare addr-spec is its name (lib/mime/address.h, as Cyrus and Dovecot).
  EXPECT_EQ(displayAddressKey({"bob@example.org (Bob B)"}), "bob b");
  // Groups: the first address structure is the group's start; its addr-mailbox is its name.
  EXPECT_EQ(addressMailboxKey({"Undisclosed recipients:;"}), "undisclosed recipients");
  EXPECT_EQ(displayAddressKey({"Team: a@b.c, d@e.f;"}), "team");
  // Several fields: the first address of the first one that has any.
  EXPECT_EQ(addressMailboxKey({"", "Zed <zed@x.org>"}), "zed");
  // Broken addresses: the placeholders are not sort values.
  EXPECT_EQ(addressMailboxKey({"@example.org"}), "");
  EXPECT_EQ(displayAddressKey({"bob"}), "bob");
  EXPECT_EQ(addressMailboxKey({}), "");
  EXPECT_EQ(displayAddressKey({}), "");
}

TEST(SortKeys, OrderOfCriteriaReverseAndTieBreak) {
  MessageKeys a = keys("Subject: b\r\n\r\n", 1, 300, 10);
  MessageKeys b = keys("Subject: a\r\n\r\n", 2, 200, 10);
  MessageKeys c = keys("Subject: Re: A\r\n\r\n", 3, 100, 20);
  std::vector<SortCriterion> subject = {{SortKey::kSubject}};
  EXPECT_TRUE(sortsBefore(subject, b, a));
  EXPECT_TRUE(sortsBefore(subject, b, c));  // equal base subjects: sequence order
  EXPECT_FALSE(sortsBefore(subject, c, b));
  std::vector<SortCriterion> rev_subject = {{SortKey::kSubject, true}};
  EXPECT_TRUE(sortsBefore(rev_subject, a, b));
  EXPECT_TRUE(sortsBefore(rev_subject, b, c));  // REVERSE leaves the tie-break alone
  std::vector<SortCriterion> size_then_arrival = {{SortKey::kSize}, {SortKey::kArrival, true}};
  EXPECT_TRUE(sortsBefore(size_then_arrival, a, b));  // same size, later arrival first
  EXPECT_TRUE(sortsBefore(size_then_arrival, b, c));
  std::vector<SortCriterion> arrival = {{SortKey::kArrival}};
  EXPECT_TRUE(sortsBefore(arrival, c, b));
  // The empty string collates first.
  MessageKeys none = keys("\r\n", 9);
  EXPECT_TRUE(sortsBefore(subject, none, b));
  EXPECT_FALSE(sortsBefore(subject, a, a));
}

}  // namespace
}  // namespace darius::imapd::sort
