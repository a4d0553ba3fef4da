"""The set-up test_imap_context and test_imap_context_sort share: one dariusd with user alice,
an imaplib session (the changing side) and a raw session (the one keeping contexts, whose
untagged responses are read in order), and fresh mailboxes with messages by subject."""
import imaplib
import unittest

from darius_harness import Instance, logout_quietly
from imap_raw import RawImap


class ContextCase(unittest.TestCase):
    box_prefix = "ctx"

    @classmethod
    def setUpClass(cls):
        cls.inst = Instance(user="alice:alice-secret")
        cls.inst.start()
        cls.boxes = 0

    @classmethod
    def tearDownClass(cls):
        cls.inst.close()

    def imap(self):
        m = imaplib.IMAP4("127.0.0.1", self.inst.port("imap"), timeout=30)
        m.login("alice", "alice-secret")
        self.addCleanup(logout_quietly, m)
        return m

    def raw(self):
        a = RawImap(self.inst.port("imap"))
        a.login("alice", "alice-secret")
        self.addCleanup(a.close)
        return a

    def fresh(self, m, subjects=()):
        """A new mailbox with messages of these subjects (self.append); its name."""
        type(self).boxes += 1
        name = f"{self.box_prefix}{type(self).boxes}"
        self.assertEqual(m.create(name)[0], "OK")
        for s in subjects:
            self.append(m, name, s)
        return name
