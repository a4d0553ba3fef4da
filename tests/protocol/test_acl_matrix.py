"""The RFC 4314 §4 table against the real dariusd: for each right (and a few pairs a command
needs together) x each command x where the right comes from, bob runs every command on a
mailbox and gets exactly the reply docs/design/acl.md promises.

Where bob's rights come from (the scenarios):
  own       a mailbox of bob's own, its ACL for bob set to the right (the owner keeps l k x a)
  other     one of alice's mailboxes, "bob RIGHT"
  shared    a shared mailbox (Shared Folders/...), "bob RIGHT"
  anyone    one of alice's mailboxes, "anyone RIGHT"
  negative  one of alice's mailboxes, "bob lrswipkxtean" and "-bob <every other right>"

No existence disclosure: where bob has none of l r i k x a, every reply must be byte for
byte the reply for a mailbox that does not exist; [NOPERM] only where he may see it.
The mailboxes are set up by a global admin (cyrus) over IMAP."""
import imaplib
import re
import unittest

from darius_harness import Instance, darius, logout_quietly

imaplib.Commands.setdefault("LISTRIGHTS", ("AUTH", "SELECTED"))
imaplib.Commands.setdefault("MOVE", ("SELECTED",))

ALL = "lrswipkxtean"
REVEALING = set("lrikxa")
RIGHT_SETS = list(ALL) + ["rs", "rw", "rt", "re", "rte", "ri", "lr"]
SCENARIOS = ["own", "other", "shared", "anyone", "negative"]
PASSWORDS = {"cyrus": "cyrus-pw", "bob": "bob-pw", "alice": "alice-secret", "dave": "dave-pw"}
MESSAGE = b"From: a@example.org\r\nSubject: m\r\n\r\nbody\r\n"


def q(name):
    return '"' + name + '"'


def wire_rights(rights):
    """mailbox::rightsToWire: the stored letters, then c for k, d for any of x t e."""
    out = "".join(c for c in "lrswipkxte" if c in rights)
    if "k" in rights:
        out += "c"
    if set("xte") & set(rights):
        out += "d"
    return out + "".join(c for c in "an" if c in rights)


def outcome(typ, data):
    """'OK', or the response code of a NO/BAD ('NOPERM'), or 'NO' without one."""
    if typ == "OK":
        return "OK"
    text = data[0].decode() if data and isinstance(data[0], bytes) else str(data)
    m = re.match(r"\[([A-Z-]+)", text)
    return m.group(1) if m else typ


class Client(imaplib.IMAP4):
    """imaplib, minus its client-side READ-ONLY guard: the server is what is under test, so
    every command goes out, and a [READ-ONLY] reply does not stop the next command."""

    def _command(self, name, *args):
        self.untagged_responses.pop("READ-ONLY", None)
        self.is_readonly = False
        return super()._command(name, *args)


def select(m, name, examine=False):
    """SELECT/EXAMINE without imaplib's own READ-ONLY handling: (typ, data, read_only)."""
    typ, data = m._simple_command("EXAMINE" if examine else "SELECT", name)
    read_only = "READ-ONLY" in m.untagged_responses
    if typ == "OK":
        m.state = "SELECTED"
    return typ, data, read_only


def login(inst, user):
    m = Client("127.0.0.1", inst.port("imap"), timeout=60)
    m.login(user, PASSWORDS[user])
    return m


class Case:
    """One mailbox and what bob may do there."""

    def __init__(self, scenario, rights):
        self.scenario = scenario
        self.rights = rights
        label = f"m-{scenario}-{rights}"
        if scenario == "own":
            self.admin_name = "Other Users/bob/" + label
            self.bob_name = label
            self.effective = set(rights) | set("lkxa")
        elif scenario == "shared":
            self.admin_name = self.bob_name = "Shared Folders/" + label
            self.effective = set(rights)
        else:
            self.admin_name = self.bob_name = "Other Users/alice/" + label
            self.effective = set(rights)
        self.moved = "moved-" + label  # RENAME's target, in bob's own tree

    @property
    def hidden(self):
        return not (self.effective & REVEALING)

    def fail(self, hidden_code="NONEXISTENT"):
        return hidden_code if self.hidden else "NOPERM"

    def expect(self, need, hidden_code="NONEXISTENT"):
        return "OK" if set(need) <= self.effective else self.fail(hidden_code)


class AclMatrixTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.inst = Instance(options={"admins": "cyrus", "allow_plaintext_auth": "yes"})
        for user in ("cyrus", "bob", "dave"):  # dave: SETACL only grants to users that exist
            darius("user", "add", "-C", cls.inst.conf, user, "--password", PASSWORDS[user])
        cls.inst.start()
        cls.cases = [Case(s, r) for s in SCENARIOS for r in RIGHT_SETS
                     if not (s == "anyone" and r == "a")]
        admin = login(cls.inst, "cyrus")
        try:
            for c in cls.cases:
                cls.setup_case(admin, c)
        finally:
            logout_quietly(admin)

    @classmethod
    def tearDownClass(cls):
        cls.inst.stop()
        cls.inst.close()

    @classmethod
    def setup_case(cls, admin, c):
        def ok(res):
            if res[0] != "OK":
                raise AssertionError(f"setup of {c.admin_name}: {res}")

        name = q(c.admin_name)
        ok(admin.create(name))
        ok(admin.setacl(name, "cyrus", ALL))  # the admin's own entry, to fill it
        for _ in range(2):
            ok(admin.append(name, None, None, MESSAGE))
        if c.scenario in ("own", "other", "shared"):
            ok(admin.setacl(name, "bob", c.rights))
        elif c.scenario == "anyone":
            ok(admin.setacl(name, "anyone", c.rights))
        else:
            ok(admin.setacl(name, "bob", ALL))
            ok(admin.setacl(name, "-bob", "".join(x for x in ALL if x not in c.rights)))
        # Children inherit the ACL as it is now (create.cc): DELETE and RENAME use them.
        ok(admin.create(q(c.admin_name + "/del")))
        ok(admin.create(q(c.admin_name + "/ren")))

    def test_matrix(self):
        bob = login(self.inst, "bob")
        self.addCleanup(logout_quietly, bob)
        typ, _ = bob.append("INBOX", None, None, MESSAGE)  # for COPY
        self.assertEqual(typ, "OK")
        # What a mailbox that does not exist gets: hidden ones must get the same, byte for byte.
        missing = {}
        ghost = q("Other Users/alice/no-such-mailbox")
        missing["STATUS"] = bob.status(ghost, "(MESSAGES)")
        missing["MYRIGHTS"] = bob.myrights(ghost)
        missing["GETACL"] = bob.getacl(ghost)
        missing["SELECT"] = select(bob, ghost)[:2]
        missing["EXAMINE"] = select(bob, ghost, examine=True)[:2]
        missing["APPEND"] = bob.append(ghost, None, None, MESSAGE)
        missing["SUBSCRIBE"] = bob.subscribe(ghost)
        missing["DELETE"] = bob.delete(ghost)
        for c in self.cases:
            with self.subTest(scenario=c.scenario, rights=c.rights):
                self.check_case(bob, c, missing)

    def check_case(self, m, c, missing):
        name = q(c.bob_name)
        E = c.effective
        results = {}

        def got(what, res, expected):
            results[what] = res
            self.assertEqual(outcome(*res), expected, f"{what} {c.bob_name}: {res}")
            if c.hidden and what in missing:
                self.assertEqual(res, missing[what], f"{what} discloses {c.bob_name}")

        # LIST shows exactly the mailboxes with "l"; RETURN (MYRIGHTS) adds the rights.
        typ, data = m.list('""', name)
        self.assertEqual(typ, "OK")
        listed = [d for d in data if d]
        self.assertEqual(len(listed), 1 if "l" in E else 0, f"LIST {c.bob_name}: {data}")
        typ, data = m._simple_command("LIST", '""', name, "RETURN", "(MYRIGHTS)")
        self.assertEqual(typ, "OK")
        _, rights = m._untagged_response(typ, data, "MYRIGHTS")
        rights = [r for r in rights if r]
        if "l" in E:
            self.assertEqual(len(rights), 1, f"LIST MYRIGHTS {c.bob_name}")
            self.assertTrue(rights[0].decode().endswith(" " + wire_rights(E)), rights)
        else:
            self.assertEqual(rights, [])

        res = m.myrights(name)
        got("MYRIGHTS", res, "OK" if not c.hidden else "NONEXISTENT")
        if res[0] == "OK":
            self.assertTrue(res[1][0].decode().endswith(" " + wire_rights(E)), res)
        got("GETACL", m.getacl(name), c.expect("a"))
        got("LISTRIGHTS", m._simple_command("LISTRIGHTS", name, "bob"), c.expect("a"))
        got("SETACL", m.setacl(name, "dave", "lr"), c.expect("a"))
        got("DELETEACL", m.deleteacl(name, "dave"), c.expect("a"))
        got("STATUS", m.status(name, "(MESSAGES)"), c.expect("r"))
        got("SUBSCRIBE", m.subscribe(name), "NONEXISTENT" if c.hidden else "OK")
        m.unsubscribe(name)
        got("APPEND", m.append(name, None, None, MESSAGE), c.expect("i", "TRYCREATE"))

        typ, _ = m.select("INBOX")
        self.assertEqual(typ, "OK")
        got("COPY", m.copy("1", name), c.expect("i", "TRYCREATE"))
        m.close()

        typ, data, read_only = select(m, name, examine=True)
        got("EXAMINE", (typ, data), c.expect("r"))
        if typ == "OK":
            self.assertTrue(read_only)
            m.close()
        typ, data, read_only = select(m, name)
        got("SELECT", (typ, data), c.expect("r"))
        if typ == "OK":
            self.check_selected(m, c, read_only)

        got("CREATE", m.create(q(c.bob_name + "/new")), "OK" if "k" in E else "NOPERM")
        got("RENAME", m.rename(q(c.bob_name + "/ren"), q(c.moved)), c.expect("x"))
        got("DELETE", m.delete(q(c.bob_name + "/del")), c.expect("x"))

    def check_selected(self, m, c, read_only):
        """SELECT worked (bob has "r"): READ-ONLY unless i e s w t (RFC 4314 §5.2), then
        FETCH and SEARCH, STORE per flag, MOVE (t e on the source) and EXPUNGE (e)."""
        E = c.effective
        self.assertEqual(read_only, not (E & set("iestw")), c.bob_name)
        self.assertEqual(m.fetch("1", "(FLAGS)")[0], "OK")
        self.assertEqual(m.search(None, "ALL")[0], "OK")

        def store(flag, right):
            res = m.store("1", "+FLAGS.SILENT", flag)
            want = "OK" if (right in E and not read_only) else ("NO" if read_only else "NOPERM")
            got = outcome(*res)
            if read_only:
                self.assertEqual(res[0], "NO", f"STORE {flag} {c.bob_name}: {res}")
            else:
                self.assertEqual(got, want, f"STORE {flag} {c.bob_name}: {res}")

        store(r"(\Flagged)", "w")
        store(r"(\Seen)", "s")
        res = m._simple_command("MOVE", "2", "INBOX")
        want = "OK" if set("te") <= E and not read_only else "NOPERM"
        self.assertEqual(outcome(*res), want, f"MOVE {c.bob_name}: {res}")
        store(r"(\Deleted)", "t")
        res = m.expunge()
        if read_only:
            self.assertEqual(res[0], "NO", f"EXPUNGE {c.bob_name}: {res}")
        else:
            self.assertEqual(outcome(*res), "OK" if "e" in E else "NOPERM",
                             f"EXPUNGE {c.bob_name}: {res}")
        m.close()


if __name__ == "__main__":
    unittest.main()
