// SEARCH evaluation on real messages stored through the Store in a temporary directory: every
// key against known messages (charsets, RFC 2047 headers, base64 and quoted-printable bodies,
// attachments, dates in their own zones), "$", MODSEQ, and the cost rules: keys the index or
// cache answers never open a message file, BODY/TEXT open each file once.
#include "imapd/search/search_eval.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <set>
#include <string>
#include <vector>

#include "imapd/search/search_context.h"
#include "imapd/search/search_test_util.h"
#include "mailbox/store.h"

namespace darius::imapd::search {
namespace {

using mailbox::AppendRequest;
using mailbox::MailboxName;

constexpr int64_t kJan1_2024 = 1704067200;  // 2024-01-01T00:00:00Z

class SearchEvalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tmp_ = std::make_unique<ScratchDir>("search");
    ASSERT_TRUE(tmp_->ok());
    mailbox::StoreOptions o;
    o.data_dir = tmp_->file("data");
    o.partitions = {{"default", tmp_->file("p1")}};
    auto s = mailbox::Store::open(o);
    ASSERT_TRUE(s.ok()) << s.status().toString();
    store_ = std::move(*s);
    auto n = MailboxName::personal("", "alice", {});
    ASSERT_TRUE(n.ok());
    name_ = *n;
    ASSERT_TRUE(store_->create(*name_).ok());
  }

  // Appends `raw` (LF line ends become CRLF) and returns its UID.
  uint32_t add(std::string raw, int64_t internal_date, int tz_minutes = 0, uint32_t flags = 0,
               std::vector<std::string> keywords = {}) {
    std::string crlf;
    for (char c : raw) {
      if (c == '\n' && (crlf.empty() || crlf.back() != '\r')) crlf += '\r';
      crlf += c;
    }
    auto p = store_->partition("default");
    auto staged = store_->stage(**p, crlf);
    EXPECT_TRUE(staged.ok());
    AppendRequest r{&*staged, internal_date, static_cast<int16_t>(tz_minutes), flags,
                    std::move(keywords)};
    auto a = store_->append(*name_, std::span<const AppendRequest>(&r, 1));
    EXPECT_TRUE(a.ok()) << a.status().toString();
    EXPECT_TRUE(store_->unstage(*staged).isOk());
    return a.ok() ? (*a)[0].uid : 0;
  }

  mailbox::Mailbox& mailbox() {
    if (!open_) {
      auto m = store_->openMailbox(*name_);
      EXPECT_TRUE(m.ok()) << m.status().toString();
      open_ = std::move(m->mailbox);
    }
    EXPECT_TRUE(open_->refresh().isOk());
    return *open_;
  }

  std::vector<uint32_t> allUids() {
    std::vector<uint32_t> v;
    mailbox::Mailbox& m = mailbox();
    for (size_t i = 0; i < m.recordCount(); ++i) {
      auto r = m.record(i);
      if (r.ok() && r->live()) v.push_back(r->uid);
    }
    return v;
  }

  // Runs "SEARCH <keys>" over the whole mailbox and returns the matching UIDs.
  std::vector<uint32_t> search(const std::string& keys, SearchOutcome* outcome = nullptr) {
    std::string text = " " + keys;
    proto::ArgParser p(text);
    auto args = parseSearchArgs(p, false);
    EXPECT_TRUE(args.ok()) << keys << ": " << args.status().toString();
    if (!args.ok()) return {999999};
    EXPECT_TRUE(p.end().isOk()) << keys;
    auto prog = SearchProgram::compile(*args);
    EXPECT_TRUE(prog.ok()) << keys << ": " << prog.status().toString();
    if (!prog.ok()) return {999999};
    view_ = allUids();
    SearchScope scope;
    scope.mailbox = &mailbox();
    scope.view = view_;
    scope.is_recent = [this](uint32_t uid) { return recent_.count(uid) != 0; };
    scope.saved = &saved_;
    scope.now = now_;
    auto out = prog->run(scope);
    EXPECT_TRUE(out.ok()) << out.status().toString();
    if (!out.ok()) return {999999};
    std::vector<uint32_t> uids;
    for (const SearchMatch& m : out->matches) {
      EXPECT_EQ(view_[m.msn - 1], m.uid);
      uids.push_back(m.uid);
    }
    if (outcome != nullptr) *outcome = *out;
    return uids;
  }

