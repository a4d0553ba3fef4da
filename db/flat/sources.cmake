# Files of the flat backend (owned by its folder).
set(DB_FLAT_SOURCES flat/flat_db.cc flat/flat_format.cc)
set(DB_FLAT_TESTS flat/flat_format_test.cc flat/flat_db_test.cc)
