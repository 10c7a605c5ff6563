#!/bin/bash
# The fluid bench (40^3 box) in float twice and double once, and the gll4 plate's one-shot sem
# step beside it, on the build of the committed tree.
[ -d .gpu ] || xz -dc .gpu.tar.xz | tar xf -
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64 TREMOR_SOURCE_DIR=$PWD NCCL_NVLS_ENABLE=0
R=$OUT/fluid
mkdir -p $R
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv; cat .gpu/COMMIT; } > $R/gpu.txt 2>&1
for precision in ${PRECISIONS:-float double float}; do
  echo "=== $precision" >> $R/bench.txt
  timeout 120 .gpu/bin/tremor bench fluid --precision $precision --sizes 40 2>&1 | grep -v "^warning" >> $R/bench.txt
  echo "bench rc $?" >> $R/bench.txt
done
grep -E "^ +40\^3|rc" $R/bench.txt
timeout 100 .gpu/bin/tremor bench --problems gll4 --operators sem:atomic --precisions float --orderings none \
  --steps 100 --min-seconds 1 > $R/gll4.txt 2>&1
grep -E "GDOF|copy bandwidth" $R/gll4.txt | cut -c1-150
