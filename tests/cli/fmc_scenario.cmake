# Arrays end to end on tests/data/cli/fmc_block.toml (8 elements, a full-matrix capture):
#   cmake -DTREMOR=path/to/tremor -DH5_EQUAL=path/to/tremor_h5_equal -DWORK=dir -P fmc_scenario.cmake
#   (from the repository root)
# 1. `tremor info` lists the array and its shots.
# 2. A whole run fires each element in turn; `tremor image --tfm` images /fmc/probe in L-L and T-T,
#    and refuses what is not a capture's.
# 3. The same run stopped in the fourth shot (exit 130): its capture is incomplete, and --tfm says
#    so and to resume it; resumed, /fmc equals the whole run's bit for bit. Stopped without
#    checkpoints, --tfm says to run it again.
# 5. The example made small (examples/array-tfm-2d): imaged less its sound block's capture, in L-L
#    at its shallower hole and in the half-skip LL-L at its crack's foot; views refused.
# 6. The shots stepped 3 at a time (3, 3, 2): /fmc equals the whole run's bit for bit; with
#    checkpoints (between batches) stopped within a batch and at a batch's end, and resumed, the
#    same; a plain --resume of theirs, and a checkpoint within a shot, refused to shots stepped
#    together; decomposed, together equals one after another bit for bit; side by side
#    (--shots-parallel) refused in one process.
# 7. An array immersed in water over a drilled block (tests/data/cli/fmc_immersed.toml): pistons,
#    a capture of pressure, imaged through the water's surface by default; stepped 3 shots at a
#    time, the same capture bit for bit.
# 8. A 2 x 2 matrix array on a 3D block (tests/data/cli/fmc_matrix.toml): imaged in the planes along
#    and across it; --plane across refused for a linear array and for a 2D model.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
include(${CMAKE_CURRENT_LIST_DIR}/checks.cmake)
set(model tests/data/cli/fmc_block.toml)
set(common --backend serial --check-every 10)

# 1.
tremor(0 info ${model})
check_output("${output}" "arrays +1" "probe +8 elements, pitch 1 mm, 750 (u|µ)m wide, on 'ymax'"
             "full-matrix capture" "shots +8" "probe\\.0 \\.\\.\\. +each element of array 'probe' in turn")

# 2.
tremor(0 run ${model} ${common} -o "${WORK}/whole.h5")
check_output("${output}" "shots +one after another \\(on serial" "shot 1 of 8 +probe\\.0" "shot 8 of 8 +probe\\.7"
             "whole\\.h5 \\(complete\\)")
tremor(0 image "${WORK}/whole.h5" --tfm --mode L-L,T-T -o "${WORK}/images")
check_output("${output}" "tfm/probe/L-L: [0-9]+ x [0-9]+ pixels" "L at 6\\.0[0-9]* km/s, L at"
             "tfm/probe/T-T: " "wrote [^ ]*images/whole\\.tfm\\.probe\\.L-L\\.png"
             "wrote [^ ]*images/whole\\.tfm\\.probe\\.T-T\\.png" "wrote /images/")
tremor(nonzero image "${WORK}/whole.h5" --tfm --baseline "${WORK}/whole.h5")
check_output("${output}" "whole\\.h5: the baseline is the result file itself")
tremor(nonzero image "${WORK}/whole.h5")
check_output("${output}" "whole\\.h5: no receiver grid in this result file .*; it holds the full-matrix capture of probe: image it with --tfm")
tremor(nonzero image "${WORK}/whole.h5" --tfm --array sonde)
check_output("${output}" "no full-matrix capture of an array named 'sonde'; it has probe")
tremor(nonzero image "${WORK}/whole.h5" --tfm --grid area)
check_output("${output}" "--grid maps receiver grids; --tfm images full-matrix captures")
tremor(nonzero image "${WORK}/whole.h5" --mode T-T)
check_output("${output}" "--mode goes with --tfm")
tremor(0 run tests/data/cli/tiny.toml --backend serial -o "${WORK}/tiny.h5")
tremor(nonzero image "${WORK}/tiny.h5" --tfm)
check_output("${output}" "no full-matrix capture in this result file \\(an \\[\\[array\\]\\] with fmc = true makes one\\)")

