# Decides whether the CUDA backend is built and provides tremor_sources_as_cuda().
if(NOT TREMOR_CUDA MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "TREMOR_CUDA must be AUTO, ON or OFF, not '${TREMOR_CUDA}'")
endif()

# TREMOR_CUDA_CHECK_ONLY: the device code compiled to PTX by an unoptimising front end, which
# checks that every CUDA source builds (a machine without a GPU: CI) in less time: sem's operator
# units in 40 to 45% of theirs, whose host code is compiled as always. Its kernels are for no GPU:
# run on one, the driver would compile unoptimised PTX at start-up. (Its host code stays at -O3: at
# -O2 sem's float operator unit compiled in 141 s rather than 212, but the 114 tests run first (the
# longest) took 1.65 times as long, sem's 2 to 4 times, 2026-12-07.)
option(TREMOR_CUDA_CHECK_ONLY "Compile the device code to unoptimised PTX only: a check that it builds, not a build to run on a GPU" OFF)

set(TREMOR_HAVE_CUDA OFF)
if(NOT TREMOR_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(TREMOR_CUDA_CHECK_ONLY)
      set(CMAKE_CUDA_ARCHITECTURES 90-virtual)  # PTX, no machine code (no ptxas)
    elseif(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90)  # Hopper (H100/H200); override on the command line
    endif()
    enable_language(CUDA)
    if(TREMOR_CUDA_CHECK_ONLY)
      add_compile_options($<$<COMPILE_LANGUAGE:CUDA>:-Xcicc=-O0>)
      add_compile_definitions(TREMOR_CUDA_CHECK_ONLY=1)  # (Exec::describe says so)
    endif()
    # CMake 3.25 predates nvcc's C++20 support (CUDA >= 12): teach it the flag.
    if(NOT "cuda_std_20" IN_LIST CMAKE_CUDA_COMPILE_FEATURES)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
      list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
    endif()
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    # One CUDA runtime for the process: every layer's shared library and the programs use the
    # toolkit's libcudart.so, so streams and allocations made in one library serve the others.
    set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)
    set(TREMOR_HAVE_CUDA ON)
  elseif(TREMOR_CUDA STREQUAL "ON")
    message(FATAL_ERROR "TREMOR_CUDA=ON but no CUDA compiler was found (set CMAKE_CUDA_COMPILER)")
  endif()
endif()
if(TREMOR_HAVE_CUDA AND TREMOR_CUDA_CHECK_ONLY)
  message(STATUS "tremor: CUDA backend ON, device code checked only (unoptimised PTX: not for a GPU)")
else()
  message(STATUS "tremor: CUDA backend ${TREMOR_HAVE_CUDA}")
endif()

# tremor_sources_as_cuda(DIR FILE...): the named files of DIR launch kernels (they call forall,
# forall_blocks or a reduction, or instantiate a header's template that does) and are compiled by
# nvcc in a CUDA build, so one body serves both backends; the CPU-only build compiles them with the
# C++ compiler. The list is written where the target is, not found by reading the files: the test
# cuda.sources (tests/cuda_sources.py) fails when a file compiled by the C++ compiler holds a kernel.
function(tremor_sources_as_cuda dir)
  foreach(name IN LISTS ARGN)
    if(NOT EXISTS "${dir}/${name}")
      message(FATAL_ERROR "tremor_sources_as_cuda: ${dir}/${name} is listed as a CUDA source but does not exist")
    endif()
    if(TREMOR_HAVE_CUDA)
      set_source_files_properties("${dir}/${name}" PROPERTIES LANGUAGE CUDA)
    endif()
  endforeach()
endfunction()

function(tremor_target_options target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>
    $<$<COMPILE_LANGUAGE:CUDA>:--extended-lambda --expt-relaxed-constexpr -Xcompiler=-Wall,-Wextra,-fopenmp>)
  if(TREMOR_WERROR)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Werror>
                                             $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings>)
  endif()
endfunction()