  mailbox::IndexRecord recordOf(uint32_t uid) {
    mailbox::Mailbox& m = mailbox();
    auto pos = m.findUid(uid);
    EXPECT_TRUE(pos.ok() && *pos >= 0);
    return *m.record(static_cast<size_t>(*pos));
  }

  std::unique_ptr<ScratchDir> tmp_;
  std::unique_ptr<mailbox::Store> store_;
  std::optional<MailboxName> name_;
  std::unique_ptr<mailbox::Mailbox> open_;
  std::vector<uint32_t> view_;
  std::set<uint32_t> recent_;
  proto::SequenceSet saved_;
  int64_t now_ = 0;  // OLDER / YOUNGER: 0 is the clock
};

using U = std::vector<uint32_t>;

// Four messages that between them exercise every key.
class FourMessages : public SearchEvalTest {
 protected:
  void SetUp() override {
    SearchEvalTest::SetUp();
    // 1: plain ASCII, seen, keyword $Work.
    a_ = add("From: Alice Smith <alice@example.com>\n"
             "To: bob@example.com\n"
             "Cc: Carol <carol@example.com>\n"
             "Subject: Lunch plans\n"
             "Date: Mon, 1 Jan 2024 12:00:00 +0000\n"
             "Message-ID: <lunch@example.com>\n"
             "\n"
             "Let's meet at noon.\n",
             kJan1_2024 + 10 * 3600, 0, mailbox::kFlagSeen, {"$Work"});
    // 2: KOI8-R subject in RFC 2047, ISO-8859-1 quoted-printable body, internal date late on
    // 15 Feb in New York (already 16 Feb in UTC).
    b_ = add("From: =?koi8-r?B?8NLJ18XU?= <ivan@example.ru>\n"
             "To: bob@example.com\n"
             "Subject: =?koi8-r?B?8NLJ18XU?= from Moscow\n"
             "Date: Thu, 15 Feb 2024 23:30:00 -0500\n"
             "MIME-Version: 1.0\n"
             "Content-Type: text/plain; charset=iso-8859-1\n"
             "Content-Transfer-Encoding: quoted-printable\n"
             "\n"
             "Un caf=E9 cr=E8me, s'il vous pla=EEt.\n",
             kJan1_2024 + 46 * 86400 + 4 * 3600 + 1800, -300,
             mailbox::kFlagFlagged | mailbox::kFlagAnswered);
    // 3: base64 UTF-8 body, Bcc, no Date header (SENT* use the internal date), large.
    c_ = add("From: dmitri@example.org\n"
             "To: team@example.org\n"
             "Bcc: secret-list@example.org\n"
             "Subject: report\n"
             "Content-Type: text/plain; charset=utf-8\n"
             "Content-Transfer-Encoding: base64\n"
             "\n"
             "0J/RgNC40LLQtdGCLCDQvNC40YAh\n" +
                 std::string(40, 'x') + "\n",
             kJan1_2024 + 69 * 86400, 0, mailbox::kFlagDeleted | mailbox::kFlagDraft);
    // 4: a trace field, an X- header, and an image attachment whose base64 decodes to words
    // that must not be found.
    d_ = add("Received: from mx.example.net by darius; Mon, 1 Apr 2024 08:00:00 +0000\n"
             "From: eve@example.com\n"
             "To: bob@example.com\n"
             "Subject: photo\n"
             "X-Spam: yes\n"
             "Date: 1 Apr 2024 08:00:00 +0200\n"
             "Content-Type: multipart/mixed; boundary=\"XX\"\n"
             "\n"
             "--XX\n"
             "Content-Type: text/html; charset=utf-8\n"
             "\n"
             "<p>See the <b>attached</b> picture</p>\n"
             "--XX\n"
             "Content-Type: image/png\n"
             "Content-Transfer-Encoding: base64\n"
             "\n"
             "c2VjcmV0IHdvcmRz\n"
             "--XX--\n",
             kJan1_2024 + 91 * 86400 + 6 * 3600, 120);
  }
  uint32_t a_ = 0, b_ = 0, c_ = 0, d_ = 0;
};

