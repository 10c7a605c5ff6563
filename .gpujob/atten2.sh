#!/bin/bash
# The memory variables in PointState's rows: the GPU tests that step them, then the attenuating
# plate's bench beside the elastic one (docs/benchmarks.md "Attenuation"), twice.
[ -d .gpu ] || xz -dc .gpu.tar.xz | tar xf -
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64 TREMOR_SOURCE_DIR=$PWD CUDA_MODULE_LOADING=EAGER
R=$OUT/att2
mkdir -p $R results
{ nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv; cat .gpu/COMMIT; } > $R/gpu.txt
if [ "${SKIP_TESTS:-0}" != 1 ]; then timeout 200 .gpu/bin/tremor_unit_tests --gtest_brief=1 --gtest_filter='SemPointState.*:SemOperator.*:ShotsTogether.AGpuStepsImmersedAndLossyCapturesTogether:ExplicitCheckpoint*' > $R/unit.log 2>&1
  echo "unit rc $?" >> $R/unit.log; grep -v "^warning" $R/unit.log | tail -4; fi
[ "${SKIP_TESTS:-0}" != 1 ] && [ -x .gpu/bin/tremor_verification_tests ] && { timeout 200 .gpu/bin/tremor_verification_tests --gtest_brief=1 \
  --gtest_filter='Attenuation.GpuPlaneWaves:Pml.GpuMatchesTheHost:Pml.AttenuatingMaterialInsideTheLayer' > $R/verif.log 2>&1
  echo "verification rc $?" >> $R/verif.log; tail -4 $R/verif.log; }
for round in ${ROUNDS:-1 2}; do
  .gpu/bin/tremor bench --problems gll4 --model bench/models/plate-gll4-attenuating.toml \
    --model bench/models/plate-gll4-attenuating-coarse.toml --operators sem sem:atomic --precisions float double \
    --orderings none --backend cuda --steps 50 --warmup 10 --json $R/bench$round.json > $R/bench$round.log 2>&1
  grep -E "^copy|sem" $R/bench$round.log | grep -E "copy|GDOF"
done
if [ "${NCU:-1}" = 1 ]; then
  for law in 1 4; do
    model=plate-gll4-attenuating; [ $law = 4 ] && model=plate-gll4-attenuating-coarse
    timeout 150 ncu --clock-control none --set full --import-source no --kernel-name-base demangled \
      -k "regex:apply_columns<.int.4, float, .int.2, .int.$law, .int.1, .int.1>" --launch-skip 3 --launch-count 1 \
      .gpu/bin/tremor bench --problems gll4 --model bench/models/$model.toml --operators sem:atomic \
      --precisions float --orderings none --backend cuda --steps 5 --warmup 2 > $R/ncu-law$law.txt 2>&1
    grep -E "Duration|DRAM Throughput|L2 Cache Throughput|Registers Per|Theoretical Occ|bytes transmitted per sector" \
      $R/ncu-law$law.txt | head -8
  done
fi
