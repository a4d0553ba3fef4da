"""Virtual domains end to end (issue 17, docs/design/naming.md) against the real dariusd:
users made by `darius user add alice@example.com`, IMAP and POP3 logins with the domain,
LMTP to alice@example.com and alice+folder@example.com, ACLs and shared folders within a
domain, quotas per domain (SETQUOTA by the domain admin, LMTP 552 for one erin and not the
other), a domain admin (admin@example.com) who sees only example.com, and three users named
alice (example.com, other.org, the default domain) who never see each other's mail.

Names are the default namespace: altnamespace with "/" ("Lists", "Other Users/bob/Shared",
"Shared Folders/news"). The fixture's mailboxes with ACLs are made by the store's own tool
(`darius mailbox create --acl`); SETACL/GETACL inside a domain and by the domain admin have
their own tests."""
import imaplib
import os
import poplib
import re
import smtplib
import tempfile
import unittest

from darius_harness import Instance, darius, logout_quietly

USERS = {
    "alice@example.com": "ex-alice-pw",
    "bob@example.com": "ex-bob-pw",
    "admin@example.com": "ex-admin-pw",
    "alice@other.org": "org-alice-pw",
    "bob": "default-bob-pw",  # a bob of the default domain, beside bob@example.com
}
DEFAULT_ALICE = ("alice", "alice-secret")  # the Instance's own user, default domain


class VirtualDomainsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.inst = Instance(options={"admins": "admin@example.com",
                                     "allow_plaintext_auth": "yes"})
        for user, password in USERS.items():
            darius("user", "add", "-C", cls.inst.conf, user, "--password", password)
        cls.inst.start()
        # While dariusd runs: folders with ACLs inside each domain, and shared folders.
        for name, acl in (
                ("example.com!user/alice/Lists", "alice@example.com lrswipkxtea"),
                ("other.org!user/alice/Lists", "alice@other.org lrswipkxtea"),
                ("user/alice/Lists", "alice lrswipkxtea"),
                # bob@example.com shares a folder with alice@example.com. The ACL also names
                # alice@other.org, the default domain's alice and anyone: none of them is of
                # example.com, so none of them may see it.
                ("example.com!user/bob/Shared",
                 "bob@example.com lrswipkxtea alice@example.com lrs alice@other.org lr "
                 "alice lr"),
                ("example.com!shared/news", "anyone lr"),
                ("other.org!shared/news", "anyone lr"),
        ):
            darius("mailbox", "create", "-C", cls.inst.conf, name, "--acl", acl)
        for mailbox, subject in (("example.com!shared/news", "news of example.com"),
                                 ("other.org!shared/news", "news of other.org")):
            with tempfile.NamedTemporaryFile("w", suffix=".eml", delete=False) as f:
                f.write(f"Subject: {subject}\n\nx\n")
            darius("mailbox", "append", "-C", cls.inst.conf, mailbox, f.name)
            os.unlink(f.name)
        cls.deliver([("alice@example.com", "for alice of example.com"),
                     ("alice@other.org", "for alice of other.org"),
                     ("alice@localhost", "for alice of the default domain"),
                     ("alice+Lists@example.com", "list mail of example.com"),
                     ("alice+Lists@other.org", "list mail of other.org"),
                     ("bob+Shared@example.com", "shared by bob")])

    @classmethod
    def tearDownClass(cls):
        cls.inst.stop()
        cls.inst.close()

    @classmethod
    def deliver(cls, messages):
        lmtp = smtplib.LMTP("127.0.0.1", cls.inst.port("lmtp"))
        try:
            for rcpt, subject in messages:
                lmtp.sendmail("s@example.net", [rcpt], f"Subject: {subject}\r\n\r\nx\r\n")
        finally:
            lmtp.quit()

    def imap(self, user, password):
        m = imaplib.IMAP4("127.0.0.1", self.inst.port("imap"), timeout=30)
        self.addCleanup(logout_quietly, m)
        m.login(user, password)
        return m

    def subjects(self, m, mailbox):
        typ, data = m.select(f'"{mailbox}"', readonly=True)
        self.assertEqual(typ, "OK", (mailbox, data))
        typ, data = m.fetch("1:*", "(BODY.PEEK[HEADER.FIELDS (SUBJECT)])") \
            if int(data[0]) > 0 else ("OK", [])
        self.assertEqual(typ, "OK", data)
        return sorted(re.search(rb"Subject: ([^\r\n]*)", part[1]).group(1).decode()
                      for part in data if isinstance(part, tuple))

    def listed(self, m, pattern="*"):
        typ, data = m.list('""', f'"{pattern}"')
        self.assertEqual(typ, "OK", data)
        return sorted(re.search(rb'"/" "?(.*?)"?$', d).group(1).decode()
                      for d in data if d)

    # --- users, login, delivery ---

    def test_each_alice_gets_her_own_mail(self):
        self.assertEqual(self.subjects(self.imap("alice@example.com", "ex-alice-pw"), "INBOX"),
                         ["for alice of example.com"])
        self.assertEqual(self.subjects(self.imap("alice@other.org", "org-alice-pw"), "INBOX"),
                         ["for alice of other.org"])
        self.assertEqual(self.subjects(self.imap(*DEFAULT_ALICE), "INBOX"),
                         ["for alice of the default domain"])

    def test_subaddress_delivers_into_the_folder_of_that_domain(self):
        self.assertEqual(self.subjects(self.imap("alice@example.com", "ex-alice-pw"), "Lists"),
                         ["list mail of example.com"])
        self.assertEqual(self.subjects(self.imap("alice@other.org", "org-alice-pw"), "Lists"),
                         ["list mail of other.org"])
        self.assertEqual(self.subjects(self.imap(*DEFAULT_ALICE), "Lists"), [])

    def test_the_domain_is_case_insensitive(self):
        m = self.imap("alice@EXAMPLE.Com", "ex-alice-pw")
        self.assertEqual(self.subjects(m, "INBOX"), ["for alice of example.com"])

    def test_passwords_are_per_domain(self):
        m = imaplib.IMAP4("127.0.0.1", self.inst.port("imap"), timeout=30)
        self.addCleanup(logout_quietly, m)
        with self.assertRaises(imaplib.IMAP4.error):
            m.login("alice@other.org", "ex-alice-pw")

    def test_unknown_user_of_a_hosted_domain_is_unknown(self):
        # other.org has users, but no bob; example.com has no carol. Their mail must not
        # reach anyone, and above all not bob of the default domain (who exists): with
        # virtual domains a hosted domain is its own world (docs/design/naming.md).
        lmtp = smtplib.LMTP("127.0.0.1", self.inst.port("lmtp"))
        self.addCleanup(lmtp.quit)
        lmtp.ehlo_or_helo_if_needed()  # LHLO
        lmtp.mail("s@example.net")
        for rcpt in ("bob@other.org", "bob+Shared@other.org", "carol@example.com"):
            code, _ = lmtp.rcpt(rcpt)
            self.assertEqual(code, 550, rcpt)
        lmtp.rset()
        # A domain the site does not host (localhost above) still reaches the default domain.
        lmtp.mail("s@example.net")
        code, _ = lmtp.rcpt("alice@localhost.localdomain")
        self.assertEqual(code, 250)

    def test_pop3_login_with_a_domain(self):
        p = poplib.POP3("127.0.0.1", self.inst.port("pop3"), timeout=30)
        try:
            p.user("alice@other.org")
            p.pass_("org-alice-pw")
            self.assertEqual(p.stat()[0], 1)
            self.assertIn(b"Subject: for alice of other.org", b"\r\n".join(p.retr(1)[1]))
        finally:
            p.quit()

    # --- names: each domain is its own world ---

    def test_listing_shows_only_the_own_domain(self):
        a = self.imap("alice@example.com", "ex-alice-pw")
        # (Other tests may add example.com folders; none of another domain may show.)
        names = self.listed(a)
        for n in ("INBOX", "Lists", "Other Users/bob/Shared", "Shared Folders/news"):
            self.assertIn(n, names)
        self.assertEqual([n for n in names if "other.org" in n or "@" in n], [])
        o = self.imap("alice@other.org", "org-alice-pw")
        self.assertEqual(self.listed(o), ["INBOX", "Lists", "Shared Folders/news"])
        d = self.imap(*DEFAULT_ALICE)
        self.assertEqual(self.listed(d), ["INBOX", "Lists"])

    def test_another_domains_mailboxes_cannot_be_named(self):
        o = self.imap("alice@other.org", "org-alice-pw")
        for name in ("Other Users/bob/Shared", "Other Users/bob@example.com/Shared",
                     "Other Users/alice@example.com"):
            typ, data = o.select(f'"{name}"', readonly=True)
            self.assertEqual(typ, "NO", (name, data))
            self.assertNotIn(b"NOPERM", data[0], name)  # no hint that it exists
            typ, data = o.status(f'"{name}"', "(MESSAGES)")
            self.assertEqual(typ, "NO", (name, data))
        d = self.imap(*DEFAULT_ALICE)
        for name in ("Other Users/bob/Shared", "Other Users/bob@example.com/Shared"):
            typ, data = d.select(f'"{name}"', readonly=True)
            self.assertEqual(typ, "NO", (name, data))

    def test_shared_folders_are_per_domain(self):
        self.assertEqual(self.subjects(self.imap("alice@example.com", "ex-alice-pw"),
                                       "Shared Folders/news"), ["news of example.com"])
        self.assertEqual(self.subjects(self.imap("alice@other.org", "org-alice-pw"),
                                       "Shared Folders/news"), ["news of other.org"])
        typ, _ = self.imap(*DEFAULT_ALICE).select('"Shared Folders/news"', readonly=True)
        self.assertEqual(typ, "NO")

    # --- ACLs and per-user \Seen within the domain ---

    def test_a_folder_shared_within_the_domain(self):
        a = self.imap("alice@example.com", "ex-alice-pw")
        self.assertEqual(self.subjects(a, "Other Users/bob/Shared"), ["shared by bob"])
        # alice reads it: her \Seen is hers, in her own seen state; bob's stays unset.
        a.select('"Other Users/bob/Shared"')
        typ, data = a.fetch("1", "(BODY[])")
        self.assertEqual(typ, "OK", data)
        typ, data = a.fetch("1", "(FLAGS)")
        self.assertIn(b"\\Seen", data[0])
        b = self.imap("bob@example.com", "ex-bob-pw")
        b.select('"Shared"', readonly=True)
        typ, data = b.fetch("1", "(FLAGS)")
        self.assertNotIn(b"\\Seen", data[0])

    # --- ACL commands inside a domain (RFC 4314) ---

    def test_acl_identifiers_stay_inside_the_domain(self):
        a = self.imap("alice@example.com", "ex-alice-pw")
        a.create('"Team"')
        # "bob" on a mailbox of example.com is bob@example.com, never the default bob.
        typ, data = a.setacl('"Team"', "bob", "lr")
        self.assertEqual(typ, "OK", data)
        typ, data = a.getacl('"Team"')
        self.assertEqual(typ, "OK", data)
        self.assertIn(b"bob@example.com lr", data[0])
        # A user of another domain can never reach the mailbox: NO, and nothing changes.
        typ, data = a.setacl('"Team"', "alice@other.org", "lr")
        self.assertEqual(typ, "NO", data)
        b = self.imap("bob@example.com", "ex-bob-pw")
        self.assertIn("Other Users/alice/Team", self.listed(b))
        typ, _ = self.imap("bob", "default-bob-pw").select('"Other Users/alice/Team"')
        self.assertEqual(typ, "NO")
        self.assertEqual(self.listed(self.imap("alice@other.org", "org-alice-pw"),
                                     "Other Users/*"), [])

    def test_domain_admin_manages_the_domain(self):
        m = self.imap("admin@example.com", "ex-admin-pw")
        typ, data = m.create('"Shared Folders/announce"')
        self.assertEqual(typ, "OK", data)
        typ, data = m.setacl('"Shared Folders/announce"', "anyone", "lr")
        self.assertEqual(typ, "OK", data)
        # The admin has "a" on alice's folders without being given it.
        typ, data = m.setacl('"Other Users/alice/Lists"', "bob", "lr")
        self.assertEqual(typ, "OK", data)
        self.assertIn("Shared Folders/announce",
                      self.listed(self.imap("alice@example.com", "ex-alice-pw")))
        self.assertIn("Other Users/alice/Lists",
                      self.listed(self.imap("bob@example.com", "ex-bob-pw")))
        # Nothing of it reaches other.org, nor the default domain.
        self.assertNotIn("Shared Folders/announce",
                         self.listed(self.imap("alice@other.org", "org-alice-pw")))
        self.assertNotIn("Shared Folders/announce", self.listed(self.imap(*DEFAULT_ALICE)))

    # --- quotas inside a domain (RFC 9208) ---

    def test_quotas_are_per_domain(self):
        # Two new users named erin, in example.com and other.org, so that no other test's
        # mail is in the way.
        for user in ("erin@example.com", "erin@other.org"):
            darius("user", "add", "-C", self.inst.conf, user, "--password", "erin-pw")
            self.imap(user, "erin-pw").select("INBOX")  # makes the INBOX, the implicit root
        admin = self.imap("admin@example.com", "ex-admin-pw")
        typ, data = admin.setquota('"Other Users/erin"', "(STORAGE 1)")
        self.assertEqual(typ, "OK", data)
        # The domain admin cannot even name another domain's root; a user sets no quota.
        typ, data = admin.setquota('"Other Users/erin@other.org"', "(STORAGE 1)")
        self.assertEqual(typ, "NO", data)
        a = self.imap("erin@example.com", "erin-pw")
        typ, data = a.setquota("INBOX", "(STORAGE 100000)")
        self.assertEqual(typ, "NO", data)
        typ, data = a.getquotaroot("INBOX")
        self.assertEqual(typ, "OK", data)
        self.assertRegex(b" ".join(d for part in data for d in part if d),
                         rb"STORAGE \d+ 1\)")
        # 2 KiB for each erin: only example.com's is over her limit.
        body = "Subject: big\r\n\r\n" + "x" * 2048 + "\r\n"
        lmtp = smtplib.LMTP("127.0.0.1", self.inst.port("lmtp"))
        self.addCleanup(lmtp.quit)
        lmtp.ehlo_or_helo_if_needed()
        lmtp.mail("s@example.net")
        for rcpt in ("erin@example.com", "erin@other.org"):
            self.assertEqual(lmtp.rcpt(rcpt)[0], 250, rcpt)
        lmtp.putcmd("data")
        self.assertEqual(lmtp.getreply()[0], 354)
        lmtp.send(body.encode() + b".\r\n")
        codes = [lmtp.getreply()[0] for _ in range(2)]
        self.assertEqual(codes, [552, 250])
        self.assertEqual(self.subjects(self.imap("erin@other.org", "erin-pw"), "INBOX"), ["big"])
        self.assertEqual(self.subjects(self.imap("erin@example.com", "erin-pw"), "INBOX"), [])

    # --- the domain admin ---

    def test_domain_admin_sees_only_the_domain(self):
        m = self.imap("admin@example.com", "ex-admin-pw")
        names = self.listed(m)
        self.assertIn("Other Users/alice", names)
        self.assertIn("Other Users/alice/Lists", names)
        self.assertIn("Other Users/bob/Shared", names)
        self.assertIn("Shared Folders/news", names)
        # Nothing of other.org or of the default domain, under any spelling.
        for n in names:
            self.assertNotIn("other.org", n)
        typ, data = m.status('"Other Users/alice@other.org"', "(MESSAGES)")
        self.assertEqual(typ, "NO", data)

    def test_domain_admin_acts_for_users_of_the_domain_only(self):
        m = imaplib.IMAP4("127.0.0.1", self.inst.port("imap"), timeout=30)
        self.addCleanup(logout_quietly, m)
        msg = b"alice@example.com\0admin@example.com\0ex-admin-pw"
        typ, _ = m.authenticate("PLAIN", lambda _: msg)
        self.assertEqual(typ, "OK")
        self.assertEqual(self.subjects(m, "INBOX"), ["for alice of example.com"])
        for authzid in ("alice@other.org", "alice"):
            m = imaplib.IMAP4("127.0.0.1", self.inst.port("imap"), timeout=30)
            self.addCleanup(logout_quietly, m)
            msg = f"{authzid}\0admin@example.com\0ex-admin-pw".encode()
            with self.assertRaises(imaplib.IMAP4.error):
                m.authenticate("PLAIN", lambda _, msg=msg: msg)


if __name__ == "__main__":
    unittest.main()
