# mailbox/ naming layer and mailbox list (docs/design/naming.md, docs/formats/mailbox-list.md).
list(APPEND MAILBOX_SOURCES mailbox_name.cc namespace.cc mailbox_path.cc mailbox_list.cc
     mailbox_list_cache.cc)
list(APPEND MAILBOX_TESTS mailbox_name_test.cc namespace_test.cc mailbox_path_test.cc
     mailbox_list_test.cc mailbox_list_golden_test.cc
     mailbox_list_cache_test.cc)
list(APPEND MAILBOX_DEPS lib/config)