TEST_F(FourMessages, FlagsAndKeywords) {
  EXPECT_EQ(search("ALL"), (U{a_, b_, c_, d_}));
  EXPECT_EQ(search("SEEN"), (U{a_}));
  EXPECT_EQ(search("UNSEEN"), (U{b_, c_, d_}));
  EXPECT_EQ(search("ANSWERED"), (U{b_}));
  EXPECT_EQ(search("UNANSWERED"), (U{a_, c_, d_}));
  EXPECT_EQ(search("FLAGGED"), (U{b_}));
  EXPECT_EQ(search("UNFLAGGED"), (U{a_, c_, d_}));
  EXPECT_EQ(search("DELETED"), (U{c_}));
  EXPECT_EQ(search("UNDELETED"), (U{a_, b_, d_}));
  EXPECT_EQ(search("DRAFT"), (U{c_}));
  EXPECT_EQ(search("UNDRAFT"), (U{a_, b_, d_}));
  EXPECT_EQ(search("KEYWORD $Work"), (U{a_}));
  EXPECT_EQ(search("KEYWORD $work"), (U{a_}));  // keywords compare case-insensitively
  EXPECT_EQ(search("UNKEYWORD $Work"), (U{b_, c_, d_}));
  EXPECT_EQ(search("KEYWORD $Nowhere"), U{});
  EXPECT_EQ(search("UNKEYWORD $Nowhere"), (U{a_, b_, c_, d_}));
}

TEST_F(FourMessages, RecentNewOld) {
  recent_ = {c_, d_};
  EXPECT_EQ(search("RECENT"), (U{c_, d_}));
  EXPECT_EQ(search("NEW"), (U{c_, d_}));
  EXPECT_EQ(search("OLD"), (U{a_, b_}));
  recent_ = {a_};
  EXPECT_EQ(search("NEW"), U{});  // recent but seen
}

TEST_F(FourMessages, Sizes) {
  uint64_t sa = recordOf(a_).size;
  EXPECT_EQ(search("LARGER " + std::to_string(sa)).size(), 3u);
  EXPECT_EQ(search("SMALLER " + std::to_string(sa)), U{});
  EXPECT_EQ(search("SMALLER " + std::to_string(sa + 1)), (U{a_}));
  EXPECT_EQ(search("LARGER 0"), (U{a_, b_, c_, d_}));
  EXPECT_EQ(search("SMALLER 0"), U{});
  EXPECT_EQ(search("LARGER 9223372036854775807"), U{});
}

TEST_F(FourMessages, InternalDatesInTheirOwnZone) {
  EXPECT_EQ(search("ON 1-Jan-2024"), (U{a_}));
  // b_ was delivered at 2024-02-16 04:30 UTC, 15 Feb 23:30 in its zone (-0500).
  EXPECT_EQ(search("ON 15-Feb-2024"), (U{b_}));
  EXPECT_EQ(search("ON 16-Feb-2024"), U{});
  EXPECT_EQ(search("BEFORE 15-Feb-2024"), (U{a_}));
  EXPECT_EQ(search("BEFORE 16-Feb-2024"), (U{a_, b_}));
  EXPECT_EQ(search("SINCE 15-Feb-2024"), (U{b_, c_, d_}));
  EXPECT_EQ(search("SINCE 16-Feb-2024"), (U{c_, d_}));
  EXPECT_EQ(search("SINCE 1-Jan-2100"), U{});
  EXPECT_EQ(search("BEFORE 1-Jan-1970"), U{});
}

// RFC 5032 §2: OLDER n is INTERNALDATE <= now - n, YOUNGER n is INTERNALDATE >= now - n, to
// the second, whatever the zone.
TEST_F(FourMessages, OlderAndYounger) {
  now_ = kJan1_2024 + 100 * 86400;
  const std::string d31 = std::to_string(31 * 86400);  // now - 31 days is c_'s date exactly
  EXPECT_EQ(search("OLDER " + d31), (U{a_, b_, c_}));
  EXPECT_EQ(search("YOUNGER " + d31), (U{c_, d_}));
  EXPECT_EQ(search("OLDER " + std::to_string(31 * 86400 + 1)), (U{a_, b_}));
  EXPECT_EQ(search("YOUNGER " + std::to_string(31 * 86400 - 1)), (U{d_}));
  EXPECT_EQ(search("OLDER 8640000"), U{});  // 100 days: before a_ (10:00 on the first day)
  EXPECT_EQ(search("YOUNGER 8640000"), (U{a_, b_, c_, d_}));
  EXPECT_EQ(search("YOUNGER " + d31 + " DRAFT"), (U{c_}));
  EXPECT_EQ(search("NOT OLDER " + d31), (U{d_}));
  // The clock: all four are from 2024.
  now_ = 0;
  EXPECT_EQ(search("OLDER 1"), (U{a_, b_, c_, d_}));
  EXPECT_EQ(search("YOUNGER 1"), U{});
}

