#!/bin/bash
# main's GPU unit and parity suites; then, on whichever card came, the fluid boxes (float), the gll4
# elastic step and the attenuating plate's bench (one round), for the figures still owed.
rm -rf .gpu; xz -dc .gpu.tar.xz | tar xf -
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64 TREMOR_SOURCE_DIR=$PWD NCCL_NVLS_ENABLE=0
R=$OUT/first; mkdir -p $R
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv; cat .gpu/COMMIT; } > $R/gpu.txt 2>&1
cat $R/gpu.txt
timeout 240 .gpu/bin/tremor_unit_tests --gtest_brief=1 > $R/unit.log 2>&1; echo "unit rc $?" >> $R/unit.log
grep -v "^warning" $R/unit.log | tail -6
timeout 300 .gpu/bin/tremor_parity_tests --gtest_brief=1 > $R/parity.log 2>&1; echo "parity rc $?" >> $R/parity.log
tail -4 $R/parity.log
xz -T8 $R/unit.log
if [ "${BENCH:-1}" = 1 ]; then
  timeout 60 .gpu/bin/tremor bench fluid --precision float --sizes 40 > $R/fluid.txt 2>&1; echo "rc $?" >> $R/fluid.txt
  grep -E "^ +40\^3" $R/fluid.txt | tail -3
  timeout 60 .gpu/bin/tremor bench --problems gll4 --model bench/models/plate-gll4-attenuating.toml --operators sem:atomic \
    --precisions float --orderings none --backend cuda --steps 50 --warmup 10 --json $R/att.json > $R/att.log 2>&1
  grep -E "^copy|GDOF" $R/att.log | cut -c1-160
fi
