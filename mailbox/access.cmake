# mailbox/ access area: ACLs (RFC 4314) and per-user subscriptions.
list(APPEND MAILBOX_SOURCES acl.cc subscriptions.cc)
list(APPEND MAILBOX_TESTS acl_test.cc)
