# `tremor partition MODEL --domains N -o FILE` and `tremor run --decomposition FILE` end to end.
#   cmake -DTREMOR=path/to/tremor -DMODEL=model.toml -DOTHER=another.toml -DWORK=dir -P decomposition_scenario.cmake
# 1. It writes FILE (the decomposition file's first line), saying the subdomains and the shared
#    nodes, and leaves no FILE.tmp.
# 2. `tremor run --decomposition FILE` runs the subdomains of FILE and names it in its set-up.
# 3. A run asking for another number of subdomains, or of another mesh, is refused by name before
#    a result file exists; --domains with --block-size is refused.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(domains "${WORK}/model.domains")
include(${CMAKE_CURRENT_LIST_DIR}/checks.cmake)

# 1.
tremor(0 partition "${MODEL}" --domains 3 -o "${domains}")
check_output("${output}" "subdomains +3 \\(METIS k-way[^)]*\\), at most [0-9,]+ elements each; [0-9,]+ nodes shared"
             "wrote .*model\\.domains: reuse it with tremor run")
if(EXISTS "${domains}.tmp")
  message(FATAL_ERROR "${domains}.tmp left behind")
endif()
file(STRINGS "${domains}" first LIMIT_COUNT 1)
if(NOT first STREQUAL "# tremor decomposition 1")
  message(FATAL_ERROR "${domains} starts with '${first}'")
endif()

# 2.
tremor(0 run "${MODEL}" --backend serial --duration 1e-6 --decomposition "${domains}" -o "${WORK}/run.h5")
check_output("${output}" "subdomains +3 \\(METIS\\), stepped together" "decomposition into 3 subdomains \\(.*model\\.domains\\)"
             "output +.*run\\.h5 \\(complete\\)")

# 3.
tremor(nonzero run "${MODEL}" --duration 1e-6 --decomposition "${domains}" --domains 2 -o "${WORK}/refused.h5")
check_output("${output}" "error: .*model\\.domains: a decomposition into 3 subdomains, and --domains 2")
tremor(nonzero run "${OTHER}" --duration 1e-6 --decomposition "${domains}" -o "${WORK}/other.h5")
check_output("${output}" "error: .*model\\.domains: the decomposition was made for another mesh")
foreach(refused refused.h5 other.h5)
  if(EXISTS "${WORK}/${refused}")
    message(FATAL_ERROR "a refused run left ${WORK}/${refused}")
  endif()
endforeach()
tremor(nonzero partition "${MODEL}" --domains 2 --block-size 64 -o "${WORK}/x.domains")
check_output("${output}" "error: --partitioner and --block-size make a block file; --domains makes a decomposition file")