// A live context with OLDER/YOUNGER (RFC 5032 §2, "the server might perform the evaluation
// periodically"): when the clock moves, the messages whose INTERNALDATE crossed a boundary
// are re-checked, though the mailbox did not change.
TEST_F(FourMessages, ContextWithYoungerFollowsTheClock) {
  const int64_t t0 = kJan1_2024 + 100 * 86400;  // now - 31 days is c_'s date exactly
  std::string text = " YOUNGER " + std::to_string(31 * 86400);
  proto::ArgParser p(text);
  auto args = parseSearchArgs(p, true);
  ASSERT_TRUE(args.ok());
  auto prog = SearchProgram::compile(*args);
  ASSERT_TRUE(prog.ok());
  EXPECT_EQ(prog->ages(), (std::vector<int64_t>{31 * 86400}));
  view_ = allUids();
  SearchScope scope;
  scope.mailbox = &mailbox();
  scope.view = view_;
  SearchContexts contexts;
  contexts.add(std::make_unique<SearchContext>("T1", true, std::move(*prog), U{c_, d_}));
  EXPECT_TRUE(contexts.ages());
  auto uid_only = [](uint32_t) -> uint32_t { return 0; };
  scope.now = t0;  // the first round only records the time (the result is for t0)
  ASSERT_TRUE(contexts.evaluate(scope, {}).isOk());
  EXPECT_EQ(contexts.applyChecks(uid_only), "");
  scope.now = t0 + 1;  // c_ is now one second too old
  ASSERT_TRUE(contexts.evaluate(scope, {}).isOk());
  EXPECT_EQ(contexts.applyChecks(uid_only),
            "* ESEARCH (TAG \"T1\") UID REMOVEFROM (0 " + std::to_string(c_) + ")\r\n");
  scope.now = t0 + 2;  // nothing else near a boundary
  ASSERT_TRUE(contexts.evaluate(scope, {}).isOk());
  EXPECT_EQ(contexts.applyChecks(uid_only), "");
  // A context without time keys never reads the records for the clock.
  SearchContexts plain;
  std::string text2 = " SEEN";
  proto::ArgParser p2(text2);
  auto args2 = parseSearchArgs(p2, true);
  ASSERT_TRUE(args2.ok());
  auto prog2 = SearchProgram::compile(*args2);
  ASSERT_TRUE(prog2.ok());
  plain.add(std::make_unique<SearchContext>("T2", true, std::move(*prog2), U{a_}));
  EXPECT_FALSE(plain.ages());
}

// runOn(): only the UIDs asked about, sequence numbers from the view, 0 outside it, and UIDs
// that are not in the index match nothing.
TEST_F(FourMessages, RunOnChecksOnlyTheGivenUids) {
  std::string text = " YOUNGER " + std::to_string(60 * 86400);
  proto::ArgParser p(text);
  auto args = parseSearchArgs(p, false);
  ASSERT_TRUE(args.ok());
  auto prog = SearchProgram::compile(*args);
  ASSERT_TRUE(prog.ok());
  std::vector<uint32_t> view = {a_, c_};  // b_ and d_ not yet told to the client
  SearchScope scope;
  scope.mailbox = &mailbox();
  scope.view = view;
  scope.now = kJan1_2024 + 100 * 86400;
  std::vector<uint32_t> ask = {a_, c_, d_, d_ + 1000};
  auto out = prog->runOn(scope, ask);
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->matches.size(), 2u);
  EXPECT_EQ(out->matches[0].uid, c_);
  EXPECT_EQ(out->matches[0].msn, 2u);
  EXPECT_EQ(out->matches[1].uid, d_);
  EXPECT_EQ(out->matches[1].msn, 0u);
  EXPECT_EQ(out->files_opened, 0u);
}

