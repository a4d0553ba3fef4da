# mailbox/ access area: ACLs (RFC 4314) and per-user subscriptions.
list(APPEND MAILBOX_SOURCES acl.cc acl_identifier.cc store_acl.cc subscriptions.cc)
list(APPEND MAILBOX_TESTS acl_test.cc store_acl_test.cc)
