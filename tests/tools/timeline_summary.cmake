# tools/timeline/summarize.py on a made-up timeline (tests/data/timeline/two-runs.csv: a mixed box's
# 20 steps, K_f of 6,400 blocks every 180 us, then a water box's, 12,800 blocks every 112 us, each
# with an update on K_f's stream and another on a second stream, and a memset once): the water box's
# typical step, the memset not a step's.
#   cmake -DPYTHON=python3 -DSCRIPT=tools/timeline/summarize.py -DCSV=... -P timeline_summary.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../cli/checks.cmake)
execute_process(COMMAND ${PYTHON} ${SCRIPT} ${CSV} --grid 12800
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
check_status(${rc} 0 "summarize.py" "${out}${err}")
check_output("${out}" "122 records; 1 run of the anchor 'add_columns' \\(12800 blocks\\)"
             "run 0: 20 steps, a step every 112.0 us"
             "run 0: 16 middle steps, a step every 112.00 us"
             "14 +0.00 +71.10 +71.10 +16  tremor::sem::\\(anonymous namespace\\)::add_columns<4, float, 2>\n"
             "14 +74.00 +89.00 +15.00 +16  tremor::explicit_fe::CentralDifference<float>::advance\n"
             " 7 +90.00 +92.00 +2.00 +16  tremor::explicit_fe::CentralDifference<float>::advance\n"
             "stream 14: busy 86.10 us of the step's 112.00 us")
if(out MATCHES "memset")
  message(FATAL_ERROR "a record of one step in 16 shown as the step's:\n${out}")
endif()
# Without --grid, both boxes' runs, the longest (the first of equals) summarised.
execute_process(COMMAND ${PYTHON} ${SCRIPT} ${CSV} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
check_status(${rc} 0 "summarize.py" "${out}${err}")
check_output("${out}" "2 runs of the anchor" "run 0: 20 steps, a step every 180.0 us"
             "run 1: 20 steps, a step every 112.0 us" "run 0: 16 middle steps, a step every 180.00 us")
