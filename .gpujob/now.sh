#!/bin/bash
# One call: the GPU tests of the newest changes, the PML plate, the immersed captures.
xz -dc .gpu.tar.xz | tar xf -
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64 TREMOR_SOURCE_DIR=$PWD NCCL_NVLS_ENABLE=0
mkdir -p $OUT/tests
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv > $OUT/tests/gpu.txt; cat .gpu/COMMIT >> $OUT/tests/gpu.txt
timeout ${T1:-200} .gpu/bin/tremor_unit_tests --gtest_brief=1 \
  --gtest_filter='ShotsTogether.*:ExplicitFluidGpu.*:FluidPmlGpu.*:ExplicitSubdomain.*:OverThreadsGpu.*' > $OUT/tests/unit.log 2>&1
echo "unit rc $?" >> $OUT/tests/unit.log; grep -v "^warning" $OUT/tests/unit.log | tail -6
NCU=${NCU:-1} timeout ${T2:-230} bash .gpujob/pml.sh
timeout ${T3:-150} bash .gpujob/immersed.sh
