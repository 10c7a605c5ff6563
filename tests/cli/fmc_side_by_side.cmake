# Whole shots side by side over processes (tremor run --shots-parallel under mpirun):
#   cmake -DTREMOR=path/to/tremor -DH5_EQUAL=path/to/tremor_h5_equal -DLAUNCHER="mpirun;-np;2;..."
#         -DWORK=dir -P fmc_side_by_side.cmake   (from the repository root)
# 1. The capture of tests/data/cli/fmc_block.toml side by side over the processes, one shot at a
#    time and 3 together: /fmc the bits of one process's run one after another.
# 2. The immersed capture (tests/data/cli/fmc_immersed.toml), stepped one shot at a time by default:
#    side by side, /fmc the bits of one process's run.
# 3. With checkpoints (between rounds): stopped in the second round and resumed side by side, /fmc
#    and /shots the bits of one process's run; a plain --resume of it refused, said once.
# 4. Decomposed over the processes, 3 shots together, checkpointed between batches: stopped within
#    the second batch and resumed, /fmc and /shots the bits of the run uninterrupted; a plain
#    --resume of it refused, said once, every process ending with it.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
include(${CMAKE_CURRENT_LIST_DIR}/checks.cmake)
set(common --backend serial --check-every 10)

# Runs `tremor run ARGN` under the launcher; its output into `output`.
function(launched expect_rc)
  execute_process(COMMAND ${LAUNCHER} "${TREMOR}" run ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  check_status("${rc}" "${expect_rc}" "${LAUNCHER} tremor run ${ARGN}" "${out}${err}")
  set(output "${out}${err}" PARENT_SCOPE)
endfunction()

# 1.
set(model tests/data/cli/fmc_block.toml)
tremor(0 run ${model} ${common} -o "${WORK}/whole.h5")
launched(0 ${model} ${common} --shots-parallel -o "${WORK}/side.h5")
check_output("${output}" "shots side by side over 2 processes, the whole model on each \\(asked for\\)"
             "shot 1 of 8 +probe\\.0" "shot 8 of 8 +probe\\.7" "side\\.h5 \\(complete\\)")
check_h5_equal("the capture side by side differs from one process's" "${WORK}/whole.h5" "${WORK}/side.h5" /fmc)
check_output("${output}" "equal: [0-9]+ datasets")
launched(0 ${model} ${common} --shots-parallel --shots-together 3 -o "${WORK}/side-together.h5")
check_output("${output}" "shots +3 stepped together \\(asked for\\)" "side-together\\.h5 \\(complete\\)")
check_h5_equal("the capture side by side, 3 together, differs from one process's" "${WORK}/whole.h5"
               "${WORK}/side-together.h5" /fmc)

# 2.
set(immersed tests/data/cli/fmc_immersed.toml)
tremor(0 run ${immersed} ${common} -o "${WORK}/immersed.h5")
launched(0 ${immersed} ${common} --shots-parallel -o "${WORK}/immersed-side.h5")
check_output("${output}" "shots side by side over 2 processes" "immersed-side\\.h5 \\(complete\\)")
check_h5_equal("the immersed capture side by side differs from one process's" "${WORK}/immersed.h5"
               "${WORK}/immersed-side.h5" /fmc)

# 3. (The second round steps shots 3 and 4 while the last begun is shot 2: --stop-in-shot 2.)
launched(130 ${model} ${common} --shots-parallel --checkpoint-every 20 --stop-at-step 30 --stop-in-shot 2
         -o "${WORK}/side-stopped.h5")
check_output("${output}" "checkpoints +between rounds of shots side by side"
             "side-stopped\\.h5\\.checkpoint holds the start of shot 'probe\\.2' \\(stepped from rest when resumed\\): "
             "continue the run with --resume --shots-parallel")
launched(1 ${model} ${common} -o "${WORK}/side-stopped.h5" --resume)
check_output("${output}" "the checkpoint's run stepped its shots side by side: resume with --resume --shots-parallel "
             "\\(or --no-shots-parallel to decompose the model\\)")
if(output MATCHES "error:.*error:")
  message(FATAL_ERROR "the refusal was said more than once:\n${output}")
endif()
launched(0 ${model} ${common} --shots-parallel -o "${WORK}/side-stopped.h5" --resume)
check_output("${output}" "resuming +at the start of shot 'probe\\.2', from rest" "shot 3 of 8 +probe\\.2"
             "shot 8 of 8 +probe\\.7" "side-stopped\\.h5 \\(complete\\)")
if(output MATCHES "shot [12] of 8")
  message(FATAL_ERROR "the resumed run stepped shots before its checkpoint's:\n${output}")
endif()
if(EXISTS "${WORK}/side-stopped.h5.checkpoint")
  message(FATAL_ERROR "the checkpoint of a complete run must be removed")
endif()
check_h5_equal("the capture side by side resumed between rounds differs from one process's" "${WORK}/whole.h5"
               "${WORK}/side-stopped.h5" /fmc /shots)
# A checkpoint within a shot (the model decomposed, one shot at a time) is refused side by side.
launched(130 ${model} ${common} --no-shots-parallel --checkpoint-every 20 --stop-at-step 30 -o "${WORK}/within.h5")
launched(1 ${model} ${common} --shots-parallel -o "${WORK}/within.h5" --resume)
check_output("${output}" "cannot resume shots side by side: the checkpoint holds step 20 of shot 1, which it holds "
             "alone; resume on the model decomposed \\(--no-shots-parallel\\)")

# 4.
launched(0 ${model} ${common} --shots-together 3 -o "${WORK}/split.h5")
check_output("${output}" "subdomains +2" "shots +3 stepped together \\(asked for\\)" "split\\.h5 \\(complete\\)")
launched(130 ${model} ${common} --shots-together 3 --checkpoint-every 20 --stop-at-step 30 --stop-in-shot 4
         -o "${WORK}/split-stopped.h5")
check_output("${output}" "split-stopped\\.h5\\.checkpoint holds the start of shot 'probe\\.3'")
launched(1 ${model} ${common} -o "${WORK}/split-stopped.h5" --resume)
check_output("${output}" "the checkpoint's run stepped its shots 3 together: resume with --resume --shots-together 3")
if(output MATCHES "error:.*error:")
  message(FATAL_ERROR "the refusal was said more than once:\n${output}")
endif()
launched(0 ${model} ${common} --shots-together 3 -o "${WORK}/split-stopped.h5" --resume)
check_output("${output}" "resuming +at the start of shot 'probe\\.3', from rest" "split-stopped\\.h5 \\(complete\\)")
check_h5_equal("the decomposed capture resumed between batches differs from the uninterrupted run" "${WORK}/split.h5"
               "${WORK}/split-stopped.h5" /fmc /shots)
