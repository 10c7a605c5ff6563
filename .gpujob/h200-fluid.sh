#!/bin/bash
# The fluid / solid node ratio of `tremor bench fluid` (40^3 boxes) and the gll4 plate's attenuating
# step on an H200 with the launches as landed (programmatic dependents), .gpu.tar.xz carried. On any
# other card it only says which card came (ANY=1 runs it there too).
R=$OUT/h200; mkdir -p $R
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $name"
case "$name" in *H200*) ;; *) [ "${ANY:-0}" = 1 ] || exit 0 ;; esac
rm -rf .gpu; xz -dc .gpu.tar.xz | tar xf -
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64 TREMOR_SOURCE_DIR=$PWD NCCL_NVLS_ENABLE=0
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv; cat .gpu/COMMIT; } > $R/gpu.txt; cat $R/gpu.txt
trap 'cd $OUT && tar cf h200.tar h200 && rm -rf h200' EXIT
for run in "float 1 1" "float 2 1" "float 3 0" "float 4 1" "double 1 1"; do
  set -- $run
  env TREMOR_PROGRAMMATIC_LAUNCH=$3 timeout 60 .gpu/bin/tremor bench fluid --precision $1 --sizes 40 \
    > $R/fluid-$1-$2-pdl$3.txt 2>&1
  echo "$1 round $2 pdl$3: $(grep -E '^ +40\^3 (solid|water|mixed)' $R/fluid-$1-$2-pdl$3.txt | awk '{printf "%s %s us %s ps %s %s us; ", $2, $6, $7, $8, $9}')"
done
for round in 1 2; do
  timeout 90 .gpu/bin/tremor bench --problems gll4 --model bench/models/plate-gll4-attenuating.toml \
    --model bench/models/plate-gll4-attenuating-coarse.toml --operators sem:atomic --precisions float \
    --orderings none --backend cuda --steps 50 --warmup 10 --json $R/sem-$round.json > $R/sem-$round.log 2>&1
  echo "sem round $round: $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(' '.join('%s %.2f (%.1f%%)' % (c['problem'][-15:], c['gdof_steps_per_second'], c['percent_of_roofline']) for c in d['cases']))" $R/sem-$round.json)"
done
