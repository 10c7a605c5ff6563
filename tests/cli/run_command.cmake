# Runs one tremor command and checks its exit status and output.
#   cmake -DCOMMAND="tremor;info;FILE" -DEXPECT_RC=0|nonzero -DEXPECT="regex;regex" [-DREJECT="regex;..."] -P run_command.cmake
include(${CMAKE_CURRENT_LIST_DIR}/checks.cmake)
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
check_status("${rc}" "${EXPECT_RC}" "${COMMAND}" "${all}")
check_output("${all}" ${EXPECT})
foreach(pattern IN LISTS REJECT)
  if(all MATCHES "${pattern}")
    message(FATAL_ERROR "output matches '${pattern}', which it must not:\n${all}")
  endif()
endforeach()
