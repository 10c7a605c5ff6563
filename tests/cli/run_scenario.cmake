# Runs `tremor run` on a model and exports the result, checking exit statuses, output and files.
#   cmake -DTREMOR=path/to/tremor -DMODEL=model.toml -DWORK=dir -DMODE=complete|interrupt -P run_scenario.cmake
# complete:  the run exits 0 and prints the pre-flight and summary; the result file exists (no
#            `.partial` left); the export writes a CSV whose header is `time,<id>_ux,<id>_uy`.
# interrupt: SIGINT after 1 s (`timeout --preserve-status -s INT 1`): exit 130, "incomplete" printed, the result
#            file exists, and the export warns that its status is incomplete.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(result "${WORK}/result.h5")

function(check_output all)
  foreach(pattern IN LISTS ARGN)
    if(NOT all MATCHES "${pattern}")
      message(FATAL_ERROR "output does not match '${pattern}':\n${all}")
    endif()
  endforeach()
endfunction()

if(MODE STREQUAL "interrupt")
  # -k: should the interrupt be ignored, kill it after 30 s more so the test fails instead of hanging.
  execute_process(COMMAND timeout --preserve-status -k 30 -s INT 1 "${TREMOR}" run "${MODEL}" -o "${result}" --backend serial
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 130)
    message(FATAL_ERROR "expected exit status 130 after SIGINT, got ${rc}\n${out}${err}")
  endif()
  check_output("${out}${err}" "pre-flight" "interrupted by SIGINT" "incomplete" "summary")
else()
  execute_process(COMMAND "${TREMOR}" run "${MODEL}" -o "${result}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "expected exit status 0, got ${rc}\n${out}${err}")
  endif()
  check_output("${out}${err}" "pre-flight" "stable step" "summary" "DOF-steps/s" "result.h5 \\(complete\\)")
endif()
if(NOT EXISTS "${result}" OR EXISTS "${result}.partial")
  message(FATAL_ERROR "expected ${result} and no ${result}.partial")
endif()

execute_process(COMMAND "${TREMOR}" export "${result}" -o "${WORK}/csv"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "export: expected exit status 0, got ${rc}\n${out}${err}")
endif()
check_output("${out}" "wrote .*probe\\.csv")
if(MODE STREQUAL "interrupt")
  check_output("${err}" "status is 'incomplete'")
else()
  if(err MATCHES "warning")
    message(FATAL_ERROR "export of a complete run warns:\n${err}")
  endif()
endif()
file(STRINGS "${WORK}/csv/probe.csv" header LIMIT_COUNT 1)
if(NOT header MATCHES "^time,[0-9]+_ux,[0-9]+_uy$")
  message(FATAL_ERROR "unexpected CSV header '${header}'")
endif()
