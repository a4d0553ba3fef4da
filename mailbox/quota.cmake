# mailbox/ quota area: RFC 9208 quota roots, their limits (quotas.db) and usage records, and
# the Store's accounting (docs/formats/quota.md).
list(APPEND MAILBOX_SOURCES quota_format.cc quota_db.cc quota_usage.cc store_quota.cc)
list(APPEND MAILBOX_TESTS quota_format_test.cc quota_golden_test.cc store_quota_test.cc)
list(APPEND MAILBOX_LIBS OpenSSL::Crypto)
