# Berkeley DB 5.3 (Debian: libdb5.3-dev). No CMake config or .pc file ships with it.
find_path(BerkeleyDB_INCLUDE_DIR db.h)
find_library(BerkeleyDB_LIBRARY NAMES db-5.3 db)
if(BerkeleyDB_INCLUDE_DIR AND EXISTS "${BerkeleyDB_INCLUDE_DIR}/db.h")
  file(STRINGS "${BerkeleyDB_INCLUDE_DIR}/db.h" _v
       REGEX "^#define[ \t]+DB_VERSION_(MAJOR|MINOR|PATCH)[ \t]+[0-9]+")
  string(REGEX REPLACE ".*DB_VERSION_MAJOR[ \t]+([0-9]+).*" "\\1" _maj "${_v}")
  string(REGEX REPLACE ".*DB_VERSION_MINOR[ \t]+([0-9]+).*" "\\1" _min "${_v}")
  string(REGEX REPLACE ".*DB_VERSION_PATCH[ \t]+([0-9]+).*" "\\1" _pat "${_v}")
  set(BerkeleyDB_VERSION "${_maj}.${_min}.${_pat}")
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(BerkeleyDB REQUIRED_VARS BerkeleyDB_LIBRARY BerkeleyDB_INCLUDE_DIR
                                  VERSION_VAR BerkeleyDB_VERSION)
if(BerkeleyDB_FOUND AND NOT TARGET BerkeleyDB::db)
  add_library(BerkeleyDB::db UNKNOWN IMPORTED)
  set_target_properties(BerkeleyDB::db PROPERTIES IMPORTED_LOCATION "${BerkeleyDB_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${BerkeleyDB_INCLUDE_DIR}")
endif()
mark_as_advanced(BerkeleyDB_INCLUDE_DIR BerkeleyDB_LIBRARY)
