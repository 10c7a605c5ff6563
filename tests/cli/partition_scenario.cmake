# `tremor partition MODEL -o FILE` end to end, on files it must create and replace.
#   cmake -DTREMOR=path/to/tremor -DMODEL=model.toml -DWORK=dir -P partition_scenario.cmake
# 1. It writes FILE (a block file: magic TRMBLOCK, the partitioner's name inside), prints the
#    blocks, the efficiency and the size written, and leaves no FILE.tmp.
# 2. A second run over FILE replaces it by a rename, not by rewriting it in place: a hard link to
#    the first FILE, made before the second run, still holds the first run's bytes, while FILE
#    holds the second run's (another partitioner).
# 3. An output that is a folder holding files cannot be replaced: non-zero exit, a message naming
#    it, the folder and its contents kept, no temporary left.
# 4. `tremor run --operator partitioned --blocks FILE` runs from it; another mesh's run refuses it.
cmake_minimum_required(VERSION 3.25)  # policies of today: if() does not dereference quoted strings
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(blocks "${WORK}/model.blocks")

include(${CMAKE_CURRENT_LIST_DIR}/checks.cmake)

# `tremor partition MODEL` with the arguments after `expect_rc` (checks.cmake's tremor()).
macro(partition expect_rc)
  tremor(${expect_rc} partition "${MODEL}" ${ARGN})
endmacro()

function(check_no_temporary path)
  if(EXISTS "${path}.tmp")
    message(FATAL_ERROR "${path}.tmp left behind")
  endif()
endfunction()

# 1. A new block file.
partition(0 -o "${blocks}")
check_output("${output}" "blocks +[0-9,]+ \\(" "efficiency +0\\.[0-9]+" "wrote .*model\\.blocks \\([0-9,]+ bytes\\)")
if(NOT EXISTS "${blocks}")
  message(FATAL_ERROR "expected ${blocks}")
endif()
check_no_temporary("${blocks}")
file(READ "${blocks}" magic LIMIT 8 HEX)
if(NOT magic STREQUAL "54524d424c4f434b")  # "TRMBLOCK"
  message(FATAL_ERROR "${blocks} does not start with the block file's magic TRMBLOCK: ${magic}")
endif()
file(STRINGS "${blocks}" names REGEX "aligned|greedy")
if(NOT names MATCHES "aligned")
  message(FATAL_ERROR "${blocks} does not name the aligned partitioner: '${names}'")
endif()
file(SHA256 "${blocks}" first)

# 2. Replaced atomically.
file(CREATE_LINK "${blocks}" "${WORK}/first.blocks")
partition(0 -o "${blocks}" --partitioner greedy)
check_output("${output}" "greedy, blocks of 512 nodes" "wrote .*model\\.blocks")
check_no_temporary("${blocks}")
file(SHA256 "${WORK}/first.blocks" linked)
if(NOT linked STREQUAL first)
  message(FATAL_ERROR "the first block file was rewritten in place, not replaced by a rename")
endif()
file(SHA256 "${blocks}" second)
if(second STREQUAL first)
  message(FATAL_ERROR "the second run did not replace ${blocks}")
endif()
file(STRINGS "${blocks}" names REGEX "aligned|greedy")
if(NOT names MATCHES "greedy")
  message(FATAL_ERROR "${blocks} does not name the greedy partitioner after the second run: '${names}'")
endif()

# 3. An output that cannot be replaced.
set(occupied "${WORK}/occupied")
file(WRITE "${occupied}/inside.txt" "kept")
partition(nonzero -o "${occupied}")
check_output("${output}" "error: [^\n]*occupied: refusing to write the block file there: it is a folder")
check_no_temporary("${occupied}")
file(READ "${occupied}/inside.txt" inside)
if(NOT inside STREQUAL "kept")
  message(FATAL_ERROR "the folder in the output's place was changed")
endif()

# 4. The block file reused by a run of the partitioned operator (the greedy one of step 2), and
#    refused, naming it, for another mesh.
execute_process(COMMAND "${TREMOR}" run "${MODEL}" --operator partitioned --blocks "${blocks}" --duration 1e-6
                        --backend serial -o "${WORK}/run.h5"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tremor run --blocks: exit status ${rc}\n${out}${err}")
endif()
check_output("${out}${err}" "partitioned operator" "blocks +[^\n]*model\\.blocks" "output +[^\n]*run\\.h5 \\(complete\\)")
execute_process(COMMAND "${TREMOR}" run tests/data/cli/tiny.toml --operator partitioned --blocks "${blocks}"
                        -o "${WORK}/other.h5"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "tremor run --blocks with another mesh's block file: exit status 0\n${out}${err}")
endif()
check_output("${out}${err}" "error: [^\n]*model\\.blocks: the partition was made for another mesh")
if(EXISTS "${WORK}/other.h5")
  message(FATAL_ERROR "a refused run left ${WORK}/other.h5")
endif()
