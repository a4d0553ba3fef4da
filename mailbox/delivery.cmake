# mailbox/ delivery area: what LMTP delivery needs beside the Store — duplicate suppression
# (the duplicates.db of DESIGN.md §3).
list(APPEND MAILBOX_SOURCES duplicate_db.cc)
list(APPEND MAILBOX_TESTS duplicate_db_test.cc)
list(APPEND MAILBOX_DEPS lib/config lib/log)
# The delivery journal (delivery_journal.h, docs/formats/journal.md): sync_method journal's
# durable point, its replay, and its crash tests (the Store's power-cut scenario is shared
# with store_power_cut_test.cc, which runs in the volume binary).
list(APPEND MAILBOX_SOURCES journal_format.cc delivery_journal.cc mailbox_journal.cc store_journal.cc)
list(APPEND MAILBOX_TESTS journal_format_test.cc journal_crash_test.cc store_crash_scenario.cc)
