# `cmake --install` into a fresh prefix, then the installed command and package, away from the
# build tree: cmake -DBUILD=dir -DPREFIX=dir -DPYTHON=python3 -DMODEL=model.toml -P install_check.cmake
file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD}" --prefix "${PREFIX}" RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed:\n${out}${err}")
endif()
execute_process(COMMAND "${PREFIX}/bin/tremor" --version RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^tremor ")
  message(FATAL_ERROR "the installed tremor does not run:\n${out}${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=PYTHONPATH "PYTHONPATH=${PREFIX}/lib/python3/dist-packages"
                        "${PYTHON}" -c "import tremor; m = tremor.Model.load('${MODEL}'); r = tremor.run(m, backend='serial'); print(tremor.__file__, r.status)"
                WORKING_DIRECTORY "${PREFIX}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^${PREFIX}/lib/python3/dist-packages/tremor/__init__.py complete")
  message(FATAL_ERROR "the installed package does not run from ${PREFIX}:\n${out}${err}")
endif()
