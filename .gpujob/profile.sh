#!/bin/bash
# Where the PML plate's step goes (Nsight Compute, full set, one launch of each kernel of the layer,
# the column kernel and the update), and the plate's ratio over 5000 steps, three rounds (PRECISIONS: float).
[ -d .gpu ] || xz -dc .gpu.tar.xz | tar xf -
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64 TREMOR_SOURCE_DIR=$PWD CUDA_MODULE_LOADING=EAGER
R=$OUT/prof
mkdir -p $R results
{ nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv; cat .gpu/COMMIT; command -v nsys ncu; } > $R/gpu.txt
sed 's/duration = 2e-5/duration = 1e-4/' bench/models/plate-gll4-pml.toml > results/pml5k.toml
sed '/^\[\[absorbing\]\]/,$d' results/pml5k.toml > results/el5k.toml
for precision in ${PRECISIONS:-float}; do
  for round in ${ROUNDS:-1 2 3}; do
    for case in pml el; do
      .gpu/bin/tremor run results/${case}5k.toml --backend cuda --operator sem --precision $precision \
        -o results/$case.h5 > results/run.log 2>&1
      echo "round $round $precision $case $(grep -E 'speed|error' results/run.log | tr -s ' ' | tr '\n' ' ')" >> $R/runs.log
    done
  done
done
cat $R/runs.log
sed 's/duration = 2e-5/duration = 1e-6/' bench/models/plate-gll4-pml.toml > results/short.toml
for k in ${KERNELS:-apply_elements add_nodes apply_columns update<}; do
  timeout 120 ncu --clock-control none --set full --import-source no --kernel-name-base demangled \
    -k "regex:$k" --launch-skip 6 --launch-count 1 .gpu/bin/tremor run results/short.toml --backend cuda \
    --operator sem --precision float -o results/short.h5 > "$R/ncu-${k//</}.txt" 2>&1
  grep -E "^  [a-z].*\(|Duration|DRAM Throughput|Registers Per|Achieved Occ|Theoretical Occ|Warp Cycles Per Issued" \
    "$R/ncu-${k//</}.txt" | head -12
done
