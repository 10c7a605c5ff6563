#!/bin/bash
# The whole parity suite (CPU against GPU, every operator and backend) on .gpu.tar.xz, carried.
rm -rf .gpu; xz -dc .gpu.tar.xz | tar xf -
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64 TREMOR_SOURCE_DIR=$PWD NCCL_NVLS_ENABLE=0
R=$OUT/parity; mkdir -p $R
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv; cat .gpu/COMMIT; } > $R/gpu.txt; cat $R/gpu.txt
timeout ${T:-400} .gpu/bin/tremor_parity_tests --gtest_brief=1 > $R/parity.log 2>&1; echo "parity rc $?" >> $R/parity.log
grep -v "^warning" $R/parity.log | tail -5
