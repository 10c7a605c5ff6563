# `tremor image` end to end on the defect plate (tests/data/cli/defect_plate.toml):
#   cmake -DTREMOR=path/to/tremor -DWORK=dir -P image_scenario.cmake  (from the repository root)
# 1. A run with a receiver grid over two defects, then its map: the grid's size and samples, the
#    points above -6 dB, the true footprint and the overlap; a PNG beside the result file.
# 2. Again into another folder with a window and a threshold: the same map replaced in the file.
# 3. Refusals, each naming what is wrong: a grid that is not there, a quantity the grid does not
#    record, --combine without shots, a baseline without the grid, a result file without grids, a
#    missing file.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
include(${CMAKE_CURRENT_LIST_DIR}/checks.cmake)

# 1.
tremor(0 run tests/data/cli/defect_plate.toml --backend serial --duration 4e-6 -o "${WORK}/plate.h5")
tremor(0 image "${WORK}/plate.h5")
check_output("${output}" "area: 41 x 41 points, samples 0 s\\.\\.[34][.0-9]* us; peak [0-9.e-]+ at"
             "above -6 dB +[0-9]+ points" "true footprint +[0-9,]+ points, centroid"
             "intersection over union +[01]\\.[0-9][0-9][0-9]" "wrote [^ ]*plate\\.area\\.png"
             "wrote /images/ in [^ ]*plate\\.h5")
if(NOT EXISTS "${WORK}/plate.area.png")
  message(FATAL_ERROR "no ${WORK}/plate.area.png")
endif()
file(READ "${WORK}/plate.area.png" signature LIMIT 4 HEX)
if(NOT signature STREQUAL "89504e47")
  message(FATAL_ERROR "plate.area.png is not a PNG file (starts ${signature})")
endif()

# 2.
tremor(0 image "${WORK}/plate.h5" --grid area --from 1e-6 --to 3e-6 --threshold -3 -o "${WORK}/maps" --scale 4)
check_output("${output}" "samples 1\\.[0-9]+ us\\.\\.2\\.[0-9]+ us" "above -3 dB" "wrote [^ ]*maps/plate\\.area\\.png")

# 3.
tremor(nonzero image "${WORK}/plate.h5" --grid nothere)
check_output("${output}" "error: [^ ]*plate\\.h5: no receiver grid named 'nothere'; it has area")
tremor(nonzero image "${WORK}/plate.h5" --tfm --mode L-L,T-T,L-L)
check_output("${output}" "error: --mode: view 'L-L' is given twice")
tremor(nonzero image "${WORK}/plate.h5" --combine all)
check_output("${output}" "error: [^ ]*plate\\.h5: --combine adds the maps of several shots, and grid 'area' belongs to none")
tremor(nonzero image "${WORK}/plate.h5" --quantity velocity)
check_output("${output}" "error: [^ ]*plate\\.h5: grid 'area' does not record velocity \\(it records displacement\\)")
tremor(0 run tests/data/cli/tiny.toml --backend serial -o "${WORK}/tiny.h5")
tremor(nonzero image "${WORK}/plate.h5" --baseline "${WORK}/tiny.h5")
check_output("${output}" "error: [^ ]*tiny\\.h5: the baseline has no receiver grid named 'area'")
tremor(nonzero image "${WORK}/tiny.h5")
check_output("${output}" "error: [^ ]*tiny\\.h5: no receiver grid in this result file")
tremor(nonzero image "${WORK}/none.h5")
check_output("${output}" "error: [^ ]*none\\.h5: no such result file")
