#!/bin/bash
# The GPU suites of the carried bundle (.gpu.tar.xz: unit, parity, GPU verification), then
# `tremor bench fluid` (40^3 boxes, float three rounds, double one) and the gll4 plate's attenuating
# step (SEM=0: not), their results as one tar file (a call returns a limited number of files).
rm -rf .gpu; xz -dc .gpu.tar.xz | tar xf -
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64 TREMOR_SOURCE_DIR=$PWD NCCL_NVLS_ENABLE=0
R=$OUT/suite; mkdir -p $R
trap 'cd $OUT && tar cf suite.tar suite && rm -rf suite' EXIT
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv; cat .gpu/COMMIT; } > $R/gpu.txt; cat $R/gpu.txt
. .gpujob/gpu-tests.sh
for run in "float 1" "float 2" "float 3" "double 1"; do
  set -- $run
  timeout 60 .gpu/bin/tremor bench fluid --precision $1 --sizes 40 > $R/fluid-$1-$2.txt 2>&1
  echo "$1 round $2: $(grep -E '^ +40\^3 (solid|water|mixed)' $R/fluid-$1-$2.txt | awk '{printf "%s %s us %s ps %s %s us; ", $2, $6, $7, $8, $9}')"
done
[ "${SEM:-1}" = 1 ] || exit 0
for round in 1 2; do
  timeout 90 .gpu/bin/tremor bench --problems gll4 --model bench/models/plate-gll4-attenuating.toml \
    --model bench/models/plate-gll4-attenuating-coarse.toml --operators sem:atomic --precisions float \
    --orderings none --backend cuda --steps 50 --warmup 10 --json $R/sem-$round.json > $R/sem-$round.log 2>&1
  echo "sem round $round: $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(' '.join('%s %.2f (%.1f%%)' % (c['problem'][-15:], c['gdof_steps_per_second'], c['percent_of_roofline']) for c in d['cases']))" $R/sem-$round.json)"
done
xz -T8 $R/unit.log
