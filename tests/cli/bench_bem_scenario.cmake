# `tremor bench bem` on tiny meshes with the host backends, then its JSON checked.
#   cmake -DTREMOR=path/to/tremor -DWORK=dir -P bench_bem_scenario.cmake
# Checks, on a 24-element half-space patch (6 x 4 quadrilaterals) with serial and OpenMP: exit
# status 0; the mesh's Gauss points split into singular ones (24 elements x 4 Duffy triangles x
# 8^2) and regular ones, whole pieces of 8^2 points, at least one piece per off-diagonal pair; one
# assembly case per backend, timed at least twice, with OpenMP's speed-up over serial and none for
# serial itself; one host solve of order 72 with a positive rate and a non-zero foundation force;
# the guard, serial against OpenMP, exactly 0 (the same body computes every pair); no large case
# without a GPU, said so; no failures; the markdown written. Then the rigid-body sphere asked for
# with --large, without the solve: its row sums timed and its memory recorded. Then --dry-run
# sizing the paper's 4000 elements without timing anything, --hmatrix on the quadratic cavity
# (compressed against dense, 162 and 648 unknowns), and bad options refused.
cmake_minimum_required(VERSION 3.25)  # string(JSON)
include(${CMAKE_CURRENT_LIST_DIR}/checks.cmake)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

function(expect_greater value bound message)
  if(NOT value GREATER bound)
    message(FATAL_ERROR "${message}: ${value} is not above ${bound}")
  endif()
endfunction()
function(expect_equal value expected message)
  if(NOT value EQUAL expected)
    message(FATAL_ERROR "${message}: ${value}, expected ${expected}")
  endif()
endfunction()
function(expect_no_failures json)
  string(JSON n LENGTH "${json}" failures)
  if(NOT n EQUAL 0)
    string(JSON failures GET "${json}" failures)
    message(FATAL_ERROR "failed cases: ${failures}")
  endif()
endfunction()