# 3.
tremor(130 run ${model} ${common} -o "${WORK}/result.h5" --checkpoint-every 20 --stop-at-step 40 --stop-in-shot 4)
check_output("${output}" "shot 4 of 8 +probe\\.3")
tremor(nonzero image "${WORK}/result.h5" --tfm)
check_output("${output}" "array 'probe': its capture is incomplete \\(5 of its 8 rows missing or not numbers\\); resume its run \\(tremor run --resume\\)")
# Stopped without checkpoints: nothing to resume, said so.
tremor(130 run ${model} ${common} -o "${WORK}/stopped.h5" --stop-at-step 40 --stop-in-shot 2)
tremor(nonzero image "${WORK}/stopped.h5" --tfm)
check_output("${output}" "its capture is incomplete \\(7 of its 8 rows missing or not numbers\\); its run was stopped \\(status 'incomplete'\\) without a checkpoint to resume from: run it again")
tremor(0 run ${model} ${common} -o "${WORK}/result.h5" --resume)
check_output("${output}" "result\\.h5 \\(complete\\)")
check_h5_equal("the resumed capture differs from the whole run's" "${WORK}/whole.h5" "${WORK}/result.h5" /fmc)
check_output("${output}" "equal: [0-9]+ datasets")

# 4. tremor export writes the capture beside the histories: t<i>_r<j> columns.
tremor(0 export "${WORK}/whole.h5" -o "${WORK}/csv")
check_output("${output}" "wrote [^ ]*probe\\.0\\.probe\\.csv" "wrote [^ ]*fmc\\.probe\\.csv")
file(STRINGS "${WORK}/csv/fmc.probe.csv" header LIMIT_COUNT 1)
check_output("${header}" "^time,t0_r0,t0_r1,.*,t7_r7$")

# 5. The example made small (examples/array-tfm-2d): its capture less the sound block's, imaged in
#    L-L, peaks at its shallower hole (2 mm left of the array's centre, 3 mm deep).
tremor(0 run examples/array-tfm-2d/small.toml ${common} -o "${WORK}/small.h5")
tremor(0 run examples/array-tfm-2d/sound.toml ${common} -o "${WORK}/sound.h5")
tremor(0 image "${WORK}/small.h5" --tfm --baseline "${WORK}/sound.h5" --extent=-4e-3,4e-3,1e-3,8e-3 --pixel 1e-4)
check_output("${output}" "tfm/probe/L-L: 81 x 71 pixels of 100 (u|µ)m, .* peak [0-9.e+-]+ at \\(-(1\\.9|2|2\\.1) mm, (2\\.9|3|3\\.1|3\\.2) mm\\)")
# The half-skip view LL-L (down to the back wall and up as L, back as L) peaks at the crack's foot,
# 3 mm right of the array's centre on the back wall, 10 mm down; a view of another form is refused,
# and so is an image reaching below the back wall in a half-skip view.
tremor(0 image "${WORK}/small.h5" --tfm --mode LL-L --baseline "${WORK}/sound.h5" --backend openmp)
check_output("${output}" "tfm/probe/LL-L: .* L down, L up off the back wall at 10 mm \\(6\\.0[0-9]* km/s, 6\\.0[0-9]* km/s\\), L at"
             "peak [0-9.e+-]+ at \\((2\\.[6-9]|3\\.[0-4])[0-9]* mm, (9\\.[6-9][0-9]*|10) mm\\)")
# A view and its reverse image alike on a reciprocal capture (A-scan(i, j) = A-scan(j, i)): LT-T (L
# down, T up to the pixel, T back) and T-TL (T out, T down and L up to the receiver) peak at one
# pixel with one value (to 6 digits; their sums add the same terms in other orders).
tremor(0 image "${WORK}/small.h5" --tfm --mode LT-T,T-TL --baseline "${WORK}/sound.h5" --backend openmp)
set(peak_pattern "peak ([0-9]\\.[0-9][0-9][0-9][0-9][0-9])[0-9]*e([+-][0-9]+) at (\\([^)]*\\))")
string(REGEX MATCH "tfm/probe/LT-T: [^\n]*${peak_pattern}" found "${output}")
set(forward "${CMAKE_MATCH_1}e${CMAKE_MATCH_2} ${CMAKE_MATCH_3}")
string(REGEX MATCH "tfm/probe/T-TL: [^\n]*${peak_pattern}" found "${output}")
set(reverse "${CMAKE_MATCH_1}e${CMAKE_MATCH_2} ${CMAKE_MATCH_3}")
if(NOT found OR NOT forward STREQUAL reverse)
  message(FATAL_ERROR "LT-T peaks at ${forward}, its reverse T-TL at ${reverse}:\n${output}")
