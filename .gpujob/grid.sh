#!/bin/bash
# The GPU suites and the PML plate with the layer's grid damping (the default), without it
# (grid_damping = 0) and without the layer, side by side in one call (docs/benchmarks.md "PML").
[ -d .gpu ] || xz -dc .gpu.tar.xz | tar xf -
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64 TREMOR_SOURCE_DIR=$PWD CUDA_MODULE_LOADING=EAGER
R=$OUT/grid
mkdir -p $R results
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv > $R/gpu.txt; cat .gpu/COMMIT >> $R/gpu.txt
. .gpujob/gpu-tests.sh
timeout 200 .gpu/bin/tremor_verification_tests --gtest_filter='Pml.*:GrowthWatch.*' > $R/pml.log 2>&1
echo "pml rc $?" >> $R/pml.log; grep -E "OK|FAILED|rc |pml  " $R/pml.log
sed '/^\[\[absorbing\]\]/,$d' bench/models/plate-gll4-pml.toml > results/elastic.toml
{ cat bench/models/plate-gll4-pml.toml; echo "grid_damping = 0"; } > results/nogrid.toml
for round in 1 2; do
  for precision in float double; do
    for case in pml nogrid elastic; do
      model=bench/models/plate-gll4-pml.toml; [ $case != pml ] && model=results/$case.toml
      echo "== round $round $case $precision" >> $R/runs.log
      timeout 120 .gpu/bin/tremor run $model --backend cuda --operator sem --precision $precision \
        -o results/$case.h5 > results/run.log 2>&1
      grep -E "speed|wall|error|stable step  |steps  " results/run.log >> $R/runs.log
    done
  done
done
cat $R/runs.log
# The growing block of docs/verification.md on the GPU: with the grid damping it completes.
timeout 60 .gpu/bin/tremor run .gpujob/growing.toml --backend cuda -o results/g.h5 > $R/growing.log 2>&1
echo "growing rc $?" >> $R/growing.log; tail -3 $R/growing.log
