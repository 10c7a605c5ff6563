#!/bin/bash
# A new libtremor_sem.so (.gpu.tar.xz) against the library before it (.gpu/lib-base/libtremor_sem.so,
# preloaded; first used for the column kernels' face sums, docs/benchmarks.md): the GPU unit tests,
# the backend's parity tests and the GPU verification tests on the new library (gpu-tests.sh); then
# `tremor bench fluid` (40^3 boxes) and the gll4 plate, elastic and attenuating, with each library
# of LIBS ("new base" by default) in turn.
# BENCH=0: the tests only; TESTS=0: the benches only; TESTS=all: the whole parity suite.
# EXTRACT=0 keeps the .gpu of a call before on the same machine; .gpu-base.tar.xz (the library
# before, as .gpu/lib-base/) is unpacked where carried.
[ "${EXTRACT:-1}" = 1 ] && { rm -rf .gpu; xz -dc .gpu.tar.xz | tar xf -; }
[ -f .gpu-base.tar.xz ] && xz -dc .gpu-base.tar.xz | tar xf -
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64 TREMOR_SOURCE_DIR=$PWD NCCL_NVLS_ENABLE=0
R=$OUT/pairs; mkdir -p $R
# (one file back: a call returns a limited count of files)
trap 'tar cf $OUT/pairs.tar -C $OUT pairs --remove-files 2>/dev/null' EXIT
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv; cat .gpu/COMMIT; } > $R/gpu.txt; cat $R/gpu.txt
if [ "${TESTS:-1}" != 0 ]; then
  [ "${TESTS:-1}" = all ] && P='*'
  . .gpujob/gpu-tests.sh
fi
[ "${BENCH:-1}" = 1 ] || exit 0
lib() { if [ $1 = base ]; then env LD_PRELOAD=$PWD/.gpu/lib-base/libtremor_sem.so "${@:2}"; else "${@:2}"; fi; }
for run in ${RUNS:-float-1 double-1}; do
  p=${run%-*} r=${run#*-}
  for v in ${LIBS:-new base}; do
    lib $v timeout 80 .gpu/bin/tremor bench fluid --precision $p --sizes 40 > $R/fluid-$p-$r-$v.txt 2>&1
    echo "$p round $r $v: $(grep -E '^ +40\^3 (solid|water|mixed)' $R/fluid-$p-$r-$v.txt | awk '{printf "%s %s us %s ps %s, K_f %s us; ", $2, $6, $7, $8, $11}')"
  done
done
for r in ${SEM:-1}; do
  for v in ${LIBS:-new base}; do
    lib $v timeout 90 .gpu/bin/tremor bench --problems gll4 --model bench/models/plate-gll4-attenuating.toml \
      --operators sem:atomic --precisions float --orderings none --backend cuda --steps 50 --warmup 10 \
      --json $R/sem-$r-$v.json > $R/sem-$r-$v.log 2>&1
    echo "sem round $r $v: $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(' '.join('%s %.2f (%.1f%%)' % (c['problem'][-15:], c['gdof_steps_per_second'], c['percent_of_roofline']) for c in d['cases']))" $R/sem-$r-$v.json)"
  done
done
