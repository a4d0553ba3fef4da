# mailbox/ search area: the text SEARCH compares (decoded headers and bodies, case folding)
# and the persistent search index built from it (docs/formats/search-index.md).
list(APPEND MAILBOX_SOURCES search_text.cc search_fold.cc sent_date.cc)
list(APPEND MAILBOX_TESTS search_text_test.cc search_fold_test.cc)
list(APPEND MAILBOX_DEPS lib/mime lib/proto)
list(APPEND MAILBOX_LIBS ICU::uc ICU::i18n)
list(APPEND MAILBOX_SOURCES html_text.cc search_grams.cc search_index_format.cc search_index.cc
  search_index_update.cc)
list(APPEND MAILBOX_TESTS html_text_test.cc search_index_test.cc
  search_index_crash_test.cc search_index_golden_test.cc)
