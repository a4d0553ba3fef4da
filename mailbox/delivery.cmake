# mailbox/ delivery area: what LMTP delivery needs beside the Store — duplicate suppression
# (the duplicates.db of DESIGN.md §3).
list(APPEND MAILBOX_SOURCES duplicate_db.cc)
list(APPEND MAILBOX_TESTS duplicate_db_test.cc)
list(APPEND MAILBOX_DEPS lib/config lib/log)
