#!/bin/bash
# Kernels launched as programmatic dependents against plain launches (.gpu.tar.xz with the unit,
# parity and verification test programs, carried): the GPU unit tests, the backend's parity tests
# and the GPU verification tests; `tremor bench fluid` (40^3 boxes) and the gll4 plate, elastic and
# attenuating, with TREMOR_PROGRAMMATIC_LAUNCH=0 and without in turn; the water box's step traced
# (tools/timeline). BENCH=0: the tests only; TESTS=0: the benches only.
rm -rf .gpu; xz -dc .gpu.tar.xz | tar xf -
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64 TREMOR_SOURCE_DIR=$PWD NCCL_NVLS_ENABLE=0
R=$OUT/launch; mkdir -p $R
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv; cat .gpu/COMMIT; } > $R/gpu.txt; cat $R/gpu.txt
[ "${TESTS:-1}" = 1 ] && . .gpujob/gpu-tests.sh
[ "${BENCH:-1}" = 1 ] || exit 0
as() { env TREMOR_PROGRAMMATIC_LAUNCH=$1 "${@:2}"; }
for run in "float 1" "float 2" "double 1"; do
  set -- $run
  for v in 1 0; do
    as $v timeout 60 .gpu/bin/tremor bench fluid --precision $1 --sizes 40 > $R/fluid-$1-$2-pdl$v.txt 2>&1
    echo "$1 round $2 pdl$v: $(grep -E '^ +40\^3 (solid|water|mixed)' $R/fluid-$1-$2-pdl$v.txt | awk '{printf "%s %s us %s ps %s %s us; ", $2, $6, $7, $8, $9}')"
  done
done
for round in 1 2; do
  for v in 1 0; do
    as $v timeout 90 .gpu/bin/tremor bench --problems gll4 --model bench/models/plate-gll4-attenuating.toml \
      --operators sem:atomic --precisions float --orderings none --backend cuda --steps 50 --warmup 10 \
      --json $R/sem-$round-pdl$v.json > $R/sem-$round-pdl$v.log 2>&1
    echo "sem round $round pdl$v: $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(' '.join('%s %.2f (%.1f%%)' % (c['problem'][-15:], c['gdof_steps_per_second'], c['percent_of_roofline']) for c in d['cases']))" $R/sem-$round-pdl$v.json)"
  done
done
TREMOR_TIMELINE=$R/trace.csv CUDA_INJECTION64_PATH=$PWD/.gpu/lib/libtremor_timeline.so \
  timeout 100 .gpu/bin/tremor bench fluid --precision float --sizes 40 > $R/fluid-traced.txt 2>&1
echo "traced rc $?" >> $R/fluid-traced.txt; grep -E "^ +40\^3 water|rc " $R/fluid-traced.txt
python3 tools/timeline/summarize.py $R/trace.csv --grid 12480 --run 1 > $R/step-water.txt 2>&1; sed -n '/^run 1:/,$p' $R/step-water.txt | head -14
xz -T8 $R/trace.csv $R/unit.log
