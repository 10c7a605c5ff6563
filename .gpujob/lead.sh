#!/bin/bash
# One call: the GPU unit suite, then `tremor bench fluid` (40^3 box; its "late" columns: the fluid
# waiting for the solid's update) in float and double, then a timeline of the water and mixed boxes
# in float. GLL4=1: the gll4 plate's one-shot sem step beside them (the solid kernel's speed).
[ -d .gpu ] || xz -dc .gpu.tar.xz | tar xf -
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64 TREMOR_SOURCE_DIR=$PWD NCCL_NVLS_ENABLE=0
R=$OUT/lead
mkdir -p $R
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv; cat .gpu/COMMIT; } > $R/gpu.txt 2>&1
if [ -z "$SKIP_TESTS" ]; then
  timeout ${T0:-300} .gpu/bin/tremor_unit_tests --gtest_brief=1 ${TESTS:+--gtest_filter=$TESTS} > $R/unit.log 2>&1
  echo "unit rc $?" >> $R/unit.log; grep -v "^warning" $R/unit.log | tail -8
  xz -T8 $R/unit.log
fi
B=$R/bench.txt
for round in ${ROUNDS:-1}; do
  for precision in ${PRECISIONS:-float double}; do
    echo "=== round $round, $precision" >> $B
    timeout ${T1:-120} .gpu/bin/tremor bench fluid --precision $precision --sizes 40 >> $B 2>&1
    echo "bench rc $?" >> $B
    grep -E "^ +40\^3" $B | tail -3
  done
done
if [ "${GLL4:-0}" = 1 ]; then
  timeout 100 .gpu/bin/tremor bench --problems gll4 --operators sem:atomic --precisions float --orderings none \
    --steps 100 --min-seconds 1 > $R/gll4.txt 2>&1
  grep -E "GDOF|copy bandwidth" $R/gll4.txt | cut -c1-150
fi
if [ -z "$SKIP_TIMELINE" ]; then
  TREMOR_TIMELINE=$R/trace.csv CUDA_INJECTION64_PATH=$PWD/.gpu/lib/libtremor_timeline.so \
    timeout ${T2:-120} .gpu/bin/tremor bench fluid --precision float --sizes 40 > $R/traced.txt 2>&1
  echo "traced rc $?" >> $R/traced.txt
  # (run 1: the run's own step; run 3: the same with the fluid waiting for the solid's update)
  for args in "--grid 12480 --run 1" "--grid 12480 --run 3" "--grid 6400 --run 1"; do
    python3 tools/timeline/summarize.py $R/trace.csv $args >> $R/traced.txt 2>&1
  done
  grep -E "^ +40\^3|rc" $R/traced.txt
  rm -f $R/trace.csv
fi
