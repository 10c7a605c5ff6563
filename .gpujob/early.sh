#!/bin/bash
# One call: the fluid's GPU unit tests, `tremor bench fluid` (the solid joining at the fluid's pressure
# against waiting for its update, in the same run) in float twice and double once, and the water
# box's step on the GPU timeline. Few files come back: keep them few.
[ -d .gpu ] || xz -dc .gpu.tar.xz | tar xf -
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64 TREMOR_SOURCE_DIR=$PWD NCCL_NVLS_ENABLE=0
R=$OUT/early; mkdir -p $R
{ nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv; cat .gpu/COMMIT; date; } > $R/gpu.txt 2>&1
timeout ${T0:-200} .gpu/bin/tremor_unit_tests --gtest_brief=1 \
  --gtest_filter="${TESTS:-ExplicitFluid*:FluidPml*:ShotsTogether.*:ExplicitSnapshotValues*:CoupledParts.*:ExplicitCheckpoint*}" > $R/unit.log 2>&1
echo "unit rc $?" >> $R/unit.log; grep -v "^warning" $R/unit.log | tail -6
for run in float-1 double float-2; do
  timeout 200 .gpu/bin/tremor bench fluid --precision ${run%-*} --sizes 40 --output-dir $R/json-$run > $R/bench-$run.txt 2>&1
  echo "bench $run rc $?" >> $R/bench-$run.txt; grep -E "^ +40|rc" $R/bench-$run.txt | cut -c1-110
  grep -E "^ +40" $R/bench-$run.txt | awk '{print "   ", $1, $2, "late:", $(NF-1), $NF}'
done
T=/tmp/trace.csv
TREMOR_TIMELINE=$T CUDA_INJECTION64_PATH=$PWD/.gpu/lib/libtremor_timeline.so timeout 150 .gpu/bin/tremor bench fluid \
  --precision float --sizes 40 > /tmp/traced.txt 2>&1
grid=$(python3 -c "
import csv,collections
c=collections.Counter(r['grid'] for r in csv.DictReader(open('$T')) if 'add_columns' in r['name'])
print(max((int(g) for g in c if c[g] >= 900), default=0))")
{ grep -E "^ +40" /tmp/traced.txt; for run in 1 3; do python3 tools/timeline/summarize.py $T --grid $grid --run $run; done; } > $R/timeline.txt 2>&1
cut -c1-160 $R/timeline.txt | grep -v "^  run" | head -40
