# Files of the berkeley backend (owned by its folder); paths relative to db/.
set(DB_BERKELEY_SOURCES berkeley/berkeley_db.cc berkeley/bdb_env.cc berkeley/check.cc)
set(DB_BERKELEY_TESTS berkeley/berkeley_test.cc berkeley/berkeley_process_test.cc)
