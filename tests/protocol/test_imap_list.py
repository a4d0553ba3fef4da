"""LIST and LSUB end to end with Python's imaplib against the real dariusd (altnamespace and
unixhiersep, the defaults): the basic forms ("*", "%", "a/%", the empty pattern), LIST-EXTENDED
(selection SUBSCRIBED, RECURSIVEMATCH with CHILDINFO, SPECIAL-USE; return CHILDREN,
SUBSCRIBED, SPECIAL-USE; several patterns; BAD for what RFC 5258 forbids), LIST-STATUS with
each STATUS right after its LIST line, LSUB's "%" rule, modified UTF-7 names, IMAP4rev2's
\\NonExistent, a user with many folders, and that another user's mailboxes stay invisible
until an ACL grants "l" (set with `darius mailbox create --acl`)."""
import imaplib
import re
import unittest

from darius_harness import Instance, darius, logout_quietly

LIST_RE = re.compile(rb'^\((?P<attrs>[^)]*)\) "(?P<sep>.)" (?P<name>"(?:[^"\\]|\\.)*"|\S+)'
                     rb'(?P<ext> .*)?$')


class RecordingIMAP4(imaplib.IMAP4):
    """imaplib, keeping every line the server sends (to check the order of responses)."""

    def _get_line(self):
        line = super()._get_line()
        self.lines.append(line)
        return line

    def _connect(self):
        self.lines = []
        return super()._connect()


def unquote(name):
    if name.startswith(b'"'):
        return re.sub(rb'\\(.)', rb'\1', name[1:-1]).decode()
    return name.decode()


def parse_list(data):
    """imaplib's LIST/LSUB data -> {name: (set of attributes, extended data or '')}."""
    out = {}
    for item in data:
        if item is None:
            continue
        if isinstance(item, tuple):  # a name sent as a literal
            item = item[0].rsplit(b"{", 1)[0] + b'"' + item[1] + b'"'
        m = LIST_RE.match(item)
        assert m, item
        assert m.group("sep") == b"/", item
        attrs = set(m.group("attrs").decode().split())
        name = unquote(m.group("name"))
        assert name not in out, f"{name} listed twice"
        out[name] = (attrs, (m.group("ext") or b"").decode().strip())
    return out


class ListClient:
    """Logins and LIST helpers over the class's instance `inst`."""

    @classmethod
    def login(cls, user, password):
        m = RecordingIMAP4("127.0.0.1", cls.inst.port("imap"), timeout=15)
        typ, _ = m.login(user, password)
        assert typ == "OK"
        return m

    def alice(self):
        m = self.login("alice", "alice-secret")
        self.addCleanup(logout_quietly, m)
        return m

    def list(self, m, *args, command="LIST"):
        typ, data = m._simple_command(command, *args)
        self.assertEqual(typ, "OK", data)
        return parse_list(m._untagged_response(typ, data, command)[1])


