# mailbox/ change log area: the per-partition change log (docs/formats/changelog.md) and the
# watcher that wakes other processes on changes (IDLE now, replication later).
list(APPEND MAILBOX_SOURCES
  change_log_format.cc change_log_segment.cc change_log.cc change_log_reader.cc
  change_watcher.cc)
list(APPEND MAILBOX_TESTS
  change_log_test.cc change_log_damage_test.cc change_log_golden_test.cc
  change_log_crash_test.cc change_watcher_test.cc)
list(APPEND MAILBOX_LIBS ZLIB::ZLIB)
