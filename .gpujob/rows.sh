#!/bin/bash
# The fluid's column kernel taking a block's consecutive elements side by side (sem/layout.hpp's
# RowsOrder) against element by element (TREMOR_FLUID_ROWS=0), one library (.gpu.tar.xz carried):
# the GPU tests the change touches (U, P and the GPU verification tests: gpu-tests.sh), then
# `tremor bench fluid` (40^3 boxes) with each in turn. TESTS=0: the benches only.
rm -rf .gpu; xz -dc .gpu.tar.xz | tar xf -
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64 TREMOR_SOURCE_DIR=$PWD NCCL_NVLS_ENABLE=0
R=$OUT/rows; mkdir -p $R
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv; cat .gpu/COMMIT; } > $R/gpu.txt; cat $R/gpu.txt
[ "${TESTS:-1}" != 0 ] && { U=${U:-'*Fluid*:*Sem*:*Immers*:*Piston*'} . .gpujob/gpu-tests.sh; }
for run in ${RUNS:-float-1 float-2 double-1 float-3}; do
  p=${run%-*} r=${run#*-}
  for v in 1 0; do
    TREMOR_FLUID_ROWS=$v timeout 80 .gpu/bin/tremor bench fluid --precision $p --sizes 40 > $R/fluid-$p-$r-rows$v.txt 2>&1
    echo "$p round $r rows$v: $(grep -E '^ +40\^3 (solid|water|mixed)' $R/fluid-$p-$r-rows$v.txt | awk '{printf "%s %s us %s ps %s, K_f %s us; ", $2, $6, $7, $8, $11}')"
  done
done
