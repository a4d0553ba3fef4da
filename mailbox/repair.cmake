# mailbox/ repair area: the store-wide reconstruct (the mailbox list rebuilt from the
# partitions, then every mailbox directory), what `darius reconstruct` runs.
list(APPEND MAILBOX_SOURCES reconstruct_store.cc)
list(APPEND MAILBOX_TESTS reconstruct_store_test.cc)