TEST_F(FourMessages, SentDatesFromTheDateHeader) {
  EXPECT_EQ(search("SENTON 1-Jan-2024"), (U{a_}));
  EXPECT_EQ(search("SENTON 15-Feb-2024"), (U{b_}));  // the day as written, not in UTC
  // c_ has no Date: its internal date (10 Mar 2024) stands in.
  EXPECT_EQ(search("SENTON 10-Mar-2024"), (U{c_}));
  EXPECT_EQ(search("SENTON 1-Apr-2024"), (U{d_}));
  EXPECT_EQ(search("SENTBEFORE 1-Apr-2024"), (U{a_, b_, c_}));
  EXPECT_EQ(search("SENTSINCE 15-Feb-2024"), (U{b_, c_, d_}));
}

TEST_F(FourMessages, SaveDates) {
  EXPECT_EQ(search("SAVEDATESUPPORTED"), (U{a_, b_, c_, d_}));
  // Saved just now, whatever the internal dates say.
  EXPECT_EQ(search("SAVEDBEFORE 1-Jan-2000"), U{});
  EXPECT_EQ(search("SAVEDSINCE 1-Jan-2000"), (U{a_, b_, c_, d_}));
  int64_t saved = recordOf(a_).save_date;
  proto::CivilDate day = proto::civilFromDays(saved / 86400);
  EXPECT_EQ(search("SAVEDON " + proto::formatDate(day)).size(), 4u);
}

TEST_F(FourMessages, AddressAndSubjectHeaders) {
  EXPECT_EQ(search("FROM smith"), (U{a_}));
  EXPECT_EQ(search("FROM ALICE@EXAMPLE.COM"), (U{a_}));
  EXPECT_EQ(search("FROM example"), (U{a_, b_, c_, d_}));
  EXPECT_EQ(search("FROM \"привет\""), (U{b_}));  // the RFC 2047 display name, decoded
  EXPECT_EQ(search("TO bob"), (U{a_, b_, d_}));
  EXPECT_EQ(search("CC carol"), (U{a_}));
  EXPECT_EQ(search("BCC secret-list"), (U{c_}));
  EXPECT_EQ(search("BCC bob"), U{});
  EXPECT_EQ(search("SUBJECT lunch"), (U{a_}));
  EXPECT_EQ(search("SUBJECT \"ПРИВЕТ from\""), (U{b_}));
  EXPECT_EQ(search("SUBJECT \"\""), (U{a_, b_, c_, d_}));
  // The subject in KOI8-R, as a client that sends CHARSET KOI8-R would.
  EXPECT_EQ(search("CHARSET KOI8-R SUBJECT {6}\r\n\xf0\xd2\xc9\xd7\xc5\xd4"), (U{b_}));
}

// RFC 9051 §6.4.4: FROM, TO, CC and BCC look in the envelope's address structure, so the
// CFWS that RFC 5322 §3.2.2 allows inside an addr-spec is not in the way:
// "<user-from (comment)@ (comment) domain.org>" is user-from@domain.org. Dovecot and Cyrus
// both find it so, and neither finds the comment, which is not part of any address.
TEST_F(SearchEvalTest, AddressKeysMatchTheAddressNotTheComments) {
  uint32_t m = add("From: <user-from (comment)@ (comment) domain.org>\n"
                   "To: user-to (c) @ (c) domain.org, \"Q. X\" (c) <q @ d.org>\n"
                   "Cc: team: one (1) @ a.org, two@b.org;\n"
                   "Bcc: =?utf-8?q?J=C3=B6rg?= <jorg (x) @ example.com>\n"
                   "Subject: comments\n\nbody\n",
                   kJan1_2024);
  EXPECT_EQ(search("FROM user-from@domain.org"), (U{m}));
  EXPECT_EQ(search("FROM \"user-from (comment)\""), U{});
  EXPECT_EQ(search("TO user-to@domain.org"), (U{m}));
  EXPECT_EQ(search("TO \"Q. X <q@d.org>\""), (U{m}));
  EXPECT_EQ(search("CC one@a.org"), (U{m}));
  EXPECT_EQ(search("CC team"), (U{m}));
  EXPECT_EQ(search("BCC \"jörg <jorg@example.com>\""), (U{m}));
  EXPECT_EQ(search("HEADER From \"(comment)\""), (U{m}));  // HEADER still sees the raw field
}

