#!/bin/bash
# The attenuating plate's column kernels under Nsight Compute (full set, one launch each: every solid,
# coarse-grained, elastic), then the PML plate's ratio in double over 5000 steps, three rounds.
[ -d .gpu ] || xz -dc .gpu.tar.xz | tar xf -
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64 TREMOR_SOURCE_DIR=$PWD CUDA_MODULE_LOADING=EAGER
R=$OUT/att
mkdir -p $R results
{ nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv; cat .gpu/COMMIT; } > $R/gpu.txt
for c in "1:plate-gll4-attenuating" "4:plate-gll4-attenuating-coarse" "0:plate-gll4-attenuating"; do
  law=${c%%:*}; model=${c#*:}
  timeout 150 ncu --clock-control none --set full --import-source no --kernel-name-base demangled \
    -k "regex:apply_columns<.int.4, float, .int.2, .int.$law, .int.1, .int.1>" --launch-skip 3 --launch-count 1 \
    .gpu/bin/tremor bench --problems gll4 --model bench/models/$model.toml --operators sem:atomic \
    --precisions float --orderings none --backend cuda --steps 5 --warmup 2 > $R/ncu-law$law.txt 2>&1
  grep -E "^  [a-z].*\(|Duration|DRAM Throughput|Registers Per|Achieved Occ|Theoretical Occ|Warp Cycles Per Issued" \
    $R/ncu-law$law.txt | head -8
done
if [ "${PMLD:-1}" = 1 ]; then
  sed 's/duration = 2e-5/duration = 1e-4/' bench/models/plate-gll4-pml.toml > results/pml5k.toml
  sed '/^\[\[absorbing\]\]/,$d' results/pml5k.toml > results/el5k.toml
  for round in 1 2 3; do
    for case in pml el; do
      .gpu/bin/tremor run results/${case}5k.toml --backend cuda --operator sem --precision double -o results/$case.h5 \
        > results/run.log 2>&1
      echo "round $round double $case $(grep -E 'speed|error' results/run.log | tr -s ' ' | tr '\n' ' ')" >> $R/runs.log
    done
  done
  cat $R/runs.log
fi
