# libxcrypt (Debian: libcrypt-dev): crypt_r and crypt_gensalt_rn for yescrypt hashes.
find_path(Crypt_INCLUDE_DIR crypt.h)
find_library(Crypt_LIBRARY NAMES crypt)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Crypt REQUIRED_VARS Crypt_LIBRARY Crypt_INCLUDE_DIR)
if(Crypt_FOUND AND NOT TARGET Crypt::crypt)
  add_library(Crypt::crypt UNKNOWN IMPORTED)
  set_target_properties(Crypt::crypt PROPERTIES IMPORTED_LOCATION "${Crypt_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${Crypt_INCLUDE_DIR}")
endif()
mark_as_advanced(Crypt_INCLUDE_DIR Crypt_LIBRARY)