TEST_F(FourMessages, HeaderKey) {
  EXPECT_EQ(search("HEADER X-Spam \"\""), (U{d_}));
  EXPECT_EQ(search("HEADER x-spam YES"), (U{d_}));
  EXPECT_EQ(search("HEADER X-Spam no"), U{});
  EXPECT_EQ(search("HEADER X-Nowhere \"\""), U{});
  EXPECT_EQ(search("HEADER Message-ID <lunch@"), (U{a_}));
  EXPECT_EQ(search("HEADER Content-Transfer-Encoding base64"), (U{c_}));
  // Received is not in the cache: read from the file.
  SearchOutcome out;
  EXPECT_EQ(search("HEADER Received mx.example.net", &out), (U{d_}));
  EXPECT_EQ(out.files_opened, 4u);
}

TEST_F(FourMessages, BodyAndText) {
  EXPECT_EQ(search("BODY \"café\""), (U{b_}));
  EXPECT_EQ(search("BODY \"CAFÉ CRÈME\""), (U{b_}));
  EXPECT_EQ(search("BODY \"привет\""), (U{c_}));
  EXPECT_EQ(search("BODY \"МИР!\""), (U{c_}));
  EXPECT_EQ(search("BODY noon"), (U{a_}));
  EXPECT_EQ(search("BODY attached"), (U{d_}));  // text/html is searched as written
  EXPECT_EQ(search("BODY secret"), U{});        // the image is not text
  EXPECT_EQ(search("BODY lunch"), U{});         // BODY leaves the header out
  EXPECT_EQ(search("TEXT lunch"), (U{a_}));     // TEXT does not
  EXPECT_EQ(search("TEXT noon"), (U{a_}));
  EXPECT_EQ(search("TEXT mx.example.net"), (U{d_}));  // trace fields are header text too
  EXPECT_EQ(search("TEXT image/png"), (U{d_}));       // and MIME headers
  EXPECT_EQ(search("TEXT \"ПРИВЕТ from\""), (U{b_}));  // decoded header words
  EXPECT_EQ(search("BODY \"\""), (U{a_, b_, c_, d_}));
  EXPECT_EQ(search("CHARSET ISO-8859-1 BODY {4}\r\ncaf\xe9"), (U{b_}));
  EXPECT_EQ(search("CHARSET UTF-8 TEXT {12}\r\n\xd0\xbf\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82"),
            (U{b_, c_}));
}

TEST_F(FourMessages, SequenceSetsUidsAndSavedResult) {
  EXPECT_EQ(search("1,3"), (U{a_, c_}));
  EXPECT_EQ(search("2:*"), (U{b_, c_, d_}));
  EXPECT_EQ(search("*"), (U{d_}));
  EXPECT_EQ(search("3:2"), (U{b_, c_}));
  EXPECT_EQ(search("5:*"), (U{d_}));  // "*" is the last message, so 5:* is 4:5
  EXPECT_EQ(search("100"), U{});
  EXPECT_EQ(search("UID " + std::to_string(b_) + ":" + std::to_string(c_)), (U{b_, c_}));
  EXPECT_EQ(search("UID *"), (U{d_}));
  EXPECT_EQ(search("UID 4000000000"), U{});
  EXPECT_EQ(search("$"), U{});
  EXPECT_EQ(search("UID $"), U{});
  saved_ = *proto::SequenceSet::fromNumbers({b_, d_});
  EXPECT_EQ(search("$"), (U{b_, d_}));
  EXPECT_EQ(search("UID $"), (U{b_, d_}));
  EXPECT_EQ(search("NOT $"), (U{a_, c_}));
  EXPECT_EQ(search("OR $ 1"), (U{a_, b_, d_}));
  EXPECT_EQ(search("$ FLAGGED"), (U{b_}));
}

TEST_F(FourMessages, BooleanCombinations) {
  EXPECT_EQ(search("OR SEEN FLAGGED"), (U{a_, b_}));
  EXPECT_EQ(search("NOT (OR SEEN FLAGGED)"), (U{c_, d_}));
  EXPECT_EQ(search("NOT OR SEEN FLAGGED"), (U{c_, d_}));
  EXPECT_EQ(search("OR SEEN FLAGGED TO bob"), (U{a_, b_}));
  EXPECT_EQ(search("OR (SEEN TO nobody) (FROM eve UNSEEN)"), (U{d_}));
  EXPECT_EQ(search("OR OR SEEN DRAFT FROM eve"), (U{a_, c_, d_}));
  EXPECT_EQ(search("NOT NOT SEEN"), (U{a_}));
  EXPECT_EQ(search("(((SEEN)))"), (U{a_}));
  EXPECT_EQ(search("SEEN UNSEEN"), U{});
}

