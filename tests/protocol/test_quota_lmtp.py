"""Quotas at delivery against the real dariusd: a recipient whose quota root cannot take the
message gets 552 5.2.2 (452 4.2.2 with lmtp_over_quota_perm_failure: no) while the other
recipients of the same message are delivered; and eight LMTP deliveries racing for the last
kilobytes of a root never take it over its limit: exactly as many are accepted as fit."""
import imaplib
import smtplib
import threading
import unittest

from darius_harness import Instance, darius, logout_quietly

BODY = "x" * 1900
MESSAGE = f"From: s@example.org\r\nSubject: race\r\n\r\n{BODY}\r\n"


def lmtp_one(port, rcpt, results, barrier=None):
    c = smtplib.LMTP("127.0.0.1", port)
    try:
        c.ehlo_or_helo_if_needed()
        c.mail("s@example.org")
        code, msg = c.rcpt(rcpt)
        if code != 250:
            results.append((code, msg))
            return
        if barrier is not None:
            barrier.wait(timeout=30)
        results.append(c.data(MESSAGE))
    finally:
        c.quit()


class QuotaLmtpTest(unittest.TestCase):
    def start(self, **options):
        inst = Instance(options={"admins": "cyrus", "allow_plaintext_auth": "yes", **options})
        self.addCleanup(inst.close)
        for user in ("cyrus", "bob", "carol"):
            darius("user", "add", "-C", inst.conf, user, "--password", user + "-pw")
        inst.start()
        self.addCleanup(inst.stop)
        return inst

    def imap(self, inst, user, password):
        m = imaplib.IMAP4("127.0.0.1", inst.port("imap"), timeout=30)
        self.addCleanup(logout_quietly, m)
        self.assertEqual(m.login(user, password)[0], "OK")
        return m

    def set_quota(self, inst, user, limits):
        a = self.imap(inst, "cyrus", "cyrus-pw")
        typ, data = a._simple_command("SETQUOTA", f'"Other Users/{user}"', f"({limits})")
        self.assertEqual(typ, "OK", data)

    def usage(self, m):
        typ, data = m.getquota("INBOX")
        self.assertEqual(typ, "OK", data)
        words = data[0].decode().split("(")[1].rstrip(")").split()
        return {words[i]: (int(words[i + 1]), int(words[i + 2])) for i in range(0, len(words), 3)}

    def deliver_all(self, inst, rcpt, n):
        results = []
        for _ in range(n):
            lmtp_one(inst.port("lmtp"), rcpt, results)
        return results

    def test_over_quota_is_per_recipient_and_permanent_by_default(self):
        # 1 KiB of room: RCPT cannot tell that a 1,900-byte message will not fit (no SIZE),
        # so the refusal comes at DATA, for bob alone.
        inst = self.start()
        self.set_quota(inst, "bob", "STORAGE 1")
        c = smtplib.LMTP("127.0.0.1", inst.port("lmtp"))
        self.addCleanup(c.close)
        c.ehlo_or_helo_if_needed()
        c.mail("s@example.org")
        self.assertEqual(c.rcpt("bob@localhost")[0], 250)
        self.assertEqual(c.rcpt("carol@localhost")[0], 250)
        c.putcmd("DATA")
        self.assertEqual(c.getreply()[0], 354)
        c.send((MESSAGE + ".\r\n").encode())
        replies = [c.getreply(), c.getreply()]
        c.quit()
        self.assertEqual(replies[0][0], 552)
        self.assertTrue(replies[0][1].startswith(b"5.2.2"), replies[0])
        self.assertEqual(replies[1][0], 250)
        m = self.imap(inst, "bob", "bob-pw")
        self.assertEqual(m.select("INBOX")[1], [b"0"])
        self.assertEqual(self.imap(inst, "carol", "carol-pw").select("INBOX")[1], [b"1"])

    def test_a_spent_quota_or_a_declared_size_is_refused_at_rcpt(self):
        """As Cyrus: the client need not send a message that cannot be stored. Only a certain
        refusal happens early; "+detail" and unknown sizes are left to the delivery."""
        inst = self.start()
        self.set_quota(inst, "bob", "MESSAGE 1")
        self.assertEqual(self.deliver_all(inst, "bob@localhost", 1)[0][0], 250)
        c = smtplib.LMTP("127.0.0.1", inst.port("lmtp"))
        self.addCleanup(c.close)
        c.ehlo_or_helo_if_needed()
        c.mail("s@example.org")
        code, msg = c.rcpt("bob@localhost")
        self.assertEqual(code, 552, msg)
        self.assertTrue(msg.startswith(b"5.2.2"), msg)
        self.assertEqual(c.rcpt("carol@localhost")[0], 250)
        self.assertEqual(c.rcpt("bob+folder@localhost")[0], 250)  # decided at DATA
        code, msg = c.data(MESSAGE)  # smtplib reads one reply: the first accepted recipient
        self.assertEqual(code, 250, msg)
        replies = [c.getreply()]
        self.assertEqual(replies[0][0], 552, replies)
        c.rset()

        # A declared SIZE (RFC 1870) is held against the room left: carol holds one message
        # of about 2 KB, so 4 KiB leaves room for 100 octets but not for 5,000.
        self.set_quota(inst, "carol", "STORAGE 4")
        c.mail("s@example.org", options=["SIZE=5000"])
        code, msg = c.rcpt("carol@localhost")
        self.assertEqual(code, 552, msg)
        c.rset()
        c.mail("s@example.org", options=["SIZE=100"])
        self.assertEqual(c.rcpt("carol@localhost")[0], 250)
        c.quit()

    def test_temporary_failure_when_configured(self):
        inst = self.start(lmtp_over_quota_perm_failure="no")
        self.set_quota(inst, "bob", "MESSAGE 0")
        code, msg = self.deliver_all(inst, "bob@localhost", 1)[0]
        self.assertEqual(code, 452)
        self.assertTrue(msg.startswith(b"4.2.2"), msg)

    def test_eight_deliveries_race_for_the_last_kilobytes(self):
        inst = self.start()
        m = self.imap(inst, "bob", "bob-pw")
        for round_ in range(3):
            # Seven in, then a STORAGE limit with room for exactly three more of the same size
            # (delivery adds trace headers, so sizes are measured, not assumed).
            self.assertTrue(all(code == 250 for code, _ in
                                self.deliver_all(inst, "bob@localhost", 7)))
            m.select("INBOX")
            typ, data = m.fetch("1:*", "(RFC822.SIZE)")
            sizes = [int(d.decode().split("RFC822.SIZE ")[1].rstrip(")")) for d in data]
            self.assertEqual(len(sizes), 7)
            biggest = max(sizes)
            limit_kib = -(-(sum(sizes) + 3 * biggest) // 1024)
            self.assertLess(limit_kib * 1024, sum(sizes) + 4 * min(sizes))  # a 4th never fits
            self.set_quota(inst, "bob", f"STORAGE {limit_kib}")
            results = []
            barrier = threading.Barrier(8)
            threads = [threading.Thread(target=lmtp_one,
                                        args=(inst.port("lmtp"), "bob@localhost", results,
                                              barrier))
                       for _ in range(8)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(60)
            codes = sorted(code for code, _ in results)
            self.assertEqual(codes, [250] * 3 + [552] * 5, (round_, results))
            used, limit = self.usage(m)["STORAGE"]
            self.assertEqual(limit, limit_kib)
            self.assertLessEqual(used, limit)
            self.assertEqual(m.select("INBOX")[1], [b"10"])
            m.store("1:*", "+FLAGS", "\\Deleted")
            m.expunge()
            m.close()
            self.assertEqual(self.usage(m)["STORAGE"][0], 0)

if __name__ == "__main__":
    unittest.main()
