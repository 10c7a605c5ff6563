# What the CLI scenarios (tests/cli/*_scenario.cmake) share: include(${CMAKE_CURRENT_LIST_DIR}/checks.cmake).

# Fails naming the first pattern (a regex) that `all` does not match, and showing `all`.
function(check_output all)
  foreach(pattern IN LISTS ARGN)
    if(NOT all MATCHES "${pattern}")
      message(FATAL_ERROR "output does not match '${pattern}':\n${all}")
    endif()
  endforeach()
endfunction()

# Fails, naming `what` and showing `all` (its output), when exit status `rc` is not `expect_rc`
# (an exit status, or "nonzero").
function(check_status rc expect_rc what all)
  if(expect_rc STREQUAL "nonzero")
    if(rc EQUAL 0)
      message(FATAL_ERROR "${what}: expected a non-zero exit status, got 0\n${all}")
    endif()
  elseif(NOT rc EQUAL expect_rc)
    message(FATAL_ERROR "${what}: expected exit status ${expect_rc}, got ${rc}\n${all}")
  endif()
endfunction()

# Runs ${TREMOR} with the arguments after `expect_rc` (an exit status, or "nonzero") and fails,
# showing its output, when it exits otherwise; its stdout and stderr go into `output`.
function(tremor expect_rc)
  execute_process(COMMAND "${TREMOR}" ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  check_status("${rc}" "${expect_rc}" "tremor ${ARGN}" "${out}${err}")
  set(output "${out}${err}" PARENT_SCOPE)
endfunction()

# Fails with the message `what` unless ${H5_EQUAL} finds the groups or datasets after `b` equal bit
# for bit in result files `a` and `b`; its report goes into `output`.
function(check_h5_equal what a b)
  execute_process(COMMAND "${H5_EQUAL}" "${a}" "${b}" ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what}:\n${out}${err}")
  endif()
  set(output "${out}" PARENT_SCOPE)
endfunction()
