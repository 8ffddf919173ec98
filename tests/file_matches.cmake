# cmake -DFILE=PATH -DREGEX=RE -P file_matches.cmake: fails unless FILE exists and matches RE (for tests that check
# what a tool wrote, not what it printed).
if(NOT EXISTS "${FILE}")
  message(FATAL_ERROR "${FILE}: not written")
endif()
file(READ "${FILE}" text)
if(NOT text MATCHES "${REGEX}")
  message(FATAL_ERROR "${FILE}: nothing matches ${REGEX}")
endif()
