#!/bin/bash
# One call: the GPU tests of shots stepped together and checkpoints, then .gpujob/measure.sh.
xz -dc .gpu.tar.xz | tar xf -
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64 TREMOR_SOURCE_DIR=$PWD
mkdir -p $OUT/tests
{ nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv; cat .gpu/COMMIT; } > $OUT/tests/gpu.txt
timeout ${T0:-150} .gpu/bin/tremor_unit_tests --gtest_brief=1 \
  --gtest_filter='ShotsTogether.*:ExplicitCheckpoint*:OverThreadsGpu.*:ExplicitFluidGpu.*:FluidPmlGpu.*' > $OUT/tests/unit.log 2>&1
echo "unit rc $?" >> $OUT/tests/unit.log; grep -v "^warning" $OUT/tests/unit.log | tail -6
T1=${T1:-280} T2=${T2:-150} bash .gpujob/measure.sh
