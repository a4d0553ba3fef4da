# Files of the skiplist backend (owned by its folder).
set(DB_SKIPLIST_SOURCES
  skiplist/skiplist_commit.cc
  skiplist/skiplist_db.cc
  skiplist/skiplist_format.cc
  skiplist/skiplist_repack.cc)
set(DB_SKIPLIST_TESTS
  skiplist/skiplist_concurrency_test.cc
  skiplist/skiplist_crash_test.cc
  skiplist/skiplist_golden_test.cc
  skiplist/skiplist_test.cc)
