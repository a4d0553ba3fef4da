# The store core: index, cache and header files, staging, and the Mailbox operations.
list(APPEND MAILBOX_SOURCES
  index_format.cc cache_format.cc cache_fill.cc header_file.cc message_stage.cc reconstruct.cc
  mailbox.cc mailbox_write.cc mailbox_tail.cc mailbox_compact.cc mailbox_purge.cc mailbox_view.cc expunged_file.cc
  partition.cc store.cc store_intents.cc store_namespace.cc store_append.cc store_deleted.cc
  store_expire_deleted.cc deleted_area.cc
  store_uidvalidity.cc store_expire.cc expire.cc)
list(APPEND MAILBOX_TESTS
  index_format_test.cc cache_fill_test.cc mailbox_test.cc mailbox_tail_test.cc mailbox_crash_test.cc
  store_test.cc store_crash_test.cc store_expire_test.cc expunged_file_test.cc mailbox_purge_crash_test.cc
  store_deleted_test.cc deleted_area_test.cc)
list(APPEND MAILBOX_LIBS ZLIB::ZLIB OpenSSL::Crypto)
list(APPEND MAILBOX_DEPS lib/mime lib/log lib/config)
