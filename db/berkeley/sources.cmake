# Files of the berkeley backend (owned by its folder); paths relative to db/.
set(DB_BERKELEY_SOURCES berkeley/berkeley_db.cc berkeley/bdb_env.cc berkeley/check.cc)
# bdb_power_cut.cc is test-only (it replaces BDB's system calls process-wide): it is linked
# into db_test, never into the library.
set(DB_BERKELEY_TESTS berkeley/berkeley_test.cc berkeley/berkeley_process_test.cc
                      berkeley/bdb_power_cut.cc berkeley/berkeley_power_cut_test.cc)