execute_process(COMMAND "${TREMOR}" bench bem --sizes 24 --backend serial,openmp --repeats 2 --copy-mb 8
                        --output-dir "${WORK}/paper"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tremor bench bem: expected exit status 0, got ${rc}\n${out}${err}")
endif()
check_output("${out}" "patch: 24 elements \\(6 x 4 cells, direct\\), 576 pairs"
             "guard at 24 elements: serial - against openmp" "large case: not run \\(no GPU in this run"
             "wrote .*bem.json")
file(READ "${WORK}/paper/bem.json" json)
file(READ "${WORK}/paper/bem.md" md)
check_output("${md}" "\\| patch \\| 24 \\| openmp \\| - \\|" "\\| patch \\| 24 \\| 72 \\| openmp \\| LAPACK")
expect_no_failures("${json}")
foreach(key date git_commit cpu summary)
  string(JSON value GET "${json}" ${key})
  if(value STREQUAL "")
    message(FATAL_ERROR "empty ${key}")
  endif()
endforeach()
string(JSON n_backends LENGTH "${json}" backends)
expect_equal("${n_backends}" 2 "backends")
string(JSON copy GET "${json}" backends 0 copy_bandwidth_GBps)
expect_greater("${copy}" 0 "copy bandwidth")
string(JSON boundary GET "${json}" paper boundary_elements 3)
expect_equal("${boundary}" 1600 "the paper's boundary elements at 4000 mesh elements")

# The mesh: pairs, and the Gauss points the assembly evaluates.
string(JSON n_meshes LENGTH "${json}" meshes)
expect_equal("${n_meshes}" 1 "meshes")
string(JSON pairs GET "${json}" meshes 0 pairs)
string(JSON regular GET "${json}" meshes 0 regular_points)
string(JSON singular GET "${json}" meshes 0 singular_points)
string(JSON points GET "${json}" meshes 0 gauss_points)
string(JSON pushed GET "${json}" meshes 0 pushed_elements)
expect_equal("${pairs}" 576 "pairs")
expect_equal("${singular}" 6144 "singular points (24 x 4 x 64)")
math(EXPR sum "${regular} + ${singular}")
expect_equal("${points}" "${sum}" "Gauss points")
math(EXPR whole "${regular} % 64")
expect_equal("${whole}" 0 "regular points modulo 64")
math(EXPR least "(576 - 24) * 64 - 1")
expect_greater("${regular}" "${least}" "regular points against one piece per pair")
# The patch is 3 x 2 m: the 2 x 2 m foundation holds the middle 4 x 4 cells' centroids.
expect_equal("${pushed}" 16 "foundation elements")

# Assembly: one case per backend.
string(JSON n_assembly LENGTH "${json}" assembly)
expect_equal("${n_assembly}" 2 "assembly cases")
set(seen "")
foreach(i RANGE 1)
  string(JSON backend GET "${json}" assembly ${i} backend)
  string(JSON layout GET "${json}" assembly ${i} layout)
  string(JSON repeats GET "${json}" assembly ${i} repeats)
  string(JSON ms GET "${json}" assembly ${i} assembly_ms)
  string(JSON rate GET "${json}" assembly ${i} gauss_points_per_second)
  string(JSON case_points GET "${json}" assembly ${i} gauss_points)
  string(JSON x_serial GET "${json}" assembly ${i} speedup_over_serial)
  string(JSON x_serial_type TYPE "${json}" assembly ${i} speedup_over_serial)
  string(JSON row_sums_type TYPE "${json}" assembly ${i} row_sums_ms)
  list(APPEND seen ${backend})
  if(repeats LESS 2)
    message(FATAL_ERROR "${backend}: ${repeats} timed runs, asked for 2")
  endif()
  expect_greater("${ms}" 0 "${backend}: assembly ms")
  expect_greater("${rate}" 0 "${backend}: Gauss points/s")
  expect_equal("${case_points}" "${points}" "${backend}: Gauss points")
  if(NOT layout STREQUAL "-" OR NOT row_sums_type STREQUAL "NULL")
    message(FATAL_ERROR "${backend}: layout '${layout}' and row sums (${row_sums_type}) on a host backend's direct case")
  endif()
  if(backend STREQUAL "openmp")
    expect_greater("${x_serial}" 0 "openmp: speed-up over serial")
  elseif(NOT x_serial_type STREQUAL "NULL")
    message(FATAL_ERROR "serial: a speed-up over itself, ${x_serial}")
  endif()
endforeach()
if(NOT "serial" IN_LIST seen OR NOT "openmp" IN_LIST seen)
  message(FATAL_ERROR "assembly cases of ${seen}, expected serial and openmp")
endif()

# The solve: once on the host, by the first host backend (OpenMP).
string(JSON n_solve LENGTH "${json}" solve)
expect_equal("${n_solve}" 1 "solve cases")
string(JSON backend GET "${json}" solve 0 backend)
string(JSON solver GET "${json}" solve 0 solver)
string(JSON order GET "${json}" solve 0 order)
string(JSON flops GET "${json}" solve 0 flops)
string(JSON gflops GET "${json}" solve 0 gflops_per_second)
string(JSON force GET "${json}" solve 0 vertical_force 0)
if(NOT backend STREQUAL "openmp" OR NOT solver MATCHES "^LAPACK")
  message(FATAL_ERROR "solve on ${backend} by ${solver}, expected openmp and LAPACK")
endif()
expect_equal("${order}" 72 "order")
expect_equal("${flops}" 995328 "flops, (8/3) 72^3")
expect_greater("${gflops}" 0 "GFLOP/s")
# The foundation pushed up 1 mm takes about its static stiffness times 1 mm: 4 G r / (1 - nu) for
# the 2 m square (r = 1.13 m, G = 40.5 MPa, nu = 1/3) gives 2.7e5 N. The 3 x 2 m patch truncates
# the ground and 20 Hz adds inertia and damping, so only the order is checked.
expect_greater("${force}" 1e5 "vertical force")
if(force GREATER 1e6)
  message(FATAL_ERROR "vertical force ${force} N, above 1e6")
endif()

# The guard: serial against OpenMP.
string(JSON n_guard LENGTH "${json}" guard cases)
expect_equal("${n_guard}" 1 "guard cases")
string(JSON backend GET "${json}" guard cases 0 backend)
string(JSON reference GET "${json}" guard cases 0 reference)
string(JSON h_error GET "${json}" guard cases 0 h_relative_error)
string(JSON g_error GET "${json}" guard cases 0 g_relative_error)
if(NOT backend STREQUAL "serial" OR NOT reference STREQUAL "openmp")
  message(FATAL_ERROR "guard of ${backend} against ${reference}, expected serial against openmp")
endif()
expect_equal("${h_error}" 0 "guard, H")
expect_equal("${g_error}" 0 "guard, G")

string(JSON large GET "${json}" large elements)
expect_equal("${large}" 0 "large case elements without a GPU")
string(JSON skipped GET "${json}" skipped 0 case)
if(NOT skipped STREQUAL "large case")
  message(FATAL_ERROR "first skipped case '${skipped}', expected the large case")
endif()

# A sphere of 24 elements (2 divisions) as the large case, thread layout asked (the host has one).
execute_process(COMMAND "${TREMOR}" bench bem --sizes 6 --backend openmp --large 24 --no-solve --layout thread
                        --repeats 1 --copy-mb 8 --output-dir "${WORK}/large"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tremor bench bem --large 24: expected exit status 0, got ${rc}\n${out}${err}")
endif()
check_output("${out}" "large: 24 elements \\(sphere, 2 divisions, rigid_body\\)" "H and G allocated")
file(READ "${WORK}/large/bem.json" json)
expect_no_failures("${json}")
string(JSON n_solve LENGTH "${json}" solve)
expect_equal("${n_solve}" 0 "solve cases with --no-solve")
string(JSON free_term GET "${json}" meshes 1 free_term)
string(JSON row_sums GET "${json}" assembly 1 row_sums_ms)
string(JSON case GET "${json}" assembly 1 case)
string(JSON n_memory LENGTH "${json}" large memory)
string(JSON matrix GET "${json}" large memory 0 matrix_bytes)
if(NOT free_term STREQUAL "rigid_body" OR NOT case STREQUAL "large")
  message(FATAL_ERROR "large case: free term ${free_term}, case ${case}")
endif()
expect_greater("${row_sums}" 0 "large case: row sums ms")
expect_equal("${n_memory}" 1 "large case: memory records")
expect_equal("${matrix}" 165888 "large case: H and G bytes, 2 x 9 x 24^2 x 16")

# --dry-run: the paper's sizes, nothing timed or written.
execute_process(COMMAND "${TREMOR}" bench bem --dry-run --backend serial
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tremor bench bem --dry-run: exit status ${rc}\n${out}${err}")
endif()
check_output("${out}" "240 elements +20 x 12 +cells +57,600 pairs" "4,000 elements +80 x 50 +cells +16,000,000 pairs"
             "H \\+ G 4\\.29 GiB" "large case: none")
if(out MATCHES " ms|GB/s")
  message(FATAL_ERROR "--dry-run timed something:\n${out}")
endif()

# --hmatrix: the compressed solver on the quadratic cavity at 1 and 2 divisions (162 and 648
# unknowns) against the dense one, on OpenMP: both sizes solved and compared (10x the tolerance,
# 1e-5, as the unit tests bound it), the stored values' exponent fitted, the report written.
execute_process(COMMAND "${TREMOR}" bench bem --hmatrix 1,2 --backend openmp --copy-mb 8 --output-dir "${WORK}/hmatrix"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tremor bench bem --hmatrix: expected exit status 0, got ${rc}\n${out}${err}")
endif()
check_output("${out}" "openmp, 1 divisions \\(162 unknowns\\)" "openmp, 2 divisions \\(648 unknowns\\)"
             "stored values grow as N\\^" "wrote .*bem_hmatrix.json")
file(READ "${WORK}/hmatrix/bem_hmatrix.json" json)
expect_no_failures("${json}")
string(JSON n_cases LENGTH "${json}" cases)
expect_equal("${n_cases}" 2 "--hmatrix cases")
foreach(i 0 1)
  string(JSON apart GET "${json}" cases ${i} u_apart)
  if(apart STREQUAL "null" OR apart GREATER_EQUAL 1e-4)
    message(FATAL_ERROR "--hmatrix case ${i}: compressed and dense u ${apart} apart")
  endif()
endforeach()
string(JSON exponent GET "${json}" fits 0 stored_exponent)
expect_greater("${exponent}" 0 "--hmatrix: the stored values' exponent")

foreach(bad "--large;5;the sphere needs at least 6 elements" "--sizes;20000;--sizes 20000: boundary-element assembly"
            "--layout;diagonal;--layout: diagonal not in" "--hmatrix;0;--hmatrix: must be a whole number in \\[1, 200\\]")
  list(GET bad 0 option)
  list(GET bad 1 value)
  list(GET bad 2 expect)
  execute_process(COMMAND "${TREMOR}" bench bem --dry-run ${option} ${value} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(rc EQUAL 0 OR NOT "${out}${err}" MATCHES "${expect}")
    message(FATAL_ERROR "${option} ${value}: expected a refusal matching '${expect}', got ${rc}\n${out}${err}")
  endif()
endforeach()
message(STATUS "tremor bench bem: ${n_assembly} assembly cases, the solve and the guard checked")
