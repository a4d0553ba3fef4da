#include "imapd/thread/thread_inputs.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace darius::imapd::thread {
namespace thread_inputs_test {

using Ids = std::vector<std::string>;

TEST(ThreadInputs, FromAHeaderBlock) {
  ThreadMessage m = threadMessageFromHeader(
      7,
      "Message-ID: <\"m1\"@x>\r\nIn-Reply-To: <p@x>\r\nReferences: <r@x>\r\n <p@x>\r\n"
      "Subject: Re: [list] Hello\r\nDate: Fri, 31 Dec 2000 16:01:33 -0800\r\n\r\n",
      12345);
  EXPECT_EQ(m.id, 7u);
  EXPECT_EQ(m.message_id, "<m1@x>");
  EXPECT_EQ(m.references, (Ids{"<r@x>", "<p@x>"}));
  EXPECT_TRUE(m.reply_or_fwd);
  EXPECT_EQ(m.base_subject, "hello");
  // RFC 5256 §2.2's example: 1 Jan 2001 00:01:33 UTC.
  EXPECT_EQ(m.sent_date, 978307293);
}

TEST(ThreadInputs, MissingFieldsFallBack) {
  ThreadMessage m = threadMessageFromHeader(3, "From: a@x\r\nDate: garbage\r\n\r\n", 12345);
  EXPECT_EQ(m.message_id, "");
  EXPECT_TRUE(m.references.empty());
  EXPECT_EQ(m.base_subject, "");
  EXPECT_FALSE(m.reply_or_fwd);
  EXPECT_EQ(m.sent_date, 12345);  // the internal date
}

}  // namespace thread_inputs_test
}  // namespace darius::imapd::thread
