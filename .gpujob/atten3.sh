#!/bin/bash
# The attenuating plate's bench with the memory variables' streaming hints and without them
# (TREMOR_NO_HINT, a binary built to compare them), alternately, twice each, in one call.
[ -d .gpu ] || xz -dc .gpu.tar.xz | tar xf -
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64 TREMOR_SOURCE_DIR=$PWD CUDA_MODULE_LOADING=EAGER
R=$OUT/att3
mkdir -p $R
{ nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv; cat .gpu/COMMIT; } > $R/gpu.txt
cat $R/gpu.txt
for round in 1 2; do
  for hint in yes no; do
    if [ $hint = no ]; then export TREMOR_NO_HINT=1; else unset TREMOR_NO_HINT; fi
    .gpu/bin/tremor bench --problems gll4 --model bench/models/plate-gll4-attenuating.toml \
      --model bench/models/plate-gll4-attenuating-coarse.toml --operators sem sem:atomic --precisions float double \
      --orderings none --backend cuda --steps 50 --warmup 10 --json $R/bench-$hint-$round.json > $R/bench-$hint-$round.log 2>&1
    echo "== hints $hint round $round"; grep -E "^copy|GDOF" $R/bench-$hint-$round.log | sed 's/setup.*//'
  done
done
