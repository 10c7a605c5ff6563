#!/bin/bash
# The attenuating column kernel asking L2 for the memory variables of the block `ahead` blocks on
# as well as its own (TREMOR_PREFETCH_AHEAD, 0: its own only), one library (.gpu.tar.xz carried):
# the sem and attenuation unit tests with a distance set, then the gll4 plate with every solid and
# coarse-grained, float, at each distance of AHEAD in turn. TESTS=0: the benches only.
rm -rf .gpu; xz -dc .gpu.tar.xz | tar xf -
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64 TREMOR_SOURCE_DIR=$PWD NCCL_NVLS_ENABLE=0
R=$OUT/ahead; mkdir -p $R
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv; cat .gpu/COMMIT; } > $R/gpu.txt; cat $R/gpu.txt
if [ "${TESTS:-1}" != 0 ]; then
  TREMOR_PREFETCH_AHEAD=264 timeout 200 .gpu/bin/tremor_unit_tests --gtest_brief=1 \
    --gtest_filter='*Sem*:*Atten*:*Viscoel*:*Checkpoint*' > $R/unit.log 2>&1
  echo "unit rc $?" >> $R/unit.log; grep -v "^warning" $R/unit.log | tail -3
  TREMOR_PREFETCH_AHEAD=264 timeout 100 .gpu/bin/tremor_verification_tests --gtest_filter='*Gpu*' > $R/verif.log 2>&1
  echo "verification rc $?" >> $R/verif.log; grep -E "PASSED|FAILED|rc " $R/verif.log
fi
for r in ${ROUNDS:-1 2}; do
  for a in ${AHEAD:-0 264 528 1056}; do
    TREMOR_PREFETCH_AHEAD=$a timeout 90 .gpu/bin/tremor bench --problems gll4 \
      --model bench/models/plate-gll4-attenuating.toml --model bench/models/plate-gll4-attenuating-coarse.toml \
      --operators sem:atomic --precisions float --orderings none --backend cuda --steps 50 --warmup 10 \
      --json $R/sem-$r-$a.json > $R/sem-$r-$a.log 2>&1
    echo "round $r ahead $a: $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(' '.join('%s %.2f (%.1f%%)' % (c['problem'][-12:], c['gdof_steps_per_second'], c['percent_of_roofline']) for c in d['cases']))" $R/sem-$r-$a.json)"
  done
done
tar cf $OUT/ahead.tar -C $OUT ahead --remove-files 2>/dev/null || true