class ImapListTest(ListClient, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.inst = Instance(user="alice:alice-secret")
        cls.inst.start()
        m = cls.login("alice", "alice-secret")
        for args in (('"a/b/c"',), ('"Sent"', "(USE (\\Sent))"), ('"Drafts"', "(USE (\\Drafts))"),
                     ('"Trash"',), ('"Trash/old"',), ('"Entw&APw-rfe"',), ('"gone"',)):
            typ, data = m._simple_command("CREATE", *args)
            assert typ == "OK", (args, data)
        for name in ("INBOX", "Sent", "a/b/c", "Trash/old", "gone"):
            assert m.subscribe(name)[0] == "OK", name
        assert m.delete("gone")[0] == "OK"  # the subscription outlives it (RFC 9051 §6.3.7)
        msg = b"From: a@example.com\r\nSubject: hi\r\n\r\nbody\r\n"
        assert m.append("Sent", None, None, msg)[0] == "OK"
        assert m.append("Sent", "(\\Seen)", None, msg)[0] == "OK"
        m.logout()

    @classmethod
    def tearDownClass(cls):
        cls.inst.close()

    def test_capabilities(self):
        m = self.alice()
        for cap in ("LIST-EXTENDED", "LIST-STATUS", "CHILDREN", "SPECIAL-USE"):
            self.assertIn(cap, m.capabilities)

    def test_star_lists_every_mailbox(self):
        got = self.list(self.alice(), '""', '"*"')
        self.assertEqual(got, {
            "INBOX": ({"\\Noinferiors", "\\HasNoChildren"}, ""),
            "Drafts": ({"\\HasNoChildren", "\\Drafts"}, ""),
            "Entw&APw-rfe": ({"\\HasNoChildren"}, ""),
            "Sent": ({"\\HasNoChildren", "\\Sent"}, ""),
            "Trash": ({"\\HasChildren"}, ""),
            "Trash/old": ({"\\HasNoChildren"}, ""),
            "a/b/c": ({"\\HasNoChildren"}, ""),
        })

    def test_percent_lists_one_level_with_noselect_levels(self):
        m = self.alice()
        got = self.list(m, '""', "%")
        self.assertEqual(set(got), {"INBOX", "Drafts", "Entw&APw-rfe", "Sent", "Trash", "a"})
        # An IMAP4rev1 client gets \Noselect for the level without a mailbox.
        self.assertEqual(got["a"][0], {"\\Noselect", "\\HasChildren"})
        self.assertEqual(self.list(m, '""', '"a/%"'),
                         {"a/b": ({"\\Noselect", "\\HasChildren"}, "")})
        self.assertEqual(self.list(m, '"a/"', '"%"'),
                         {"a/b": ({"\\Noselect", "\\HasChildren"}, "")})
        self.assertEqual(self.list(m, '""', '"a/b/%"'), {"a/b/c": ({"\\HasNoChildren"}, "")})
        self.assertEqual(set(self.list(m, '""', '"inbox"')), {"INBOX"})
        self.assertEqual(set(self.list(m, '""', '"Entw*"')), {"Entw&APw-rfe"})
        self.assertEqual(self.list(m, '""', '"nothing*"'), {})

    def test_imap4rev2_says_nonexistent(self):
        m = self.alice()
        typ, _ = m._simple_command("ENABLE", "IMAP4rev2")
        self.assertEqual(typ, "OK")
        self.assertEqual(self.list(m, '""', '"a/%"'),
                         {"a/b": ({"\\NonExistent", "\\HasChildren"}, "")})

    def test_empty_pattern_returns_the_delimiter(self):
        m = self.alice()
        m.lines.clear()
        self.list(m, '""', '""')
        self.assertIn(b'* LIST (\\Noselect) "/" ""', m.lines)
        m.lines.clear()
        self.list(m, '"Other Users/bob"', '""')
        self.assertIn(b'* LIST (\\Noselect) "/" "Other Users/"', m.lines)

    def test_subscribed_selection(self):
        got = self.list(self.alice(), "(SUBSCRIBED)", '""', '"*"')
        self.assertEqual(got, {
            "INBOX": ({"\\Noinferiors", "\\HasNoChildren", "\\Subscribed"}, ""),
            "Sent": ({"\\HasNoChildren", "\\Subscribed"}, ""),
            "Trash/old": ({"\\HasNoChildren", "\\Subscribed"}, ""),
            "a/b/c": ({"\\HasNoChildren", "\\Subscribed"}, ""),
            "gone": ({"\\NonExistent", "\\HasNoChildren", "\\Subscribed"}, ""),
        })

    def test_recursivematch_gives_childinfo(self):
        m = self.alice()
        got = self.list(m, "(SUBSCRIBED RECURSIVEMATCH)", '""', "%")
        self.assertEqual(got["a"], ({"\\NonExistent", "\\HasChildren"},
                                    '("CHILDINFO" ("SUBSCRIBED"))'))
        self.assertEqual(got["Trash"], ({"\\HasChildren"}, '("CHILDINFO" ("SUBSCRIBED"))'))
        self.assertEqual(got["Sent"], ({"\\HasNoChildren", "\\Subscribed"}, ""))
        self.assertNotIn("Drafts", got)
        for bad in (("(RECURSIVEMATCH)", '""', "*"), ("(REMOTE RECURSIVEMATCH)", '""', "*"),
                    ("(BOGUS)", '""', "*"), ('""', "*", "RETURN", "(BOGUS)")):
            with self.assertRaises(imaplib.IMAP4.error, msg=bad) as cm:
                m._simple_command("LIST", *bad)
            self.assertIn("BAD", str(cm.exception))
        # The session goes on.
        self.assertIn("INBOX", self.list(m, '""', "INBOX"))

    def test_return_options_and_status(self):
        m = self.alice()
        m.lines.clear()
        got = self.list(m, '""', "%", "RETURN", "(CHILDREN SPECIAL-USE STATUS (MESSAGES UNSEEN))")
        self.assertEqual(got["Sent"][0], {"\\HasNoChildren", "\\Sent"})
        self.assertEqual(got["a"][0], {"\\NonExistent", "\\HasChildren"})
        self.assertEqual(got["Trash"][0], {"\\HasChildren"})
        # Each STATUS comes right after its LIST line; none for the level "a".
        lines = [l for l in m.lines if l.startswith(b"* ")]
        status = {}
        for i, line in enumerate(lines):
            if line.startswith(b"* STATUS "):
                prev = lines[i - 1]
                self.assertTrue(prev.startswith(b"* LIST "), prev)
                name = line.split(b" ", 2)[2].rsplit(b" (", 1)[0]
                self.assertTrue(prev.endswith(b" " + name), (prev, line))
                status[unquote(name)] = line.rsplit(b" (", 1)[1].rstrip(b")").decode()
        self.assertEqual(status["Sent"], "MESSAGES 2 UNSEEN 1")
        self.assertEqual(status["INBOX"], "MESSAGES 0 UNSEEN 0")
        self.assertNotIn("a", status)
        self.assertEqual(set(status), {"INBOX", "Drafts", "Entw&APw-rfe", "Sent", "Trash"})

    def test_special_use_selection_and_several_patterns(self):
        m = self.alice()
        got = self.list(m, "(SPECIAL-USE)", '""', '"*"')
        self.assertEqual(got, {"Drafts": ({"\\HasNoChildren", "\\Drafts"}, ""),
                               "Sent": ({"\\HasNoChildren", "\\Sent"}, "")})
        got = self.list(m, '""', '(INBOX "Sent" "Tr%")', "RETURN", "(SUBSCRIBED)")
        self.assertEqual(got, {
            "INBOX": ({"\\Noinferiors", "\\HasNoChildren", "\\Subscribed"}, ""),
            "Sent": ({"\\HasNoChildren", "\\Subscribed"}, ""),
            "Trash": ({"\\HasChildren"}, ""),
        })
        # Extended LIST shows special uses only when asked.
        self.assertEqual(self.list(m, "()", '""', "Sent"), {"Sent": ({"\\HasNoChildren"}, "")})

    def test_lsub(self):
        m = self.alice()
        got = self.list(m, '""', '"*"', command="LSUB")
        self.assertEqual(got, {"INBOX": (set(), ""), "Sent": (set(), ""),
                               "Trash/old": (set(), ""), "a/b/c": (set(), ""),
                               "gone": ({"\\Noselect"}, "")})
        # RFC 3501 §6.3.9: "%" returns the unsubscribed level above a subscribed name,
        # \Noselect.
        got = self.list(m, '""', "%", command="LSUB")
        self.assertEqual(got, {"INBOX": (set(), ""), "Sent": (set(), ""),
                               "Trash": ({"\\Noselect"}, ""), "a": ({"\\Noselect"}, ""),
                               "gone": ({"\\Noselect"}, "")})


class OtherUsersTest(ListClient, unittest.TestCase):
    """Two users: nothing of bob's shows for alice until an ACL grants her "l"."""

    @classmethod
    def setUpClass(cls):
        cls.inst = Instance(user="alice:alice-secret")
        cls.inst.start()
        darius("user", "add", "-C", cls.inst.conf, "bob", "--password", "bob-secret")

    @classmethod
    def tearDownClass(cls):
        cls.inst.close()

    def test_other_users_mailboxes(self):
        m = self.alice()
        b = self.login("bob", "bob-secret")  # makes bob's INBOX
        self.addCleanup(logout_quietly, b)
        self.assertEqual(b.create("Private")[0], "OK")
        self.assertEqual(b.create("Private/hidden")[0], "OK")
        self.assertNotIn("Other Users", self.list(m, '""', "%"))
        self.assertEqual(self.list(m, '""', '"Other Users/*"'), {})
        self.assertEqual(self.list(m, '""', '"Other Users/bob/Private"'), {})
        self.assertEqual(self.list(m, "(SUBSCRIBED RECURSIVEMATCH)", '""', '"*"'), {})
        # bob sees his own, and nothing of alice's.
        self.assertEqual(set(self.list(b, '""', "*")), {"INBOX", "Private", "Private/hidden"})
        # An ACL granting alice "lr" on one of bob's mailboxes makes exactly that one visible.
        darius("mailbox", "create", "-C", self.inst.conf, "user/bob/Shared",
               "--acl", "bob lrswipkxtean alice lr")
        got = self.list(m, '""', '"*"')
        self.assertEqual(got["Other Users/bob/Shared"], ({"\\HasNoChildren"}, ""))
        self.assertEqual([n for n in got if n.startswith("Other Users")],
                         ["Other Users/bob/Shared"])
        self.assertEqual(self.list(m, '""', "%")["Other Users"][0],
                         {"\\Noselect", "\\HasChildren"})
        self.assertEqual(self.list(m, '""', '"Other Users/%"'),
                         {"Other Users/bob": ({"\\Noselect", "\\HasChildren"}, "")})
        self.assertEqual(set(self.list(m, '""', '"Other Users/bob/%"')),
                         {"Other Users/bob/Shared"})
        self.assertEqual(m.select('"Other Users/bob/Shared"', readonly=True)[0], "OK")


class ManyFoldersTest(unittest.TestCase):
    """A user with many folders: LIST "" "*" returns each once, streamed."""

    def test_many_folders(self):
        with Instance(user="carol:carol-secret") as inst:
            inst.start()
            m = imaplib.IMAP4("127.0.0.1", inst.port("imap"), timeout=60)
            m.login("carol", "carol-secret")
            names = {f"folder{i:03d}/sub" for i in range(150)} | {f"folder{i:03d}" for i in
                                                                   range(150)}
            for n in sorted(names):
                self.assertEqual(m.create(n)[0], "OK", n)
            typ, data = m.list('""', "*")
            self.assertEqual(typ, "OK")
            got = parse_list(data)
            self.assertEqual(set(got), names | {"INBOX"})
            self.assertEqual(got["folder042"][0], {"\\HasChildren"})
            typ, data = m.list('""', "%")
            self.assertEqual(len(parse_list(data)), 151)
            m.logout()


if __name__ == "__main__":
    unittest.main()
