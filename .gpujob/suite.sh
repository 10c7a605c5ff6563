#!/bin/bash
xz -dc .gpu.tar.xz | tar xf -
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64 TREMOR_SOURCE_DIR=$PWD NCCL_NVLS_ENABLE=0
R=results/suite
mkdir -p $R
.gpu/bin/tremor_unit_tests --gtest_filter='OverThreadsGpu.*:ShotsTogether.*:OverThreads.*' --gtest_brief=1 > $R/targeted.log 2>&1
tail -5 $R/targeted.log
TREMOR_BENCH=0 TREMOR_GPU_TESTS="unit parity" .gpu/run $R > $R/run.log 2>&1
tail -15 $R/run.log
mkdir -p $OUT/suite; cp $R/*.txt $R/targeted.log $R/run.log $OUT/suite/ 2>/dev/null; true