endif()
check_output("${output}" "tfm/probe/T-TL: .* T at 3\\.[0-9]+ km/s, T down, L up off the back wall at 10 mm")
tremor(nonzero image "${WORK}/small.h5" --tfm --mode LLL-L)
check_output("${output}" "view 'LLL-L': expected OUT-BACK, each of L, T, LL, LT, TL, TT")
tremor(nonzero image "${WORK}/small.h5" --tfm --mode LT-T --extent=-4e-3,4e-3,1e-3,12e-3)
check_output("${output}" "below the back wall at 10 mm, where no half-skip view reaches")
tremor(nonzero image "${WORK}/small.h5" --tfm --interface 2e-3,2700)
check_output("${output}" "with --interface, give the part's --speeds L,T")
tremor(nonzero image "${WORK}/small.h5" --tfm --baseline "${WORK}/whole.h5")
check_output("${output}" "whole\\.h5: array 'probe' has other elements, samples or time step than in")
tremor(0 info examples/array-tfm-2d/model.toml)
check_output("${output}" "holes, notches +3"
             "sdh10 +side-drilled hole, radius 500 (u|µ)m at \\(22 mm, 30 mm\\): [0-9]+ elements removed"
             "cracks +1" "crack +\\(36 mm, 0 m\\) \\(36 mm, 4 mm\\): 80 faces on it, 80 nodes split"
             "probe +64 elements, pitch 600 (u|µ)m, 500 (u|µ)m wide")

# 6.
tremor(0 run ${model} ${common} --shots-together 3 -o "${WORK}/together.h5")
check_output("${output}" "shots +3 stepped together \\(asked for\\)" "shot 8 of 8 +probe\\.7" "together\\.h5 \\(complete\\)")
check_h5_equal("the capture stepped 3 shots at a time differs from one after another" "${WORK}/whole.h5" "${WORK}/together.h5" /fmc)
check_output("${output}" "equal: [0-9]+ datasets")
# Checkpointed between batches: stopped within the second batch (shots 4 to 6), the checkpoint is
# of shot 4 at rest; resumed 3 at a time, the batch is stepped again and the file is the whole run's.
tremor(130 run ${model} ${common} --shots-together 3 --checkpoint-every 20 --stop-at-step 30 --stop-in-shot 4
       -o "${WORK}/batches.h5")
check_output("${output}" "checkpoints +between batches of shots stepped together"
             "batches\\.h5\\.checkpoint holds the start of shot 'probe\\.3' \\(stepped from rest when resumed\\): "
             "continue the run with --resume --shots-together 3")
tremor(nonzero run ${model} ${common} -o "${WORK}/batches.h5" --resume)
check_output("${output}" "the checkpoint's run stepped its shots 3 together: resume with --resume --shots-together 3 "
             "\\(or --shots-together 1 to step the rest one after another\\)")
tremor(0 run ${model} ${common} --shots-together 3 -o "${WORK}/batches.h5" --resume)
check_output("${output}" "resuming +at the start of shot 'probe\\.3', from rest" "shot 8 of 8 +probe\\.7"
             "batches\\.h5 \\(complete\\)")
if(EXISTS "${WORK}/batches.h5.checkpoint")
  message(FATAL_ERROR "the checkpoint of a complete run must be removed")
endif()
check_h5_equal("the capture resumed between batches differs from one after another" "${WORK}/whole.h5"
               "${WORK}/batches.h5" /fmc /shots)
# Stopped at the second batch's end: the checkpoint is of the third's first shot.
tremor(130 run ${model} ${common} --shots-together 3 --checkpoint-every 20 --stop-at-step 256 --stop-in-shot 4
       -o "${WORK}/batch-end.h5")
check_output("${output}" "stopped on request at the end of a shot, 2 shots after it not stepped"
             "batch-end\\.h5\\.checkpoint holds the start of shot 'probe\\.6'")
tremor(0 run ${model} ${common} --shots-together 3 -o "${WORK}/batch-end.h5" --resume)
check_output("${output}" "resuming +at the start of shot 'probe\\.6', from rest" "batch-end\\.h5 \\(complete\\)")
check_h5_equal("the capture resumed at a batch's end differs from one after another" "${WORK}/whole.h5"
               "${WORK}/batch-end.h5" /fmc /shots)
