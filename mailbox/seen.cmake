# mailbox/ seen area: per-user \Seen of non-owners (seen.db, docs/formats/seen.md).
list(APPEND MAILBOX_SOURCES seen_state.cc seen_db.cc)
list(APPEND MAILBOX_TESTS seen_state_test.cc seen_db_test.cc seen_golden_test.cc)
