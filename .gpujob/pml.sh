#!/bin/bash
# The PML plate against the same plate without its layer (docs/benchmarks.md "PML"): tremor run,
# sem, 1000 steps, float and double, two rounds each; then a float run's kernels under ncu.
[ -d .gpu ] || xz -dc .gpu.tar.xz | tar xf -
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64 TREMOR_SOURCE_DIR=$PWD CUDA_MODULE_LOADING=EAGER
R=$OUT/pml
mkdir -p $R results
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv > $R/gpu.txt; cat .gpu/COMMIT >> $R/gpu.txt
sed '/^\[\[absorbing\]\]/,$d' bench/models/plate-gll4-pml.toml > results/elastic.toml
for round in 1 2; do
  for precision in float double; do
    for case in pml elastic; do
      model=bench/models/plate-gll4-pml.toml; [ $case = elastic ] && model=results/elastic.toml
      echo "== round $round $case $precision" >> $R/runs.log
      .gpu/bin/tremor run $model --backend cuda --operator sem --precision $precision -o results/$case.h5 \
        > results/run.log 2>&1
      grep -E "speed|wall|error" results/run.log >> $R/runs.log
    done
  done
done
cat $R/runs.log
if command -v ncu > /dev/null && [ "${NCU:-1}" = 1 ]; then
  sed 's/duration = 2e-5/duration = 1e-6/' bench/models/plate-gll4-pml.toml > results/short.toml
  timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes.sum --launch-skip 300 \
    --launch-count 40 .gpu/bin/tremor run results/short.toml --backend cuda --operator sem --precision float \
    -o results/short.h5 > $R/ncu.txt 2>&1
  grep -E "add_nodes|update<|apply_elements|apply_columns|Duration|gpu__time|dram__bytes" $R/ncu.txt | head -60
fi
