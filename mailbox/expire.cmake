# mailbox/ expire area: per-owner overrides of the expire policies (expire_policies.db,
# docs/formats/expire_policy.md). The policy itself and Store::expire are in store.cmake.
list(APPEND MAILBOX_SOURCES expire_policy_db.cc)
list(APPEND MAILBOX_TESTS expire_policy_db_test.cc expire_policy_golden_test.cc)
