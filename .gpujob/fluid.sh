#!/bin/bash
# One call: the fluid's GPU unit tests, then `tremor bench fluid` in float and double (the operator
# by planes, the run's default, against columns, timed in the same run), and the immersed capture.
xz -dc .gpu.tar.xz | tar xf -
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64 TREMOR_SOURCE_DIR=$PWD NCCL_NVLS_ENABLE=0
R=$OUT/fluid
mkdir -p $R
{ nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv; cat .gpu/COMMIT; } > $R/gpu.txt
timeout ${T0:-150} .gpu/bin/tremor_unit_tests --gtest_brief=1 \
  --gtest_filter="${TESTS:-ExplicitFluid*:FluidPml*:ShotsTogether.*:ExplicitSnapshotValues*:CoupledParts.*}" > $R/unit.log 2>&1
echo "unit rc $?" >> $R/unit.log; grep -v "^warning" $R/unit.log | tail -6
for precision in ${PRECISIONS:-float double}; do
  timeout ${T1:-200} .gpu/bin/tremor bench fluid --precision $precision --output-dir $R/$precision > $R/bench-$precision.txt 2>&1
  echo "bench $precision rc $?" >> $R/bench-$precision.txt; tail -8 $R/bench-$precision.txt
done
timeout ${T2:-150} .gpu/bin/tremor_verification_tests --gtest_brief=1 \
  --gtest_filter="${VTESTS:-FluidGreenGpu.*:FluidPlaneWaveGpu.*}" > $R/verification.log 2>&1
echo "verification rc $?" >> $R/verification.log; grep -v "^warning" $R/verification.log | tail -4