# A checkpoint within a shot (one after another) is refused to shots stepped together, and resumed
# one after another.
tremor(130 run ${model} ${common} --checkpoint-every 20 --stop-at-step 30 --stop-in-shot 2 -o "${WORK}/within.h5")
check_output("${output}" "within\\.h5\\.checkpoint holds the state at step 20 of shot 'probe\\.1'")
tremor(nonzero run ${model} ${common} --shots-together 3 -o "${WORK}/within.h5" --resume)
check_output("${output}" "cannot resume 3 shots stepped together: the checkpoint holds step 20 of shot 2, which it "
             "holds alone; resume one after another \\(--shots-together 1\\)")
tremor(0 run ${model} ${common} -o "${WORK}/within.h5" --resume)
check_output("${output}" "resuming +from step 20 of [0-9]+ of shot 'probe\\.1'" "within\\.h5 \\(complete\\)")
check_h5_equal("the capture resumed within a shot differs from one after another" "${WORK}/whole.h5"
               "${WORK}/within.h5" /fmc /shots)
# Side by side needs several processes or GPUs (tests/cli/fmc_side_by_side.cmake runs them).
tremor(nonzero run ${model} ${common} --shots-parallel -o "${WORK}/refused.h5")
check_output("${output}" "fmc_block\\.toml: whole shots side by side \\(--shots-parallel\\) need several GPUs \\(--gpus N\\) or processes \\(mpirun -np N\\)")
tremor(nonzero run ${model} ${common} --shots-parallel --no-shots-parallel -o "${WORK}/refused.h5")
check_output("${output}" "--shots-parallel excludes --no-shots-parallel|--no-shots-parallel excludes --shots-parallel")
# Decomposed into 3 subdomains: one after another by default; 3 together where asked, the bits of
# the same decomposition one after another.
tremor(0 run ${model} ${common} --domains 3 -o "${WORK}/split.h5")
check_output("${output}" "shots +one after another \\(the run is decomposed")
tremor(0 run ${model} ${common} --domains 3 --shots-together 3 -o "${WORK}/split-together.h5")
check_output("${output}" "shots +3 stepped together \\(asked for\\)")
check_h5_equal("the decomposed capture stepped 3 shots at a time differs from one after another" "${WORK}/split.h5"
               "${WORK}/split-together.h5" /fmc)
check_output("${output}" "equal: [0-9]+ datasets")

# 7.
set(immersed tests/data/cli/fmc_immersed.toml)
tremor(0 info ${immersed})
check_output("${output}" "probe +8 elements, pitch 1 mm, 750 (u|µ)m wide, in the fluid on 'ymax'.*1 mm/s normal velocity")
tremor(0 run ${immersed} ${common} -o "${WORK}/immersed.h5")
check_output("${output}" "shots +one after another" "immersed\\.h5 \\(complete\\)")
# Stepped 3 at a time (the fluid's fields side by side): /fmc the bits of one after another.
tremor(0 run ${immersed} ${common} --shots-together 3 -o "${WORK}/immersed-together.h5")
check_output("${output}" "shots +3 stepped together \\(asked for" "immersed-together\\.h5 \\(complete\\)")
check_h5_equal("the immersed capture stepped 3 shots at a time differs from one after another"
               "${WORK}/immersed.h5" "${WORK}/immersed-together.h5" /fmc)
tremor(0 image "${WORK}/immersed.h5" --tfm --extent=-3e-3,3e-3,4e-3,8e-3 --pixel 1e-4)
check_output("${output}" "tfm/probe/L-L: 61 x 41 pixels of 100 (u|µ)m, .*; through the interface at 3 mm from 1\\.48 km/s above it; L at 6\\.0[0-9]* km/s")
tremor(0 export "${WORK}/immersed.h5" -o "${WORK}/immersed-csv")
check_output("${output}" "wrote [^ ]*fmc\\.probe\\.csv")

# 8.
tremor(0 info tests/data/cli/fmc_matrix.toml)
check_output("${output}" "matrix +2 x 2 \\(4\\) elements, pitch 1\\.5 mm x 1\\.5 mm, 1 mm wide x 1 mm")
tremor(0 run tests/data/cli/fmc_matrix.toml ${common} -o "${WORK}/matrix.h5")
tremor(0 image "${WORK}/matrix.h5" --tfm --plane across --at 0.75e-3 --pixel 2e-4)
check_output("${output}" "tfm/probe/L-L|tfm/matrix/L-L: [0-9]+ x [0-9]+ pixels of 200 (u|µ)m, x -[0-9.]+ mm\\.\\.[0-9.]+ mm across the array 750 (u|µ)m from its centre")
tremor(nonzero image "${WORK}/whole.h5" --tfm --plane across)
check_output("${output}" "--plane across and --at are a 3D model's")
