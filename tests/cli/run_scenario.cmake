# Runs `tremor run` on a model and exports the result, checking exit statuses, output and files.
#   cmake -DTREMOR=path/to/tremor -DMODEL=model.toml -DWORK=dir -DMODE=complete|interrupt|resume
#         [-DPRECISION=double|float -DH5_EQUAL=path/to/tremor_h5_equal] [-DLAUNCHER="mpirun;-np;2"]
#         -P run_scenario.cmake
# LAUNCHER (resume only): a command line the runs start under (mpirun: a run over processes).
# complete:  the run exits 0 and prints the pre-flight and summary; the result file exists (no
#            `.partial` left); the export writes a CSV whose header is `time,<id>_ux,<id>_uy`.
# interrupt: SIGINT after 6 s and again 0.1 s later, while the run steps towards its next check (every
#            20000 steps, seconds apart): the repeat is the same request, as `timeout` and process-group
#            senders deliver one (a second signal later than a second ends the process at once); exit 130,
#            "interrupted by SIGINT" and "incomplete" printed, the result file exists, and the export warns
#            that its status is incomplete. A run that ignores the signal is killed after 60 s more.
# resume:    (tests/data/cli/snapshots.toml, attenuating.toml) a whole run; the same run checkpointed every 20 steps
#            and stopped at step 40 (first refused before any step where RESULT.checkpoint.tmp is a folder,
#            the earlier RESULT kept) (exit 130, the checkpoint named); resumed with --resume (exit 0,
#            checkpoint removed); every dataset under /histories and /snapshots of the resumed
#            file equals the whole run's bit for bit (tremor_h5_equal); a second --resume is
#            refused; the export writes the positions receiver's CSV with columns p1_ux, ...
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(result "${WORK}/result.h5")

include(${CMAKE_CURRENT_LIST_DIR}/checks.cmake)

if(MODE STREQUAL "resume")
  set(common --backend serial --check-every 10 --precision ${PRECISION})
  execute_process(COMMAND ${LAUNCHER} "${TREMOR}" run "${MODEL}" -o "${WORK}/whole.h5" ${common}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "whole run: expected exit status 0, got ${rc}\n${out}${err}")
  endif()
  check_output("${out}" "snapshots +every 10 steps .*magnitude, velocity")
  # Where the checkpoint's temporary cannot be written, refused before the first step: the earlier
  # result (here the whole run's, copied) kept as it was.
  file(COPY_FILE "${WORK}/whole.h5" "${result}")
  file(MAKE_DIRECTORY "${result}.checkpoint.tmp")
  execute_process(COMMAND ${LAUNCHER} "${TREMOR}" run "${MODEL}" -o "${result}" ${common} --checkpoint-every 20
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 1)
    message(FATAL_ERROR "a checkpoint's temporary that is a folder: expected exit status 1, got ${rc}\n${out}${err}")
  endif()
  check_output("${err}" "result.h5.checkpoint.tmp: refusing to write the checkpoint there: it is a folder"
               "result.h5 is kept as it was")
  file(SHA256 "${WORK}/whole.h5" want)
  file(SHA256 "${result}" got)
  if(NOT want STREQUAL got)
    message(FATAL_ERROR "the earlier result was changed by a run refused before its first step")
  endif()
  file(REMOVE_RECURSE "${result}.checkpoint.tmp" "${result}")
  execute_process(COMMAND ${LAUNCHER} "${TREMOR}" run "${MODEL}" -o "${result}" ${common} --checkpoint-every 20 --stop-at-step 40
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 130)
    message(FATAL_ERROR "stopped run: expected exit status 130, got ${rc}\n${out}${err}")
  endif()
  check_output("${out}${err}" "checkpoints +every 20 steps" "steps +40 of 80" "result.h5.checkpoint holds the state at step 40")
  if(NOT EXISTS "${result}.checkpoint")
    message(FATAL_ERROR "expected ${result}.checkpoint after the stop")
  endif()
  execute_process(COMMAND ${LAUNCHER} "${TREMOR}" run "${MODEL}" -o "${result}" ${common}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0)
    message(FATAL_ERROR "a fresh run over a checkpoint must be refused\n${out}${err}")
  endif()
  check_output("${err}" "result.h5.checkpoint exists.*--resume")
  execute_process(COMMAND ${LAUNCHER} "${TREMOR}" run "${MODEL}" -o "${result}" ${common} --resume
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "resumed run: expected exit status 0, got ${rc}\n${out}${err}")
  endif()
  check_output("${out}" "resuming +from step 40 of 80" "steps +80 of 80" "result.h5 \\(complete\\)")
  if(EXISTS "${result}.checkpoint")
    message(FATAL_ERROR "the checkpoint of a complete run must be removed")
  endif()
  # 8 snapshots (steps 0..70) x 3 fields + their times; probe: 4 datasets; points: 5.
  check_h5_equal("the resumed file differs from the whole run's" "${WORK}/whole.h5" "${result}" /histories /snapshots)
  check_output("${output}" "equal: 34 datasets")
  execute_process(COMMAND ${LAUNCHER} "${TREMOR}" run "${MODEL}" -o "${result}" ${common} --resume
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0)
    message(FATAL_ERROR "a resume without a checkpoint must be refused\n${out}${err}")
  endif()
  check_output("${err}" "result.h5.checkpoint: no such checkpoint")
elseif(MODE STREQUAL "interrupt")
  # The run in the background (`sh` starts it with SIGINT ignored, until the run installs its
  # handler: before it reads the model, well within the 6 s).
  set(script [=[
"$0" run "$1" -o "$2" --backend serial --check-every 20000 &
pid=$!
sleep 6; kill -INT $pid; sleep 0.1; kill -INT $pid
for i in $(seq 600); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
kill -KILL $pid 2>/dev/null
wait $pid]=])
  execute_process(COMMAND sh -c "${script}" "${TREMOR}" "${MODEL}" "${result}"
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
if(MODE STREQUAL "resume")
  check_output("${out}" "wrote .*points\\.csv")
  file(STRINGS "${WORK}/csv/points.csv" header LIMIT_COUNT 1)
  if(NOT header STREQUAL "time,p1_ux,p1_uy,p1_vx,p1_vy,p2_ux,p2_uy,p2_vx,p2_vy")
    message(FATAL_ERROR "unexpected CSV header of the positions receiver '${header}'")
  endif()
endif()
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