TEST_F(FourMessages, ModseqAndObjectIds) {
  uint64_t mb = recordOf(b_).modseq;
  SearchOutcome out;
  EXPECT_EQ(search("MODSEQ " + std::to_string(mb), &out), (U{b_, c_, d_}));
  EXPECT_EQ(out.matches[0].modseq, mb);
  EXPECT_EQ(search("MODSEQ 0"), (U{a_, b_, c_, d_}));
  EXPECT_EQ(search("MODSEQ \"/flags/\\\\seen\" all " + std::to_string(mb)), (U{b_, c_, d_}));
  EXPECT_EQ(search("MODSEQ 9223372036854775807"), U{});

  std::string id = emailIdOf(recordOf(c_));
  EXPECT_EQ(id.size(), 25u);
  EXPECT_EQ(id[0], 'M');
  EXPECT_EQ(search("EMAILID " + id), (U{c_}));
  EXPECT_EQ(search("EMAILID M000000000000000000000000"), U{});
  EXPECT_FALSE(threadIdOf(recordOf(c_)));
  EXPECT_EQ(search("THREADID T0000000000000000"), U{});
  mailbox::IndexRecord r;
  r.thread_id = 0x64b478a75b7ea9;
  EXPECT_EQ(threadIdOf(r), "T0064b478a75b7ea9");
}

TEST_F(FourMessages, AnIdenticalCopyHasTheSameEmailId) {
  auto m = store_->openMailbox(*name_);
  ASSERT_TRUE(m.ok());
  std::vector<uint32_t> uids{a_};
  auto copied = store_->copy(*m->mailbox, uids, *name_, *m->mailbox);
  ASSERT_TRUE(copied.ok());
  uint32_t copy = copied->uids[0].to;
  EXPECT_EQ(search("EMAILID " + emailIdOf(recordOf(a_))), (U{a_, copy}));
}

TEST_F(FourMessages, UnknownCharsetIsNotSupported) {
  std::string text = " CHARSET X-MARTIAN TEXT x";
  proto::ArgParser p(text);
  auto args = parseSearchArgs(p, false);
  ASSERT_TRUE(args.ok());
  auto prog = SearchProgram::compile(*args);
  ASSERT_FALSE(prog.ok());
  EXPECT_EQ(prog.status().code(), base::Code::kNotSupported);
}

TEST_F(FourMessages, IndexAndCacheKeysNeverOpenAMessageFile) {
  SearchOutcome out;
  for (const char* keys :
       {"SUBJECT lunch", "FROM smith", "TO bob CC carol", "BCC secret", "SEEN", "UNFLAGGED",
        "KEYWORD $Work", "BEFORE 1-Mar-2024", "SINCE 1-Feb-2024", "SENTON 15-Feb-2024",
        "SENTSINCE 1-Jan-2024", "LARGER 10", "UID 1:*", "1:*", "MODSEQ 1", "NEW", "OLD",
        "HEADER X-Spam yes", "HEADER Message-ID x", "SAVEDSINCE 1-Jan-2000",
        "OR (SUBJECT x) (NOT FROM y)", "BODY \"\"", "TEXT \"\""}) {
    search(keys, &out);
    EXPECT_EQ(out.files_opened, 0u) << keys;
    EXPECT_EQ(out.unreadable, 0u) << keys;
  }
  // The proof: without the message files these keys still answer correctly.
  for (uint32_t uid : {a_, b_, c_, d_}) {
    ASSERT_EQ(::unlink(mailbox().messagePath(uid).c_str()), 0);
  }
  EXPECT_EQ(search("SUBJECT lunch", &out), (U{a_}));
  EXPECT_EQ(out.unreadable, 0u);
  EXPECT_EQ(search("FROM \"привет\" SENTON 15-Feb-2024"), (U{b_}));
  // BODY now cannot read them: no match, and counted.
  EXPECT_EQ(search("BODY noon", &out), U{});
  EXPECT_EQ(out.unreadable, 4u);
}

