# Shots end to end on tests/data/cli/shots_plate.toml (two shots, A0 and S0, on one set-up):
#   cmake -DTREMOR=path/to/tremor -DH5_EQUAL=path/to/tremor_h5_equal -DWORK=dir -P shots_scenario.cmake
#   (from the repository root)
# 1. `tremor info` lists the shots and what each fires.
# 2. A whole run steps both, each under /shots/<name>; `tremor image` maps each shot's grid, and
#    both added into one (--combine); `tremor export` writes each shot's histories.
# 3. The same run checkpointed every 20 steps and stopped at step 40 of the second shot (exit 130),
#    then resumed: every dataset under /shots equals the whole run's, bit for bit.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
include(${CMAKE_CURRENT_LIST_DIR}/checks.cmake)
set(model tests/data/cli/shots_plate.toml)
set(common --backend serial --check-every 10)

# 1.
tremor(0 info ${model})
check_output("${output}" "shots +2, stepped one after another on one set-up" "a0 +fires pzt" "s0 +fires disc")

# 2.
tremor(0 run ${model} ${common} -o "${WORK}/whole.h5")
check_output("${output}" "shots +2, stepped one after another" "shot 1 of 2 +a0 \\(pzt\\)" "shot 2 of 2 +s0 \\(disc\\)"
             "whole\\.h5 \\(complete\\)")
tremor(0 image "${WORK}/whole.h5")
check_output("${output}" "a0\\.area: 17 x 17 points" "s0\\.area: 17 x 17 points" "wrote [^ ]*whole\\.a0\\.area\\.png"
             "wrote [^ ]*whole\\.s0\\.area\\.png")
tremor(0 image "${WORK}/whole.h5" --shot s0 --grid area -o "${WORK}/maps")
check_output("${output}" "s0\\.area: 17 x 17 points" "wrote [^ ]*maps/whole\\.s0\\.area\\.png")
tremor(0 image "${WORK}/whole.h5" --shot a0,s0 --combine both)
check_output("${output}" "both\\.area: 17 x 17 points" "the sum of the maps of 2 shots \\(a0, s0\\)"
             "wrote [^ ]*whole\\.both\\.area\\.png")
tremor(nonzero image "${WORK}/whole.h5" --shot s1)
check_output("${output}" "no shot named 's1' \\(did you mean 's0'\\?\\); it has a0, s0")

tremor(0 export "${WORK}/whole.h5" -o "${WORK}/csv")
check_output("${output}" "wrote [^ ]*a0\\.probe\\.csv" "wrote [^ ]*s0\\.probe\\.csv" "wrote [^ ]*s0\\.area\\.csv")

# 3.
tremor(130 run ${model} ${common} -o "${WORK}/result.h5" --checkpoint-every 20 --stop-at-step 40 --stop-in-shot 2)
check_output("${output}" "shot 2 of 2 +s0" "result\\.h5\\.checkpoint holds the state at step 40")
tremor(0 run ${model} ${common} -o "${WORK}/result.h5" --resume)
check_output("${output}" "resuming +from step 40 of [0-9]+ of shot 's0'" "shot 2 of 2 +s0 \\(disc\\), from step 40"
             "result\\.h5 \\(complete\\)")
if(EXISTS "${WORK}/result.h5.checkpoint")
  message(FATAL_ERROR "the checkpoint of a complete run must be removed")
endif()
check_h5_equal("the resumed file differs from the whole run's" "${WORK}/whole.h5" "${WORK}/result.h5" /shots)
check_output("${output}" "equal: [0-9]+ datasets")
