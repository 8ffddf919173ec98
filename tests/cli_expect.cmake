# cli_expect.cmake: run one cnnperf command and check how it fails.
#
#   cmake -DCMD=/path/to/cnnperf "-DARGS=predict;--batch;0" -DRC=2
#         "-DREGEX=^cnnperf: --batch: " -P cli_expect.cmake
#
# CMD    the program to run
# ARGS   its arguments, a ;-list (one quoted -DARGS=... argument)
# RC     the expected exit status, or NONZERO for any non-zero status (a
#        crash, which execute_process reports as a text, never matches)
# REGEX  what standard error must match; it must also be exactly one line
#
# Fails with message(FATAL_ERROR) on any difference, so ctest reports it.

foreach(var CMD RC REGEX)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "cli_expect.cmake: -D${var}=... is required")
  endif()
endforeach()

execute_process(
  COMMAND ${CMD} ${ARGS}
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err
  TIMEOUT 120)

string(REPLACE ";" " " shown "${ARGS}")
set(what "cnnperf ${shown}")

if(NOT rc MATCHES "^[0-9]+$")
  message(FATAL_ERROR "${what}: did not exit normally (${rc})\nstderr:\n${err}")
endif()
if(RC STREQUAL "NONZERO")
  if(rc EQUAL 0)
    message(FATAL_ERROR "${what}: exit status 0, expected a failure\nstderr:\n${err}")
  endif()
elseif(NOT rc EQUAL RC)
  message(FATAL_ERROR "${what}: exit status ${rc}, expected ${RC}\nstderr:\n${err}")
endif()

# Exactly one line: text, then one newline, nothing after it.
string(LENGTH "${err}" len)
if(len EQUAL 0)
  message(FATAL_ERROR "${what}: nothing on stderr, expected one line matching ${REGEX}")
endif()
math(EXPR last "${len} - 1")
string(SUBSTRING "${err}" ${last} 1 tail)
string(SUBSTRING "${err}" 0 ${last} line)
if(NOT tail STREQUAL "\n" OR line MATCHES "[\r\n]" OR line STREQUAL "")
  message(FATAL_ERROR "${what}: stderr is not exactly one line:\n${err}")
endif()
if(NOT line MATCHES "${REGEX}")
  message(FATAL_ERROR "${what}: stderr does not match ${REGEX}:\n${line}")
endif()