TEST_F(FourMessages, FileKeysOpenEachFileOnceAndOnlyForCandidates) {
  SearchOutcome out;
  EXPECT_EQ(search("TEXT lunch BODY noon TEXT meet HEADER Received x", &out), U{});
  EXPECT_EQ(out.files_opened, 4u);
  // The flag is tested first: only the one seen message has its file read.
  EXPECT_EQ(search("TEXT noon SEEN", &out), (U{a_}));
  EXPECT_EQ(out.files_opened, 1u);
  EXPECT_EQ(search("BODY noon SUBJECT photo", &out), U{});
  EXPECT_EQ(out.files_opened, 1u);
}

TEST_F(FourMessages, ViewsWithGapsUseTheirOwnSequenceNumbers) {
  // A view without b_ (as if the session had been told of its expunge): msn 2 is c_.
  std::string text = " 2 UNSEEN";
  proto::ArgParser p(text);
  auto prog = SearchProgram::compile(*parseSearchArgs(p, false));
  ASSERT_TRUE(prog.ok());
  std::vector<uint32_t> view{a_, c_, d_};
  SearchScope scope;
  scope.mailbox = &mailbox();
  scope.view = view;
  auto out = prog->run(scope);
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->matches.size(), 1u);
  EXPECT_EQ(out->matches[0].msn, 2u);
  EXPECT_EQ(out->matches[0].uid, c_);
  // A UID in the view that the index no longer has matches nothing, even NOT.
  std::vector<uint32_t> ghost{a_, 4000, d_};
  scope.view = ghost;
  std::string all = " NOT SEEN";
  proto::ArgParser q(all);
  auto prog2 = SearchProgram::compile(*parseSearchArgs(q, false));
  auto out2 = prog2->run(scope);
  ASSERT_TRUE(out2.ok());
  ASSERT_EQ(out2->matches.size(), 1u);
  EXPECT_EQ(out2->matches[0].uid, d_);
  EXPECT_EQ(out2->matches[0].msn, 3u);
}

TEST_F(SearchEvalTest, EmptyMailbox) {
  EXPECT_EQ(search("ALL"), U{});
  EXPECT_EQ(search("*"), U{});
  EXPECT_EQ(search("UID *"), U{});
}

// The cost rules at the size the issue names: 10,000 messages, SUBJECT/FROM/flags/dates
// without a single message file, TEXT with each file once.
TEST_F(SearchEvalTest, TenThousandMessages) {
  constexpr int kCount = 10000;
  auto p = store_->partition("default");
  constexpr int kBatch = 500;
  for (int first = 0; first < kCount; first += kBatch) {
    std::vector<mailbox::StagedMessage> staged;
    for (int i = first; i < first + kBatch; ++i) {
      std::string raw = "From: user" + std::to_string(i % 100) + "@example.com\r\nSubject: note " +
                        std::to_string(i) + "\r\nDate: 1 Jan 2024 00:00:00 +0000\r\n\r\nbody " +
                        (i == 4242 ? "needle" : "hay") + "\r\n";
      auto s = store_->stage(**p, raw);
      ASSERT_TRUE(s.ok());
      staged.push_back(*s);
    }
    std::vector<AppendRequest> reqs;
    for (int k = 0; k < kBatch; ++k) {
      reqs.push_back({&staged[k], kJan1_2024 + (first + k) * 60, 0,
                      (first + k) % 3 == 0 ? uint32_t{mailbox::kFlagSeen} : 0u, {}});
    }
    ASSERT_TRUE(store_->append(*name_, reqs).ok());
    for (auto& s : staged) ASSERT_TRUE(store_->unstage(s).isOk());
  }
  SearchOutcome out;
  EXPECT_EQ(search("SUBJECT \"note 4242\"", &out).size(), 1u);
  EXPECT_EQ(out.files_opened, 0u);
  EXPECT_EQ(search("FROM user7@ UNSEEN SINCE 2-Jan-2024", &out).size(), 57u);
  EXPECT_EQ(out.files_opened, 0u);
  EXPECT_EQ(search("SENTON 1-Jan-2024 SEEN", &out).size(), 3334u);
  EXPECT_EQ(out.files_opened, 0u);
  EXPECT_EQ(search("TEXT needle", &out).size(), 1u);
  EXPECT_EQ(out.files_opened, static_cast<size_t>(kCount));
}

}  // namespace
}  // namespace darius::imapd::search
